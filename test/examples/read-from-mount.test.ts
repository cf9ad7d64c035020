/** examples/read-from-mount: the copyable handler, on a real directory standing in for the mount. */
import * as fs from 'node:fs';
import { join, relative } from 'node:path';
import { handler } from '../../examples/read-from-mount/index';
import { tempMount } from '../integ/handlers/helpers';

let mount: ReturnType<typeof tempMount>;
const savedEnv = { ...process.env };
beforeEach(() => {
  mount = tempMount();
  process.env.MOUNT_PATH = mount.path;
  fs.mkdirSync(join(mount.path, 'reports'));
});
afterEach(() => {
  process.env = { ...savedEnv };
  mount.cleanup();
});

test('reads a file under the mount: its text, size, lines and modification time', async () => {
  // GIVEN a file written through the mount at a known time
  fs.writeFileSync(join(mount.path, 'reports', 'jan.csv'), 'a,b\n1,2\n');
  fs.utimesSync(join(mount.path, 'reports', 'jan.csv'), new Date('2026-01-31T12:00:00Z'), new Date('2026-01-31T12:00:00Z'));
  // WHEN / THEN
  expect(await handler({ path: 'reports/jan.csv' })).toEqual({
    path: 'reports/jan.csv', bytes: 8, lines: 2, modified: '2026-01-31T12:00:00.000Z', text: 'a,b\n1,2\n',
  });
});

test('refuses paths that are absolute or lead out of the mount, through ".." or a symlinked directory', async () => {
  // GIVEN a secret outside the mount and a directory symlink to it
  const outside = tempMount();
  try {
    fs.writeFileSync(join(outside.path, 'secret'), 'top secret\n');
    fs.symlinkSync(outside.path, join(mount.path, 'reports', 'elsewhere'));
    const root = fs.realpathSync(mount.path);
    // WHEN / THEN each is refused with what to pass instead
    await expect(handler({ path: '/etc/passwd' })).rejects.toThrow(new Error('"path" must be a path relative to the mount, such as "reports/2026-01.csv"; got "/etc/passwd".'));
    const dotdot = relative(mount.path, join(outside.path, 'secret'));
    await expect(handler({ path: dotdot })).rejects.toThrow(new Error(
      `"path" "${dotdot}" leads outside the mount (to ${fs.realpathSync(join(outside.path, 'secret'))}); name a file under ${root}.`));
    await expect(handler({ path: 'reports/elsewhere/secret' })).rejects.toThrow(new Error(
      `"path" "reports/elsewhere/secret" leads outside the mount (to ${fs.realpathSync(join(outside.path, 'secret'))}); name a file under ${root}.`));
  } finally {
    outside.cleanup();
  }
});

test('refuses a directory and a file too large for a Lambda response, naming the way out', async () => {
  // GIVEN a 6 MB file
  fs.writeFileSync(join(mount.path, 'reports', 'big.log'), Buffer.alloc(6 * 1024 * 1024, 0x61));
  // WHEN / THEN
  await expect(handler({ path: 'reports' })).rejects.toThrow(new Error('"path" "reports" is not a regular file.'));
  await expect(handler({ path: 'reports/big.log' })).rejects.toThrow(new Error('"path" "reports/big.log" has 6291456 bytes, more than a Lambda '
    + 'response can carry (5242880); read it in ranges, or write what you compute to the mount and return its path.'));
});
