/**
 * processor-s3api against its contract (issue 31; integ/README.md, "What the processors
 * guarantee"): every upload is processed once into processed/, or reported once in failed/ with a
 * reason; processed/<name>/ holds the newest upload's result; no object blocks the others.
 * Against moto (the real S3 API over loopback); where moto does not enforce a condition S3
 * documents, the test checks the request the handler sends.
 */
import {
  CopyObjectCommand, CreateBucketCommand, CreateMultipartUploadCommand, DeleteObjectCommand, DeleteObjectsCommand, GetObjectCommand,
  HeadObjectCommand, ListMultipartUploadsCommand, ListObjectsV2Command, ListObjectVersionsCommand, PutBucketVersioningCommand, PutObjectCommand,
  S3Client, UploadPartCommand,
} from '@aws-sdk/client-s3';
import { handler, processBucket } from '../../../integ/handlers/processor-s3api/index';
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
    POWERTOOLS_METRICS_DISABLED: 'true',
    POWERTOOLS_LOG_LEVEL: 'SILENT',
  });
  s3 = new S3Client({ forcePathStyle: true });
});
afterAll(async () => {
  s3?.destroy();
  await moto?.stop();
  process.env = savedEnv;
});
afterEach(() => jest.restoreAllMocks());

async function newBucket(versioned = true): Promise<string> {
  const bucket = `contract-test-${++bucketSeq}`;
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  if (versioned) await s3.send(new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: 'Enabled' } }));
  process.env.BUCKET_NAME = bucket;
  return bucket;
}
const put = (Bucket: string, Key: string, Body: string | Buffer) =>
  s3.send(new PutObjectCommand({ Bucket, Key, Body, ContentLength: Buffer.byteLength(Body) }));
async function get(Bucket: string, Key: string): Promise<string> {
  const res = await s3.send(new GetObjectCommand({ Bucket, Key }));
  return res.Body!.transformToString();
}
async function keys(Bucket: string, Prefix: string): Promise<string[]> {
  const res = await s3.send(new ListObjectsV2Command({ Bucket, Prefix, EncodingType: 'url' }));
  return (res.Contents ?? []).map((o) => decodeURIComponent(o.Key!)).sort();
}
/** The one run directory under failed/ (`failed/<claim>/`) and the names in it. */
async function failedRun(Bucket: string): Promise<{ dir: string; names: string[] }> {
  const all = await keys(Bucket, 'failed/');
  const dirs = [...new Set(all.map((k) => k.split('/')[1]))];
  expect(dirs).toHaveLength(1);
  return { dir: dirs[0], names: all.map((k) => k.slice(`failed/${dirs[0]}/`.length)) };
}
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
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const isInboxDelete = (cmd: unknown, key: string) => (cmd instanceof DeleteObjectCommand && cmd.input.Key === key)
  || (cmd instanceof DeleteObjectsCommand && (cmd.input.Delete?.Objects ?? []).some((o) => o.Key === key));

