import { Readable } from 'node:stream';
import {
  CopyObjectCommand, CreateBucketCommand, DeleteObjectCommand, DeleteObjectsCommand, GetObjectCommand,
  ListObjectVersionsCommand, PutBucketVersioningCommand, PutObjectCommand, S3Client, paginateListObjectsV2,
} from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { captureStdout, emfMetrics } from './helpers';
import { handler, processBucket } from '../../lambda/processor-s3api/index';
import { mapPool } from '../../lambda/shared/pool';
import { MotoServer, startMotoServer } from '../servers/moto-server';

let moto: MotoServer;
let s3: S3Client;
let bucketSeq = 0;
const savedEnv = { ...process.env };

beforeAll(async () => {
  moto = await startMotoServer();
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_S3: moto.url,
    S3_FORCE_PATH_STYLE: 'true',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'testing',
    AWS_SECRET_ACCESS_KEY: 'testing',
  });
  s3 = new S3Client({ forcePathStyle: true });
});
afterAll(async () => {
  s3?.destroy();
  await moto?.stop();
  process.env = savedEnv;
});

async function newBucket(): Promise<string> {
  const bucket = `inbox-test-${++bucketSeq}`;
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  await s3.send(new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: 'Enabled' } }));
  process.env.BUCKET_NAME = bucket;
  return bucket;
}
const put = (Bucket: string, Key: string, Body: string | Buffer) => s3.send(new PutObjectCommand({ Bucket, Key, Body }));
async function get(Bucket: string, Key: string): Promise<Buffer> {
  const res = await s3.send(new GetObjectCommand({ Bucket, Key }));
  return Buffer.from(await res.Body!.transformToByteArray());
}
async function keys(Bucket: string, Prefix: string): Promise<string[]> {
  const out: string[] = [];
  for await (const page of paginateListObjectsV2({ client: s3 }, { Bucket, Prefix })) out.push(...(page.Contents ?? []).map((o) => o.Key!));
  return out.sort();
}

