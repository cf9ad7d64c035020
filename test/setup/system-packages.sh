#!/usr/bin/env bash
# Installs the Debian packages the tests run for real when they are missing: fio (the EC2
# benchmark's fio output is parsed from a real run). Needs root, or sudo without a password.
set -euo pipefail
missing=()
command -v fio > /dev/null 2>&1 || missing+=(fio)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -eq 0 ]; then as_root=(); elif command -v sudo > /dev/null 2>&1; then as_root=(sudo -n); else
  echo "system-packages.sh: ${missing[*]} missing and no root to install them: apt-get install ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get install -y --no-install-recommends "${missing[@]}" \
  || { "${as_root[@]}" apt-get update -q && "${as_root[@]}" apt-get install -y --no-install-recommends "${missing[@]}"; }