describe('"nothing else is deleted or replaced": unversioned buckets, copy and delete only what was read', () => {
  test('a re-upload that lands after the copy is not deleted unread: the next run processes it', async () => {
    // GIVEN a bucket without versioning, and a producer that uploads report.txt again right before the inbox delete
    const bucket = await newBucket(false);
    await put(bucket, 'inbox/report.txt', 'first');
    let uploaded = false;
    const client = clientWith(async (cmd) => {
      if (!uploaded && isInboxDelete(cmd, 'inbox/report.txt')) {
        uploaded = true;
        await put(bucket, 'inbox/report.txt', 'second upload');
      }
    });
    // WHEN the processor runs twice
    const first = await processBucket({ client, bucket, concurrency: 1 });
    const inboxAfterFirst = await get(bucket, 'inbox/report.txt');
    const second = await processBucket({ client, bucket, concurrency: 1 });
    client.destroy();
    // THEN the first published what it read and left the new upload; the second processed it
    expect(uploaded).toBe(true);
    expect(first).toMatchObject({ files: 1, errors: [] });
    expect(inboxAfterFirst).toBe('second upload');
    expect(second).toMatchObject({ files: 1, errors: [] });
    expect(await get(bucket, 'processed/report.txt/report.txt')).toBe('second upload');
    expect(await keys(bucket, 'inbox/')).toEqual([]);
  });

  test('the copy is conditional on the ETag read (moto ignores x-amz-copy-source-if-match: the request is checked, and S3\'s 412 played)', async () => {
    // GIVEN an unversioned bucket; a producer re-uploads between the read and the copy, and the copy
    // answers as S3 does when x-amz-copy-source-if-match no longer matches
    const bucket = await newBucket(false);
    await put(bucket, 'inbox/report.txt', 'first');
    const copies: any[] = [];
    let readEtag: string | undefined;
    const client = new S3Client({ forcePathStyle: true });
    const realSend = client.send.bind(client);
    jest.spyOn(client, 'send').mockImplementation((async (cmd: any) => {
      if (cmd instanceof CopyObjectCommand && cmd.input.Key === 'processed/report.txt/report.txt') {
        copies.push(cmd.input);
        if (copies.length === 1) {
          await put(bucket, 'inbox/report.txt', 'second, longer upload');
          const current = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'inbox/report.txt' }));
          if (cmd.input.CopySourceIfMatch !== undefined && cmd.input.CopySourceIfMatch !== current.ETag) {
            throw Object.assign(new Error('At least one of the pre-conditions you specified did not hold'),
              { name: 'PreconditionFailed', $metadata: { httpStatusCode: 412 } });
          }
        }
      }
      const out = await realSend(cmd);
      if (cmd instanceof GetObjectCommand && cmd.input.Key === 'inbox/report.txt') readEtag ??= (out as any).ETag;
      return out;
    }) as never);
    // WHEN the processor runs twice
    const first = await processBucket({ client, bucket, concurrency: 1 });
    const second = await processBucket({ client, bucket, concurrency: 1 });
    client.destroy();
    // THEN the copy named the ETag that was read; the first run published nothing and left the new upload
    expect(copies[0].CopySourceIfMatch).toBe(readEtag);
    expect(first).toMatchObject({ files: 0, retrying: 1, errors: [] });
    // AND the second run published the new upload with metadata that describes it
    expect(second).toMatchObject({ files: 1, errors: [] });
    expect(await get(bucket, 'processed/report.txt/report.txt')).toBe('second, longer upload');
    expect(JSON.parse(await get(bucket, 'processed/report.txt/report.txt.meta.json'))).toMatchObject({ wordCount: 3, bytes: 21 });
  });
});

