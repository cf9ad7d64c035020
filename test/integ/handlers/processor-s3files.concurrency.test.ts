import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { join, resolve } from 'node:path';
import { list, tempMount } from './helpers';
import { countText } from '../../../integ/handlers/shared/text-stats';

const ROOT = resolve(__dirname, '..', '..', '..');

/** Run the real handler in a separate Node process (its own event loop, its own libuv pool). */
function runChild(env: Record<string, string>): Promise<{ files: number; errors: unknown[] }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [
      '-r', 'ts-node/register/transpile-only', 'test/servers/run-handler.ts', 'integ/handlers/processor-s3files/index.ts',
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

describe('"exactly once, nothing lost": processor-s3files, several processes on one inbox', () => {
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
    expectExactlyOnce(mount.path, expected);
  }, 120_000);
});

/** Every expected file in processed/ exactly once, byte-identical, with correct metadata; nothing else anywhere. */
function expectExactlyOnce(mountPath: string, expected: Map<string, string>): void {
  expect(list(join(mountPath, 'processed'))).toEqual([...expected.keys()].sort());
  for (const [name, text] of expected) {
    expect(list(join(mountPath, 'processed', name))).toEqual([name, `${name}.meta.json`]);
    expect(fs.readFileSync(join(mountPath, 'processed', name, name), 'utf8')).toBe(text);
    const { source, ...counts } = JSON.parse(fs.readFileSync(join(mountPath, 'processed', name, `${name}.meta.json`), 'utf8'));
    expect(counts).toEqual({ name, ...countText(text) });
    expect(source.claim).toMatch(/^\d{13}-/);
  }
  expect(list(join(mountPath, 'inbox'))).toEqual([]);
  expect(list(join(mountPath, 'processing'))).toEqual([]);
  expect(list(join(mountPath, 'failed'))).toEqual([]);
}

const BUNDLE = join(ROOT, 'assets', 'integ', 'handlers', 'processor-s3files', 'index', 'index.js');
type Result = { files: number; errors: unknown[]; recovered?: number; stopped?: string };

/**
 * The bundled handler (what deploys) in its own process. `latencyMs` delays each file-system call
 * (an NFS round trip), `skewMs` moves this "host's" wall clock.
 */
