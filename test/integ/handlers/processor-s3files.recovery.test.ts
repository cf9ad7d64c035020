/**
 * processor-s3files: takeovers, hand-backs, races and damaged state (issue 22). Each test sets up
 * the state a crash, a race or an upgrade leaves on a real directory and runs the real processor.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { AccessPointUser, list, processorMount, RUNS_AS_ROOT } from './helpers';
import { MAX_ATTEMPTS } from '../../../integ/handlers/processor-s3files/index';
import { countText } from '../../../integ/handlers/shared/text-stats';

// A configurable copy of fs/promises, so single calls can be made to fail (the real one is frozen).
jest.mock('node:fs/promises', () => ({ ...jest.requireActual('node:fs/promises') }));
const fsp: typeof import('node:fs/promises') = jest.requireMock('node:fs/promises');

const { p, inbox, run } = processorMount();
/** Set a path's times `seconds` into the past, as if the server's clock had moved on since it changed. */
function age(path: string, seconds: number): void {
  const t = new Date(Date.now() - seconds * 1000);
  fs.utimesSync(path, t, t);
}
const claimName = () => `${Date.now()}-${randomUUID()}`;
/** Every result directory, each checked to hold exactly its data and its metadata. */
function results(): string[] {
  const names = list(p('processed'));
  for (const n of names) expect(list(p('processed', n))).toEqual([n, `${n}.meta.json`]);
  return names;
}
const resultData = (name: string) => fs.readFileSync(p('processed', name, name), 'utf8');
const resultMeta = (name: string) => JSON.parse(fs.readFileSync(p('processed', name, `${name}.meta.json`), 'utf8'));
/** Data files anywhere under processing/ (not leases, not metadata). */
function claimedFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (e.name !== '.lease' && !e.name.endsWith('.meta.json')) out.push(e.name);
    }
  };
  if (fs.existsSync(p('processing'))) walk(p('processing'));
  return out.sort();
}
/** A clock for the deadline checks that reads 0 for the first check and 2 after it (deadline 1: one chunk). */
function oneChunkClock(): () => number {
  let checks = 0;
  return () => (checks++ === 0 ? 0 : 2);
}