describe('"hand-backs and retries": no object blocks the others', () => {
  test('an object over the chunk cap that is never read within one run is parked in failed/ after 5 attempts, and the keys after it are processed', async () => {
    // GIVEN a 2 MB object first in key order (it arrives in several pieces) and a small one after it; chunks of at most 1 KiB
    const bucket = await newBucket();
    await put(bucket, 'inbox/a-big.txt', 'big words\n'.repeat(200_000));
    await put(bucket, 'inbox/z-small.txt', 'small words\n');
    const errors: unknown[] = [];
    const results = [];
    // WHEN every run meets its deadlines as soon as it starts reading the large object
    for (let i = 0; i < 6; i++) {
      let late = false;
      const client = clientWith((cmd) => {
        if (cmd instanceof GetObjectCommand && cmd.input.Key === 'inbox/a-big.txt') late = true;
      });
      const now = () => (late ? 100 : 0);
      const r = await processBucket({ client, bucket, concurrency: 1, chunkBytes: 1024, now, deadline: 50, readDeadline: 50 });
      client.destroy();
      errors.push(...r.errors);
      results.push(r);
    }
    // THEN it was handed back four times, then parked and reported once; the small one was processed after that
    const { dir, names } = await failedRun(bucket);
    expect(results.slice(0, 4).map((r) => r.retrying)).toEqual([1, 1, 1, 1]);
    expect(errors).toEqual([{
      name: 'a-big.txt',
      error: expect.stringMatching(new RegExp(`^the deadline came while it was read \\(\\d+ of 2000000 bytes\\); gave up after 5 attempts \\(moved to failed/${dir}/\\)$`)),
    }]);
    expect(names).toEqual(['a-big.txt']);
    expect(await get(bucket, 'processed/z-small.txt/z-small.txt')).toBe('small words\n');
    expect(await keys(bucket, 'inbox/')).toEqual([]);
    expect(await keys(bucket, 'processing/')).toEqual([]);
  }, 60_000);

  test('time for the server-side copy is reserved by size: an object whose copy would not finish is not read, and is left for the next run', async () => {
    // GIVEN a 1 MiB object whose copy takes ~10 s at the assumed rate, and 5 s left before the read deadline
    const bucket = await newBucket();
    await put(bucket, 'inbox/large.txt', 'x '.repeat(512 * 1024));
    await put(bucket, 'inbox/small.txt', 'a few words\n');
    const sent: string[] = [];
    const client = clientWith((cmd) => sent.push(`${cmd.constructor.name} ${cmd.input.Key ?? ''}`));
    // WHEN
    const result = await processBucket({ client, bucket, concurrency: 1, now: () => 0, readDeadline: 5_000, copyBytesPerSecond: 100 * 1024 });
    client.destroy();
    // THEN the small one is done; the large one was neither read nor copied, and waits in inbox/ (its claim marked released)
    expect(result).toMatchObject({ files: 1, retrying: 1, errors: [] });
    expect(sent).not.toContain('GetObjectCommand inbox/large.txt');
    expect(sent.filter((s) => s.startsWith('CopyObjectCommand') || s.startsWith('CreateMultipartUploadCommand'))).toEqual([
      'CopyObjectCommand processed/small.txt/small.txt',
    ]);
    expect(await keys(bucket, 'inbox/')).toEqual(['inbox/large.txt']);
  });

  test('a multipart copy a killed run left behind is aborted by the run that copies the name again', async () => {
    // GIVEN a multipart upload of processed/big.txt/big.txt with one part, as a run killed mid-copy leaves it
    const bucket = await newBucket();
    await put(bucket, 'inbox/big.txt', 'words of a big file\n'.repeat(10));
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'processed/big.txt/big.txt' }));
    await s3.send(new UploadPartCommand({ Bucket: bucket, Key: 'processed/big.txt/big.txt', UploadId, PartNumber: 1, Body: 'part', ContentLength: 4 }));
    // WHEN the next run copies it in parts (a copy limit of 16 bytes)
    const result = await processBucket({ client: s3, bucket, concurrency: 1, multipartCopyThresholdBytes: 16 });
    // THEN the result is published and no upload is left billed
    expect(result).toMatchObject({ files: 1, errors: [] });
    const uploads = await s3.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: 'processed/' }));
    expect(uploads.Uploads ?? []).toEqual([]);
  });
});

describe('"processed/<name>/ holds the result of the newest upload of the name": re-uploads (the same on both sides)', () => {
  test('a newer upload replaces the older result, data and metadata together: counted in files, not reported, not superseded; the older result stays a noncurrent version', async () => {
    // GIVEN the result of r.txt in a versioned bucket (the library's bucket is versioned)
    const bucket = await newBucket();
    await put(bucket, 'inbox/r.txt', 'the first upload\n');
    expect(await processBucket({ client: s3, bucket, concurrency: 4 })).toMatchObject({ files: 1, errors: [] });
    // WHEN r.txt is uploaded again and the processor runs
    const { VersionId } = await put(bucket, 'inbox/r.txt', 'the second upload, newer\n');
    const second = await processBucket({ client: s3, bucket, concurrency: 4 });
    // THEN the result is the second upload's, whole; the run counts it and reports nothing; failed/ has nothing
    expect(second).toEqual(expect.objectContaining({ files: 1, errors: [] }));
    expect(second).not.toHaveProperty('superseded');
    expect(await get(bucket, 'processed/r.txt/r.txt')).toBe('the second upload, newer\n');
    expect(JSON.parse(await get(bucket, 'processed/r.txt/r.txt.meta.json'))).toMatchObject({ name: 'r.txt', bytes: 25, source: { versionId: VersionId } });
    expect(await keys(bucket, 'failed/')).toEqual([]);
    // AND the first result is a noncurrent version of each key (until the bucket's noncurrent expiry)
    const versions = await s3.send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: 'processed/r.txt/' }));
    const older = (versions.Versions ?? []).filter((v) => !v.IsLatest);
    expect(older.map((v) => v.Key).sort()).toEqual(['processed/r.txt/r.txt', 'processed/r.txt/r.txt.meta.json']);
    const oldData = older.find((v) => v.Key === 'processed/r.txt/r.txt')!;
    const body = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: oldData.Key, VersionId: oldData.VersionId }));
    expect(await body.Body!.transformToString()).toBe('the first upload\n');
  });
});

