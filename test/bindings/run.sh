#!/usr/bin/env bash
# Python and Java bindings check: compiles every @example (jsii-rosetta) and checks that the Python
# docstrings and javadoc carry it translated; installs the built wheel into a fresh venv and the
# built jar into the project-local Maven repository, synthesizes the example app and the README's
# programs (examples/readme) in TypeScript, Python and Java, and fails with a unified diff
# unless the templates are identical (asset hashes and CDK metadata aside).
#
# Usage: test/bindings/run.sh [--build]
#   --build  first run bundle, compile (jsii), package:python and the Java packaging; without it the
#            script uses lib/, dist/python and dist/java as the build left them.
# Env: BINDINGS_WORK_DIR (default $TMPDIR/cdk-s3files-lambda-bindings, wiped each run),
#      M2_LOCAL (default <project>/.m2-local), BINDINGS_MAVEN_OFFLINE=1 (mvn -o once .m2-local is warm).
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
work="${BINDINGS_WORK_DIR:-${TMPDIR:-/tmp}/cdk-s3files-lambda-bindings}"
m2="${M2_LOCAL:-$root/.m2-local}"
build=false
[[ "${1:-}" == "--build" ]] && build=true

cd "$root"
cdk_version="$(node -p "require('./node_modules/aws-cdk-lib/package.json').version")"
lib_version="$(node -p "require('./package.json').version")"
mvn_flags=(-B -q -ntp -Dstyle.color=never -Dmaven.repo.local="$m2")
# The README's programs (examples/readme), one per line: output name, TypeScript file, Python
# file, Java class, Go program (examples/readme/go/<dir>). Each is synthesized in the four
# languages and the templates compared.
# own-function takes its handler from worker/ (Code.fromAsset, relative to where the program runs:
# examples/readme, or for TypeScript the work directory, which gets a copy).
readme_programs=(
  "readme quickstart.ts quickstart.py QuickStart quickstart"
  "sharing sharing.ts sharing.py Sharing sharing"
  "own-function own-function.ts own_function.py OwnFunction ownfunction"
  "imported imported.ts imported.py Imported imported"
  "other-compute other-compute.ts other_compute.py OtherCompute othercompute"
  "monitoring monitoring.ts monitoring.py Monitoring monitoring"
  "split-stacks split-stacks.ts split_stacks.py SplitStacks splitstacks"
  "one-access-point one-access-point.ts one_access_point.py OneAccessPoint oneaccesspoint"
  "eks eks.ts eks.py Eks eks"
)
# Node.js for a second pass of every binding program (BINDINGS_NODE24_BIN: a bin directory holding
# node 24; .ci/run sets it): the programs must synthesize the same templates on it.
node24="${BINDINGS_NODE24_BIN:-}"
[[ "${BINDINGS_MAVEN_OFFLINE:-}" == "1" ]] && mvn_flags+=(-o)

rm -rf "$work"
mkdir -p "$work/logs" "$work/out" "$work/java-tmp"
# A run that passes leaves nothing behind (its Go binaries alone are ~1 GB); a failed one keeps
# its logs and outputs for reading. BINDINGS_KEEP_WORK=1 keeps them either way.
finish() { local rc=$?; if [[ $rc -eq 0 && "${BINDINGS_KEEP_WORK:-}" != "1" ]]; then rm -rf "$work"; fi; return $rc; }
trap finish EXIT
# The jsii Java runtime unpacks itself into java.io.tmpdir: into the work directory, which goes with it.
java_tmp=(-Djava.io.tmpdir="$work/java-tmp")
# The templates of the four languages are compared with each other, not validated again: aws-cdk-lib's
# own CloudFormation validation (seconds of CPU per process) runs where a test reads it (the validator
# app and the README programs in jest, and the cdk init app below, as a user synthesizes).
export CDK_VALIDATION=false
timings="$work/timings.txt"
: >"$timings"