describe('taking over claims', () => {
  test('a taker that defers at its deadline keeps every claim it has not processed, and recovered counts what it claimed', async () => {
    // GIVEN three invocations killed mid-chunk, 30 claimed files each (with partial metadata on some)
    const expected = new Map<string, string>();
    for (let k = 0; k < 3; k++) {
      const claim = claimName();
      for (let i = 0; i < 30; i++) {
        const name = `k${k}-f${String(i).padStart(2, '0')}.txt`;
        const text = `killed ${k} file ${i}\n`;
        expected.set(name, text);
        fs.mkdirSync(p('processing', claim, String(i + 1)), { recursive: true });
        fs.writeFileSync(p('processing', claim, String(i + 1), name), text);
        if (i % 7 === 0) fs.writeFileSync(p('processing', claim, String(i + 1), `${name}.meta.json`), '{"partial":');
      }
      fs.writeFileSync(p('processing', claim, '.lease'), '{"owner":"x","ttlMs":30000,"beat":2}\n');
      age(p('processing', claim, '.lease'), 40);
    }

    // WHEN the next invocation takes them over and its deadline comes after one chunk (64 files at concurrency 1)
    const first = await run({ concurrency: 1, deadline: 1, now: oneChunkClock() });

    // THEN it processed one chunk, counted exactly those as recovered, and deleted nothing
    expect(first).toMatchObject({ files: 64, recovered: 64, errors: [] });
    expect(results()).toHaveLength(64);
    expect(claimedFiles()).toHaveLength(26);
    // WHEN the next invocation runs / THEN it takes the rest over at once (no lease to wait for) and processes it
    const second = await run();
    expect(second).toMatchObject({ files: 26, recovered: 26, errors: [] });
    expect(results()).toEqual([...expected.keys()].sort());
    for (const [name, text] of expected) expect(resultMeta(name)).toMatchObject({ name, ...countText(text) });
    expect(list(p('processing'))).toEqual([]);
  });

  test('claims left by the previous layout (files directly in the claim directory) are processed after an upgrade, not deleted', async () => {
    // GIVEN a dead invocation's claim directory from before item directories: processing/<claim>/<name>
    const claim = claimName();
    fs.mkdirSync(p('processing', claim), { recursive: true });
    fs.writeFileSync(p('processing', claim, 'old-a.txt'), 'claimed before the upgrade\n');
    fs.writeFileSync(p('processing', claim, 'old-b.txt'), 'me too\n');
    age(p('processing', claim), 40);
    // WHEN the new processor runs
    const result = await run();
    // THEN both are processed and the claim directory is gone
    expect(result).toMatchObject({ files: 2, recovered: 2, errors: [] });
    expect(resultData('old-a.txt')).toBe('claimed before the upgrade\n');
    expect(resultData('old-b.txt')).toBe('me too\n');
    expect(list(p('processing'))).toEqual([]);
  });

  test('a claim left by the previous layout that the taker has no time for is handed back, not deleted', async () => {
    // GIVEN 70 old-layout claimed files (more than one chunk at concurrency 1)
    const claim = claimName();
    fs.mkdirSync(p('processing', claim), { recursive: true });
    for (let i = 0; i < 70; i++) fs.writeFileSync(p('processing', claim, `old-${String(i).padStart(2, '0')}.txt`), `old ${i}\n`);
    age(p('processing', claim), 40);
    // WHEN the taker defers after one chunk, and the next run comes
    expect(await run({ concurrency: 1, deadline: 1, now: oneChunkClock() })).toMatchObject({ files: 64, errors: [] });
    expect(claimedFiles()).toHaveLength(6);
    expect(await run()).toMatchObject({ files: 6, errors: [] });
    // THEN all 70 are processed
    expect(results()).toHaveLength(70);
    expect(list(p('processing'))).toEqual([]);
  });

  test('a dead claim with a damaged lease (a lease length beyond the maximum, or .lease a directory) is taken over, and logged', async () => {
    // GIVEN two dead invocations, one whose lease record promises 1e15 ms, one whose .lease is a directory
    const huge = claimName();
    const dirLease = claimName();
    for (const [claim, name] of [[huge, 'huge.txt'], [dirLease, 'dir-lease.txt']]) {
      fs.mkdirSync(p('processing', claim, '1'), { recursive: true });
      fs.writeFileSync(p('processing', claim, '1', name), `${name} words\n`);
    }
    fs.writeFileSync(p('processing', huge, '.lease'), '{"owner":"x","ttlMs":1000000000000000,"beat":1}\n');
    age(p('processing', huge, '.lease'), 40);
    fs.mkdirSync(p('processing', dirLease, '.lease'));
    age(p('processing', dirLease, '.lease'), 40);
    age(p('processing', dirLease), 40);
    const logs: { message: string; extra: Record<string, unknown> }[] = [];
    // WHEN
    const result = await run({ log: (message, extra) => logs.push({ message, extra }) });
    // THEN both were taken over and processed, and each damaged lease was named in the log
    expect(result).toMatchObject({ files: 2, recovered: 2, errors: [] });
    expect(results()).toEqual(['dir-lease.txt', 'huge.txt']);
    expect(logs).toEqual(expect.arrayContaining([
      { message: expect.stringMatching(/^lease promises more than the longest lease/), extra: expect.objectContaining({ claim: huge }) },
      { message: expect.stringMatching(/^unreadable lease/), extra: expect.objectContaining({ claim: dirLease }) },
    ]));
    expect(list(p('processing'))).toEqual([]);
  });
});

