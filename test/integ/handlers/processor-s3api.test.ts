import { Readable } from 'node:stream';
import {
  CopyObjectCommand, CreateBucketCommand, DeleteObjectCommand, DeleteObjectsCommand, GetObjectCommand, HeadObjectCommand,
  ListObjectVersionsCommand, PutBucketVersioningCommand, PutObjectCommand, S3Client, paginateListObjectsV2,
} from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { captureStdout, emfMetrics } from './helpers';
import { handler, processBucket } from '../../../integ/handlers/processor-s3api/index';
import { mapPool } from '../../../integ/handlers/shared/pool';
import { MotoServer, startMotoServer } from '../../servers/moto-server';

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
// An explicit length: the SDK cannot tell an empty string's length from an unknown stream's, and warns.
const put = (Bucket: string, Key: string, Body: string | Buffer) =>
  s3.send(new PutObjectCommand({ Bucket, Key, Body, ContentLength: Buffer.byteLength(Body) }));
async function get(Bucket: string, Key: string): Promise<Buffer> {
  const res = await s3.send(new GetObjectCommand({ Bucket, Key }));
  return Buffer.from(await res.Body!.transformToByteArray());
}
/** The data and the metadata of a result (`processed/<name>/<name>` and `.meta.json`). */
const resultData = async (Bucket: string, name: string) => (await get(Bucket, `processed/${name}/${name}`)).toString();
const resultMeta = async (Bucket: string, name: string) => JSON.parse((await get(Bucket, `processed/${name}/${name}.meta.json`)).toString());
/** A client of its own that runs `before` on each command before sending it (to act between the processor's calls). */
function clientWith(before: (cmd: any) => unknown): S3Client {
  const client = new S3Client({ forcePathStyle: true });
  const realSend = client.send.bind(client);
  jest.spyOn(client, 'send').mockImplementation((async (cmd: any) => {
    await before(cmd);
    return realSend(cmd);
  }) as never);
  return client;
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
    expect(await resultData(bucket, 'report.txt')).toBe('final version of the report');
    // AND the data and the metadata both name the source version they came from
    const meta = await resultMeta(bucket, 'report.txt');
    expect(meta).toMatchObject({ wordCount: 5, source: { key: 'inbox/report.txt', versionId: expect.any(String), claim: expect.stringMatching(/^\d{13}-/) } });
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'processed/report.txt/report.txt' }));
    expect(head.Metadata).toEqual({ 'source-version-id': meta.source.versionId });
    // AND no claim marker or lease is left
    expect(await keys(bucket, 'processing/')).toEqual([]);
    const versions = await s3.send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: 'inbox/report.txt' }));
    expect(versions.Versions ?? []).toEqual([]);
  });

  test('an upload that lands during the run is neither processed unread nor deleted: the next run processes it', async () => {
    // GIVEN report.txt in the inbox, and a producer that uploads a new version while the processor reads
    const bucket = await newBucket();
    await put(bucket, 'inbox/report.txt', 'first');
    let uploaded = false;
    const client = clientWith(async (cmd) => {
      if (cmd instanceof GetObjectCommand && !uploaded) {
        uploaded = true;
        await put(bucket, 'inbox/report.txt', 'second upload');
      }
    });
    // WHEN the processor runs twice
    const first = await processBucket({ client, bucket, concurrency: 1 });
    const afterFirst = await resultData(bucket, 'report.txt');
    const inboxAfterFirst = (await get(bucket, 'inbox/report.txt')).toString();
    const second = await processBucket({ client, bucket, concurrency: 1 });
    // THEN the first run moved what it read and left the new upload; the second run processed it
    expect(first.files).toBe(1);
    expect(afterFirst).toBe('first');
    expect(inboxAfterFirst).toBe('second upload');
    expect(second.files).toBe(1);
    expect(await resultData(bucket, 'report.txt')).toBe('second upload');
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
    expect(result).toMatchObject({ files: 64, errors: [], deferred: true });
    expect(await keys(bucket, 'inbox/')).toHaveLength(36);
    expect(await keys(bucket, 'processed/')).toHaveLength(128);
  });

  test('the handler takes its deadline from the Lambda context, keeping a 20 s margin', async () => {
    // GIVEN an object, and a clock that stands still at the start of the invocation
    const bucket = await newBucket();
    await put(bucket, 'inbox/a.txt', 'a\n');
    const start = Date.now();
    jest.spyOn(Date, 'now').mockReturnValue(start);
    // WHEN 25 s remain / THEN the chunk deadline is 5 s away, so the object is processed
    expect(await handler({}, { getRemainingTimeInMillis: () => 25_000 })).toMatchObject({ files: 1, errors: [] });
    // AND once the clock has passed remaining - 20 s, no chunk starts
    await put(bucket, 'inbox/b.txt', 'b\n');
    let calls = 0;
    jest.spyOn(Date, 'now').mockImplementation(() => (calls++ < 2 ? start : start + 5_001));
    expect(await handler({}, { getRemainingTimeInMillis: () => 25_000 })).toMatchObject({ files: 0, deferred: true });
    expect(await keys(bucket, 'inbox/')).toEqual(['inbox/b.txt']);
    jest.restoreAllMocks();
  });

  test('a user object named like a result\'s metadata is a file of its own, never taken for the result of scan.txt', async () => {
    const bucket = await newBucket();
    await put(bucket, 'inbox/scan.txt', 'three little words\n');
    await put(bucket, 'inbox/scan.txt.meta.json', '{"wordCount":999}');
    const result = await handler({});
    expect(result).toMatchObject({ files: 2, errors: [] });
    expect(await resultMeta(bucket, 'scan.txt')).toMatchObject({ wordCount: 3 });
    expect(await resultData(bucket, 'scan.txt.meta.json')).toBe('{"wordCount":999}');
  });

  test('a key whose result key would have a component over 255 bytes is refused: no result written, moved to failed/', async () => {
    // GIVEN a 250-byte name
    const bucket = await newBucket();
    const long = `${'n'.repeat(246)}.txt`;
    await put(bucket, `inbox/${long}`, 'some words\n');
    // WHEN
    const result = await handler({});
    // THEN no result key the mount could not show was written, and the object is kept under failed/
    expect(result).toMatchObject({ files: 0, errors: [{ name: long, error: expect.stringMatching(/^refused: name too long for its result.*\(moved to failed\/\d{13}-[0-9a-f-]{36}\/\)$/) }] });
    expect(await keys(bucket, 'processed/')).toEqual([]);
    expect(await keys(bucket, 'inbox/')).toEqual([]);
    expect((await keys(bucket, 'failed/')).map((k) => k.split('/')[2])).toEqual([long]);
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
    expect(await resultData(bucket, 'hello world.txt')).toBe('hello world\nsecond line\n');
    expect(await resultMeta(bucket, 'größe 日本 (1)+!*\'.md'))
      .toMatchObject({ name: 'größe 日本 (1)+!*\'.md', wordCount: 2, lineCount: 1, bytes: Buffer.byteLength('naïve café') });
    expect(await resultMeta(bucket, 'empty')).toMatchObject({ name: 'empty', wordCount: 0, lineCount: 0, bytes: 0 });
    // the versioned delete removed exactly the version that was read: no delete marker hides anything
    const versions = await s3.send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: 'inbox/hello' }));
    expect(versions.Versions ?? []).toEqual([]);
    expect(versions.DeleteMarkers ?? []).toEqual([]);
    expect(Object.keys(result.timings).sort()).toEqual(['claimMs', 'listMs', 'processMs', 'readMs', 'renameMs', 'totalMs', 'writeMs']);
    expect(emfMetrics(out.lines)[0]).toMatchObject({ FilesProcessed: 3, FilesFailed: 0, service: 'processor-s3api' });
  });

  test('lists page by page and works while listing: a key whose versions continue on the next page is processed once, at its newest version', async () => {
    // GIVEN 40 keys, one of them uploaded 6 times, listed 4 entries per page
    const bucket = await newBucket();
    await mapPool(Array.from({ length: 40 }, (_, i) => i), 16, (i) => put(bucket, `inbox/k${String(i).padStart(3, '0')}.txt`, `key ${i}\n`));
    for (let v = 1; v <= 5; v++) await put(bucket, 'inbox/k007.txt', `version ${v} of seven\n`);
    const sent: string[] = [];
    const client = clientWith((cmd) => sent.push(cmd.constructor.name));
    // WHEN (chunks of at most 64 bytes, a handful of files, at concurrency 1)
    const result = await processBucket({ client, bucket, concurrency: 1, listPageSize: 4, chunkBytes: 64 });
    client.destroy();
    // THEN every key once, the re-uploaded one at its newest version, no version left behind
    expect(result).toMatchObject({ files: 40, errors: [] });
    expect(await resultData(bucket, 'k007.txt')).toBe('version 5 of seven\n');
    expect((await s3.send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: 'inbox/' }))).Versions ?? []).toEqual([]);
    expect(await keys(bucket, 'processed/')).toHaveLength(80);
    // AND the first chunk was processed before the listing was complete (memory holds a chunk, not the inbox)
    const lists = sent.flatMap((name, i) => (name === 'ListObjectVersionsCommand' ? [i] : []));
    expect(lists.length).toBeGreaterThan(10);
    expect(sent.indexOf('GetObjectCommand')).toBeLessThan(lists[lists.length - 1]);
  }, 60_000);

  test('two invocations on one inbox: each file counted once, no NoSuchVersion errors, nothing left claimed', async () => {
    // GIVEN 80 objects
    const bucket = await newBucket();
    await mapPool(Array.from({ length: 80 }, (_, i) => i), 16, (i) => put(bucket, `inbox/c${String(i).padStart(3, '0')}.txt`, `concurrent ${i}\n`));
    // WHEN two invocations run at once (separate clients, as separate Lambda environments)
    const clients = [new S3Client({ forcePathStyle: true }), new S3Client({ forcePathStyle: true })];
    const [a, b] = await Promise.all(clients.map((client) => processBucket({ client, bucket, concurrency: 8 })));
    clients.forEach((c) => c.destroy());
    // THEN the counts add up to 80 exactly, and neither reports an error
    expect(a.errors).toEqual([]);
    expect(b.errors).toEqual([]);
    expect(a.files + b.files).toBe(80);
    expect(await keys(bucket, 'inbox/')).toEqual([]);
    expect(await keys(bucket, 'processed/')).toHaveLength(160);
    expect(await keys(bucket, 'processing/')).toEqual([]);
  }, 60_000);

  test('a name claimed by a live invocation is skipped; a claim whose owner\'s lease expired (by S3\'s clock) is taken over', async () => {
    // GIVEN a live invocation holding busy.txt, and a dead one that left a claim on orphan.txt without a lease
    const bucket = await newBucket();
    await put(bucket, 'inbox/busy.txt', 'busy\n');
    await put(bucket, 'inbox/orphan.txt', 'orphan words\n');
    const live = `${Date.now()}-${'1'.repeat(8)}-1111-1111-1111-${'1'.repeat(12)}`;
    const dead = `${Date.now()}-${'2'.repeat(8)}-2222-2222-2222-${'2'.repeat(12)}`;
    await put(bucket, 'processing/busy.txt', JSON.stringify({ owner: live }));
    await put(bucket, 'processing/orphan.txt', JSON.stringify({ owner: dead }));
    await put(bucket, `processing/.leases/${live}`, JSON.stringify({ owner: live, ttlMs: 60_000, beat: 1 }));
    // WHEN a run with a 1 s lease comes 2.5 s later (S3 times have 1 s resolution)
    await new Promise((r) => setTimeout(r, 2_500));
    const result = await processBucket({ client: s3, bucket, concurrency: 2, leaseMs: 1_000 });
    // THEN the orphan was taken over and processed; the live claim (its owner promised 60 s) was left alone
    expect(result).toMatchObject({ files: 1, errors: [], recovered: 1, skippedClaimed: 1 });
    expect(await resultData(bucket, 'orphan.txt')).toBe('orphan words\n');
    expect(await keys(bucket, 'inbox/')).toEqual(['inbox/busy.txt']);
    expect(await keys(bucket, 'processing/')).toEqual([`processing/.leases/${live}`, 'processing/busy.txt']);
    const claimVersions = await s3.send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: 'processing/orphan.txt' }));
    expect(claimVersions.Versions ?? []).toEqual([]);
  }, 30_000);

  test('an object larger than the single-copy limit is copied in parts, byte-identical, with its source stamp', async () => {
    // GIVEN a 12 MiB object and a copy limit of 8 MiB (S3's is 5 GiB), parts of 5 MiB
    const bucket = await newBucket();
    const line = 'large object line with seven words\n';
    const big = Buffer.from(line.repeat(Math.ceil((12 * 1024 * 1024) / line.length)));
    await put(bucket, 'inbox/large.txt', big);
    // WHEN
    const result = await processBucket({
      client: s3, bucket, concurrency: 1, multipartCopyThresholdBytes: 8 * 1024 * 1024, copyPartBytes: 5 * 1024 * 1024,
    });
    // THEN
    expect(result).toMatchObject({ files: 1, errors: [] });
    expect((await get(bucket, 'processed/large.txt/large.txt')).equals(big)).toBe(true);
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'processed/large.txt/large.txt' }));
    expect(head.ContentLength).toBe(big.length);
    expect(head.Metadata?.['source-version-id']).toEqual((await resultMeta(bucket, 'large.txt')).source.versionId);
    expect(await resultMeta(bucket, 'large.txt')).toMatchObject({ wordCount: 6 * (big.length / line.length), bytes: big.length });
  }, 60_000);

  test('reports keys the file system cannot represent and non-text objects once, moving them to failed/', async () => {
    // GIVEN hostile and unrepresentable keys, binary and Latin-1 content
    const bucket = await newBucket();
    const bad = ['inbox/a/../b.txt', 'inbox/dir/', `inbox/${'x'.repeat(256)}`, 'inbox/sub/nested.txt', 'inbox/..', 'inbox/a//b'];
    for (const k of bad) await put(bucket, k, 'text\n');
    await put(bucket, 'inbox/latin1.txt', Buffer.from('caf\xe9\n', 'latin1'));
    await put(bucket, 'inbox/bin.dat', Buffer.from([0, 1, 2, 3]));
    await put(bucket, 'inbox/ok.txt', 'fine\n');

    // WHEN
    const result = await handler({});

    // THEN only ok.txt was processed; each other key is reported with a reason and kept under failed/<claim>/
    expect(result.files).toBe(1);
    expect(result.errors).toHaveLength(bad.length + 2);
    for (const e of result.errors) expect(e.error).toMatch(/ \(moved to failed\/\d{13}-[0-9a-f-]{36}\/\)$/);
    const byName = Object.fromEntries(result.errors.map((e) => [e.name, e.error]));
    expect(byName['a/../b.txt']).toMatch(/"\." or "\.\." component/);
    expect(byName['dir/']).toMatch(/ends with "\/"/);
    expect(byName['x'.repeat(256)]).toMatch(/longer than 255 bytes/);
    expect(byName['sub/nested.txt']).toMatch(/sub-directory/);
    expect(byName['..']).toMatch(/"\." or "\.\." component/);
    expect(byName['a//b']).toMatch(/empty component/);
    expect(byName['latin1.txt']).toMatch(/^not text: invalid UTF-8/);
    expect(byName['bin.dat']).toMatch(/^not text: NUL byte/);
    expect(await keys(bucket, 'inbox/')).toEqual([]);
    const failed = await keys(bucket, 'failed/');
    expect(failed.map((k) => k.replace(/^failed\/[^/]+\//, 'inbox/')).sort()).toEqual([...bad, 'inbox/latin1.txt', 'inbox/bin.dat'].sort());
    expect(await keys(bucket, 'processed/')).toEqual(['processed/ok.txt/ok.txt', 'processed/ok.txt/ok.txt.meta.json']);
  });

  test('an object that vanishes between list and read (processed by another run, or deleted) is counted as vanished, not as an error', async () => {
    // GIVEN a bucket where one object is deleted right after listing
    const bucket = await newBucket();
    await put(bucket, 'inbox/gone.txt', 'x\n');
    await put(bucket, 'inbox/stays.txt', 'y\n');
    let deleted = false;
    const client = clientWith(async (cmd) => {
      if (cmd instanceof GetObjectCommand && !deleted) {
        deleted = true;
        // Gone for good: every version deleted (a plain delete would only add a delete marker).
        const listed = await s3.send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: 'inbox/gone.txt' }));
        for (const v of listed.Versions ?? []) await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: v.Key!, VersionId: v.VersionId }));
      }
    });
    // WHEN
    const result = await processBucket({ client, bucket, concurrency: 1 });
    // THEN
    expect(result).toMatchObject({ files: 1, errors: [], vanished: 1 });
    expect(await keys(bucket, 'processing/')).toEqual([]);
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
    mock.on(PutObjectCommand).resolves({ VersionId: 'v1' });
    mock.on(HeadObjectCommand).resolves({ LastModified: new Date() });
    mock.on(DeleteObjectCommand).resolves({});
    mock.on(CopyObjectCommand).resolves({});
    mock.on(DeleteObjectsCommand).resolves({});
  });
  afterAll(() => mock.restore());

  test('a failed copy or metadata put leaves the source (no delete) and releases the claim', async () => {
    // GIVEN copy fails for "b c.txt" and the metadata put fails for d.txt
    mock.on(CopyObjectCommand, { Key: 'processed/b c.txt/b c.txt' }).rejects(Object.assign(new Error('Access Denied'), { name: 'AccessDenied', $metadata: {} }));
    mock.on(PutObjectCommand, { Key: 'processed/d.txt/d.txt.meta.json' }).rejects(Object.assign(new Error('Slow Down'), { name: 'SlowDown', $metadata: {} }));

    // WHEN
    const result = await processBucket({ client, bucket: 'bkt', concurrency: 2 });

    // THEN
    expect(result.files).toBe(1);
    expect(result.errors).toEqual(expect.arrayContaining([
      { name: 'b c.txt', error: 'writing the result failed, left in inbox/: AccessDenied: Access Denied' },
      { name: 'd.txt', error: 'writing the result failed, left in inbox/: SlowDown: Slow Down' },
    ]));
    const released = mock.commandCalls(DeleteObjectCommand).map((c) => c.args[0].input.Key).filter((k) => !k!.startsWith('processing/.leases/')).sort();
    expect(released).toEqual(['processing/a.txt', 'processing/b c.txt', 'processing/d.txt']);
    const deleted = mock.commandCalls(DeleteObjectsCommand).map((c) => c.args[0].input);
    expect(deleted).toEqual([{ Bucket: 'bkt', Delete: { Objects: [{ Key: 'inbox/a.txt', VersionId: 'v-inbox/a.txt' }], Quiet: true } }]);
    const copies = mock.commandCalls(CopyObjectCommand).map((c) => c.args[0].input.CopySource).sort();
    expect(copies).toEqual(['bkt/inbox/a.txt?versionId=v-inbox%2Fa.txt', 'bkt/inbox/b%20c.txt?versionId=v-inbox%2Fb%20c.txt', 'bkt/inbox/d.txt?versionId=v-inbox%2Fd.txt']);
  });

  test('a failed delete after a good copy is reported; the file is in both places, never lost', async () => {
    // GIVEN delete fails
    mock.on(DeleteObjectsCommand).rejects(Object.assign(new Error('Internal'), { name: 'InternalError', $metadata: {} }));
    // WHEN
    const result = await processBucket({ client, bucket: 'bkt', concurrency: 1 });
    // THEN
    expect(result.files).toBe(0);
    expect(result.errors[0].error).toBe('published to processed/ but deleting inbox/ failed (a later run processes it again): InternalError: Internal');
  });

  test('a version DeleteObjects refuses is reported like a failed delete', async () => {
    // GIVEN DeleteObjects answers with a per-key error
    mock.on(DeleteObjectsCommand).resolves({ Errors: [{ Key: 'inbox/a.txt', Code: 'AccessDenied', Message: 'denied' }] });
    // WHEN
    const result = await processBucket({ client, bucket: 'bkt', concurrency: 1 });
    // THEN
    expect(result.files).toBe(0);
    expect(result.errors[0].error).toBe('published to processed/ but deleting inbox/ failed (a later run processes it again): AccessDenied: denied');
  });
});