describe('"every file in inbox/ is processed once into processed/<name>/, or reported once in failed/ with a reason": reported once, or processed', () => {
  test('binary content, over-long names and keys in sub-directories are moved to failed/ and reported once, not on every run', async () => {
    // GIVEN a binary object, a name too long for its result, a key in a sub-directory, and a good one
    const bucket = await newBucket();
    const long = `${'n'.repeat(246)}.txt`;
    await put(bucket, 'inbox/bin.dat', Buffer.from([0, 1, 2, 3]));
    await put(bucket, `inbox/${long}`, 'some words\n');
    await put(bucket, 'inbox/sub/nested.txt', 'nested words\n');
    await put(bucket, 'inbox/ok.txt', 'fine\n');
    // WHEN two runs come
    const first = await handler({});
    const second = await handler({});
    // THEN each is reported once with its reason and kept under failed/<claim>/; the second run has nothing to say
    const { dir, names } = await failedRun(bucket);
    expect(first.files).toBe(1);
    expect(first.errors).toEqual(expect.arrayContaining([
      { name: 'bin.dat', error: `not text: NUL byte within the first 1 bytes (moved to failed/${dir}/)` },
      {
        name: long,
        error: 'refused: name too long for its result: "<name>.meta.json" would be 260 bytes, over 255; shorten the name to at most 245 bytes '
        + `(moved to failed/${dir}/)`,
      },
      { name: 'sub/nested.txt', error: `refused: key is in a sub-directory of inbox/; only direct children are processed (moved to failed/${dir}/)` },
    ]));
    expect(first.errors).toHaveLength(3);
    expect(second).toMatchObject({ files: 0, errors: [] });
    expect(names.sort()).toEqual(['bin.dat', long, 'sub/nested.txt'].sort());
    expect(await get(bucket, `failed/${dir}/sub/nested.txt`)).toBe('nested words\n');
    expect(await keys(bucket, 'inbox/')).toEqual([]);
  });

  test('names of 967-1018 bytes, too long for failed/<claim>/<name> within S3\'s 1,024-byte keys, are moved under a shortened key and reported once', async () => {
    // GIVEN names whose failed/ key (and, past 1,013 bytes, claim marker key) would pass 1,024 bytes, ASCII and
    // multi-byte (cut between characters), and a client that answers as S3 does to a longer key (moto accepts it)
    const bucket = await newBucket();
    const names = ['a'.repeat(967), 'b'.repeat(1013), 'c'.repeat(1014), `${'é'.repeat(500)}${'d'.repeat(18)}`, `${'😀'.repeat(254)}xy`];
    expect(names.map((n) => Buffer.byteLength(`inbox/${n}`))).toEqual([973, 1019, 1020, 1024, 1024]);
    for (const [i, n] of names.entries()) await put(bucket, `inbox/${n}`, `words of name ${i}\n`);
    const written: string[] = [];
    const client = clientWith((cmd) => {
      const key: string | undefined = cmd.input?.Key;
      if (key === undefined) return;
      if (Buffer.byteLength(key) > 1024) throw Object.assign(new Error('Your key is too long'), { name: 'KeyTooLongError', $metadata: { httpStatusCode: 400 } });
      if (cmd instanceof PutObjectCommand || cmd instanceof CopyObjectCommand || cmd instanceof CreateMultipartUploadCommand) written.push(key);
    });
    // WHEN two runs come
    const first = await processBucket({ client, bucket, concurrency: 4 });
    const second = await processBucket({ client, bucket, concurrency: 4 });
    client.destroy();
    // THEN each is reported once, naming the shortened key, and nothing is left in the inbox
    const { dir, names: stored } = await failedRun(bucket);
    expect(first.errors.map((e) => e.name).sort()).toEqual([...names].sort());
    for (const e of first.errors) {
      expect(e.error).toMatch(new RegExp('^refused: key has a component longer than 255 bytes, which the file system cannot represent '
        + `\\(moved to failed/${dir}/ as .+~[0-9a-f]{16}: failed/${dir}/<name> would be a key of \\d+ bytes, over S3's limit of 1024, `
        + 'so it keeps the name\'s start and ends with a hash of the name; its metadata source-key-base64 holds its inbox key\\)$'));
    }
    expect(second).toMatchObject({ files: 0, errors: [] });
    expect(await keys(bucket, 'inbox/')).toEqual([]);
    expect(await keys(bucket, 'processing/')).toEqual([]);
    // AND every key written fits; each object is whole under its key, which keeps the name's start, with its inbox key in its metadata
    expect(written.filter((k) => Buffer.byteLength(k) > 1024)).toEqual([]);
    expect(stored).toHaveLength(names.length);
    for (const name of stored) {
      const key = `failed/${dir}/${name}`;
      expect(Buffer.byteLength(key)).toBeLessThanOrEqual(1024);
      expect(Buffer.byteLength(key)).toBeGreaterThan(1020);
      const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
      const inboxKey = Buffer.from(head.Metadata!['source-key-base64'], 'base64').toString('utf8');
      const original = inboxKey.slice('inbox/'.length);
      expect(names).toContain(original);
      expect(original.startsWith(name.slice(0, name.lastIndexOf('~')))).toBe(true);
      expect(await get(bucket, key)).toBe(`words of name ${names.indexOf(original)}\n`);
    }
  });

  test('complete objects with names that look temporary are processed: on S3 nothing is ever half-written', async () => {
    // GIVEN objects named like temporaries, backups and hidden files
    const bucket = await newBucket();
    for (const name of ['.hidden', 'up.part', 'notes.txt~', 'page.download']) await put(bucket, `inbox/${name}`, `${name} words\n`);
    // WHEN
    const result = await handler({});
    // THEN each is processed under its name
    expect(result).toMatchObject({ files: 4, errors: [] });
    expect(await keys(bucket, 'inbox/')).toEqual([]);
    expect(await get(bucket, 'processed/notes.txt~/notes.txt~')).toBe('notes.txt~ words\n');
  });
});

