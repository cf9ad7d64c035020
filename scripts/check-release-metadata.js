#!/usr/bin/env node
// The first step of `npx projen release`: refuses to build a release while package.json still
// carries the placeholder repository or author (they end up in the npm, PyPI and Maven metadata,
// and npm provenance checks the repository against the workflow's). Usage: [package.json path].
const { readFileSync } = require('node:fs');
const { resolve } = require('node:path');

const file = resolve(process.argv[2] ?? 'package.json');
const pkg = JSON.parse(readFileSync(file, 'utf8'));
const problems = [];
const repository = typeof pkg.repository === 'string' ? pkg.repository : pkg.repository?.url;
if (!repository || /\bexample\b/.test(repository)) {
  problems.push(`repository ${JSON.stringify(repository)} is a placeholder: set repositoryUrl in .projenrc.ts to the repository the release workflow runs in`);
}
const email = pkg.author?.email;
if (!email || /@example\.(com|org|net)$/.test(email)) {
  problems.push(`author email ${JSON.stringify(email)} is a placeholder: set authorAddress in .projenrc.ts`);
}
const goModule = pkg.jsii?.targets?.go?.moduleName;
if (goModule !== undefined && /\/example\//.test(goModule)) {
  problems.push(`Go module ${JSON.stringify(goModule)} is a placeholder: set publishToGo.moduleName in .projenrc.ts to the repository the Go module is pushed to`);
}
if (problems.length > 0) {
  console.error(`Not releasing ${pkg.name}: ${file}\n  - ${problems.join('\n  - ')}\nThen run npx projen and commit.`);
  process.exit(1);
}
console.log(`Release metadata of ${pkg.name}: repository ${repository}, author ${pkg.author?.name} <${email}>`);
