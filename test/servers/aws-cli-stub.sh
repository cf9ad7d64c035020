#!/bin/bash
# A stand-in for the AWS CLI in the EC2 benchmark test: s3://<bucket>/<key> is $S3ROOT/<key>.
# Supports what integ/handlers/ec2-benchmark/run.sh calls: s3 cp (both ways), s3api head-object,
# s3 rm --recursive. Every call is appended to $S3ROOT/.calls.
set -euo pipefail
to_path() { local u="${1#s3://}"; echo "$S3ROOT/${u#*/}"; }
echo "aws $*" >> "$S3ROOT/.calls"
if [ "$1 $2" = "s3 cp" ]; then
  shift 2
  if [ "$1" = --quiet ]; then shift; fi
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