describe('publishing and putting back', () => {
  test('publish-replace race: a newer result published between the check and the move-away is kept, the older one dropped', async () => {
    // GIVEN a published result of v1, and v2 in the inbox (both older than what comes next)
    inbox('report.txt', 'version one\n');
    age(p('inbox', 'report.txt'), 120);
    expect(await run()).toMatchObject({ files: 1 });
    inbox('report.txt', 'version two\n');
    age(p('inbox', 'report.txt'), 60);
    // AND invocation C publishes v3 right after invocation A has checked the existing result (v1), before A moves it away
    const realRename = fsp.rename;
    let raced = false;
    jest.spyOn(fsp, 'rename').mockImplementation(async (from, to) => {
      if (!raced && String(from) === p('processed', 'report.txt') && String(to).includes('replaced-')) {
        raced = true;
        inbox('report.txt', 'version three, the newest\n');
        expect(await run()).toMatchObject({ files: 1, errors: [] });
        expect(resultData('report.txt')).toBe('version three, the newest\n');
      }
      return realRename(from, to);
    });
    // WHEN A goes on
    const a = await run();
    // THEN A's older v2 was superseded and kept in failed/ (named, not deleted), and C's v3 is the result
    expect(raced).toBe(true);
    expect(a).toMatchObject({ files: 0, superseded: 1, errors: [{ name: 'report.txt', error: expect.stringMatching(/^superseded: processed\/report.txt\/ holds the result of an upload modified later/) }] });
    expect(a.errors).toHaveLength(1);
    expect(fs.readFileSync(p('failed', list(p('failed'))[0], 'report.txt'), 'utf8')).toBe('version two\n');
    expect(resultData('report.txt')).toBe('version three, the newest\n');
    expect(resultMeta('report.txt')).toMatchObject({ wordCount: 4 });
    expect(results()).toEqual(['report.txt']);
    expect(list(p('processing'))).toEqual([]);
  });

  test('putting back a file that changed while read never replaces a new upload that arrives just before', async () => {
    // GIVEN a file that grows while it is read ...
    inbox('same.txt', 'old\n');
    age(p('inbox', 'same.txt'), 60);
    const realOpen = fsp.open;
    jest.spyOn(fsp, 'open').mockImplementation(async (path, ...rest) => {
      const fh = await realOpen(path, ...rest);
      if (String(path).includes('processing') && String(path).endsWith('same.txt')) {
        const realRead = fh.read.bind(fh);
        let appended = false;
        (fh as any).read = async (...args: any[]) => {
          const r = await (realRead as any)(...args);
          if (!appended) fs.appendFileSync(String(path), 'more\n');
          appended = true;
          changed = true;
          return r;
        };
      }
      return fh;
    });
    // ... and a new upload of the same name that lands right before it is put back (whichever call puts it back)
    let changed = false;
    let uploaded = false;
    const upload = () => {
      if (changed && !uploaded) {
        uploaded = true;
        inbox('same.txt', 'brand new\n');
      }
    };
    const back = p('inbox', 'same.txt');
    const real = { lstat: fsp.lstat, link: fsp.link, rename: fsp.rename };
    jest.spyOn(fsp, 'lstat').mockImplementation((async (path: any, ...rest: any[]) => {
      const r = (real.lstat as any)(path, ...rest);
      if (String(path) === back) await r.then(upload, upload);
      return r;
    }) as never);
    jest.spyOn(fsp, 'link').mockImplementation(async (from, to) => {
      if (String(to) === back) upload();
      return real.link(from, to);
    });
    jest.spyOn(fsp, 'rename').mockImplementation(async (from, to) => {
      if (String(to) === back) upload();
      return real.rename(from, to);
    });
    // WHEN
    const first = await run();
    jest.restoreAllMocks();
    // THEN the new upload is intact, and the changed file was kept, not reported
    expect(uploaded).toBe(true);
    expect(fs.readFileSync(back, 'utf8')).toBe('brand new\n');
    expect(first).toMatchObject({ files: 0, errors: [] });
    expect(claimedFiles()).toEqual(['same.txt']);
    // WHEN the next run comes / THEN both are processed and the newer upload is the result
    expect(await run()).toMatchObject({ files: 2, errors: [] });
    expect(resultData('same.txt')).toBe('brand new\n');
  });

  test('a file that changed while read is put back in the inbox when its name is free (where hard links exist)', async () => {
    // GIVEN a file that grows during its first read
    inbox('growing.txt', 'one\n');
    const realOpen = fsp.open;
    let appended = false;
    jest.spyOn(fsp, 'open').mockImplementation(async (path, ...rest) => {
      const fh = await realOpen(path, ...rest);
      if (!appended && String(path).includes('processing') && String(path).endsWith('growing.txt')) {
        const realRead = fh.read.bind(fh);
        (fh as any).read = async (...args: any[]) => {
          const r = await (realRead as any)(...args);
          if (!appended) fs.appendFileSync(String(path), 'two\n');
          appended = true;
          return r;
        };
      }
      return fh;
    });
    // WHEN / THEN it is back in the inbox, whole, and nothing is left claimed
    expect(await run()).toMatchObject({ files: 0, errors: [] });
    expect(fs.readFileSync(p('inbox', 'growing.txt'), 'utf8')).toBe('one\ntwo\n');
    expect(list(p('processing'))).toEqual([]);
  });
});

