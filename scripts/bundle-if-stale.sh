#!/usr/bin/env bash
# cdk.json's build step: bundle the handlers only when a source is newer than the oldest bundle
# (or a bundle is missing), so the integ snapshot tasks that each run `cdk synth` after the test
# step's own bundling do not bundle eight handlers again each time.
set -euo pipefail
cd "$(dirname "$0")/.."
bundles=0
[ -d assets ] && bundles=$(find assets -name index.js | wc -l)
expected=$(node -e "const t=require('./.projen/tasks.json').tasks.bundle.steps; console.log(t.length)")
if [ "$bundles" -lt "$expected" ]; then exec npx projen bundle; fi
oldest=$(find assets -name index.js -printf '%T@\n' | sort -n | head -n 1)
# A source changed, or the installed packages did (npm rewrites node_modules/.package-lock.json on
# every install that changes node_modules): bundle again.
newer=$(find lambda integ/handlers src/private/custom-resource-contract.ts node_modules/.package-lock.json \
  \( -name '*.ts' -o -name .package-lock.json \) -newermt "@$oldest" -print -quit)
if [ -n "$newer" ]; then exec npx projen bundle; fi
