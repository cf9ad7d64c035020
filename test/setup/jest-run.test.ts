import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App } from 'aws-cdk-lib';
import { holderOf, moveAsideDeadLock, oncePerRun, takeLock } from '../util/once-per-run';

// The run's plumbing (test/setup/run-id.js, test/util/once-per-run.ts): what a run leaves in the
// machine's temporary directory goes with it, and work shared by the suites survives a worker
// that dies holding it.

const RUN_ID = path.join(__dirname, 'run-id.js');
/** A pid no process has (above Linux's largest, 2^22). */
const DEAD = 4_194_305;

test('a test\'s temporary directory is its run\'s: an App without an outdir writes there', () => {
  expect(path.basename(os.tmpdir())).toBe(`s3files-jest-tmp-${process.env.S3FILES_JEST_RUN}`);
  expect(new App().outdir.startsWith(os.tmpdir() + path.sep)).toBe(true);
});

test('setup removes what dead runs left, keeps a live run\'s, and makes the run\'s TMPDIR; teardown removes it', () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'base-'));
  const dead = [`s3files-jest-${DEAD}-1`, `s3files-jest-tmp-${DEAD}-1`];
  const live = [`s3files-jest-${process.pid}-1`, `s3files-jest-tmp-${process.pid}-1`, 'unrelated'];
  for (const entry of [...dead, ...live]) fs.mkdirSync(path.join(base, entry));
  const node = (code: string, env: Record<string, string>) => {
    const res = spawnSync(process.execPath, ['-e', code], { env: { PATH: process.env.PATH!, ...env }, encoding: 'utf8' });
    expect(res.stderr).toBe('');
    return res.stdout;
  };
  const out = JSON.parse(node(`require(${JSON.stringify(RUN_ID)})().then(() => console.log(JSON.stringify(process.env)))`, { TMPDIR: base }));
  expect(fs.readdirSync(base).sort()).toEqual([...live, `s3files-jest-tmp-${out.S3FILES_JEST_RUN}`].sort());
  expect(out.TMPDIR).toBe(path.join(base, `s3files-jest-tmp-${out.S3FILES_JEST_RUN}`));
  expect((fs.statSync(out.TMPDIR).mode % 0o10000).toString(8)).toBe('1777');
  fs.writeFileSync(path.join(out.TMPDIR, 'left-by-a-test'), '');
  node(`require(${JSON.stringify(RUN_ID)}).teardown()`, { TMPDIR: out.TMPDIR, S3FILES_JEST_RUN: out.S3FILES_JEST_RUN, S3FILES_JEST_BASE_TMPDIR: base });
  expect(fs.readdirSync(base).sort()).toEqual([...live].sort());
});

describe('work done once per run', () => {
  /** A lock as a holder that has died left it. */
  function deadLock(shared: string): string {
    const lock = path.join(shared, 'work.lock');
    fs.mkdirSync(lock);
    fs.writeFileSync(path.join(lock, 'pid'), String(DEAD));
    return lock;
  }

  test('two waiters that both saw the holder dead: only the first moves its lock aside, and the second cannot move the lock the first took since', () => {
    const lock = deadLock(fs.mkdtempSync(path.join(os.tmpdir(), 'once-')));
    // both read the dead holder
    const seenByA = holderOf(lock)!;
    const seenByB = holderOf(lock)!;
    expect([seenByA.pid, seenByB.pid]).toEqual([DEAD, DEAD]);
    // A moves the lock aside and takes it
    expect(moveAsideDeadLock(lock, seenByA)).toBe(true);
    expect(takeLock(lock)).toBe(true);
    // B, acting on what it read, must not take A's lock away
    expect(moveAsideDeadLock(lock, seenByB)).toBe(false);
    expect(takeLock(lock)).toBe(false);
    expect(holderOf(lock)!.pid).toBe(process.pid);
  });

  test('a pid that died holding the lock twice in one run (pid reuse): the second lock is still taken over', () => {
    const shared = fs.mkdtempSync(path.join(os.tmpdir(), 'once-'));
    const first = deadLock(shared);
    expect(moveAsideDeadLock(first, holderOf(first)!)).toBe(true);
    const second = deadLock(shared);
    expect(moveAsideDeadLock(second, holderOf(second)!)).toBe(true);
  });

  test('a dead holder\'s lock is taken over at once, not waited out', () => {
    const shared = fs.mkdtempSync(path.join(os.tmpdir(), 'once-'));
    deadLock(shared);
    const started = Date.now();
    const outdir = oncePerRun(shared, 'work', (dir) => fs.writeFileSync(path.join(dir, 'result'), 'made'), 10_000);
    expect(fs.readFileSync(path.join(outdir, 'result'), 'utf8')).toBe('made');
    expect(Date.now() - started).toBeLessThan(10_000);
    // AND a later caller gets the same result without doing the work again
    expect(oncePerRun(shared, 'work', () => { throw new Error('done twice'); })).toBe(outdir);
  });

  test('a holder that died with its result in place but before saying so: the result is taken, not made again', () => {
    const shared = fs.mkdtempSync(path.join(os.tmpdir(), 'once-'));
    deadLock(shared);
    fs.mkdirSync(path.join(shared, 'work'));
    fs.writeFileSync(path.join(shared, 'work', 'result'), 'made before');
    expect(oncePerRun(shared, 'work', () => { throw new Error('done twice'); }, 10_000)).toBe(path.join(shared, 'work'));
    expect(fs.readFileSync(path.join(shared, 'work.done'), 'utf8')).toBe('ok');
  });

  test('the lock never exists without its pid: taking it is one rename of a directory that already holds it', () => {
    const shared = fs.mkdtempSync(path.join(os.tmpdir(), 'once-'));
    const lock = path.join(shared, 'work.lock');
    expect(takeLock(lock)).toBe(true);
    expect(fs.readdirSync(lock)).toEqual(['pid']);
    expect(fs.readdirSync(shared)).toEqual(['work.lock']);
  });

  test('a live holder is waited for (and the wait ends with an error naming the directory)', () => {
    const shared = fs.mkdtempSync(path.join(os.tmpdir(), 'once-'));
    expect(takeLock(path.join(shared, 'work.lock'))).toBe(true);
    expect(() => oncePerRun(shared, 'work', () => undefined, 500)).toThrow(`timed out waiting for another suite to make ${path.join(shared, 'work')}`);
  });
});
