import * as fs from 'fs';
import * as path from 'path';
import { WARNINGS } from '../src/private/messages';

// The README's warnings table is generated from the catalogue: run this test with
// UPDATE_README=1 to rewrite it after changing a warning.

const README = path.join(__dirname, '..', 'README.md');
const START = '<!-- warnings:start -->';
const END = '<!-- warnings:end -->';

function table(): string {
  const rows = Object.entries(WARNINGS).sort(([a], [b]) => a.localeCompare(b)).map(([id, when]) => `| \`cdk-s3files-lambda:${id}\` | ${when.replace(/\|/g, '\\|')} |`);
  return ['| Id | When |', '|---|---|', ...rows].join('\n');
}

describe('the README lists every warning id', () => {
  test('the table between the markers is the catalogue', () => {
    const readme = fs.readFileSync(README, 'utf8');
    const [before, rest] = readme.split(START);
    expect(rest).toBeDefined();
    const [, after] = rest.split(END);
    const generated = `${before}${START}\n${table()}\n${END}${after}`;
    if (process.env.UPDATE_README === '1') fs.writeFileSync(README, generated);
    expect(readme).toEqual(generated);
  });

  test('every id the code warns with is in the catalogue (the type checks the calls; this checks no text bypasses it)', () => {
    const src = path.join(__dirname, '..', 'src');
    const files = fs.readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const direct = files.filter((f) => /addWarningV2\('cdk-s3files-lambda:/.test(fs.readFileSync(path.join(src, f), 'utf8')));
    expect(direct).toEqual([]);
    const used = new Set(files.flatMap((f) => [...fs.readFileSync(path.join(src, f), 'utf8').matchAll(/\bwarn\(\s*[\w.]+,\s*'([A-Za-z0-9]+)'/g)].map((m) => m[1])));
    used.add('unresolvedToken'); // warnUnresolved
    expect([...used].sort()).toEqual(Object.keys(WARNINGS).sort());
  });
});
