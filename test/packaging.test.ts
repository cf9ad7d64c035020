import { spawnSync } from 'child_process';
import * as path from 'path';

// What `npm pack` (and so jsii-pacmak's wheel and jar, which wrap the npm tarball) carries.
const ROOT = path.join(__dirname, '..');

function packedFiles(): string[] {
  const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`npm pack failed: ${r.stderr}`);
  return (JSON.parse(r.stdout)[0].files as Array<{ path: string }>).map((f) => f.path);
}

describe('the package', () => {
  const files = packedFiles();

  test('carries the shipped handlers\' bundles and nothing of the integ app', () => {
    // THEN exactly the waiter / delete guard bundles are in it
    expect(files.filter((f) => f.startsWith('assets/')).sort()).toEqual([
      'assets/lambda/s3files-provider/is-complete.lambda/index.js',
      'assets/lambda/s3files-provider/on-event.lambda/index.js',
    ]);
    // AND no sources of handlers, integ app, tests or benchmarks
    expect(files.filter((f) => /^(lambda|integ|test|benchmarks|examples)\//.test(f))).toEqual([]);
  });
});
