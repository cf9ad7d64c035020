#!/usr/bin/env bash
# Times the test command as a fresh machine runs it: a new clone of HEAD, every cache pointed at an
# empty directory (npm, pip, Go's build and module caches, the Node.js runtimes
# scripts/node-runtime.sh fetches, and the temp directory jest keeps its cache in), then `.ci/run`.
# Maven needs nothing here: every mvn call of the test command names the clone's own .m2-local
# (jsii-pacmak's --maven-local-repository, scripts/seed-maven-repo.sh, test/bindings/run.sh), which
# a new clone starts without; a -Dmaven.repo.local in MAVEN_OPTS would override pacmak's choice.
# Prints the phase table (wall and CPU seconds, user + sys) and the whole run's wall and CPU time.
#
# Usage: scripts/measure-fresh.sh [--keep]   (--keep leaves the scratch directory for inspection)
# Needs what a fresh machine has (Node.js, Python 3.11, JDK 17 + Maven, Go, network to the
# registries) and ../shared beside the checkout when the tests read it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
keep=false
[[ "${1:-}" == "--keep" ]] && keep=true
scratch="$(mktemp -d "${TMPDIR:-/tmp}/s3files-fresh-XXXXXX")"
cleanup() { $keep || rm -rf "$scratch"; }
trap cleanup EXIT

git clone -q "$root" "$scratch/main"
[[ -d "$root/../shared" ]] && cp -r "$root/../shared" "$scratch/shared"
mkdir -p "$scratch"/{npm,pip,go-build,go-mod,gopath,node,tmp}
# As on a fresh machine: the temp directory is /tmp-like and the Node.js runtimes readable by every
# user (tests run handlers as the access point's uid 1000); mktemp made the scratch directory private.
chmod 755 "$scratch" "$scratch/node"
chmod 1777 "$scratch/tmp"
cd "$scratch/main"
TIMEFORMAT='%R %U %S'
{ time env \
    npm_config_cache="$scratch/npm" PIP_CACHE_DIR="$scratch/pip" \
    GOCACHE="$scratch/go-build" GOMODCACHE="$scratch/go-mod" GOPATH="$scratch/gopath" \
    NODE_RUNTIME_CACHE="$scratch/node" \
    TMPDIR="$scratch/tmp" CI=true \
    bash .ci/run >"$scratch/ci.log" 2>&1; } 2>"$scratch/ci.time" || { tail -n 60 "$scratch/ci.log"; echo "the test command failed: $scratch/ci.log"; keep=true; exit 1; }
read -r wall user sys <"$scratch/ci.time"
echo "fresh clone of $(git -C "$root" rev-parse --short HEAD), every cache empty: .ci/run"
echo "phases (test-reports/phases/summary.txt):"
sed 's/^/  /' test-reports/phases/summary.txt
echo "CPU per phase (test-reports/phases/cpu.txt):"
sed 's/^/  /' test-reports/phases/cpu.txt
awk -v w="$wall" -v u="$user" -v s="$sys" 'BEGIN { printf ".ci/run in all (npm ci, system packages, the test command): %.0f s wall, %.0f s CPU (user %.0f, sys %.0f)\n", w, u + s, u, s }'
if $keep; then echo "kept: $scratch"; fi
