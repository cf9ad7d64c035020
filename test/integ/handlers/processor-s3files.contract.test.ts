/**
 * processor-s3files against its contract (issue 31; integ/README.md, "What the processors
 * guarantee"): every upload is processed once into processed/, or reported once in failed/ with a
 * reason; processed/<name>/ holds the newest upload's result; nothing in failed/ is replaced.
 * Each test sets up what a user, a crash or a clock leaves on a real directory.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { list, processorMount, tempMount } from './helpers';
import { handler } from '../../../integ/handlers/processor-s3files/index';

// A configurable copy of fs/promises, so single calls can be made to fail (the real one is frozen).
jest.mock('node:fs/promises', () => ({ ...jest.requireActual('node:fs/promises') }));
const fsp: typeof import('node:fs/promises') = jest.requireMock('node:fs/promises');

const { mountDir, p, inbox, run } = processorMount();
const setTimes = (path: string, at: Date) => fs.utimesSync(path, at, at);
const resultData = (name: string) => fs.readFileSync(p('processed', name, name), 'utf8');
/** The one run directory under failed/ and what it holds. */
function failedRun(): { dir: string; entries: string[] } {
  const runs = list(p('failed'));
  expect(runs).toHaveLength(1);
  return { dir: runs[0], entries: list(p('failed', runs[0])) };
}
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
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('"nothing else is deleted or replaced": nothing lost', () => {
  test('an upload restored with an older modification time (cp -p) is kept in failed/ and named, never deleted', async () => {
    // GIVEN a result of report.txt from an upload modified at T2, and a restored copy modified at T1 < T2
    const t1 = new Date('2026-01-01T00:00:00.000Z');
    const t2 = new Date('2026-02-01T00:00:00.000Z');
    inbox('report.txt', 'the newer text\n');
    setTimes(p('inbox', 'report.txt'), t2);
    expect(await run()).toMatchObject({ files: 1, errors: [] });
    inbox('report.txt', 'the restored older text\n');
    setTimes(p('inbox', 'report.txt'), t1);
    // WHEN the processor runs
    const result = await run();
    // THEN the newer result stays, and the restored upload is in failed/, whole, reported once with both times
    const { dir, entries } = failedRun();
    expect(result).toMatchObject({ files: 0, superseded: 1 });
    expect(result.errors).toEqual([{
      name: 'report.txt',
      error: 'superseded: processed/report.txt/ holds the result of an upload modified later (2026-02-01T00:00:00.000Z) than this one '
        + '(2026-01-01T00:00:00.000Z); a copy that keeps old times (cp -p, rsync -t) loses to it. Touch it and put it back in inbox/ '
        + `to make it the result (moved to failed/${dir}/)`,
    }]);
    expect(entries).toEqual(['report.txt']);
    expect(fs.readFileSync(p('failed', dir, 'report.txt'), 'utf8')).toBe('the restored older text\n');
    expect(resultData('report.txt')).toBe('the newer text\n');
    expect(list(p('processing'))).toEqual([]);
  });
});

/** A claim directory an earlier invocation handed back (its lease marked released), holding `name` in item `1-1/`. */
function handedBack(name: string, data: string | Buffer): string {
  const claim = `${Date.now()}-${randomUUID()}`;
  fs.mkdirSync(p('processing', claim, '1-1'), { recursive: true });
  fs.writeFileSync(p('processing', claim, '1-1', name), data);
  fs.writeFileSync(p('processing', claim, '.lease'), '{"owner":"x","ttlMs":30000,"beat":2,"released":true}\n');
  return p('processing', claim, '1-1', name);
}
/** Every file under failed/ (`<run dir>/<name>`) with its bytes. */
function failedFiles(): Record<string, Buffer> {
  return Object.fromEntries(list(p('failed')).flatMap((d) => list(p('failed', d)).map((n) => [`${d}/${n}`, fs.readFileSync(p('failed', d, n))])));
}

