#!/usr/bin/env bash
# Creates .venv with the Python tools the tests use: cfn-lint (template validation),
# moto's S3 server (a real S3-compatible HTTP server on loopback), checkov, and shellcheck
# (lints the EC2 user-data script the library ships).
# Idempotent: a venv whose requirements stamp matches is reused.
set -euo pipefail
cd "$(dirname "$0")/../.."
REQ=test/setup/requirements.txt
VENV=.venv
if [ -x "$VENV/bin/python" ] && cmp -s "$REQ" "$VENV/.requirements.stamp"; then
  exit 0
fi
python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check --upgrade pip
"$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$REQ"
cp "$REQ" "$VENV/.requirements.stamp"