# Runs one timed step; its output goes to a log that is shown (tail) only when it fails.
step() {
  local name="$1"; shift
  local log="$work/logs/${name//[^a-zA-Z0-9]/_}.log"
  local start=$SECONDS
  # Not inside `if`: there bash would ignore errexit for every command of the step's function.
  local rc=0
  set +e
  ( set -e; "$@" ) >"$log" 2>&1
  rc=$?
  set -e
  if [[ $rc -eq 0 ]]; then
    printf '%-28s ok (%d s)\n' "$name" $((SECONDS - start))
    printf '%-28s %5d s\n' "$name" $((SECONDS - start)) >>"$timings"
  else
    printf '%-28s FAILED (exit %d, %d s); last lines of %s:\n' "$name" "$rc" $((SECONDS - start)) "$log"
    tail -n 60 "$log" | sed 's/^/    /'
    exit 1
  fi
}

# --- build (optional) ------------------------------------------------------------------------
package_java() {
  bash scripts/seed-maven-repo.sh "$m2"
  npx jsii-pacmak -v --target java --maven-local-repository "$m2"
}
if $build; then
  step "bundle" npx projen bundle
  step "compile (jsii)" npx projen compile
  step "package:python" npx projen package:python
  step "package:java" package_java
fi

wheel="dist/python/cdk_s3files_lambda-$lib_version-py3-none-any.whl"
jar_dir="dist/java/io/github/cdks3files/cdk-s3files-lambda/$lib_version"
# The jar with its pom, sources and javadoc jars: the README's install line installs all four.
for f in lib/index.js "$wheel" "$jar_dir/cdk-s3files-lambda-$lib_version"{.jar,.pom,-sources.jar,-javadoc.jar}; do
  [[ -f "$f" ]] || { echo "missing $f: build first (test/bindings/run.sh --build, or compile + package:python + package:java)"; exit 1; }
done

step "comparator self-test" python3 test/bindings/compare_templates.py --self-test

# --- @example blocks: compiled against rosetta/default.ts-fixture, translated to Python and Java --
examples_compile() {
  # test:bindings ran `rosetta:extract` (.jsii.tabl.json, which jsii-pacmak reads) just before:
  # check that tablet; extract anew only when it is missing or older than the assembly.
  local tablet=.jsii.tabl.json
  if [[ ! -f "$tablet" || "$tablet" -ot .jsii ]]; then
    tablet="$work/tablet.json"
    npx jsii-rosetta extract --compile --output "$tablet" .jsii
  fi
  node test/bindings/check-examples.js "$tablet" .jsii
}
step "@example compile" examples_compile

# --- Python: a fresh venv with the built wheel, as a user would install it --------------------
python_setup() {
  python3 -m venv "$work/venv"
  "$work/venv/bin/pip" install -q "$root/$wheel" "aws-cdk-lib==$cdk_version" "constructs>=10.5.0,<11.0.0"
  "$work/venv/bin/pip" freeze | grep -iE '^(aws-cdk-lib|constructs|jsii|publication|typeguard|cdk-s3files-lambda)[= @]'
}
python_synth() {
  local suffix="${1:-}"
  (cd examples/python && CDK_OUTDIR="$work/out/example-python$suffix" "$work/venv/bin/python" app.py)
  local name ts py java go
  for program in "${readme_programs[@]}"; do
    read -r name ts py java go <<<"$program"
    (cd examples/readme && CDK_OUTDIR="$work/out/$name-python$suffix" "$work/venv/bin/python" "$py")
  done
}
# help() shows the example in Python.
python_docs() {
  "$work/venv/bin/python" - <<'PY'
import cdk_s3files_lambda as m
doc = m.S3FilesAccessPoint.__doc__ or ""
assert "Example::" in doc and 'EcsMount.on_service(service, shared, container_path="/data", read_only=True)' in doc, doc
print("S3FilesAccessPoint.__doc__ has its Python example")
# The package description (PyPI, help()) is the README, its programs translated by rosetta.
import importlib.metadata
description = importlib.metadata.metadata("cdk-s3files-lambda").get_payload() or ""
assert "non-compiling source" not in description, "the package description has untranslatable README code"
assert 'S3FilesMountedFunction(stack, "Reader",' in description or "S3FilesMountedFunction(stack, \"Reader\"" in description, description[:3000]
print("the package description shows the README's programs in Python, all compiled")
PY
}