describe('"processed/<name>/ holds the result of the newest upload of the name": re-uploads (the same on both sides)', () => {
  test('a newer upload replaces the older result, data and metadata together: counted in files, not reported, not superseded', async () => {
    // GIVEN the result of r.txt from an upload a minute old
    inbox('r.txt', 'the first upload\n');
    setTimes(p('inbox', 'r.txt'), new Date(Date.now() - 60_000));
    expect(await run()).toMatchObject({ files: 1, errors: [] });
    // WHEN r.txt is uploaded again, newer, and the processor runs
    inbox('r.txt', 'the second upload, newer\n');
    const modifiedNs = String(fs.statSync(p('inbox', 'r.txt'), { bigint: true }).mtimeNs);
    const second = await run();
    // THEN the result is the second upload's, whole; the run counts it and reports nothing; failed/ has nothing
    expect(second).toEqual(expect.objectContaining({ files: 1, errors: [] }));
    expect(second).not.toHaveProperty('superseded');
    expect(resultData('r.txt')).toBe('the second upload, newer\n');
    const meta = JSON.parse(fs.readFileSync(p('processed', 'r.txt', 'r.txt.meta.json'), 'utf8'));
    expect(meta).toMatchObject({ name: 'r.txt', bytes: 25, source: { modifiedNs } });
    expect(list(p('processed', 'r.txt'))).toEqual(['r.txt', 'r.txt.meta.json']);
    expect(list(p('failed'))).toEqual([]);
    expect(list(p('processing'))).toEqual([]);
  });
});

describe('"nothing else is deleted or replaced": an older result is dropped only once the newer one is in place', () => {
  test('when publishing the newer result fails after the older was moved away, the older result is published again and the newer upload kept', async () => {
    // GIVEN the result of r.txt, a newer upload, and a rename into processed/ that fails (EIO) once the older result is moved away
    inbox('r.txt', 'the first upload\n');
    setTimes(p('inbox', 'r.txt'), new Date(Date.now() - 60_000));
    expect(await run()).toMatchObject({ files: 1, errors: [] });
    inbox('r.txt', 'the second upload, newer\n');
    const realRename = fsp.rename;
    let failed = false;
    jest.spyOn(fsp, 'rename').mockImplementation(async (from, to) => {
      if (!failed && String(to) === p('processed', 'r.txt') && !String(from).includes('replaced-') && !fs.existsSync(String(to))) {
        failed = true;
        throw Object.assign(new Error(`EIO: i/o error, rename '${String(from)}'`), { code: 'EIO' });
      }
      return realRename(from, to);
    });
    // WHEN the processor runs
    const result = await run();
    // THEN processed/r.txt/ holds the first result again; the newer upload is in failed/, reported once
    expect(failed).toBe(true);
    expect(result).toMatchObject({ files: 0 });
    expect(result.errors).toEqual([{ name: 'r.txt', error: expect.stringMatching(/^publishing to processed\/ failed: EIO: .* \(moved to failed\/\S+\/\)$/) }]);
    expect(resultData('r.txt')).toBe('the first upload\n');
    expect(list(p('processed', 'r.txt'))).toEqual(['r.txt', 'r.txt.meta.json']);
    expect(Object.values(failedFiles()).map(String)).toEqual(['the second upload, newer\n']);
    expect(list(p('processing'))).toEqual([]);
  });
});

