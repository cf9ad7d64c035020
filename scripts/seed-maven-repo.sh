#!/usr/bin/env bash
# Seeds the project-local Maven repository (.m2-local/) with aws-cdk-lib so that the version
# range jsii-pacmak writes into the generated pom ("[2.271.0,3.0.0)") resolves.
#
# Why this is needed: Maven resolves a version range by reading maven-metadata.xml, never by
# probing paths. Maven Central's metadata for software.amazon.awscdk:aws-cdk-lib is stale here
# (it lists versions up to 2.263.0) although the 2.271.0 jar and pom are published at their
# exact path. So the range finds "No versions available", while an exact version downloads fine.
# Fix: fetch the exact version (dependency:get, which also pulls its transitive dependencies),
# then install it again with install:install-file, which writes maven-metadata-local.xml and
# marks the artifact as locally installed, so range resolution against .m2-local sees it.
#
# Usage: scripts/seed-maven-repo.sh [local-repo-dir]   (default: <project>/.m2-local)
# Env:   CDK_VERSION (default: the aws-cdk-lib version installed in node_modules)
# Idempotent: exits at once when the version is already registered.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
repo="$(mkdir -p "${1:-$root/.m2-local}" && cd "${1:-$root/.m2-local}" && pwd)"
version="${CDK_VERSION:-$(node -p "require('$root/node_modules/aws-cdk-lib/package.json').version")}"
group=software.amazon.awscdk
artifact=aws-cdk-lib
dir="$repo/software/amazon/awscdk/$artifact/$version"
metadata="$repo/software/amazon/awscdk/$artifact/maven-metadata-local.xml"

# Pinned plugin versions: reproducible, and independent of Maven's built-in defaults.
dependency_plugin=org.apache.maven.plugins:maven-dependency-plugin:3.8.1
install_plugin=org.apache.maven.plugins:maven-install-plugin:3.1.4

if [[ -f "$metadata" ]] && grep -q "<version>$version</version>" "$metadata" && [[ -f "$dir/$artifact-$version.jar" ]]; then
  echo "seed-maven-repo: $group:$artifact:$version already registered in $repo"
  exit 0
fi

mvn_() { mvn -B -q -ntp -Dstyle.color=never -Dmaven.repo.local="$repo" "$@"; }

echo "seed-maven-repo: fetching $group:$artifact:$version into $repo"
mvn_ "$dependency_plugin:get" -Dartifact="$group:$artifact:$version" -Dtransitive=true

# install-file refuses to copy a file onto itself: install from a temporary copy.
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cp "$dir/$artifact-$version.jar" "$dir/$artifact-$version.pom" "$tmp/"
mvn_ "$install_plugin:install-file" \
  -Dfile="$tmp/$artifact-$version.jar" -DpomFile="$tmp/$artifact-$version.pom"

grep -q "<version>$version</version>" "$metadata" || {
  echo "seed-maven-repo: $metadata does not list $version after install-file" >&2
  exit 1
}
echo "seed-maven-repo: registered $group:$artifact:$version in $repo"