function startBundle(mountPath: string, opts: { latencyMs?: number; skewMs?: number; env?: Record<string, string> } = {}) {
  const child = spawn(process.execPath, [
    '-r', join(ROOT, 'test/servers/fs-latency.js'), '-r', join(ROOT, 'test/servers/skew-clock.js'), join(ROOT, 'test/servers/run-bundle.js'), BUNDLE,
  ], {
    env: {
      PATH: process.env.PATH,
      MOUNT_PATH: mountPath,
      POWERTOOLS_METRICS_DISABLED: 'true',
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      FS_LATENCY_MS: String(opts.latencyMs ?? 0),
      CLOCK_SKEW_MS: String(opts.skewMs ?? 0),
      ...opts.env,
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  const maxRssKb = () => Number(/^MAXRSS:(\d+)$/m.exec(stdout)?.[1]);
  const done = new Promise<Result | 'killed'>((settle, reject) => child.on('exit', (code, signal) => {
    if (signal === 'SIGKILL') return settle('killed');
    const line = stdout.split('\n').find((l) => l.startsWith('RESULT:'));
    if (code !== 0 || !line) reject(new Error(`child exited ${code}/${signal}: ${stderr.slice(-2000)}`));
    else settle(JSON.parse(line.slice('RESULT:'.length)));
  }));
  return { child, done, maxRssKb };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Inbox files with distinct contents; returns name -> text. */
function seed(mountPath: string, count: number, prefix = 'doc'): Map<string, string> {
  fs.mkdirSync(join(mountPath, 'inbox'), { recursive: true });
  const expected = new Map<string, string>();
  for (let i = 0; i < count; i++) {
    const text = `${prefix} ${i}: ${'alpha beta gamma '.repeat(1 + (i % 13))}\n`.repeat(1 + (i % 3));
    expected.set(`${prefix}-${String(i).padStart(4, '0')}.txt`, text);
    fs.writeFileSync(join(mountPath, 'inbox', `${prefix}-${String(i).padStart(4, '0')}.txt`), text);
  }
  return expected;
}

/** Claimed data files in processing/ (anything but leases), with the claim directory they are in. */
function claimedFiles(mountPath: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    // A live child renames directories away while we look: a vanished one holds nothing now.
    let entries: fs.Dirent[] = [];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    for (const e of entries) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (e.name !== '.lease' && !e.name.endsWith('.meta.json')) out.push(join(dir, e.name));
    }
  };
  if (fs.existsSync(join(mountPath, 'processing'))) walk(join(mountPath, 'processing'));
  return out;
}

/** ttlMs of every lease record in processing/ now (a live run rewrites them: unreadable ones are skipped). */
function leaseTtls(mountPath: string): number[] {
  const dir = join(mountPath, 'processing');
  const ttls: number[] = [];
  for (const claim of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
    try {
      ttls.push(JSON.parse(fs.readFileSync(join(dir, claim, '.lease'), 'utf8')).ttlMs);
    } catch { /* not there yet, or gone */ }
  }
  return ttls;
}

async function until(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

describe('"leases and recovery": processor-s3files killed, paused and clock-skewed (bundled handler, child processes)', () => {
  let mount: ReturnType<typeof tempMount>;
  beforeEach(() => { mount = tempMount(); });
  afterEach(() => mount.cleanup());

  test('SIGKILL mid-batch: a killed invocation\'s claims are taken over by a later run within two leases, never before; every file exactly once', async () => {
    // GIVEN a run with the default lease holds claims: its lease records say 30 s
    const defaults = seed(mount.path, 10, 'default');
    const d = startBundle(mount.path, { latencyMs: 40, env: { CONCURRENCY: '1' } });
    await until(() => leaseTtls(mount.path).length > 0, 30_000, 'a lease record');
    expect(leaseTtls(mount.path)).toContain(30_000);
    expect(await d.done).toMatchObject({ errors: [] });
    // AND 240 files and an invocation slowed to NFS-like latency, with a 4 s lease (the takeover's timing scales with it)
    const expected = new Map([...defaults, ...seed(mount.path, 240)]);
    const a = startBundle(mount.path, { latencyMs: 15, env: { CONCURRENCY: '4', LEASE_SECONDS: '4' } });
    // WHEN it is killed like Lambda kills a timed-out invocation, mid-batch (some results published, claims held)
    await until(() => list(join(mount.path, 'processed')).length >= 15 && claimedFiles(mount.path).length > 0, 60_000, 'a batch in flight');
    a.child.kill('SIGKILL');
    const killedAt = Date.now();
    expect(await a.done).toBe('killed');
    const stranded = claimedFiles(mount.path).length;
    expect(stranded).toBeGreaterThan(0);

    // AND new invocations start every 400 ms
    const runs: { at: number; result: Result }[] = [];
    while (Date.now() - killedAt < 30_000) {
      const r = await startBundle(mount.path).done as Result;
      runs.push({ at: Date.now() - killedAt, result: r });
      if (claimedFiles(mount.path).length === 0 && list(join(mount.path, 'inbox')).length === 0) break;
      await sleep(400);
    }

    // THEN the stranded claims were taken over once, after the lease expired and within two leases of the kill
    const takeovers = runs.filter((r) => r.result.recovered);
    expect(takeovers).toHaveLength(1);
    expect(takeovers[0].result.recovered).toBe(stranded);
    // (the last heartbeat is at most a sixth of the lease before the kill: the lease ends 3.33-4 s after it)
    expect(takeovers[0].at).toBeGreaterThan(4_000 - 4_000 / 6);
    expect(takeovers[0].at).toBeLessThan(8_000);
    expect(runs.flatMap((r) => r.result.errors)).toEqual([]);
    // AND every file is in processed/ exactly once with correct metadata, nothing else, nothing lost
    expectExactlyOnce(mount.path, expected);
  }, 120_000);

  test('clock skew: a host 10 min ahead never takes a live invocation\'s claims (on a host 10 min behind), and takes them within the lease once it dies', async () => {
    // GIVEN a slow invocation A whose host clock is 10 minutes behind, with a 3 s lease
    // (40 files: one chunk, all claimed by A in ~3 s, then ~6 s to read, write and publish them)
    const expected = seed(mount.path, 40);
    const a = startBundle(mount.path, { latencyMs: 40, skewMs: -600_000, env: { CONCURRENCY: '1', LEASE_SECONDS: '3' } });
    await until(() => claimedFiles(mount.path).length === 40, 30_000, 'A to claim every file');
    // WHEN invocations on a host 10 minutes ahead run back to back while A is alive (A holds a chunk for > 2 leases)
    let aDone = false;
    const aResult = a.done.then((r) => { aDone = true; return r; });
    const whileAlive: Result[] = [];
    const t0 = Date.now();
    while (!aDone && Date.now() - t0 < 4_000) {
      whileAlive.push(await startBundle(mount.path, { skewMs: 600_000, env: { LEASE_SECONDS: '3' } }).done as Result);
    }
    // THEN none of them took A's claims
    expect(whileAlive.length).toBeGreaterThan(2);
    expect(whileAlive.filter((r) => r.recovered)).toEqual([]);
    // WHEN A is killed mid-chunk
    expect(aDone).toBe(false);
    a.child.kill('SIGKILL');
    const killedAt = Date.now();
    expect(await aResult).toBe('killed');
    const after: { at: number; result: Result }[] = [];
    // (until the dead claim directory itself is gone: a later run tidies it)
    while (list(join(mount.path, 'processing')).length > 0 || list(join(mount.path, 'inbox')).length > 0) {
      if (Date.now() - killedAt > 30_000) throw new Error('claims never taken over');
      after.push({ at: Date.now() - killedAt, result: await startBundle(mount.path, { skewMs: 600_000, env: { LEASE_SECONDS: '3' } }).done as Result });
      await sleep(500);
    }
    // THEN they were taken over about one lease later, not before
    const takeover = after.find((r) => r.result.recovered);
    expect(takeover?.at).toBeGreaterThan(2_000);
    expect(takeover?.at).toBeLessThan(10_000);
    expect([...whileAlive, ...after.map((r) => r.result)].flatMap((r) => r.errors)).toEqual([]);
    expectExactlyOnce(mount.path, expected);
  }, 120_000);

  test('a paused invocation (SIGSTOP longer than its lease) loses its claims to another run and, resumed, publishes nothing of them', async () => {
    // GIVEN a slow invocation with a 3 s lease, paused while it holds a chunk
    const expected = seed(mount.path, 120);
    const a = startBundle(mount.path, { latencyMs: 20, env: { CONCURRENCY: '1', LEASE_SECONDS: '3' } });
    await until(() => claimedFiles(mount.path).length >= 3, 30_000, 'A to claim');
    a.child.kill('SIGSTOP');
    const published = list(join(mount.path, 'processed')).length;
    // WHEN another run comes within the lease / THEN it leaves A's claims alone
    const early = await startBundle(mount.path, { env: { LEASE_SECONDS: '3' } }).done as Result;
    expect(early.recovered).toBeUndefined();
    // WHEN the pause outlasts the lease and another run comes
    await sleep(4_000);
    const b = await startBundle(mount.path, { env: { LEASE_SECONDS: '3' } }).done as Result;
    // THEN it took A's claims over and processed them
    expect(b.recovered).toBeGreaterThan(0);
    // WHEN A resumes
    a.child.kill('SIGCONT');
    const resumed = await a.done as Result;
    // THEN it noticed and stopped, without reporting errors for files that are no longer its own
    expect(resumed.stopped).toMatch(/^lease lost/);
    expect(resumed.errors).toEqual([]);
    expect(resumed.files).toBeLessThanOrEqual(published + 1);
    // AND after one more run everything is processed exactly once
    await startBundle(mount.path, { env: { LEASE_SECONDS: '3' } }).done;
    expectExactlyOnce(mount.path, expected);
  }, 120_000);
});

describe('"deadlines and memory": processor-s3files memory (bundled handler, child process)', () => {
  let mount: ReturnType<typeof tempMount>;
  beforeEach(() => { mount = tempMount(); });
  afterEach(() => mount.cleanup());

  /** Peak RSS (MB) of one run that has about a second before its deadline margin, on an inbox of `entries` empty files. */
  async function peakMb(entries: number): Promise<{ mb: number; result: Result }> {
    fs.rmSync(mount.path, { recursive: true, force: true });
    fs.mkdirSync(join(mount.path, 'inbox'), { recursive: true });
    for (let i = 0; i < entries; i++) fs.writeFileSync(join(mount.path, 'inbox', `entry-${String(i).padStart(6, '0')}.txt`), '');
    // 22 s: the bundle's load takes some of it; a run must start with 21 s (20 s margin + 1 s of work).
    const run = startBundle(mount.path, { env: { REMAINING_MS: '22000' } });
    const result = await run.done as Result;
    return { mb: run.maxRssKb() / 1024, result };
  }

  test('the inbox is listed as a stream: 60,000 entries cost no more memory than 2,000 (the whole listing took ~1.1 KB an entry: ~65 MB here)', async () => {
    // GIVEN / WHEN a run with 1 s of work on an inbox of 2,000 and then of 60,000 entries
    const small = await peakMb(2_000);
    const large = await peakMb(60_000);
    // THEN both made progress, the large one left the rest for later, and its peak is within 30 MB of the small one's
    expect(small.result).toMatchObject({ errors: [] });
    expect(large.result).toMatchObject({ errors: [], deferred: true });
    expect(large.result.files).toBeGreaterThan(100);
    expect(large.mb - small.mb).toBeLessThan(30);
  }, 180_000);
});