describe('failed/ keeps every upload of a name (two of one name failing in one run, moved in parallel)', () => {
  test('a handed-back img.bin and another img.bin in the inbox, both not text: both are kept in failed/, each where its report says', async () => {
    // GIVEN a claim handed back holding one img.bin, and a different img.bin in the inbox
    const older = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]);
    const newer = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x02, 0x03]);
    handedBack('img.bin', older);
    inbox('img.bin', newer);
    // WHEN one run claims both (one chunk, in parallel) and fails both
    const result = await run();
    // THEN both uploads' bytes are in failed/, in two directories, each reported once with the directory that holds it
    const kept = failedFiles();
    expect(Object.values(kept).sort(Buffer.compare)).toEqual([older, newer].sort(Buffer.compare));
    expect(result).toMatchObject({ files: 0, recovered: 1 });
    expect(result.errors).toHaveLength(2);
    const dirs = result.errors.map((e) => /\(moved to failed\/([^/]+)\/\)$/.exec(e.error)?.[1]);
    expect(dirs.map((d) => `${d}/img.bin`).sort()).toEqual(Object.keys(kept).sort());
    expect(list(p('inbox'))).toEqual([]);
    expect(list(p('processing'))).toEqual([]);
  });

  test('a restored older upload (cp -p) in a handed-back claim and another older one in the inbox, both superseded: both are kept', async () => {
    // GIVEN the result of an upload of r.txt modified at T3, a handed-back claim holding a copy modified at T1,
    // and an inbox upload modified at T2 (T1 < T2 < T3)
    inbox('r.txt', 'the newest text\n');
    setTimes(p('inbox', 'r.txt'), new Date('2026-03-01T00:00:00.000Z'));
    expect(await run()).toMatchObject({ files: 1, errors: [] });
    setTimes(handedBack('r.txt', 'restored from January\n'), new Date('2026-01-01T00:00:00.000Z'));
    inbox('r.txt', 'copied from February\n');
    setTimes(p('inbox', 'r.txt'), new Date('2026-02-01T00:00:00.000Z'));
    // WHEN one run processes both
    const result = await run();
    // THEN the newest result stays, and both older uploads are in failed/, each reported once as superseded
    expect(result).toMatchObject({ files: 0, superseded: 2, recovered: 1 });
    expect(result.errors.map((e) => e.error)).toEqual([expect.stringMatching(/^superseded: /), expect.stringMatching(/^superseded: /)]);
    expect(Object.values(failedFiles()).map(String).sort()).toEqual(['copied from February\n', 'restored from January\n']);
    expect(resultData('r.txt')).toBe('the newest text\n');
    expect(list(p('processing'))).toEqual([]);
  });

  test('a move to failed/ that fails leaves the file where it was, reported, with no placeholder left; the next run moves it', async () => {
    // GIVEN a binary file, and a rename into failed/ that fails once (EIO)
    inbox('bad.bin', Buffer.from([0, 1, 2]));
    const realRename = fsp.rename;
    let failedOnce = false;
    jest.spyOn(fsp, 'rename').mockImplementation(async (from, to) => {
      if (!failedOnce && String(to).includes(`${join(mountDir(), 'failed')}/`)) {
        failedOnce = true;
        throw Object.assign(new Error(`EIO: i/o error, rename '${String(from)}'`), { code: 'EIO' });
      }
      return realRename(from, to);
    });
    // WHEN it runs, then again
    const first = await run();
    const claimed = claimedFiles();
    const placeholders = Object.keys(failedFiles());
    const second = await run();
    // THEN the first reports where the file stays, and leaves nothing in failed/; the second moves it there
    expect(first.errors).toEqual([{
      name: 'bad.bin',
      error: expect.stringMatching(/^not text: NUL byte .*; could not move it to failed\/ \(EIO: i\/o error, rename .*\): it stays in processing\/\S+\/1\/ and the next run takes it over$/),
    }]);
    expect(claimed).toEqual(['bad.bin']);
    expect(placeholders).toEqual([]);
    expect(second.errors).toEqual([{ name: 'bad.bin', error: expect.stringMatching(/^not text: NUL byte .* \(moved to failed\/\S+\/\)$/) }]);
    expect(Object.values(failedFiles())).toEqual([Buffer.from([0, 1, 2])]);
    expect(list(p('processing'))).toEqual([]);
  });
});

