import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { join, resolve } from 'node:path';
import { list, tempMount } from './helpers';
import { countText } from '../../lambda/shared/text-stats';

const ROOT = resolve(__dirname, '..', '..');

/** Run the real handler in a separate Node process (its own event loop, its own libuv pool). */
function runChild(env: Record<string, string>): Promise<{ files: number; errors: unknown[] }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [
      '-r', 'ts-node/register/transpile-only', 'test/servers/run-handler.ts', 'lambda/processor-s3files/index.ts',
    ], { cwd: ROOT, env: { ...process.env, ...env, POWERTOOLS_METRICS_DISABLED: 'true', POWERTOOLS_LOG_LEVEL: 'ERROR' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('exit', (code) => {
      const line = stdout.split('\n').find((l) => l.startsWith('RESULT:'));
      if (code !== 0 || !line) fail(new Error(`child exited ${code}: ${stderr.slice(-2000)}`));
      else done(JSON.parse(line.slice('RESULT:'.length)));
    });
  });
}

describe('processor-s3files: several processes on one inbox', () => {
  let mount: ReturnType<typeof tempMount>;
  beforeEach(() => { mount = tempMount(); });
  afterEach(() => mount.cleanup());

  test('4 processes, 500 files: each file in processed/ exactly once with correct metadata, nothing left over', async () => {
    // GIVEN 500 files of different sizes and a start barrier so the processes really race
    const inbox = join(mount.path, 'inbox');
    fs.mkdirSync(inbox);
    const expected = new Map<string, string>();
    for (let i = 0; i < 500; i++) {
      const text = `${'lorem ipsum dolor '.repeat(i % 37)}line ${i}\n`.repeat(1 + (i % 5));
      expected.set(`file ${i} é.txt`, text);
      fs.writeFileSync(join(inbox, `file ${i} é.txt`), text);
    }
    const barrier = join(mount.path, 'go');

    // WHEN 4 child processes run the handler at the same moment
    const children = Array.from({ length: 4 }, () => runChild({ MOUNT_PATH: mount.path, CONCURRENCY: '8', WAIT_FOR_FILE: barrier }));
    // let them all load and report ready, then release them together
    while (fs.readdirSync(mount.path).filter((n) => n.startsWith('go.ready.')).length < 4) {
      await new Promise((r) => setTimeout(r, 50));
    }
    fs.writeFileSync(barrier, String(Date.now() + 300));
    const results = await Promise.all(children);

    // THEN the work was shared, nothing failed, and the totals add up to 500 exactly
    expect(results.map((r) => r.errors)).toEqual([[], [], [], []]);
    expect(results.reduce((n, r) => n + r.files, 0)).toBe(500);
    expect(results.filter((r) => r.files > 0).length).toBeGreaterThanOrEqual(2);
    // AND every file is in processed/ once, byte-identical, with correct metadata; no leftovers
    const processed = list(join(mount.path, 'processed'));
    expect(processed).toHaveLength(1000);
    for (const [name, text] of expected) {
      expect(fs.readFileSync(join(mount.path, 'processed', name), 'utf8')).toBe(text);
      const meta = JSON.parse(fs.readFileSync(join(mount.path, 'processed', `${name}.meta.json`), 'utf8'));
      expect(meta).toEqual({ name, ...countText(text) });
    }
    expect(list(inbox)).toEqual([]);
    expect(list(join(mount.path, 'processing'))).toEqual([]);
  }, 120_000);
});