describe('processor-s3api against moto (real S3 API over loopback)', () => {
  let out: ReturnType<typeof captureStdout>;
  beforeEach(() => { out = captureStdout(); });
  afterEach(() => out.restore());

  test('a key re-uploaded before processing: the newest content is processed, and no older version comes back', async () => {
    // GIVEN a versioned bucket where the producer uploaded report.txt twice before the run
    const bucket = await newBucket();
    await put(bucket, 'inbox/report.txt', 'old draft');
    await put(bucket, 'inbox/report.txt', 'final version of the report');
    // WHEN the processor runs, and runs again
    const first = await handler({});
    const second = await handler({});
    // THEN the first run processed the newest content and the key is gone from the inbox (no resurrected version)
    expect(first).toMatchObject({ files: 1, errors: [] });
    expect(await keys(bucket, 'inbox/')).toEqual([]);
    expect(second).toMatchObject({ files: 0, errors: [] });
    expect((await get(bucket, 'processed/report.txt')).toString()).toBe('final version of the report');
    expect(JSON.parse((await get(bucket, 'processed/report.txt.meta.json')).toString())).toMatchObject({ wordCount: 5 });
    const versions = await s3.send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: 'inbox/report.txt' }));
    expect(versions.Versions ?? []).toEqual([]);
  });

  test('an upload that lands during the run is neither processed unread nor deleted: the next run processes it', async () => {
    // GIVEN report.txt in the inbox, and a producer that uploads a new version while the processor reads
    const bucket = await newBucket();
    await put(bucket, 'inbox/report.txt', 'first');
    const client = new S3Client({ forcePathStyle: true });
    const realSend = client.send.bind(client);
    let uploaded = false;
    jest.spyOn(client, 'send').mockImplementation((async (cmd: any) => {
      if (cmd instanceof GetObjectCommand && !uploaded) {
        uploaded = true;
        await put(bucket, 'inbox/report.txt', 'second upload');
      }
      return realSend(cmd);
    }) as never);
    // WHEN the processor runs twice
    const first = await processBucket({ client, bucket, concurrency: 1 });
    const afterFirst = (await get(bucket, 'processed/report.txt')).toString();
    const inboxAfterFirst = (await get(bucket, 'inbox/report.txt')).toString();
    const second = await processBucket({ client, bucket, concurrency: 1 });
    // THEN the first run moved what it read and left the new upload; the second run processed it
    expect(first.files).toBe(1);
    expect(afterFirst).toBe('first');
    expect(inboxAfterFirst).toBe('second upload');
    expect(second.files).toBe(1);
    expect((await get(bucket, 'processed/report.txt')).toString()).toBe('second upload');
    expect(await keys(bucket, 'inbox/')).toEqual([]);
    client.destroy();
  });

  test('near the Lambda deadline it starts no new chunk; whole files moved, the rest left for the next run', async () => {
    // GIVEN 100 objects (chunks of 64 at concurrency 1) and a deadline that passes after the first chunk starts
    const bucket = await newBucket();
    await mapPool(Array.from({ length: 100 }, (_, i) => i), 16, (i) => put(bucket, `inbox/f${String(i).padStart(3, '0')}.txt`, `file ${i}\n`));
    let checks = 0;
    // WHEN
    const result = await processBucket({ client: s3, bucket, concurrency: 1, deadline: 1, now: () => (checks++ === 0 ? 0 : 2) });
    // THEN
    expect(result).toMatchObject({ files: 64, errors: [], deferred: 36 });
    expect(await keys(bucket, 'inbox/')).toHaveLength(36);
    expect(await keys(bucket, 'processed/')).toHaveLength(128);
  });

  test('the handler takes its deadline from the Lambda context, keeping a 20 s margin', async () => {
    const bucket = await newBucket();
    await put(bucket, 'inbox/a.txt', 'a\n');
    expect(await handler({}, { getRemainingTimeInMillis: () => 20_000 })).toMatchObject({ files: 0, deferred: 1 });
    expect(await handler({}, { getRemainingTimeInMillis: () => 60_000 })).toMatchObject({ files: 1, errors: [] });
  });

  test('a user object named like a result is refused, so it can never stand for the processor\'s result', async () => {
    const bucket = await newBucket();
    await put(bucket, 'inbox/scan.txt', 'three little words\n');
    await put(bucket, 'inbox/scan.txt.meta.json', '{"wordCount":999}');
    const result = await handler({});
    expect(result).toMatchObject({ files: 1, errors: [{ name: 'scan.txt.meta.json', error: expect.stringMatching(/^refused: name ends with \.meta\.json/) }] });
    expect(JSON.parse((await get(bucket, 'processed/scan.txt.meta.json')).toString())).toMatchObject({ wordCount: 3 });
  });

  test('temporary and hidden names are skipped quietly, as on the mount', async () => {
    const bucket = await newBucket();
    for (const key of ['inbox/.x.tmp', 'inbox/up.part', 'inbox/done.txt']) await put(bucket, key, 'words here\n');
    const result = await handler({});
    expect(result).toMatchObject({ files: 1, errors: [] });
    expect(await keys(bucket, 'inbox/')).toEqual(['inbox/.x.tmp', 'inbox/up.part']);
  });

  test('a key whose result key would have a component over 255 bytes is refused and left in place', async () => {
    // GIVEN a 250-byte name
    const bucket = await newBucket();
    const long = `${'n'.repeat(246)}.txt`;
    await put(bucket, `inbox/${long}`, 'some words\n');
    // WHEN
    const result = await handler({});
    // THEN no result key the mount could not show was written
    expect(result).toMatchObject({ files: 0, errors: [{ name: long, error: expect.stringMatching(/^refused: name too long for its result/) }] });
    expect(await keys(bucket, 'processed/')).toEqual([]);
    expect(await keys(bucket, 'inbox/')).toEqual([`inbox/${long}`]);
  });

  test('processes Unicode/space keys and empty objects, moves them with metadata, emits FilesProcessed', async () => {
    // GIVEN a versioned bucket with awkward keys
    const bucket = await newBucket();
    await put(bucket, 'inbox/', ''); // folder marker: ignored
    await put(bucket, 'inbox/hello world.txt', 'hello world\nsecond line\n');
    await put(bucket, 'inbox/größe 日本 (1)+!*\'.md', 'naïve café');
    await put(bucket, 'inbox/empty', '');

    // WHEN
    const result = await handler({});

    // THEN
    expect(result.errors).toEqual([]);
    expect(result.files).toBe(3);
    expect(await keys(bucket, 'inbox/')).toEqual(['inbox/']);
    expect((await get(bucket, 'processed/hello world.txt')).toString()).toBe('hello world\nsecond line\n');
    expect(JSON.parse((await get(bucket, 'processed/größe 日本 (1)+!*\'.md.meta.json')).toString()))
      .toEqual({ name: 'größe 日本 (1)+!*\'.md', wordCount: 2, lineCount: 1, bytes: Buffer.byteLength('naïve café') });
    expect(JSON.parse((await get(bucket, 'processed/empty.meta.json')).toString())).toEqual({ name: 'empty', wordCount: 0, lineCount: 0, bytes: 0 });
    // the versioned delete removed exactly the version that was read: no delete marker hides anything
    const versions = await s3.send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: 'inbox/hello' }));
    expect(versions.Versions ?? []).toEqual([]);
    expect(versions.DeleteMarkers ?? []).toEqual([]);
    expect(Object.keys(result.timings).sort()).toEqual(['listMs', 'processMs', 'readMs', 'renameMs', 'totalMs', 'writeMs']);
    expect(emfMetrics(out.lines)[0]).toMatchObject({ FilesProcessed: 3, FilesFailed: 0, service: 'processor-s3api' });
  });

  test('paginates past 1,000 keys', async () => {
    // GIVEN 1,005 objects (ListObjectVersions returns at most 1,000 per page)
    const bucket = await newBucket();
    const names = Array.from({ length: 1005 }, (_, i) => `n${String(i).padStart(4, '0')} é.txt`);
    await mapPool(names, 16, (n) => put(bucket, `inbox/${n}`, `word ${n}\n`));
    const firstPage = await s3.send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: 'inbox/' }));
    expect(firstPage.IsTruncated).toBe(true);

    // WHEN
    const result = await handler({ concurrency: 32 });

    // THEN
    expect(result.errors).toEqual([]);
    expect(result.files).toBe(1005);
    expect(await keys(bucket, 'inbox/')).toEqual([]);
    expect(await keys(bucket, 'processed/')).toHaveLength(2010);
    expect(JSON.parse((await get(bucket, 'processed/n1004 é.txt.meta.json')).toString()).wordCount).toBe(3);
  }, 180_000);

  test('reports keys the file system cannot represent and non-text objects, leaving them in place', async () => {
    // GIVEN hostile and unrepresentable keys, binary and Latin-1 content
    const bucket = await newBucket();
    const bad = ['inbox/a/../b.txt', 'inbox/dir/', `inbox/${'x'.repeat(256)}`, 'inbox/sub/nested.txt', 'inbox/..', 'inbox/a//b'];
    for (const k of bad) await put(bucket, k, 'text\n');
    await put(bucket, 'inbox/latin1.txt', Buffer.from('caf\xe9\n', 'latin1'));
    await put(bucket, 'inbox/bin.dat', Buffer.from([0, 1, 2, 3]));
    await put(bucket, 'inbox/ok.txt', 'fine\n');

    // WHEN
    const result = await handler({});

    // THEN only ok.txt moved; each other key is reported with a reason and still in inbox/
    expect(result.files).toBe(1);
    const byName = Object.fromEntries(result.errors.map((e) => [e.name, e.error]));
    expect(byName['a/../b.txt']).toMatch(/"\." or "\.\." component/);
    expect(byName['dir/']).toMatch(/ends with "\/"/);
    expect(byName['x'.repeat(256)]).toMatch(/longer than 255 bytes/);
    expect(byName['sub/nested.txt']).toMatch(/sub-directory/);
    expect(byName['..']).toMatch(/"\." or "\.\." component/);
    expect(byName['a//b']).toMatch(/empty component/);
    expect(byName['latin1.txt']).toMatch(/^not text: invalid UTF-8/);
    expect(byName['bin.dat']).toMatch(/^not text: NUL byte/);
    expect(await keys(bucket, 'inbox/')).toEqual([...bad, 'inbox/latin1.txt', 'inbox/bin.dat'].sort());
    expect(await keys(bucket, 'processed/')).toEqual(['processed/ok.txt', 'processed/ok.txt.meta.json']);
  });

  test('an object that vanishes between list and read is reported, the batch goes on', async () => {
    // GIVEN a bucket where one object is deleted right after listing
    const bucket = await newBucket();
    await put(bucket, 'inbox/gone.txt', 'x\n');
    await put(bucket, 'inbox/stays.txt', 'y\n');
    const client = new S3Client({ forcePathStyle: true });
    const realSend = client.send.bind(client);
    let deleted = false;
    jest.spyOn(client, 'send').mockImplementation((async (cmd: any) => {
      if (cmd instanceof GetObjectCommand && !deleted) {
        deleted = true;
        // Gone for good: every version deleted (a plain delete would only add a delete marker).
        const listed = await s3.send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: 'inbox/gone.txt' }));
        for (const v of listed.Versions ?? []) await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: v.Key!, VersionId: v.VersionId }));
      }
      return realSend(cmd);
    }) as never);
    // WHEN
    const result = await processBucket({ client, bucket, concurrency: 1 });
    // THEN
    expect(result.files).toBe(1);
    expect(result.errors).toEqual([{ name: 'gone.txt', error: expect.stringMatching(/^NoSuch(Key|Version)/) }]);
    client.destroy();
  });

  test('clear error without BUCKET_NAME', async () => {
    // GIVEN no bucket configured
    delete process.env.BUCKET_NAME;
    // WHEN / THEN
    await expect(handler({})).rejects.toThrow('Environment variable BUCKET_NAME is not set');
  });
});