describe('reported once', () => {
  test('symlinks and sub-directories in inbox/ are moved to failed/ (never followed) and reported once, not every run', async () => {
    // GIVEN a symlink to a file outside the mount and a directory with a file in it
    const outside = tempMount();
    try {
      fs.writeFileSync(join(outside.path, 'secret'), 'top secret\n');
      fs.symlinkSync(join(outside.path, 'secret'), p('inbox', 'link.txt'));
      fs.mkdirSync(p('inbox', 'subdir'));
      fs.writeFileSync(p('inbox', 'subdir', 'inner.txt'), 'inner words\n');
      // WHEN two runs come
      const first = await run();
      const second = await run();
      // THEN the first reports each once and moves it, link and directory as they are; the second has nothing to say
      const { dir, entries } = failedRun();
      expect(first.files).toBe(0);
      expect(first.errors).toEqual(expect.arrayContaining([
        { name: 'link.txt', error: `refused: a symlink, never followed (moved to failed/${dir}/)` },
        { name: 'subdir', error: `refused: a directory; only regular files directly in inbox/ are processed (moved to failed/${dir}/)` },
      ]));
      expect(first.errors).toHaveLength(2);
      expect(second).toMatchObject({ files: 0, errors: [] });
      expect(entries).toEqual(['link.txt', 'subdir']);
      expect(fs.lstatSync(p('failed', dir, 'link.txt')).isSymbolicLink()).toBe(true);
      expect(fs.readFileSync(p('failed', dir, 'subdir', 'inner.txt'), 'utf8')).toBe('inner words\n');
      expect(fs.readFileSync(join(outside.path, 'secret'), 'utf8')).toBe('top secret\n');
      expect(list(p('inbox'))).toEqual([]);
    } finally {
      outside.cleanup();
    }
  });

  test('a name that is not valid UTF-8 is reported once (escaped) and moved to failed/ under its exact bytes, never taken for a lost race', async () => {
    // GIVEN a Latin-1 name (S3 keys are UTF-8, so it could never be exported) and a good file
    const raw = Buffer.from('caf\xe9.txt', 'latin1');
    fs.writeFileSync(Buffer.concat([Buffer.from(`${p('inbox')}/`), raw]), 'words in a badly named file\n');
    inbox('good.txt', 'fine\n');
    // WHEN two runs come
    const first = await run();
    const second = await run();
    // THEN it is reported once, under a printable name, and kept under its own bytes
    const { dir } = failedRun();
    expect(first).toMatchObject({ files: 1 });
    expect(first.errors).toEqual([{
      name: 'caf\\xe9.txt',
      error: `refused: the name is not valid UTF-8, so it cannot become an S3 key; rename it in UTF-8 (moved to failed/${dir}/)`,
    }]);
    expect(second).toMatchObject({ files: 0, errors: [] });
    const kept = fs.readdirSync(Buffer.from(p('failed', dir)), { encoding: 'buffer' });
    expect(kept).toEqual([raw]);
    expect(fs.readdirSync(Buffer.from(p('inbox')), { encoding: 'buffer' })).toEqual([]);
  });
});

describe('"exactly once, nothing lost": never duplicated', () => {
  test('when unlink fails after the put-back link, the file is in exactly one place and is processed once', async () => {
    // GIVEN a file that grows while it is read (so it is put back in inbox/ with link + unlink) ...
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
    // ... and the unlink of its claimed name fails once (EIO)
    const realUnlink = fsp.unlink;
    let failedOnce = false;
    jest.spyOn(fsp, 'unlink').mockImplementation(async (path) => {
      if (!failedOnce && String(path).includes('processing') && String(path).endsWith('growing.txt')) {
        failedOnce = true;
        throw Object.assign(new Error(`EIO: i/o error, unlink '${String(path)}'`), { code: 'EIO' });
      }
      return realUnlink(path);
    });
    // WHEN it runs, then runs again with working calls
    const first = await run();
    jest.restoreAllMocks();
    const inBoth = { inbox: list(p('inbox')), claimed: claimedFiles() };
    const second = await run();
    // THEN after the first run it was either in inbox/ or claimed, never both; in the end it was processed once
    expect(failedOnce).toBe(true);
    expect(first).toMatchObject({ files: 0, errors: [] });
    expect(inBoth.inbox.length + inBoth.claimed.length).toBe(1);
    expect(second).toMatchObject({ files: 1, errors: [] });
    expect(resultData('growing.txt')).toBe('one\ntwo\n');
    expect(list(p('inbox'))).toEqual([]);
    expect(list(p('processing'))).toEqual([]);
  });
});

