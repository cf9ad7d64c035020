#!/usr/bin/env bash
# shellcheck disable=SC2317 # the phase functions are called through `together`
# `npm run test:ci`: everything `npx projen test` and `npx projen test:bindings` run, plus the jsii
# build and docgen, arranged so that work which waits on the network or uses one core runs beside
# other work (a 2-core machine). Nothing is skipped: each phase below is a projen task or the same
# command the `test` task runs. Prints every phase's log as it ends and the time of each at the end.
#
#   1. jsii compile                | Python tool venv (pip) | Maven seed, aws-cdk-lib wheel (downloads)
#   2. bundle, then jest (alone: its timing-sensitive suites get both cores)
#   3. eslint, tsc, integ asserts, docgen | bindings (rosetta, jsii-pacmak, wheel, jar and Go module, 4-language synth)
# (docgen waits for phase 3, where the bindings leave a core free; then the committed API.md and
# docs/API.*.md must be what it wrote: `npx projen build` and the release leave a clean tree.)
set -euo pipefail
cd "$(dirname "$0")/.."
logs=test-reports/phases
rm -rf "$logs"
mkdir -p "$logs"
summary="$logs/summary.txt"
cpu="$logs/cpu.txt"
: >"$summary"
: >"$cpu"
t0=$SECONDS

# run NAME CMD...: runs CMD with its output in $logs/NAME.log; records the time; on failure shows
# the log's end and returns the exit code.
run() {
  local name="$1"; shift
  local start=$SECONDS rc=0 TIMEFORMAT='%R %U %S'
  # bash's `time` counts the CPU of every process the phase started (user + sys), beside its wall time.
  { time "$@" >"$logs/$name.log" 2>&1 || rc=$?; } 2>"$logs/.$name.time"
  printf '%-34s %5d s  %s\n' "$name" $((SECONDS - start)) "$([[ $rc -eq 0 ]] && echo ok || echo "FAILED ($rc)")" >>"$summary"
  cpu_line "$name" "$(cat "$logs/.$name.time")"
  echo "=== $name: $((SECONDS - start)) s, exit $rc"
  if [[ $rc -ne 0 ]]; then tail -n 80 "$logs/$name.log"; fi
  return "$rc"
}

# cpu_line NAME "WALL USER SYS": one row of the CPU table (cpu.txt beside summary.txt).
cpu_line() {
  local wall user sys
  read -r wall user sys <<<"$2"
  awk -v n="$1" -v w="$wall" -v u="$user" -v s="$sys" 'BEGIN { printf "%-34s %7.1f s wall %8.1f s CPU (user %.1f, sys %.1f)\n", n, w, u + s, u, s }' >>"$cpu"
}

# Runs the given phases (functions) side by side; fails if any failed, after all have ended. Each
# phase runs in a subshell with errexit on: bash ignores `set -e` inside a function called where a
# failure is handled (`f || ...`), so `together` is never called that way (see `phase` below).
together() {
  local pids=() rc=0
  for f in "$@"; do ( set -e; "$f" ) & pids+=($!); done
  for p in "${pids[@]}"; do wait "$p" || rc=1; done
  return "$rc"
}

# phase CMD...: runs CMD outside any `||`/`&&` context (so errexit holds inside it) and records a
# failure in $status instead of ending the script, which still prints the phase times.
phase() {
  set +e
  "$@"
  local rc=$?
  set -e
  [[ $rc -eq 0 ]] || status=1
}

build()    { run compile npx projen compile; }
pytools()  { run setup:python npx projen setup:python; }
maven()    { run seed:maven npx projen seed:maven; }
# The bindings phase installs aws-cdk-lib's wheel (~ tens of MB) into a fresh venv: download it
# now, while jsii compiles, so that install reads pip's cache instead of the network.
# Only a cache warm-up: when it fails, the bindings phase downloads what it needs itself.
wheels()   {
  local v dir; v="$(node -p "require('./node_modules/aws-cdk-lib/package.json').version")"; dir="$(mktemp -d)"
  run pip-prefetch-warm-up-only python3 -m pip download -q --disable-pip-version-check -d "$dir" "aws-cdk-lib==$v" "constructs>=10.5.0,<11.0.0" \
    || echo "pip prefetch failed (a cache warm-up only; the bindings phase downloads the wheels itself)"
  rm -rf "$dir"
}
lint()     { run eslint npx projen eslint && run tsc npx tsc --noEmit -p test/tsconfig.json && integ && run docgen npx projen docgen && api_docs; }
api_docs() { run api-docs-committed git diff --exit-code --stat -- API.md docs/API.python.md docs/API.java.md \
  || { echo "API docs differ from what docgen writes: run \`npx projen docgen\` and commit them"; return 1; }; }
integ()    { for n in comparison shared-file-system cross-compute verify; do run "integ:$n:assert" npx projen "integ:$n:assert" || return 1; done; }
bindings() { run test:bindings npx projen test:bindings; }

status=0
phase together build pytools maven wheels
if [[ $status -eq 0 ]]; then
  phase run bundle npx projen bundle
fi
if [[ $status -eq 0 ]]; then
  # Jest's own output goes to the console as it runs (its log is long and useful live).
  start=$SECONDS
  TIMEFORMAT='%R %U %S'
  { time { npx jest --ci 2>&1 | tee "$logs/jest.log" || status=1; }; } 2>"$logs/.jest.time"
  printf '%-34s %5d s  %s\n' jest $((SECONDS - start)) "$([[ $status -eq 0 ]] && echo ok || echo FAILED)" >>"$summary"
  cpu_line jest "$(cat "$logs/.jest.time")"
fi
if [[ $status -eq 0 ]]; then
  phase together lint bindings
fi
printf '%-34s %5d s\n' "total (wall)" $((SECONDS - t0)) >>"$summary"
total_cpu="$(awk '{ cpu += $5 } END { printf "%-34s %7s   %8.1f s CPU", "total (CPU of every phase)", "", cpu }' "$cpu")"
echo "$total_cpu" >>"$cpu"
echo "phase times (logs in $logs/):"
sed 's/^/  /' "$summary"
echo "CPU per phase (user + sys; phases side by side share the 2 cores):"
sed 's/^/  /' "$cpu"
exit $status
