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