# --- Java: the built jar in the project-local repository, the example built with Maven --------
java_synth() {
  bash scripts/seed-maven-repo.sh "$m2"
  # As the README installs it: the jar with its sources and javadoc jars (an IDE shows the docs).
  local j="$jar_dir/cdk-s3files-lambda-$lib_version"
  mvn "${mvn_flags[@]}" org.apache.maven.plugins:maven-install-plugin:3.1.4:install-file \
    -Dfile="$j.jar" -DpomFile="$j.pom" -Dsources="$j-sources.jar" -Djavadoc="$j-javadoc.jar"
  local installed="$m2/io/github/cdks3files/cdk-s3files-lambda/$lib_version/cdk-s3files-lambda-$lib_version"
  for f in "$installed-sources.jar" "$installed-javadoc.jar"; do [[ -s "$f" ]] || { echo "missing $f after install-file"; exit 1; }; done
  (cd examples/java && CDK_OUTDIR="$work/out/example-java" MAVEN_OPTS="${MAVEN_OPTS:-} ${java_tmp[*]}" mvn "${mvn_flags[@]}" \
    -Dcdk.version="$cdk_version" -Dcdk-s3files-lambda.version="$lib_version" compile exec:java)
  # The README snippet compiles against the example's dependency classpath.
  (cd examples/java && mvn "${mvn_flags[@]}" -Dcdk.version="$cdk_version" -Dcdk-s3files-lambda.version="$lib_version" \
    org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath -Dmdep.outputFile="$work/java-classpath.txt")
  local cp
  cp="$(cat "$work/java-classpath.txt")"
  # The README programs and test/bindings/Errors.java in one javac call.
  javac -d "$work/readme-java" -cp "$cp" examples/readme/*.java test/bindings/Errors.java
  java_run_readme ""
}
java_run_readme() {
  local suffix="${1:-}" cp name ts py java go
  cp="$(cat "$work/java-classpath.txt")"
  for program in "${readme_programs[@]}"; do
    read -r name ts py java go <<<"$program"
    (cd examples/readme && CDK_OUTDIR="$work/out/$name-java$suffix" java "${java_tmp[@]}" -cp "$work/readme-java:$cp" "$java")
  done
}
# javadoc shows the example in Java.
java_docs() {
  local sources="$jar_dir/cdk-s3files-lambda-$lib_version-sources.jar"
  python3 -c 'import sys, zipfile; print(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]).decode())' \
    "$sources" io/github/cdks3files/lambda/S3FilesAccessPoint.java \
    | grep -F 'EcsMount.onService(service, shared, EcsMountOptions.builder().containerPath("/data").readOnly(true).build());'
  # The package javadoc is the README, its programs translated by rosetta: none left uncompiled.
  python3 - "$sources" <<'PY'
import sys, zipfile
doc = zipfile.ZipFile(sys.argv[1]).read("io/github/cdks3files/lambda/package-info.java").decode()
assert "non-compiling source" not in doc, "the package javadoc has untranslatable README code"
assert "S3FilesMountedFunction.Builder.create(stack, \"Reader\")" in doc, doc[:3000]
print("the package javadoc shows the README's programs in Java, all compiled")
PY
}

# --- TypeScript: the same sources, importing the compiled library by its package name ---------
ts_synth() {
  local dir="$work/ts"
  mkdir -p "$dir/node_modules/@types"
  cp examples/typescript/app.ts examples/typescript/tsconfig.json examples/readme/*.ts "$dir/"
  cp -r examples/readme/worker "$dir/"
  mkdir -p "$dir/node_modules/.bin"
  ln -s "$root" "$dir/node_modules/cdk-s3files-lambda"
  ln -s "$root/node_modules/aws-cdk-lib" "$root/node_modules/constructs" "$dir/node_modules/"
  ln -s "$root/node_modules/@types/node" "$dir/node_modules/@types/node"
  # Type-check both once (strict), then run them without checking again.
  echo '{ "extends": "./tsconfig.json", "include": ["*.ts"] }' >"$dir/tsconfig.check.json"
  (cd "$dir" && "$root/node_modules/.bin/tsc" --noEmit -p tsconfig.check.json)
  ts_run ""
}
# All programs in one Node process (aws-cdk-lib loads once); each makes its own App, and an App
# reads CDK_OUTDIR when it is constructed.
ts_run() {
  local suffix="${1:-}" dir="$work/ts"
  local pairs=("app.ts=$work/out/example-typescript$suffix") name ts py java go
  for program in "${readme_programs[@]}"; do
    read -r name ts py java go <<<"$program"
    pairs+=("$ts=$work/out/$name-typescript$suffix")
  done
  (cd "$dir" && TS_NODE_PROJECT=tsconfig.json node -r "$root/node_modules/ts-node/register/transpile-only" "$root/test/util/run-programs.js" "${pairs[@]}")
}

# --- TypeScript as the README installs it: a fresh `cdk init` app, the packed tarball -------------
# (`npm install <clone>` would link the clone, whose own aws-cdk-lib then splits the construct types.)
ts_fresh_app() {
  local app="$work/ts-app" tarball="$root/dist/js/cdk-s3files-lambda@$lib_version.jsii.tgz"
  mkdir -p "$app"
  (cd "$app" && "$root/node_modules/.bin/cdk" init app --language typescript \
    && npm install --no-audit --no-fund "$tarball" \
    && cp "$root/examples/readme/quickstart.ts" "bin/$(basename "$app").ts" \
    && npx tsc --noEmit \
    && CDK_VALIDATION=true npx cdk synth --quiet --output "$work/out/readme-typescript-app")
  # The app keeps cdk init's feature flags (a user's defaults), so its template is not compared with
  # the others: it must hold the file system, its mount targets and the mounted function.
  python3 - "$work/out/readme-typescript-app/QuickStart.template.json" <<'PY'
import json, sys
resources = json.load(open(sys.argv[1]))["Resources"].values()
types = [r["Type"] for r in resources]
assert types.count("AWS::S3Files::FileSystem") == 1 and types.count("AWS::S3Files::MountTarget") == 2, types
assert any(r["Type"] == "AWS::Lambda::Function" and "FileSystemConfigs" in r["Properties"] for r in resources)
# aws-cdk-lib's own CloudFormation validation ran (its report is written only then) and found nothing.
import os
report = json.load(open(os.path.join(os.path.dirname(sys.argv[1]), "validation-report.json")))
assert report["pluginReports"] == [], report
print(f"the quick start in a fresh cdk init app: {len(types)} resources, the file system mounted, aws-cdk-lib's validation clean")
PY
}

# --- Go: the module jsii generated (dist/go), required by the README programs' own module -----
# A Go user requires github.com/aws/aws-cdk-go/awscdk/v2 >= v2.275.0: the oldest release at or
# above the library's aws-cdk-lib floor that the Go module proxy serves (scripts/go-module-floor.js).
go_setup() {
  rm -rf "$work/go"
  cp -r examples/readme/go "$work/go"
  cp -r test/bindings/go-errors "$work/go/errors"
  (cd "$work/go" && go mod edit -replace "github.com/example/cdk-s3files-lambda-go/cdks3fileslambda=$root/dist/go/cdks3fileslambda" \
    && go mod tidy && go vet ./... && go build -o bin/ ./...)
  # The README states the Go floor the committed go.mod declares: tidy must leave it as it is.
  local want got
  want="$(grep '^go ' examples/readme/go/go.mod)"; got="$(grep '^go ' "$work/go/go.mod")"
  [[ "$want" == "$got" ]] || { echo "examples/readme/go/go.mod says '$want', go mod tidy writes '$got'"; return 1; }
}
go_synth() {
  local suffix="${1:-}" name ts py java go
  for program in "${readme_programs[@]}"; do
    read -r name ts py java go <<<"$program"
    (cd examples/readme && CDK_OUTDIR="$work/out/$name-go$suffix" "$work/go/bin/$go")
  done
}
# What a Go user meets: the library's errors and warnings in Go's spelling.
go_errors() { "$work/go/bin/errors"; }

# Python, Java and TypeScript side by side (each mostly on one core); a failed step ends its chain.
# What a Python user meets on bad input: the library's errors and warnings in Python's spelling.
python_errors() { "$work/venv/bin/python" test/bindings/errors.py; }
python_all() {
  step "venv + pip install" python_setup; step "python docstrings" python_docs; step "python synth" python_synth
  step "python errors" python_errors
}
# What a Java user meets: the same errors and warning, in the builders' spelling.
java_errors() { java "${java_tmp[@]}" -cp "$work/readme-java:$(cat "$work/java-classpath.txt")" Errors; }
java_all() { step "java build + synth" java_synth; step "java javadoc" java_docs; step "java errors" java_errors; }
ts_all() { step "typescript synth" ts_synth; step "typescript: cdk init + tarball" ts_fresh_app; }
go_all() { step "go build" go_setup; step "go synth" go_synth; step "go errors" go_errors; }
pids=()
for chain in python_all java_all ts_all go_all; do
  ( "$chain" ) &
  pids+=($!)
done
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
[[ $failed -eq 0 ]] || { echo "a language chain failed (above)"; exit 1; }

# --- compare --------------------------------------------------------------------------------
compare_all() {
  local rc=0
  local name rest
  local suffix="${1:-}"
  python3 test/bindings/compare_templates.py "typescript=$work/out/example-typescript" \
    "python=$work/out/example-python$suffix" "java=$work/out/example-java$suffix" || rc=1
  [[ -z "$suffix" ]] || python3 test/bindings/compare_templates.py "typescript=$work/out/example-typescript" \
    "typescript$suffix=$work/out/example-typescript$suffix" || rc=1
  local others
  for app in "${readme_programs[@]}"; do
    read -r name rest <<<"$app"
    others=("python$suffix=$work/out/$name-python$suffix" "java$suffix=$work/out/$name-java$suffix" "go$suffix=$work/out/$name-go$suffix")
    [[ -z "$suffix" ]] || others+=("typescript$suffix=$work/out/$name-typescript$suffix")
    python3 test/bindings/compare_templates.py "typescript=$work/out/$name-typescript" "${others[@]}" || rc=1
  done
  return $rc
}
start=$SECONDS
if ! compare_all >"$work/logs/compare.log" 2>&1; then
  echo "compare templates          FAILED: the bindings synthesize different infrastructure"
  cat "$work/logs/compare.log"
  exit 1
fi
printf '%-28s %5d s\n' "compare" $((SECONDS - start)) >>"$timings"
echo "compare templates            ok"
sed 's/^/    /' "$work/logs/compare.log"

# --- the same programs on Node.js 24 (the runtime jsii runs the library in) ---------------------
if [[ -n "$node24" ]]; then
  node24_all() {
    PATH="$node24:$PATH"
    export PATH
    [[ "$(node -p 'process.versions.node.split(".")[0]')" == 24 ]] || { echo "no Node.js 24 in $node24"; exit 1; }
    local pids=() pid rc=0
    ts_run -node24 & pids+=($!)
    python_synth -node24 & pids+=($!)
    java_run_readme -node24 & pids+=($!)
    go_synth -node24 & pids+=($!)
    for pid in "${pids[@]}"; do wait "$pid" || rc=1; done
    return "$rc"
  }
  step "node 24: every program" node24_all
  # Java's example app is built by Maven on the first pass only: compare what was run again.
  cp -r "$work/out/example-java" "$work/out/example-java-node24"
  if ! compare_all -node24 >"$work/logs/compare-node24.log" 2>&1; then
    echo "compare templates (node 24)  FAILED"
    cat "$work/logs/compare-node24.log"
    exit 1
  fi
  echo "compare templates (node 24)  ok"
  sed 's/^/    /' "$work/logs/compare-node24.log"
fi
echo "timings:"
sed 's/^/    /' "$timings"
echo "outputs: $work/out (removed now that the run passed, unless BINDINGS_KEEP_WORK=1)"