describe('phase timings', () => {
  test('claiming has its own phase: the lease and the claim PUTs are not counted as listing', async () => {
    // GIVEN every PUT under processing/ takes 300 ms more than it would
    const bucket = await newBucket();
    await put(bucket, 'inbox/a.txt', 'a b\n');
    const client = clientWith(async (cmd) => {
      if (cmd instanceof PutObjectCommand && cmd.input.Key?.startsWith('processing/')) await sleep(300);
    });
    // WHEN
    const result = await processBucket({ client, bucket, concurrency: 1 });
    client.destroy();
    // THEN the time is in claimMs, and listMs does not hold it
    expect(result).toMatchObject({ files: 1, errors: [] });
    expect(result.timings.claimMs).toBeGreaterThanOrEqual(600);
    expect(result.timings.listMs).toBeLessThan(300);
  });
});

describe('the function\'s timeout', () => {
  test('a timeout too short to ever start a chunk fails naming the timeout, instead of deferring forever', async () => {
    // GIVEN an inbox with an object, and Lambda's default 3 s timeout
    const bucket = await newBucket();
    await put(bucket, 'inbox/a.txt', 'a\n');
    // WHEN the handler starts with 3 s left / THEN it fails with what to change, and touched nothing
    await expect(handler({}, { getRemainingTimeInMillis: () => 3_000 })).rejects.toThrow(new Error('processor-s3api: the function\'s timeout is too short: '
      + '3 s remained when this invocation started, and the processor starts no work in its last 20 s (kept to finish what is in flight), which leaves it '
      + 'less than 1 s: it would return deferred: true on every run, having done next to nothing. Set the function\'s timeout to at least 30 s (Lambda\'s default is 3 s).'));
    expect(await keys(bucket, 'inbox/')).toEqual(['inbox/a.txt']);
    expect(await keys(bucket, 'processing/')).toEqual([]);
  });
});