describe('"hand-backs and retries": deadlines, bytes and transient errors', () => {
  /** A clock that jumps past the deadlines once `name` has had `reads` reads; counts reads of it made after that. */
  function lateAfterReads(name: string, reads: number): { now: () => number; readsAfter: () => number } {
    let late = false;
    let after = 0;
    const realOpen = fsp.open;
    jest.spyOn(fsp, 'open').mockImplementation(async (path, ...rest) => {
      const fh = await realOpen(path, ...rest);
      if (String(path).includes('processing') && String(path).endsWith(name)) {
        const realRead = fh.read.bind(fh);
        let n = 0;
        (fh as any).read = async (...args: any[]) => {
          if (late) after++;
          if (++n === reads) late = true;
          return (realRead as any)(...args);
        };
      }
      return fh;
    });
    return { now: () => (late ? 100 : 0), readsAfter: () => after };
  }

  test('reading stops at the read deadline even mid-file: small files are published, the large one kept for the next run', async () => {
    // GIVEN a 1 MiB file (4 reads of 256 KiB) and three small ones
    const big = 'large file words\n'.repeat(Math.ceil((1024 * 1024) / 17));
    inbox('big.txt', big);
    for (const n of ['s1.txt', 's2.txt', 's3.txt']) inbox(n, `${n} small\n`);
    // WHEN the deadlines pass during the large file's second read
    const clock = lateAfterReads('big.txt', 2);
    const first = await run({ now: clock.now, deadline: 50, readDeadline: 50 });
    jest.restoreAllMocks();
    // THEN nothing more was read after it, the small files are published, the large one is kept (no error)
    expect(clock.readsAfter()).toBe(0);
    expect(first).toMatchObject({ files: 3, retrying: 1, errors: [] });
    expect(results()).toEqual(['s1.txt', 's2.txt', 's3.txt']);
    expect(claimedFiles()).toEqual(['big.txt']);
    // WHEN the next run has time / THEN it takes the large file over and finishes it
    expect(await run()).toMatchObject({ files: 1, recovered: 1, errors: [] });
    expect(resultMeta('big.txt')).toMatchObject(countText(big));
  });

  test('a file that never fits in one invocation is parked in failed/ after the retry bound, reported once', async () => {
    // GIVEN a file whose reading always outlasts the invocation
    inbox('huge.txt', 'w '.repeat(300 * 1024));
    const reports: unknown[] = [];
    // WHEN runs keep meeting their deadline in the middle of it
    for (let i = 0; i < MAX_ATTEMPTS + 1; i++) {
      const clock = lateAfterReads('huge.txt', 1);
      const r = await run({ now: clock.now, deadline: 50, readDeadline: 50 });
      jest.restoreAllMocks();
      reports.push(...r.errors);
      expect(r.files).toBe(0);
    }
    // THEN it went to failed/ once, with the reason, and is not reported again
    expect(reports).toEqual([{ name: 'huge.txt', error: expect.stringMatching(/^the deadline came while it was read.*gave up after 5 attempts \(moved to failed\//) }]);
    const [runDir] = list(p('failed'));
    expect(list(p('failed', runDir))).toEqual(['huge.txt']);
    expect(list(p('processing'))).toEqual([]);
  });

  test('a chunk is bounded by bytes as well as by files', async () => {
    // GIVEN three 300 KiB files and chunks of at most 400 KiB
    for (const n of ['a.txt', 'b.txt', 'c.txt']) inbox(n, 'x '.repeat(150 * 1024));
    // WHEN the deadline passes after the first chunk
    const result = await run({ chunkBytes: 400 * 1024, deadline: 1, now: oneChunkClock() });
    // THEN that chunk held one file: the others are still in the inbox
    expect(result).toMatchObject({ files: 1, errors: [], deferred: true });
    expect(list(p('inbox'))).toHaveLength(2);
    expect(list(p('processing'))).toEqual([]);
  });

  test('a transient error (ENOSPC writing metadata) keeps the file for the next run instead of failing it; it is retried a bounded number of times', async () => {
    // GIVEN the disk is full while full.txt's metadata is written
    inbox('full.txt', 'words that wait for space\n');
    inbox('other.txt', 'fine\n');
    const realOpen = fsp.open;
    const diskFull = () => jest.spyOn(fsp, 'open').mockImplementation(async (path, ...rest) => {
      if (String(path).endsWith('full.txt.meta.json')) throw Object.assign(new Error('ENOSPC: no space left on device, open'), { code: 'ENOSPC' });
      return realOpen(path, ...rest);
    });
    diskFull();
    // WHEN a run meets it
    const first = await run();
    jest.restoreAllMocks();
    // THEN it is not failed: nothing in failed/, no error, kept for the next run
    expect(first).toMatchObject({ files: 1, errors: [], retrying: 1 });
    expect(list(p('failed'))).toEqual([]);
    // WHEN space is freed and the next run comes / THEN it is processed
    expect(await run()).toMatchObject({ files: 1, errors: [] });
    expect(results()).toEqual(['full.txt', 'other.txt']);

    // AND a file whose error never passes goes to failed/ after the bound, reported once
    inbox('never.txt', 'never fits\n');
    const neverOpen = fsp.open;
    jest.spyOn(fsp, 'open').mockImplementation(async (path, ...rest) => {
      if (String(path).endsWith('never.txt.meta.json')) throw Object.assign(new Error('ENOSPC: no space left on device, open'), { code: 'ENOSPC' });
      return neverOpen(path, ...rest);
    });
    const errors: unknown[] = [];
    for (let i = 0; i < MAX_ATTEMPTS + 1; i++) errors.push(...(await run()).errors);
    expect(errors).toEqual([{ name: 'never.txt', error: expect.stringMatching(/^writing metadata failed: ENOSPC.*gave up after 5 attempts \(moved to failed\//) }]);
  });
});

describe('names', () => {
  test('a name with a backslash is an ordinary name: processed', async () => {
    // GIVEN
    inbox('back\\slash.txt', 'a b c\n');
    // WHEN
    const result = await run();
    // THEN
    expect(result).toMatchObject({ files: 1, errors: [] });
    expect(resultData('back\\slash.txt')).toBe('a b c\n');
  });
});

describe('as the access point user (uid 1000)', () => {
  const user = new AccessPointUser();
  afterEach(() => user.cleanup());

  (RUNS_AS_ROOT ? test : test.skip)('an unwritable failed/ (S3-born, root:root) fails the run up front, naming it; the bad file stays in the inbox', () => {
    // GIVEN the working directories made by the access point user, but failed/ created through the S3 API
    const mountPath = user.dir(1000);
    for (const d of ['inbox', 'processed', 'processing']) {
      fs.mkdirSync(join(mountPath, d));
      fs.chownSync(join(mountPath, d), 1000, 1000);
    }
    fs.mkdirSync(join(mountPath, 'failed'), { mode: 0o755 });
    fs.writeFileSync(join(mountPath, 'inbox', 'binary.dat'), Buffer.from([0, 1, 2]));
    // WHEN the processor runs, twice
    const first = user.run('processor-s3files', mountPath);
    const second = user.run('processor-s3files', mountPath);
    // THEN each run fails at once with the directory, its owner and the fix, and the file is untouched
    for (const r of [first, second]) {
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`ERROR:${mountPath}/failed is not writable for uid 1000 gid 1000 \\(owner 0:0, mode 755\\)`));
    }
    expect(list(join(mountPath, 'inbox'))).toEqual(['binary.dat']);
    expect(list(join(mountPath, 'processing'))).toEqual([]);
  });
});
