#!/usr/bin/env bash
# Times the test command as a fresh machine runs it: a new clone of HEAD, every cache pointed at an
# empty directory (npm, pip, Go's build and module caches, the Node.js runtimes
# scripts/node-runtime.sh fetches, and the temp directory jest keeps its cache in), then `.ci/run`.
# The jsii runtime's package cache (~/.cache/aws/jsii/package-cache, where the Python, Java and Go
# programs unpack aws-cdk-lib) is pointed at an empty directory too, and PATH loses any runtime
# scripts/node-runtime.sh put there, so .ci/run fetches its own. Not reproduced: the system packages
# (test/setup/system-packages.sh installs fio only where it is missing; the output says whether it was).
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
mkdir -p "$scratch"/{npm,pip,go-build,go-mod,gopath,node,jsii,tmp}
# As on a fresh machine: the temp directory is /tmp-like and the Node.js runtimes readable by every
# user (tests run handlers as the access point's uid 1000); mktemp made the scratch directory private.
chmod 755 "$scratch" "$scratch/node"
chmod 1777 "$scratch/tmp"
cd "$scratch/main"
# The caller's PATH without the Node.js runtimes scripts/node-runtime.sh fetched (its cache's bin dirs).
fresh_path="$(tr ':' '\n' <<<"$PATH" | grep -v '/cdk-s3files-lambda/node/' | paste -sd: -)"
fio_note="fio was already installed, so no system package was installed"
command -v fio >/dev/null 2>&1 || fio_note="fio was installed by the run"
TIMEFORMAT='%R %U %S'
{ time env -u M2_LOCAL -u BINDINGS_WORK_DIR -u BINDINGS_MAVEN_OFFLINE PATH="$fresh_path" \
    JSII_RUNTIME_PACKAGE_CACHE_ROOT="$scratch/jsii" npm_config_cache="$scratch/npm" PIP_CACHE_DIR="$scratch/pip" \
    GOCACHE="$scratch/go-build" GOMODCACHE="$scratch/go-mod" GOPATH="$scratch/gopath" \
    NODE_RUNTIME_CACHE="$scratch/node" \
    TMPDIR="$scratch/tmp" CI=true \
    bash .ci/run >"$scratch/ci.log" 2>&1; } 2>"$scratch/ci.time" || { tail -n 60 "$scratch/ci.log"; echo "the test command failed: $scratch/ci.log"; keep=true; exit 1; }
read -r wall user sys <"$scratch/ci.time"
echo "fresh clone of $(git -C "$root" rev-parse --short HEAD), every cache empty ($fio_note): .ci/run"
echo "phases (test-reports/phases/summary.txt):"
sed 's/^/  /' test-reports/phases/summary.txt
echo "CPU per phase (test-reports/phases/cpu.txt):"
sed 's/^/  /' test-reports/phases/cpu.txt
awk -v w="$wall" -v u="$user" -v s="$sys" 'BEGIN { printf ".ci/run in all (npm ci, system packages, the test command): %.0f s wall, %.0f s CPU (user %.0f, sys %.0f)\n", w, u + s, u, s }'
if $keep; then echo "kept: $scratch"; fi
