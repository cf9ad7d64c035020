#!/bin/bash
# A stand-in for the AWS CLI in the EC2 benchmark test: s3://<bucket>/<key> is $S3ROOT/<key>.
# Supports what integ/handlers/ec2-benchmark/run.sh calls: s3 cp (both ways, with --quiet and
# --debug), s3api head-object, s3 rm --recursive. Every call is appended to $S3ROOT/.calls.
# Like the real CLI, `s3 cp` spends STUB_STARTUP_MS starting up before its first S3 request (which
# --debug logs to stderr as botocore does) and STUB_TRANSFER_MS transferring (both default 0).
set -euo pipefail
to_path() { local u="${1#s3://}"; echo "$S3ROOT/${u#*/}"; }
pause() { sleep "$(printf '%d.%03d' $(( $1 / 1000 )) $(( $1 % 1000 )))"; }
echo "aws $*" >> "$S3ROOT/.calls"
if [ "$1 $2" = "s3 cp" ]; then
  shift 2
  debug=false
  while [[ $1 == --* ]]; do
    if [ "$1" = --debug ]; then debug=true; fi
    shift
  done
  pause "${STUB_STARTUP_MS:-0}"
  if $debug; then
    op=PutObject
    if [[ $1 == s3://* ]]; then op=GetObject; fi
    echo "$(date '+%Y-%m-%d %H:%M:%S,%3N') - MainThread - botocore.endpoint - DEBUG - Making request for OperationModel(name=$op) with params: {}" >&2
  fi
  pause "${STUB_TRANSFER_MS:-0}"
  if [[ $1 == s3://* ]]; then
    cp "$(to_path "$1")" "$2"
  else
    dst="$(to_path "$2")"
    mkdir -p "$(dirname "$dst")"
    cp "$1" "$dst"
  fi
elif [ "$1 $2" = "s3api head-object" ]; then
  shift 2
  key=""
  while [ $# -gt 0 ]; do
    if [ "$1" = --key ]; then key="$2"; shift; fi
    shift
  done
  [ -e "$S3ROOT/$key" ]
elif [ "$1 $2" = "s3 rm" ]; then
  last=""
  for arg in "$@"; do last="$arg"; done
  rm -rf "$(to_path "$last")"
else
  echo "aws-cli-stub: unsupported: $*" >&2
  exit 2
fi
