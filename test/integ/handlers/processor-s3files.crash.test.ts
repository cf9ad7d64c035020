/**
 * processor-s3files killed at exact steps (issue 41): the bundled handler (what deploys) runs in a
 * child process with test/servers/crash-at.js, which SIGKILLs it right before or after one
 * file-system call, as Lambda kills a timed-out invocation; later runs must finish the work with
 * every file processed once and nothing taken for what it is not.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import { join, resolve } from 'node:path';
import { list, tempMount } from './helpers';

const ROOT = resolve(__dirname, '..', '..', '..');
const BUNDLE = join(ROOT, 'assets', 'integ', 'handlers', 'processor-s3files', 'index', 'index.js');
type Result = { files: number; errors: { name: string; error: string }[]; recovered?: number };

/** One run of the bundled handler; 'killed' when crash-at.js killed it. */
function runBundle(mountPath: string, env: Record<string, string> = {}): Promise<Result | 'killed'> {
  const child = spawn(process.execPath, ['-r', join(ROOT, 'test/servers/crash-at.js'), join(ROOT, 'test/servers/run-bundle.js'), BUNDLE], {
    env: { PATH: process.env.PATH, MOUNT_PATH: mountPath, POWERTOOLS_METRICS_DISABLED: 'true', POWERTOOLS_LOG_LEVEL: 'SILENT', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  return new Promise((settle, reject) => child.on('exit', (code, signal) => {
    if (signal === 'SIGKILL') return settle('killed');
    const line = stdout.split('\n').find((l) => l.startsWith('RESULT:'));
    if (code !== 0 || !line) reject(new Error(`child exited ${code}/${signal}: ${stderr.slice(-2000)}`));
    else settle(JSON.parse(line.slice('RESULT:'.length)));
  }));
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let mount: ReturnType<typeof tempMount>;
beforeEach(() => {
  mount = tempMount();
  for (const d of ['inbox', 'processing', 'processed', 'failed']) fs.mkdirSync(join(mount.path, d));
});
afterEach(() => mount.cleanup());
const p = (...parts: string[]) => join(mount.path, ...parts);

/** Runs (without crashing) until nothing is left in processing/ or inbox/; every result. */
async function drain(): Promise<Result[]> {
  const results: Result[] = [];
  for (let i = 0; i < 4 && (list(p('processing')).length > 0 || list(p('inbox')).length > 0); i++) {
    results.push(await runBundle(mount.path, { LEASE_SECONDS: '1' }) as Result);
  }
  return results;
}

describe('"leases and recovery": processor-s3files killed at exact steps (bundled handler, SIGKILL)', () => {
  test('"every file in inbox/ is processed once into processed/<name>/": a crash while claiming a taken-over file leaves no metadata to be taken for an upload (issue 41.2)', async () => {
    // GIVEN a dead invocation's claim holding report.txt and the metadata it wrote before it died
    const dead = `${Date.now()}-${randomUUID()}`;
    fs.mkdirSync(p('processing', dead, '1'), { recursive: true });
    fs.writeFileSync(p('processing', dead, '1', 'report.txt'), 'the report itself\n');
    fs.writeFileSync(p('processing', dead, '1', 'report.txt.meta.json'),
      '{"name":"report.txt","wordCount":3,"lineCount":1,"bytes":18,"source":{"modifiedNs":"1","claim":"x"}}\n');
    fs.writeFileSync(p('processing', dead, '.lease'), '{"owner":"x","ttlMs":30000,"beat":2}\n');
    const old = new Date(Date.now() - 40_000);
    fs.utimesSync(p('processing', dead, '.lease'), old, old);
    // WHEN the run that takes it over is killed right after it moved the data out of the taken-over item
    const killed = await runBundle(mount.path, { CRASH_AT: 'rename:^\\S*/adopted-\\S*/1(/report\\.txt)? -> ', CRASH_AFTER: '1', LEASE_SECONDS: '1' });
    // AND later runs come once its lease ran out
    await sleep(1_500);
    const later = await drain();
    // THEN report.txt was processed once under its own name: no result of its metadata, nothing reported
    expect(killed).toBe('killed');
    expect(later.flatMap((r) => r.errors)).toEqual([]);
    expect(later.reduce((n, r) => n + r.files, 0)).toBe(1);
    expect(list(p('processed'))).toEqual(['report.txt']);
    expect(fs.readFileSync(p('processed', 'report.txt', 'report.txt'), 'utf8')).toBe('the report itself\n');
    expect(list(p('processing'))).toEqual([]);
    expect(list(p('failed'))).toEqual([]);
  }, 60_000);

  test('"exactly once, nothing lost": a crash between the put-back\'s link and its unlink never leaves a file both claimed and in inbox/ (issue 41.3)', async () => {
    // GIVEN a file a producer is still writing (it grows while it is read, so the run puts it back)
    fs.writeFileSync(p('inbox', 'growing.txt'), 'one\n');
    // WHEN the run is killed right after the link that gives it its inbox name again
    const killed = await runBundle(mount.path, {
      GROW_ON_READ: '/processing/.*/growing\\.txt$', CRASH_AT: 'link:growing\\.txt -> \\S*/inbox/growing\\.txt$', CRASH_AFTER: '1', LEASE_SECONDS: '1',
    });
    const afterKill = { inbox: list(p('inbox')) };
    // AND later runs come once its lease ran out
    await sleep(1_500);
    const later = await drain();
    // THEN the file was processed and counted once, whole, and nothing is left claimed or failed
    expect(killed).toBe('killed');
    expect(afterKill.inbox).toEqual(['growing.txt']);
    expect(later.flatMap((r) => r.errors)).toEqual([]);
    expect(later.reduce((n, r) => n + r.files, 0)).toBe(1);
    expect(list(p('processed'))).toEqual(['growing.txt']);
    expect(fs.readFileSync(p('processed', 'growing.txt', 'growing.txt'), 'utf8')).toBe('one\nmore\n');
    expect(list(p('processing'))).toEqual([]);
    expect(list(p('failed'))).toEqual([]);
  }, 60_000);

  test('a crash after the put-back moved the file aside, before its inbox link: the next run puts it back, and it is processed once (issue 41.3)', async () => {
    // GIVEN a file a producer is still writing
    fs.writeFileSync(p('inbox', 'growing.txt'), 'one\n');
    // WHEN the run is killed right before that link
    const killed = await runBundle(mount.path, {
      GROW_ON_READ: '/processing/.*/growing\\.txt$', CRASH_AT: 'link:growing\\.txt -> \\S*/inbox/growing\\.txt$', LEASE_SECONDS: '1',
    });
    await sleep(1_500);
    const later = await drain();
    // THEN it is processed once, whole
    expect(killed).toBe('killed');
    expect(later.flatMap((r) => r.errors)).toEqual([]);
    expect(later.reduce((n, r) => n + r.files, 0)).toBe(1);
    expect(fs.readFileSync(p('processed', 'growing.txt', 'growing.txt'), 'utf8')).toBe('one\nmore\n');
    expect(list(p('processing'))).toEqual([]);
    expect(list(p('inbox'))).toEqual([]);
  }, 60_000);
});
