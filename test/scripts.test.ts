import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { venvBin } from './validators/templates';

const root = path.join(__dirname, '..');

// The project's own shell (CI entry point, test:ci's phases, set-up, bindings, test servers) is
// linted like the user data the library ships.
describe('project shell scripts [python tools]', () => {
  const scripts = ['.ci/run', ...['scripts', 'test/setup', 'test/bindings', 'test/servers']
    .flatMap((dir) => fs.readdirSync(path.join(root, dir)).filter((f) => f.endsWith('.sh')).map((f) => `${dir}/${f}`))];

  test('shellcheck finds nothing in any of them', () => {
    expect(scripts).toEqual(expect.arrayContaining(['.ci/run', 'scripts/test-ci.sh', 'test/bindings/run.sh', 'scripts/bundle-if-stale.sh']));
    const r = spawnSync(venvBin('shellcheck'), scripts, { cwd: root, encoding: 'utf8' });
    expect(r.stdout).toBe('');
    expect(r.status).toBe(0);
  });

  test('the check can fail: an unquoted expansion is reported', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 's3files-sc-')), 'bad.sh');
    fs.writeFileSync(file, '#!/usr/bin/env bash\nrm -rf $1/tmp\n');
    try {
      const r = spawnSync(venvBin('shellcheck'), [file], { encoding: 'utf8' });
      expect(r.stdout).toMatch(/SC2086/);
      expect(r.status).not.toBe(0);
    } finally {
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    }
  });
});

describe('scripts/bundle-if-stale.sh (cdk.json\'s build step)', () => {
  // Two bundle steps as projen writes them: each spawns a task whose esbuild call names its outfile.
  const TASKS = {
    tasks: {
      'bundle': { steps: [{ spawn: 'bundle:a' }, { spawn: 'bundle:b' }] },
      'bundle:a': { steps: [{ execArgs: ['esbuild', '--bundle', 'lambda/a/index.ts', '--outfile=assets/lambda/a/index.js'] }] },
      'bundle:b': { steps: [{ exec: 'esbuild --bundle integ/handlers/b.ts --outfile=assets/integ/b/index.js --minify' }] },
    },
  };
  // A copy of the script in a tree of the files it reads, with times set by hand.
  function tree(): { dir: string; run: () => string; touch: (file: string, secondsAgo: number) => void } {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's3files-bundle-'));
    const touch = (file: string, secondsAgo: number) => {
      const full = path.join(dir, file);
      fs.mkdirSync(path.dirname(full), { recursive: true });
      if (!fs.existsSync(full)) fs.writeFileSync(full, file.endsWith('tasks.json') ? JSON.stringify(TASKS) : '');
      const t = new Date(Date.now() - secondsAgo * 1000);
      fs.utimesSync(full, t, t);
    };
    fs.mkdirSync(path.join(dir, 'scripts'));
    fs.copyFileSync(path.join(root, 'scripts/bundle-if-stale.sh'), path.join(dir, 'scripts/bundle-if-stale.sh'));
    for (const f of ['lambda/a/index.ts', 'integ/handlers/b.ts', 'src/private/provider/custom-resource-contract.ts', 'node_modules/.package-lock.json',
      '.projen/tasks.json', 'tsconfig.json', 'test/tsconfig.json']) touch(f, 600);
    for (const f of ['assets/lambda/a/index.js', 'assets/integ/b/index.js']) touch(f, 300);
    const run = () => {
      const r = spawnSync('bash', [path.join(dir, 'scripts/bundle-if-stale.sh')], { env: { ...process.env, BUNDLE_DRY_RUN: '1' }, encoding: 'utf8' });
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      return r.stdout.trim();
    };
    return { dir, run, touch };
  }

  test('fresh bundles: nothing to do', () => {
    expect(tree().run()).toBe('');
  });

  test.each([
    ['a handler source', 'lambda/a/index.ts'],
    ['an integ handler', 'integ/handlers/b.ts'],
    ['the installed packages', 'node_modules/.package-lock.json'],
    ['the bundle steps', '.projen/tasks.json'],
    ['the tsconfig esbuild reads', 'test/tsconfig.json'],
    ['the library tsconfig', 'tsconfig.json'],
  ])('bundles again when %s changed since the oldest bundle', (_what, file) => {
    const t = tree();
    t.touch(file, 10);
    expect(t.run()).toBe(`bundle: ${file} is newer than the oldest bundle`);
  });

  test('bundles when a bundle is missing, even beside a stray old bundle no step writes', () => {
    const t = tree();
    fs.rmSync(path.join(t.dir, 'assets/integ'), { recursive: true });
    expect(t.run()).toBe('bundle: 1 of 2 bundles missing');
    t.touch('assets/old/handler/index.js', 100);
    expect(t.run()).toBe('bundle: 1 of 2 bundles missing');
  });
});
