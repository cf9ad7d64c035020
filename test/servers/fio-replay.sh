#!/usr/bin/env bash
# Stands in for fio where it is not installed: writes the recorded output of the job named by
# --name (test/fixtures/fio/<name>.json, from a real fio run) to --output, or to stdout.
set -euo pipefail
name=''
output=''
for arg in "$@"; do
  case "$arg" in
    --name=*) name="${arg#--name=}" ;;
    --output=*) output="${arg#--output=}" ;;
  esac
done
recorded="$(dirname "$0")/../fixtures/fio/$name.json"
[ -f "$recorded" ] || { echo "fio-replay: no recorded output for job '$name'" >&2; exit 1; }
if [ -n "$output" ]; then cp "$recorded" "$output"; else cat "$recorded"; fi
