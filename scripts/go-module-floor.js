// Raises each requirement of the go.mod jsii-pacmak writes to the lowest version the Go module
// proxy serves at or above it. jsii writes the versions of the npm packages (aws-cdk-lib 2.271.0,
// constructs 10.5.1, jsii-runtime 1.140.0), and not every npm version has a Go module release: a
// requirement the proxy does not serve makes every `go build` of a user fail. Prints what changed.
//
// Usage: node scripts/go-module-floor.js dist/go/cdks3fileslambda
const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const dir = process.argv[2];
if (!dir) throw new Error('usage: node scripts/go-module-floor.js <module dir>');
const file = path.join(dir, 'go.mod');

/** Compares two semantic versions `vMAJOR.MINOR.PATCH` (no pre-releases in these modules). */
function compare(a, b) {
  const pa = a.replace(/^v/, '').split(/[.-]/).map(Number);
  const pb = b.replace(/^v/, '').split(/[.-]/).map(Number);
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pa[i] - pb[i];
  return 0;
}

/** Whether the proxy serves this exact version (some modules' version lists are not served, their versions are). */
function servesExactly(module, version) {
  try {
    execFileSync('go', ['mod', 'download', '-json', `${module}@${version}`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return true;
  } catch {
    return false;
  }
}

function served(module) {
  const out = execFileSync('go', ['list', '-m', '-versions', module], { encoding: 'utf8', env: { ...process.env, GOFLAGS: '-mod=mod' } });
  return out.trim().split(/\s+/).slice(1).filter((v) => /^v\d+\.\d+\.\d+$/.test(v));
}

const lines = fs.readFileSync(file, 'utf8').split('\n');
const changed = [];
// The `// indirect` requirements are aws-cdk-lib's own dependencies (its asset and schema modules),
// which aws-cdk-go's go.mod requires at the versions it was built with: leave them to it (jsii
// writes the npm versions, which the proxy need not serve, and the module does not import them).
const out = lines.filter((line) => {
  const indirect = /^\s+\S+ v\S+ \/\/ indirect$/.test(line);
  if (indirect) changed.push(`dropped ${line.trim()}`);
  return !indirect;
}).map((line) => {
  const m = /^(\s+)(\S+) (v\d+\.\d+\.\d+)(.*)$/.exec(line);
  if (!m) return line;
  const [, indent, module, wanted, rest] = m;
  if (servesExactly(module, wanted)) return line;
  const versions = served(module);
  const floor = versions.filter((v) => compare(v, wanted) >= 0).sort(compare)[0];
  if (!floor) throw new Error(`the Go module proxy serves no version of ${module} at or above ${wanted} (it has ${versions.join(' ')})`);
  changed.push(`${module} ${wanted} -> ${floor}`);
  return `${indent}${module} ${floor}${rest}`;
});
fs.writeFileSync(file, out.join('\n'));
console.log(changed.length ? `raised to versions the Go module proxy serves:\n  ${changed.join('\n  ')}` : 'every requirement is served as written');