describe('processor-s3api failure paths (narrow SDK mock)', () => {
  // Created in beforeAll: mockClient patches every S3Client, which must not leak into the moto tests.
  let mock: ReturnType<typeof mockClient>;
  const client = new S3Client({ region: 'us-east-1' });
  const body = (s: string) => Readable.from([Buffer.from(s)]) as never;
  beforeAll(() => { mock = mockClient(S3Client); });
  beforeEach(() => {
    mock.reset();
    mock.on(ListObjectVersionsCommand as never).resolves({
      Versions: ['inbox/a.txt', 'inbox/b c.txt', 'inbox/d.txt'].map((Key) => ({ Key, VersionId: `v-${Key}`, IsLatest: true })),
    } as never);
    mock.on(GetObjectCommand).callsFake((input) => ({ Body: body(`content of ${input.Key}\n`), VersionId: input.VersionId }));
    mock.on(PutObjectCommand).resolves({});
    mock.on(CopyObjectCommand).resolves({});
    mock.on(DeleteObjectsCommand).resolves({});
  });
  afterAll(() => mock.restore());

  test('a failed copy leaves the source (no delete); a failed metadata put skips copy and delete', async () => {
    // GIVEN copy fails for "b c.txt" and the metadata put fails for d.txt
    mock.on(CopyObjectCommand, { Key: 'processed/b c.txt' }).rejects(Object.assign(new Error('Access Denied'), { name: 'AccessDenied', $metadata: {} }));
    mock.on(PutObjectCommand, { Key: 'processed/d.txt.meta.json' }).rejects(Object.assign(new Error('Slow Down'), { name: 'SlowDown', $metadata: {} }));

    // WHEN
    const result = await processBucket({ client, bucket: 'bkt', concurrency: 2 });

    // THEN
    expect(result.files).toBe(1);
    expect(result.errors).toEqual(expect.arrayContaining([
      { name: 'b c.txt', error: 'copy to processed/ failed, left in inbox/: AccessDenied: Access Denied' },
      { name: 'd.txt', error: 'writing metadata failed, left in inbox/: SlowDown: Slow Down' },
    ]));
    const deleted = mock.commandCalls(DeleteObjectsCommand).map((c) => c.args[0].input);
    expect(deleted).toEqual([{ Bucket: 'bkt', Delete: { Objects: [{ Key: 'inbox/a.txt', VersionId: 'v-inbox/a.txt' }], Quiet: true } }]);
    const copies = mock.commandCalls(CopyObjectCommand).map((c) => c.args[0].input.CopySource).sort();
    expect(copies).toEqual(['bkt/inbox/a.txt?versionId=v-inbox%2Fa.txt', 'bkt/inbox/b%20c.txt?versionId=v-inbox%2Fb%20c.txt']);
    expect(mock.commandCalls(CopyObjectCommand).some((c) => c.args[0].input.Key === 'processed/d.txt')).toBe(false);
  });

  test('a failed delete after a good copy is reported; the file is in both places, never lost', async () => {
    // GIVEN delete fails
    mock.on(DeleteObjectsCommand).rejects(Object.assign(new Error('Internal'), { name: 'InternalError', $metadata: {} }));
    // WHEN
    const result = await processBucket({ client, bucket: 'bkt', concurrency: 1 });
    // THEN
    expect(result.files).toBe(0);
    expect(result.errors[0].error).toBe('copied to processed/ but deleting inbox/ failed (a later run processes it again): InternalError: Internal');
  });

  test('a version DeleteObjects refuses is reported like a failed delete', async () => {
    // GIVEN DeleteObjects answers with a per-key error
    mock.on(DeleteObjectsCommand).resolves({ Errors: [{ Key: 'inbox/a.txt', Code: 'AccessDenied', Message: 'denied' }] });
    // WHEN
    const result = await processBucket({ client, bucket: 'bkt', concurrency: 1 });
    // THEN
    expect(result.files).toBe(0);
    expect(result.errors[0].error).toBe('copied to processed/ but deleting inbox/ failed (a later run processes it again): AccessDenied: denied');
  });
});
