#!/usr/bin/env node
// Every @example of the assembly must compile (jsii-rosetta, against rosetta/default.ts-fixture)
// and be translated to Python and Java, so help() and javadoc show a working example.
// Usage: check-examples.js <tablet.json> <.jsii>
const { readFileSync } = require('node:fs');

const [tabletFile, assemblyFile] = process.argv.slice(2);
const tablet = JSON.parse(readFileSync(tabletFile, 'utf8'));
const assembly = JSON.parse(readFileSync(assemblyFile, 'utf8'));

const withExample = [];
for (const [fqn, type] of Object.entries(assembly.types ?? {})) {
  if (type.docs?.example) withExample.push(fqn);
  for (const m of [...(type.methods ?? []), ...(type.properties ?? [])]) {
    if (m.docs?.example) withExample.push(`${fqn}#${m.name}`);
  }
}
const snippets = Object.values(tablet.snippets ?? {}).filter((s) => s.location?.api?.api === 'type' || s.location?.api?.api === 'member');
const where = (s) => (s.location.api.memberName ? `${s.location.api.fqn}#${s.location.api.memberName}` : s.location.api.fqn);
const problems = [];
for (const name of withExample) {
  const s = snippets.find((x) => where(x) === name);
  if (!s) problems.push(`${name}: its @example is not in the tablet`);
  else if (s.didCompile !== true) problems.push(`${name}: its @example does not compile`);
  else for (const lang of ['python', 'java']) if (!s.translations?.[lang]?.source) problems.push(`${name}: no ${lang} translation`);
}
if (withExample.length === 0) problems.push('the assembly has no @example at all');
if (problems.length > 0) {
  console.error(`@example check failed:\n  - ${problems.join('\n  - ')}`);
  process.exit(1);
}
console.log(`${withExample.length} @example blocks compile and translate to Python and Java: ${withExample.join(', ')}`);