describe('never stuck', () => {
  test('a claim whose lease is stamped far in the future (a clock step, a restore with times) is taken over as damaged', async () => {
    // GIVEN a dead invocation's claim whose .lease mtime is two hours ahead of the server's clock
    const claim = `${Date.now()}-${randomUUID()}`;
    fs.mkdirSync(p('processing', claim, '1'), { recursive: true });
    fs.writeFileSync(p('processing', claim, '1', 'stuck.txt'), 'claimed long ago\n');
    fs.writeFileSync(p('processing', claim, '.lease'), '{"owner":"x","ttlMs":30000,"beat":2}\n');
    setTimes(p('processing', claim, '.lease'), new Date(Date.now() + 2 * 3600_000));
    const logs: { message: string; extra: Record<string, unknown> }[] = [];
    // WHEN the processor runs
    const result = await run({ log: (message, extra) => logs.push({ message, extra }) });
    // THEN it took the claim over, processed the file and said why
    expect(result).toMatchObject({ files: 1, recovered: 1, errors: [] });
    expect(resultData('stuck.txt')).toBe('claimed long ago\n');
    expect(logs).toContainEqual({
      message: 'lease stamped more than the longest lease in the future (a clock step or a restore with times): treated as expired',
      extra: expect.objectContaining({ claim }),
    });
    expect(list(p('processing'))).toEqual([]);
  });
});

describe('phase timings', () => {
  test('claiming has its own phase: the claim renames are not counted as listing', async () => {
    // GIVEN every claim rename takes 300 ms more than it would
    inbox('a.txt', 'a b\n');
    const realRename = fsp.rename;
    jest.spyOn(fsp, 'rename').mockImplementation(async (from, to) => {
      if (String(from).startsWith(p('inbox'))) await sleep(300);
      return realRename(from, to);
    });
    // WHEN
    const result = await run({ concurrency: 1 });
    // THEN the time is in claimMs, and listMs does not hold it
    expect(result).toMatchObject({ files: 1, errors: [] });
    expect(result.timings.claimMs).toBeGreaterThanOrEqual(300);
    expect(result.timings.listMs).toBeLessThan(300);
  });
});

describe('the function\'s timeout', () => {
  const savedEnv = { ...process.env };
  afterEach(() => { process.env = { ...savedEnv }; });

  test('a timeout too short to ever start a chunk fails naming the timeout, instead of deferring forever', async () => {
    // GIVEN a mounted inbox with a file, and Lambda's default 3 s timeout
    process.env.MOUNT_PATH = mountDir();
    process.env.POWERTOOLS_METRICS_DISABLED = 'true';
    process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
    inbox('a.txt', 'a\n');
    // WHEN the handler starts with 3 s left
    const result = handler({}, { getRemainingTimeInMillis: () => 3_000 });
    // THEN it fails with what to change, and touched nothing
    await expect(result).rejects.toThrow(new Error('processor-s3files: the function\'s timeout is too short: 3 s remained when this invocation '
      + 'started, and the processor starts no work in its last 20 s (kept to finish what is in flight), which leaves it less than 1 s: it '
      + 'would return deferred: true on every run, having done next to nothing. Set the function\'s timeout to at least 30 s (Lambda\'s default is 3 s).'));
    expect(list(p('inbox'))).toEqual(['a.txt']);
  });
});
