import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { AccessPointUser, captureStdout, emfMetrics, list, RUNS_AS_ROOT, tempMount } from './helpers';
import { handler, processMount } from '../../../integ/handlers/processor-s3files/index';

// A configurable copy of fs/promises, so single calls can be made to fail (the real one is frozen).
jest.mock('node:fs/promises', () => ({ ...jest.requireActual('node:fs/promises') }));
const fsp: typeof import('node:fs/promises') = jest.requireMock('node:fs/promises');

/** A result's metadata (`processed/<name>/<name>.meta.json`) without its source stamp. */
const fullMeta = (mount: string, name: string) =>
  JSON.parse(fs.readFileSync(join(mount, 'processed', name, `${name}.meta.json`), 'utf8'));
const meta = (mount: string, name: string) => {
  const { source, ...counts } = fullMeta(mount, name);
  return counts;
};
/** Set a path's times `seconds` into the past, as if the server's clock had moved on since it changed. */
function age(path: string, seconds: number): void {
  const t = new Date(Date.now() - seconds * 1000);
  fs.utimesSync(path, t, t);
}
/** A result's data (`processed/<name>/<name>`). */
const resultData = (mount: string, name: string) => fs.readFileSync(join(mount, 'processed', name, name), 'utf8');
/** Every result directory, each checked to hold exactly its data and its metadata. */
function results(mount: string): string[] {
  const names = list(join(mount, 'processed'));
  for (const n of names) expect(list(join(mount, 'processed', n))).toEqual([n, `${n}.meta.json`]);
  return names;
}

