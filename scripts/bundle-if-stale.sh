#!/usr/bin/env bash
# cdk.json's build step: bundle the handlers only when a source is newer than the oldest bundle
# (or a bundle is missing), so the integ snapshot tasks that each run `cdk synth` after the test
# step's own bundling do not bundle eight handlers again each time.
# BUNDLE_DRY_RUN=1 prints why it would bundle instead of bundling.
set -euo pipefail
cd "$(dirname "$0")/.."
bundle() {
  if [ -n "${BUNDLE_DRY_RUN:-}" ]; then echo "bundle: $1"; exit 0; fi
  exec npx projen bundle
}
# The files the bundle steps write (each step's esbuild --outfile): a stray old bundle counts for nothing.
mapfile -t outfiles < <(node -e "
  const t = require('./.projen/tasks.json').tasks;
  for (const step of t.bundle.steps) for (const s of t[step.spawn].steps)
    for (const a of s.execArgs ?? String(s.exec ?? '').split(' ')) if (a.startsWith('--outfile=')) console.log(a.slice(10));")
missing=0
for f in "${outfiles[@]}"; do [ -f "$f" ] || missing=$((missing + 1)); done
if [ "${#outfiles[@]}" -eq 0 ] || [ "$missing" -gt 0 ]; then bundle "$missing of ${#outfiles[@]} bundles missing"; fi
oldest=$(find "${outfiles[@]}" -printf '%T@\n' | sort -n | head -n 1)
# A source changed, the installed packages did (npm rewrites node_modules/.package-lock.json on
# every install that changes node_modules), or how they are bundled did (the bundle steps in
# .projen/tasks.json, the tsconfig esbuild reads): bundle again.
newer=$(find lambda integ/handlers src/private/provider/custom-resource-contract.ts node_modules/.package-lock.json \
  .projen/tasks.json tsconfig.json test/tsconfig.json \
  \( -name '*.ts' -o -name .package-lock.json -o -name tasks.json -o -name 'tsconfig*.json' \) -newermt "@$oldest" -print -quit)
if [ -n "$newer" ]; then bundle "$newer is newer than the oldest bundle"; fi