describe('processor-s3files on a real directory', () => {
  let mount: ReturnType<typeof tempMount>;
  let out: ReturnType<typeof captureStdout>;
  const savedEnv = { ...process.env };

  beforeEach(() => {
    mount = tempMount();
    fs.mkdirSync(join(mount.path, 'inbox'));
    process.env.MOUNT_PATH = mount.path;
    delete process.env.CONCURRENCY;
    delete process.env.LEASE_SECONDS;
    delete process.env.POWERTOOLS_METRICS_DISABLED;
    out = captureStdout();
  });
  afterEach(() => {
    out.restore();
    jest.restoreAllMocks();
    process.env = { ...savedEnv };
    mount.cleanup();
  });
  const inbox = (name: string, data: string | Buffer) => fs.writeFileSync(join(mount.path, 'inbox', name), data);

  /**
   * A producer still writing `name`: once the processor has opened its claimed copy, `onOpen` runs,
   * and `more` is appended to that file right after the processor's first read.
   */
  function appendDuringFirstRead(name: string, more: string, onOpen?: () => void): void {
    const realOpen = fsp.open;
    jest.spyOn(fsp, 'open').mockImplementation(async (p, ...rest) => {
      const fh = await realOpen(p, ...rest);
      if (String(p).includes('processing') && String(p).endsWith(name)) {
        onOpen?.();
        const realRead = fh.read.bind(fh);
        let appended = false;
        (fh as any).read = async (...args: any[]) => {
          const r = await (realRead as any)(...args);
          if (!appended) {
            appended = true;
            fs.appendFileSync(String(p), more);
          }
          return r;
        };
      }
      return fh;
    });
  }

  test('processes text files with spaces, Unicode and empty content, writes metadata, emits FilesProcessed', async () => {
    // GIVEN awkward but valid names and contents
    inbox('hello world.txt', 'hello world\nsecond line here\n');
    inbox('größe 日本.md', 'naïve café\u00a0crème  brûlée'); // NBSP separates words, no trailing newline
    inbox('empty', '');
    inbox('crlf.txt', 'a b\r\nc\r\n');

    // WHEN the handler runs
    const result = await handler({});

    // THEN every file moved with correct metadata, nothing left behind
    expect(result.files).toBe(4);
    expect(result.errors).toEqual([]);
    expect(meta(mount.path, 'hello world.txt')).toEqual({ name: 'hello world.txt', wordCount: 5, lineCount: 2, bytes: 29 });
    expect(meta(mount.path, 'größe 日本.md')).toEqual({
      name: 'größe 日本.md', wordCount: 4, lineCount: 1, bytes: Buffer.byteLength('naïve café\u00a0crème  brûlée'),
    });
    expect(meta(mount.path, 'empty')).toEqual({ name: 'empty', wordCount: 0, lineCount: 0, bytes: 0 });
    expect(meta(mount.path, 'crlf.txt')).toEqual({ name: 'crlf.txt', wordCount: 3, lineCount: 2, bytes: 8 });
    expect(resultData(mount.path, 'hello world.txt')).toBe('hello world\nsecond line here\n');
    // AND the metadata names exactly the source it describes
    const helloStat = fs.statSync(join(mount.path, 'processed', 'hello world.txt', 'hello world.txt'), { bigint: true });
    expect(fullMeta(mount.path, 'hello world.txt').source).toEqual({
      modified: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      modifiedNs: String(helloStat.mtimeNs),
      claim: expect.stringMatching(/^\d{13}-[0-9a-f-]{36}$/),
      // the claim's time: the claiming rename set the file's ctime, and only directories were renamed after it
      claimedNs: String(helloStat.ctimeNs),
    });
    expect(list(join(mount.path, 'inbox'))).toEqual([]);
    expect(list(join(mount.path, 'processing'))).toEqual([]);
    expect(results(mount.path)).toEqual(['crlf.txt', 'empty', 'größe 日本.md', 'hello world.txt'].sort());
    expect(Object.keys(result.timings).sort()).toEqual(['claimMs', 'listMs', 'processMs', 'readMs', 'renameMs', 'totalMs', 'writeMs']);
    expect(result.concurrency).toBe(16);
    const emf = emfMetrics(out.lines);
    expect(emf).toHaveLength(1);
    expect(emf[0]).toMatchObject({ FilesProcessed: 4, FilesFailed: 0, service: 'processor-s3files' });
    expect((emf[0]._aws as any).CloudWatchMetrics[0].Namespace).toBe('S3FilesLambda');
  });

  test('uses POWERTOOLS_METRICS_NAMESPACE / SERVICE_NAME and CONCURRENCY from the environment', async () => {
    // GIVEN env overrides
    process.env.POWERTOOLS_METRICS_NAMESPACE = 'MyBench';
    process.env.POWERTOOLS_SERVICE_NAME = 'after';
    process.env.CONCURRENCY = '3';
    inbox('a', 'x');
    // WHEN
    const result = await handler(undefined as never);
    // THEN
    expect(result.concurrency).toBe(3);
    const emf = emfMetrics(out.lines)[0];
    expect((emf._aws as any).CloudWatchMetrics[0].Namespace).toBe('MyBench');
    expect(emf.service).toBe('after');
  });

  test('leaves non-UTF-8 and binary files in the inbox, reports them as not text, goes on with the batch', async () => {
    // GIVEN Latin-1 text, a PNG-like header with NUL bytes, a truncated UTF-8 sequence, and a good file
    const latin1 = Buffer.from('caf\xe9 cr\xe8me\n', 'latin1');
    const binary = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00]);
    const truncated = Buffer.from([0x61, 0x20, 0xe6, 0x97]);
    inbox('latin1.txt', latin1);
    inbox('image.png', binary);
    inbox('truncated.txt', truncated);
    inbox('good.txt', 'ok\n');

    // WHEN
    const result = await handler({ concurrency: 2 });

    // THEN the bad ones are reported and untouched, the good one processed
    expect(result.files).toBe(1);
    const byName = Object.fromEntries(result.errors.map((e) => [e.name, e.error]));
    expect(byName['latin1.txt']).toMatch(/^not text: invalid UTF-8/);
    expect(byName['image.png']).toMatch(/^not text: NUL byte/);
    expect(byName['truncated.txt']).toMatch(/^not text: truncated UTF-8/);
    const [run] = list(join(mount.path, 'failed'));
    expect(fs.readFileSync(join(mount.path, 'failed', run, 'latin1.txt'))).toEqual(latin1);
    expect(fs.readFileSync(join(mount.path, 'failed', run, 'image.png'))).toEqual(binary);
    expect(fs.readFileSync(join(mount.path, 'failed', run, 'truncated.txt'))).toEqual(truncated);
    expect(list(join(mount.path, 'inbox'))).toEqual([]);
    expect(results(mount.path)).toEqual(['good.txt']);
    expect(list(join(mount.path, 'processing'))).toEqual([]);
    expect(emfMetrics(out.lines)[0]).toMatchObject({ FilesProcessed: 1, FilesFailed: 3 });
  });

  test('refuses symlinks (never follows them out of the mount) and sub-directories, moving them to failed/ as they are', async () => {
    // GIVEN a secret outside the mount, a symlink to it, a dangling symlink, and a directory
    const outside = tempMount();
    try {
      fs.writeFileSync(join(outside.path, 'secret'), 'top secret words\n');
      fs.symlinkSync(join(outside.path, 'secret'), join(mount.path, 'inbox', 'link.txt'));
      fs.symlinkSync('../../etc/passwd', join(mount.path, 'inbox', 'dotdot-link'));
      fs.mkdirSync(join(mount.path, 'inbox', 'subdir'));

      // WHEN
      const result = await handler({});

      // THEN nothing followed, nothing processed, each reported once and moved to failed/ as it is
      const [run] = list(join(mount.path, 'failed'));
      expect(result.files).toBe(0);
      expect(result.errors).toEqual(expect.arrayContaining([
        { name: 'link.txt', error: `refused: a symlink, never followed (moved to failed/${run}/)` },
        { name: 'dotdot-link', error: `refused: a symlink, never followed (moved to failed/${run}/)` },
        { name: 'subdir', error: `refused: a directory; only regular files directly in inbox/ are processed (moved to failed/${run}/)` },
      ]));
      expect(fs.lstatSync(join(mount.path, 'failed', run, 'link.txt')).isSymbolicLink()).toBe(true);
      expect(fs.readFileSync(join(outside.path, 'secret'), 'utf8')).toBe('top secret words\n');
      expect(list(join(mount.path, 'processed'))).toEqual([]);
      expect(list(join(mount.path, 'inbox'))).toEqual([]);
    } finally {
      outside.cleanup();
    }
  });

  test('a file swapped for a symlink after listing is not followed (O_NOFOLLOW) and is quarantined', async () => {
    // GIVEN a regular file that becomes a symlink between listing and the claim rename
    inbox('swap.txt', 'innocent\n');
    const outside = tempMount();
    fs.writeFileSync(join(outside.path, 'secret'), 'secret\n');
    const realRename = fsp.rename;
    jest.spyOn(fsp, 'rename').mockImplementation(async (from, to) => {
      if (String(from).endsWith(join('inbox', 'swap.txt'))) {
        fs.unlinkSync(from as string);
        fs.symlinkSync(join(outside.path, 'secret'), from as string);
      }
      return realRename(from, to);
    });
    try {
      // WHEN
      const result = await handler({});
      // THEN open() refused the link, which went to failed/; the secret was never read
      expect(result.files).toBe(0);
      expect(result.errors).toHaveLength(1);
      expect(result.errors[0].error).toMatch(/ELOOP.*\(moved to failed\/\d{13}-/);
      const [run] = list(join(mount.path, 'failed'));
      expect(fs.lstatSync(join(mount.path, 'failed', run, 'swap.txt')).isSymbolicLink()).toBe(true);
      expect(list(join(mount.path, 'processed'))).toEqual([]);
    } finally {
      outside.cleanup();
    }
  });

  test('refuses an inbox/ or processed/ directory that is a symlink leading out of the mount', async () => {
    // GIVEN processed/ points outside the mount
    const outside = tempMount();
    try {
      fs.symlinkSync(outside.path, join(mount.path, 'processed'));
      inbox('a.txt', 'a\n');
      // WHEN / THEN
      await expect(handler({})).rejects.toThrow(/processed must be a real directory under MOUNT_PATH, found a symlink/);
      expect(list(outside.path)).toEqual([]);
      expect(list(join(mount.path, 'inbox'))).toEqual(['a.txt']);
    } finally {
      outside.cleanup();
    }
  });

  test('streams a 50 MB file and counts it exactly', async () => {
    // GIVEN 50 MiB of "word " lines: 10 words per line
    const line = `${'word '.repeat(9)}word\n`; // 50 bytes
    const lines = (50 * 1024 * 1024) / line.length;
    const fd = fs.openSync(join(mount.path, 'inbox', 'big.txt'), 'w');
    const block = Buffer.from(line.repeat(lines / 64));
    for (let i = 0; i < 64; i++) fs.writeSync(fd, block);
    fs.closeSync(fd);
    const readFileSpy = jest.spyOn(fsp, 'readFile');

    // WHEN
    const result = await handler({});

    // THEN
    expect(result.errors).toEqual([]);
    expect(meta(mount.path, 'big.txt')).toEqual({ name: 'big.txt', wordCount: lines * 10, lineCount: lines, bytes: 50 * 1024 * 1024 });
    expect(readFileSpy).not.toHaveBeenCalled();
  });

  test('processes 2,500 files (ten chunks of 256 at concurrency 32)', async () => {
    // GIVEN 2,500 small files
    for (let i = 0; i < 2_500; i++) fs.writeFileSync(join(mount.path, 'inbox', `f${i}.txt`), `file number ${i}\n`);
    // WHEN
    const result = await handler({ concurrency: 32 });
    // THEN
    expect(result.files).toBe(2_500);
    expect(result.errors).toEqual([]);
    expect(list(join(mount.path, 'processed'))).toHaveLength(2_500);
    expect(meta(mount.path, 'f2499.txt')).toEqual({ name: 'f2499.txt', wordCount: 3, lineCount: 1, bytes: 'file number 2499\n'.length });
    expect(list(join(mount.path, 'inbox'))).toEqual([]);
  }, 120_000);

  test('a corrected upload that arrives while the bad file is processed is never overwritten, and the bad one is reported once', async () => {
    // GIVEN a bad (non-UTF-8) report.txt, and a producer that uploads a corrected one while it is read
    fs.writeFileSync(join(mount.path, 'inbox', 'report.txt'), Buffer.from([0xff, 0xfe, 0x00]));
    const realOpen = fsp.open;
    jest.spyOn(fsp, 'open').mockImplementation(async (p, ...rest) => {
      if (String(p).includes('processing') && String(p).endsWith('report.txt')) fs.writeFileSync(join(mount.path, 'inbox', 'report.txt'), 'corrected words\n');
      return realOpen(p, ...rest);
    });
    // WHEN the processor runs
    const first = await handler({});
    jest.restoreAllMocks();
    // THEN the corrected upload is still in the inbox, the bad one in failed/
    expect(first.errors).toEqual([{ name: 'report.txt', error: expect.stringMatching(/^not text.*\(moved to failed\//) }]);
    expect(fs.readFileSync(join(mount.path, 'inbox', 'report.txt'), 'utf8')).toBe('corrected words\n');
    const [run] = list(join(mount.path, 'failed'));
    expect(fs.readFileSync(join(mount.path, 'failed', run, 'report.txt'))).toEqual(Buffer.from([0xff, 0xfe, 0x00]));
    // WHEN it runs again / THEN it processes the corrected file and does not report the bad one again
    const second = await handler({});
    expect(second).toMatchObject({ files: 1, errors: [] });
    expect(meta(mount.path, 'report.txt')).toMatchObject({ wordCount: 2 });
  });

  test('a user file named like a result (scan.txt.meta.json) is processed as a file of its own, never taken for the result of scan.txt', async () => {
    // GIVEN scan.txt and a user sidecar with the name the result's metadata has
    inbox('scan.txt', 'three little words\n');
    inbox('scan.txt.meta.json', '{"name":"scan.txt","wordCount":999}');
    // WHEN
    const result = await handler({});
    // THEN each has its own result directory: scan.txt's metadata is the processor's own
    expect(result).toMatchObject({ files: 2, errors: [] });
    expect(meta(mount.path, 'scan.txt')).toEqual({ name: 'scan.txt', wordCount: 3, lineCount: 1, bytes: 19 });
    expect(meta(mount.path, 'scan.txt.meta.json')).toMatchObject({ name: 'scan.txt.meta.json', wordCount: 1 });
    expect(resultData(mount.path, 'scan.txt.meta.json')).toBe('{"name":"scan.txt","wordCount":999}');
    expect(results(mount.path)).toEqual(['scan.txt', 'scan.txt.meta.json']);
  });

  test('a name too long for its result is quarantined once, never half-processed, and the rest go on', async () => {
    // GIVEN a 250-byte name (its .meta.json would be 260 bytes) and a normal file
    const long = `${'n'.repeat(246)}.txt`;
    inbox(long, 'some words\n');
    inbox('ok.txt', 'ok\n');
    // WHEN the processor runs twice
    const first = await handler({});
    const second = await handler({});
    // THEN the long name is reported with the fix, moved to failed/, and not seen again
    expect(first.files).toBe(1);
    expect(first.errors).toEqual([{ name: long, error: expect.stringMatching(/^name too long for its result: .*260 bytes, over 255; shorten the name .*\(moved to failed\//) }]);
    const [run] = list(join(mount.path, 'failed'));
    expect(list(join(mount.path, 'failed', run))).toEqual([long]);
    expect(results(mount.path)).toEqual(['ok.txt']);
    expect(second).toMatchObject({ files: 0, errors: [] });
  });

  test('"what a producer must do": files still being written are not claimed: dotfiles, NFS silly-renames and temporary suffixes are skipped quietly', async () => {
    // GIVEN a producer's write-then-rename temp file, tool temp names, an .nfs file, and a finished file
    for (const name of ['.report.csv.tmp', 'upload.part', 'movie.crdownload', 'notes.txt~', '.nfs0000000000abc1', 'data.TMP']) inbox(name, 'partial\n');
    inbox('report.csv', 'a,b\n');
    // WHEN
    const result = await handler({});
    // THEN only the finished file is processed; the others are untouched and not reported
    expect(result).toMatchObject({ files: 1, errors: [] });
    expect(list(join(mount.path, 'inbox'))).toEqual(['.nfs0000000000abc1', '.report.csv.tmp', 'data.TMP', 'movie.crdownload', 'notes.txt~', 'upload.part']);
  });

  test('a file that grows while it is read is put back for a later run, and processed whole then', async () => {
    // GIVEN a file the producer is still appending to while the processor reads it
    inbox('growing.txt', 'one two\n');
    appendDuringFirstRead('growing.txt', 'three four\n');
    // WHEN the first run reads it mid-write
    const first = await handler({});
    jest.restoreAllMocks();
    // THEN it was not processed, not reported as an error, and is back in the inbox
    expect(first).toMatchObject({ files: 0, errors: [] });
    expect(fs.readFileSync(join(mount.path, 'inbox', 'growing.txt'), 'utf8')).toBe('one two\nthree four\n');
    expect(list(join(mount.path, 'processed'))).toEqual([]);
    // WHEN the next run sees the finished file / THEN the metadata describes all of it
    const second = await handler({});
    expect(second).toMatchObject({ files: 1, errors: [] });
    expect(meta(mount.path, 'growing.txt')).toEqual({ name: 'growing.txt', wordCount: 4, lineCount: 2, bytes: 19 });
  });

  test('a changed file whose name was reused meanwhile stays claimed, never over the new file, and the newer one is the result', async () => {
    // GIVEN a file that changes while read, and a new file with its name uploaded at the same time
    inbox('same.txt', 'old\n');
    age(join(mount.path, 'inbox', 'same.txt'), 60);
    appendDuringFirstRead('same.txt', 'more\n', () => inbox('same.txt', 'brand new\n'));
    // WHEN
    const result = await handler({});
    jest.restoreAllMocks();
    // THEN the new upload is intact, and the changed file is kept for the next run (not an error)
    expect(result).toMatchObject({ files: 0, errors: [], retrying: 1 });
    expect(fs.readFileSync(join(mount.path, 'inbox', 'same.txt'), 'utf8')).toBe('brand new\n');
    // WHEN the next run comes / THEN it processes both: the one modified last is the result; the
    // other is either replaced by it or, published second, kept in failed/ as superseded
    const second = await handler({});
    expect(second).toMatchObject({ recovered: 1 });
    expect(second.files + (second.superseded ?? 0)).toBe(2);
    expect(second.errors).toHaveLength(second.superseded ?? 0);
    for (const e of second.errors) expect(e).toEqual({ name: 'same.txt', error: expect.stringMatching(/^superseded: /) });
    expect(results(mount.path)).toEqual(['same.txt']);
    expect(list(join(mount.path, 'processing'))).toEqual([]);
  });

  test('near the Lambda deadline it claims nothing more: finished chunks are whole, the rest stays in the inbox', async () => {
    // GIVEN 200 files (chunks of 64 at concurrency 1) and a deadline that passes once the first chunk has started
    for (let i = 0; i < 200; i++) inbox(`f${String(i).padStart(3, '0')}.txt`, `file ${i}\n`);
    let checks = 0;
    // WHEN
    const now = () => (checks++ === 0 ? 0 : 2);
    const result = await processMount({ mountPath: mount.path, concurrency: 1, deadline: 1, now });
    // THEN one whole chunk was processed and the rest deferred, untouched, with no claim left behind
    expect(result).toMatchObject({ files: 64, errors: [], deferred: true });
    expect(list(join(mount.path, 'inbox'))).toHaveLength(136);
    expect(results(mount.path)).toHaveLength(64);
    expect(list(join(mount.path, 'processing'))).toEqual([]);
  });

  test('the handler takes its deadline from the Lambda context, keeping a 20 s margin', async () => {
    // GIVEN a file, and a clock that stands still at the start of the invocation
    inbox('a.txt', 'a\n');
    const start = Date.now();
    jest.spyOn(Date, 'now').mockReturnValue(start);
    // WHEN 25 s remain / THEN the chunk deadline is 5 s away, so the file is processed
    expect(await handler({}, { getRemainingTimeInMillis: () => 25_000 })).toMatchObject({ files: 1, errors: [] });
    // AND once the clock has passed remaining - 20 s, nothing more is claimed
    inbox('b.txt', 'b\n');
    let calls = 0;
    jest.spyOn(Date, 'now').mockImplementation(() => (calls++ === 0 ? start : start + 5_001));
    expect(await handler({}, { getRemainingTimeInMillis: () => 25_000 })).toMatchObject({ files: 0, deferred: true });
    expect(list(join(mount.path, 'inbox'))).toEqual(['b.txt']);
  });

  test('a metadata write failure quarantines the file, data only, and the rest go on', async () => {
    // GIVEN writing bad.txt's metadata fails (EIO from the server)
    inbox('bad.txt', 'x y\n');
    inbox('good.txt', 'z\n');
    const realOpen = fsp.open;
    jest.spyOn(fsp, 'open').mockImplementation(async (p, ...rest) => {
      if (String(p).endsWith('bad.txt.meta.json')) throw Object.assign(new Error('EIO: i/o error, open'), { code: 'EIO' });
      return realOpen(p, ...rest);
    });
    // WHEN
    const result = await handler({});
    // THEN
    expect(result.files).toBe(1);
    expect(result.errors).toEqual([{ name: 'bad.txt', error: expect.stringMatching(/^writing metadata failed: EIO.*\(moved to failed\//) }]);
    const [run] = list(join(mount.path, 'failed'));
    expect(list(join(mount.path, 'failed', run))).toEqual(['bad.txt']);
    expect(fs.readFileSync(join(mount.path, 'failed', run, 'bad.txt'), 'utf8')).toBe('x y\n');
    expect(results(mount.path)).toEqual(['good.txt']);
    expect(list(join(mount.path, 'processing'))).toEqual([]);
  });

  test('a failed publish quarantines the file without its metadata', async () => {
    // GIVEN processed/blocked.txt is a regular file, not a result directory
    inbox('blocked.txt', 'b\n');
    fs.mkdirSync(join(mount.path, 'processed'));
    fs.writeFileSync(join(mount.path, 'processed', 'blocked.txt'), 'somebody else\'s file');
    // WHEN
    const result = await handler({});
    // THEN
    expect(result.files).toBe(0);
    expect(result.errors[0]).toEqual({
      name: 'blocked.txt', error: expect.stringMatching(/^publishing to processed\/ failed: processed\/blocked.txt exists and is not a result directory; move it away/),
    });
    const [run] = list(join(mount.path, 'failed'));
    expect(list(join(mount.path, 'failed', run))).toEqual(['blocked.txt']);
    expect(fs.readFileSync(join(mount.path, 'processed', 'blocked.txt'), 'utf8')).toBe('somebody else\'s file');
  });

  test('when even the release fails, the error says where the file is; a later run takes it over once the lease expired', async () => {
    // GIVEN reads fail for one file and so does moving it to failed/
    inbox('stuck.txt', 'stuck\n');
    const realOpen = fsp.open;
    const realRename = fsp.rename;
    jest.spyOn(fsp, 'open').mockImplementation(async (p, ...rest) => {
      if (String(p).endsWith('stuck.txt') && String(p).includes('processing')) throw Object.assign(new Error('EIO: i/o error'), { code: 'EIO' });
      return realOpen(p, ...rest);
    });
    jest.spyOn(fsp, 'rename').mockImplementation(async (from, to) => {
      if (String(to).includes(join(mount.path, 'failed'))) throw Object.assign(new Error('EACCES: denied'), { code: 'EACCES' });
      return realRename(from, to);
    });
    // WHEN
    const first = await handler({});
    // THEN it is reported with its location, and it stays in its claim directory (without a lease now)
    expect(first.errors[0].error).toMatch(/^EIO: i\/o error; could not move it to failed\/ \(EACCES: denied\): it stays in processing\/\d{13}-[0-9a-f-]{36}\/1\/ and the next run takes it over$/);
    const claims = list(join(mount.path, 'processing'));
    expect(claims).toHaveLength(1);
    expect(list(join(mount.path, 'processing', claims[0]))).toEqual(['.lease', '1']);
    expect(list(join(mount.path, 'processing', claims[0], '1'))).toEqual(['stuck.txt']);
    // (its lease is marked released: the claim is not held by anyone)
    expect(JSON.parse(fs.readFileSync(join(mount.path, 'processing', claims[0], '.lease'), 'utf8'))).toMatchObject({ released: true });

    // WHEN the next run comes, without waiting for a lease to expire
    jest.restoreAllMocks();
    const second = await handler({});
    // THEN it is taken over and processed, and the claim directory is gone
    expect(second).toMatchObject({ files: 1, errors: [], recovered: 1 });
    expect(meta(mount.path, 'stuck.txt').wordCount).toBe(1);
    expect(list(join(mount.path, 'processing'))).toEqual([]);
  });

  test('takes over only claims whose lease expired by the server\'s clock, never live ones; a newer upload of a name wins', async () => {
    // GIVEN a dead invocation (lease last renewed 40 s ago), a live one (renewed now), a lease-less
    // claim directory unchanged for 40 s, a directory that is not a claim, and a name in two places
    const dead = `${Date.now()}-${randomUUID()}`;
    const live = `${Date.now() - 3600_000}-${randomUUID()}`; // the name's time is not trusted either way
    const leaseless = `${Date.now()}-${randomUUID()}`;
    const item = (claim: string, n: string, name: string, text: string) => {
      fs.mkdirSync(join(mount.path, 'processing', claim, n), { recursive: true });
      fs.writeFileSync(join(mount.path, 'processing', claim, n, name), text);
    };
    item(dead, '1', 'orphan.txt', 'left by a crash\n');
    item(dead, '2', 'clash.txt', 'old copy\n');
    fs.writeFileSync(join(mount.path, 'processing', dead, '2', 'clash.txt.meta.json'), '{"partial":true}');
    item(live, '1', 'busy.txt', 'being processed\n');
    item(leaseless, '7', 'no-lease.txt', 'a b c\n');
    fs.writeFileSync(join(mount.path, 'processing', dead, '.lease'), '{"owner":"x","ttlMs":30000,"beat":3}\n');
    fs.writeFileSync(join(mount.path, 'processing', live, '.lease'), '{"owner":"y","ttlMs":30000,"beat":9}\n');
    fs.mkdirSync(join(mount.path, 'processing', 'not-a-claim'));
    age(join(mount.path, 'processing', dead, '2', 'clash.txt'), 120);
    age(join(mount.path, 'processing', dead, '.lease'), 40);
    age(join(mount.path, 'processing', leaseless), 40);
    inbox('clash.txt', 'new copy\n');

    // WHEN
    const result = await handler({});

    // THEN the dead and lease-less claims are processed, the live claim is untouched, and the
    // newer clash.txt is the result (its pair complete, the dead run's partial metadata gone)
    expect(result).toMatchObject({ recovered: 3 });
    expect(result.files + (result.superseded ?? 0)).toBe(4);
    // (the old clash.txt, if it was published second, is kept in failed/ as superseded)
    expect(result.errors).toEqual(result.superseded ? [{ name: 'clash.txt', error: expect.stringMatching(/^superseded: /) }] : []);
    expect(meta(mount.path, 'orphan.txt').wordCount).toBe(4);
    expect(meta(mount.path, 'no-lease.txt').wordCount).toBe(3);
    expect(resultData(mount.path, 'clash.txt')).toBe('new copy\n');
    expect(meta(mount.path, 'clash.txt')).toEqual({ name: 'clash.txt', wordCount: 2, lineCount: 1, bytes: 9 });
    expect(results(mount.path)).toEqual(['clash.txt', 'no-lease.txt', 'orphan.txt']);
    expect(list(join(mount.path, 'processing')).sort()).toEqual([live, 'not-a-claim'].sort());
    expect(list(join(mount.path, 'processing', live, '1'))).toEqual(['busy.txt']);
  });

  test('a re-upload racing an earlier invocation never ends with the older data, and data and metadata always match', async () => {
    // GIVEN report.txt v1; while invocation A is about to publish it, v2 arrives and invocation B processes it
    inbox('report.txt', 'version one\n');
    age(join(mount.path, 'inbox', 'report.txt'), 60);
    const realRename = fsp.rename;
    let raced = false;
    jest.spyOn(fsp, 'rename').mockImplementation(async (from, to) => {
      if (!raced && String(to) === join(mount.path, 'processed', 'report.txt')) {
        raced = true;
        inbox('report.txt', 'version two is longer\n');
        expect(await handler({})).toMatchObject({ files: 1, errors: [] });
      }
      return realRename(from, to);
    });
    // WHEN A publishes after B
    const a = await handler({});
    // THEN A's older upload was superseded, not published over B's, and kept in failed/; the pair is B's
    expect(a).toMatchObject({ files: 0, superseded: 1 });
    expect(a.errors).toEqual([{ name: 'report.txt', error: expect.stringMatching(/^superseded: processed\/report.txt\/ holds the result of an upload modified later/) }]);
    const [failedRun] = list(join(mount.path, 'failed'));
    expect(fs.readFileSync(join(mount.path, 'failed', failedRun, 'report.txt'), 'utf8')).toBe('version one\n');
    expect(resultData(mount.path, 'report.txt')).toBe('version two is longer\n');
    expect(meta(mount.path, 'report.txt')).toMatchObject({ wordCount: 4, bytes: 22 });
    expect(results(mount.path)).toEqual(['report.txt']);
    expect(list(join(mount.path, 'processing'))).toEqual([]);
  });

  test('a newer upload processed after an older result replaces it whole', async () => {
    // GIVEN a published result of v1
    inbox('report.txt', 'version one\n');
    age(join(mount.path, 'inbox', 'report.txt'), 60);
    await handler({});
    // WHEN v2 arrives and is processed
    inbox('report.txt', 'version two\n');
    const second = await handler({});
    // THEN
    expect(second).toMatchObject({ files: 1, errors: [] });
    expect(resultData(mount.path, 'report.txt')).toBe('version two\n');
    expect(results(mount.path)).toEqual(['report.txt']);
    expect(list(join(mount.path, 'processing'))).toEqual([]);
  });

  test('two invocations racing in one process: each file processed exactly once', async () => {
    // GIVEN 300 files
    for (let i = 0; i < 300; i++) inbox(`r${i}.txt`, `race ${i}\n`);
    // WHEN two handlers run at once
    const [a, b] = await Promise.all([handler({ concurrency: 4 }), handler({ concurrency: 4 })]);
    // THEN together they processed each file once, with no errors (losing a claim race is not an error)
    expect(a.errors).toEqual([]);
    expect(b.errors).toEqual([]);
    expect(a.files + b.files).toBe(300);
    expect(results(mount.path)).toHaveLength(300);
    expect(list(join(mount.path, 'processing'))).toEqual([]);
  });

  test('an invocation whose claim directory was taken over stops: it publishes nothing and reports no error', async () => {
    // GIVEN another invocation takes our claim directory over just before we publish
    inbox('stolen.txt', 'mine\n');
    inbox('later.txt', 'later\n');
    const realRename = fsp.rename;
    const thief = join(mount.path, 'processing', `${Date.now()}-${randomUUID()}`);
    jest.spyOn(fsp, 'rename').mockImplementation(async (from, to) => {
      if (String(to).startsWith(join(mount.path, 'processed')) && !fs.existsSync(thief)) {
        const ours = join(String(from), '..');
        fs.mkdirSync(thief);
        await realRename(ours, join(thief, `adopted-${String(ours).split('/').pop()}`));
      }
      return realRename(from, to);
    });
    // WHEN
    const result = await processMount({ mountPath: mount.path, concurrency: 1 });
    // THEN nothing was published or reported; the files are in the thief's claim, whole
    expect(result).toMatchObject({ files: 0, errors: [], stopped: expect.stringMatching(/^lease lost: the claim directory was taken over/) });
    expect(list(join(mount.path, 'processed'))).toEqual([]);
    const [adopted] = list(thief);
    const items = list(join(thief, adopted)).filter((n) => n !== '.lease');
    expect(items.flatMap((n) => list(join(thief, adopted, n))).sort()).toEqual(['later.txt', 'later.txt.meta.json', 'stolen.txt', 'stolen.txt.meta.json']);
  });

  test('a claim that fails for another reason than a lost race is reported and the file stays', async () => {
    // GIVEN the claim rename fails with EACCES
    inbox('locked.txt', 'l\n');
    jest.spyOn(fsp, 'rename').mockRejectedValueOnce(Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' }));
    // WHEN
    const result = await processMount({ mountPath: mount.path, concurrency: 1 });
    // THEN
    expect(result.errors).toEqual([{ name: 'locked.txt', error: 'claim failed, left in place: EACCES: permission denied' }]);
    expect(list(join(mount.path, 'inbox'))).toEqual(['locked.txt']);
  });

  test('creates inbox/, processed/ and processing/ with mode 755 when missing', async () => {
    // GIVEN an empty mount
    fs.rmdirSync(join(mount.path, 'inbox'));
    // WHEN
    const result = await handler({});
    // THEN
    expect(result.files).toBe(0);
    for (const d of ['inbox', 'processed', 'processing']) {
      const st = fs.lstatSync(join(mount.path, d));
      expect(st.isDirectory()).toBe(true);
      // eslint-disable-next-line no-bitwise
      expect(st.mode & 0o777).toBe(0o755 & ~process.umask());
    }
  });

  test('clear errors for missing or wrong configuration', async () => {
    // GIVEN / WHEN / THEN
    process.env.CONCURRENCY = '0';
    await expect(handler({})).rejects.toThrow('Invalid concurrency (event.concurrency or env CONCURRENCY): "0". Use an integer from 1 to 1024.');
    delete process.env.CONCURRENCY;
    await expect(handler({ concurrency: 1.5 })).rejects.toThrow(/Invalid concurrency.*1.5/);
    process.env.MOUNT_PATH = join(mount.path, 'does-not-exist');
    await expect(handler({})).rejects.toThrow(/MOUNT_PATH .*does-not-exist is not accessible \(ENOENT/);
    process.env.MOUNT_PATH = join(mount.path, 'file');
    fs.writeFileSync(process.env.MOUNT_PATH, '');
    await expect(handler({})).rejects.toThrow(/MOUNT_PATH .*file is not a directory/);
    delete process.env.MOUNT_PATH;
    await expect(handler({})).rejects.toThrow('Environment variable MOUNT_PATH is not set');
  });
});

describe('"ownership": processor-s3files as a non-root access point user (uid 1000) on S3-born directories', () => {
  // The bundled handler (what deploys) runs in a child process as uid 1000, the library's default
  // access point user. Only root can start a child as another user.
  const asRoot = RUNS_AS_ROOT;
  const user = new AccessPointUser();
  afterEach(() => user.cleanup());
  const shared = (owner?: number) => user.dir(owner);
  const runAsUser = (mountPath: string) => user.run('processor-s3files', mountPath);

  (asRoot ? test : test.skip)('an inbox/ created through the S3 API (root:root 0755) fails the run with the owner, the mode and the fix', () => {
    // GIVEN the access point root owned by uid 1000, and inbox/ plus a file created by "S3" (root)
    const mountPath = shared(1000);
    fs.mkdirSync(join(mountPath, 'inbox'), { mode: 0o755 });
    fs.writeFileSync(join(mountPath, 'inbox', 'upload.txt'), 'from the S3 API\n');
    // WHEN the processor runs as uid 1000
    const r = runAsUser(mountPath);
    // THEN it says plainly what is wrong and how to fix it, and the file is untouched
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`ERROR:${mountPath}/inbox is not writable for uid 1000 gid 1000 \\(owner 0:0, mode 755\\)\\. Directories created through the S3 API appear as root:root 0755`));
    expect(fs.readFileSync(join(mountPath, 'inbox', 'upload.txt'), 'utf8')).toBe('from the S3 API\n');
  });

  (asRoot ? test : test.skip)('with the working directories created through the mount (owned by uid 1000), S3-born files are processed', () => {
    // GIVEN inbox/ owned by the access point user, holding a root-owned 0644 file (as S3-born files appear)
    const mountPath = shared(1000);
    fs.mkdirSync(join(mountPath, 'inbox'), { mode: 0o755 });
    fs.chownSync(join(mountPath, 'inbox'), 1000, 1000);
    fs.writeFileSync(join(mountPath, 'inbox', 'upload.txt'), 'from the S3 API\n', { mode: 0o644 });
    // WHEN
    const r = runAsUser(mountPath);
    // THEN it was processed
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout.split('RESULT:')[1])).toMatchObject({ files: 1, errors: [] });
    expect(results(mountPath)).toEqual(['upload.txt']);
  });

  if (!asRoot) {
    test('uid-1000 tests need root to start the child as another user (skipped: not running as root)', () => {
      expect(asRoot).toBe(false);
    });
  }
});

describe('processor-s3files on a read-only mount', () => {
  test('names the read-only mount and the fix instead of failing with ENOENT on mkdir', async () => {
    // GIVEN a mount where nothing can be created (the kernel answers EROFS)
    const mount = tempMount();
    const readOnly = Object.assign(new Error('EROFS: read-only file system'), { code: 'EROFS' });
    jest.spyOn(fsp, 'mkdir').mockRejectedValue(readOnly);
    try {
      // WHEN / THEN
      await expect(processMount({ mountPath: mount.path, concurrency: 1 }))
        .rejects.toThrow(/inbox: the file system is mounted read-only \(EROFS\): this function cannot write\. Grant it s3files:ClientWrite \(drop readOnly\)/);
    } finally {
      jest.restoreAllMocks();
      mount.cleanup();
    }
  });

  test('a mount root this user cannot write in is named with the likely causes', async () => {
    // GIVEN mkdir fails with ENOENT (what a read-only NFS mount gave) and the root is not writable
    const mount = tempMount();
    jest.spyOn(fsp, 'mkdir').mockRejectedValue(Object.assign(new Error('ENOENT: no such file or directory'), { code: 'ENOENT' }));
    jest.spyOn(fsp, 'access').mockRejectedValue(Object.assign(new Error('EACCES'), { code: 'EACCES' }));
    try {
      await expect(processMount({ mountPath: mount.path, concurrency: 1 }))
        .rejects.toThrow(/MOUNT_PATH .* is not writable for uid \d+ gid \d+ \(ENOENT\): the mount is read-only \(no s3files:ClientWrite\)/);
    } finally {
      jest.restoreAllMocks();
      mount.cleanup();
    }
  });
});
