/**
 * processor-s3api against moto: stalled writers after a takeover, deadlines inside reads, chunk
 * bytes, phase timings and keys XML cannot carry (issue 22).
 */
import {
  CopyObjectCommand, CreateBucketCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutBucketVersioningCommand, PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { processBucket } from '../../../integ/handlers/processor-s3api/index';
import { MotoServer, startMotoServer } from '../../servers/moto-server';
import { S3Proxy } from '../../servers/s3-proxy';

let moto: MotoServer;
let s3: S3Client;
let bucketSeq = 0;
const savedEnv = { ...process.env };

beforeAll(async () => {
  moto = await startMotoServer();
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_S3: moto.url,
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
afterEach(() => jest.restoreAllMocks());

async function newBucket(): Promise<string> {
  const bucket = `recovery-test-${++bucketSeq}`;
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  await s3.send(new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: 'Enabled' } }));
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

describe('processor-s3api: takeovers, deadlines and keys (moto)', () => {
  test('a writer whose requests stall past a takeover cannot overwrite the newer result, and does not count the file', async () => {
    // GIVEN v1 of report.txt, and invocation A (1 s lease) whose requests stall from its metadata PUT on
    const bucket = await newBucket();
    await put(bucket, 'inbox/report.txt', 'version one');
    let stalledAt: () => void = () => undefined;
    const stalled = new Promise<void>((r) => { stalledAt = r; });
    let resume: () => void = () => undefined;
    const gate = new Promise<void>((r) => { resume = r; });
    let stalling = false;
    const clientA = clientWith(async (cmd) => {
      if (cmd instanceof PutObjectCommand && cmd.input.Key === 'processed/report.txt/report.txt.meta.json') {
        stalling = true;
        stalledAt();
      }
      if (stalling) await gate;
    });
    const a = processBucket({ client: clientA, bucket, concurrency: 1, leaseMs: 1_000 });
    await stalled;
    // WHEN v2 arrives and invocation B, once A's lease expired (S3 times have 1 s resolution), takes the claim over
    await put(bucket, 'inbox/report.txt', 'version two is the newest');
    await sleep(2_500);
    const b = await processBucket({ client: s3, bucket, concurrency: 1, leaseMs: 1_000 });
    expect(b).toMatchObject({ files: 1, recovered: 1, errors: [] });
    // AND A's stalled requests land afterwards
    resume();
    const resultA = await a;
    clientA.destroy();
    // THEN A's late metadata did not replace B's: data and metadata are both v2's, and only B counted the file
    expect(resultA).toMatchObject({ files: 0, errors: [], stopped: expect.stringMatching(/^lease lost/) });
    expect(await get(bucket, 'processed/report.txt/report.txt')).toBe('version two is the newest');
    const meta = JSON.parse(await get(bucket, 'processed/report.txt/report.txt.meta.json'));
    expect(meta).toMatchObject({ wordCount: 5 });
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'processed/report.txt/report.txt' }));
    expect(head.Metadata?.['source-version-id']).toBe(meta.source.versionId);
    expect(await keys(bucket, 'inbox/')).toEqual([]);
  }, 30_000);

  test('reading stops at the read deadline even mid-object: the small objects are published, the large one left for the next run', async () => {
    // GIVEN a 2 MiB object and three tiny ones
    const bucket = await newBucket();
    await put(bucket, 'inbox/big.txt', 'large object words\n'.repeat(Math.ceil((2 * 1024 * 1024) / 19)));
    for (const n of ['s1.txt', 's2.txt', 's3.txt']) await put(bucket, `inbox/${n}`, `${n} tiny`);
    // WHEN the deadlines pass as the large object starts to arrive
    let late = false;
    const client = clientWith((cmd) => {
      if (cmd instanceof GetObjectCommand && cmd.input.Key === 'inbox/big.txt') late = true;
    });
    const first = await processBucket({ client, bucket, concurrency: 4, now: () => (late ? 100 : 0), deadline: 50, readDeadline: 50 });
    client.destroy();
    // THEN the small ones are done, the large one is still in the inbox, its claim marked released with one attempt, and no error
    expect(first).toMatchObject({ files: 3, retrying: 1, errors: [] });
    expect(await keys(bucket, 'inbox/')).toEqual(['inbox/big.txt']);
    expect(await keys(bucket, 'processing/')).toEqual(['processing/big.txt']);
    expect(JSON.parse(await get(bucket, 'processing/big.txt'))).toMatchObject({ key: 'inbox/big.txt', attempts: 1, released: true });
    // WHEN the next run has time / THEN it takes the claim over at once and processes it, leaving no claim behind
    expect(await processBucket({ client: s3, bucket, concurrency: 4 })).toMatchObject({ files: 1, errors: [] });
    expect(await keys(bucket, 'processing/')).toEqual([]);
  }, 30_000);

  test('a chunk is bounded by bytes as well as by keys', async () => {
    // GIVEN three 300 KiB objects and chunks of at most 400 KiB
    const bucket = await newBucket();
    for (const n of ['a.txt', 'b.txt', 'c.txt']) await put(bucket, `inbox/${n}`, 'x '.repeat(150 * 1024));
    // WHEN the deadline passes after the first chunk
    let checks = 0;
    const result = await processBucket({
      client: s3, bucket, concurrency: 4, chunkBytes: 400 * 1024, deadline: 1, now: () => (checks++ === 0 ? 0 : 2),
    });
    // THEN that chunk held one object
    expect(result).toMatchObject({ files: 1, errors: [], deferred: true });
    expect(await keys(bucket, 'inbox/')).toEqual(['inbox/b.txt', 'inbox/c.txt']);
  });

  test('the data copy is timed with the delete ("rename / copy+delete"), not as "write metadata"', async () => {
    // GIVEN CopyObject takes 600 ms more than it would
    const bucket = await newBucket();
    await put(bucket, 'inbox/a.txt', 'a b\n');
    const client = clientWith(async (cmd) => {
      if (cmd instanceof CopyObjectCommand) await sleep(600);
    });
    // WHEN
    const result = await processBucket({ client, bucket, concurrency: 1 });
    client.destroy();
    // THEN the copy's time is in renameMs, and writeMs (the metadata PUT) does not hold it
    expect(result).toMatchObject({ files: 1, errors: [] });
    expect(result.timings.renameMs).toBeGreaterThanOrEqual(600);
    expect(result.timings.writeMs).toBeLessThan(600);
  });

  test('keys with a backslash, a plus, spaces and a percent sign are listed and processed under their exact names', async () => {
    // GIVEN
    const bucket = await newBucket();
    const names = ['back\\slash.txt', 'plus+and space%20.txt'];
    for (const n of names) await put(bucket, `inbox/${n}`, `${n.length} words here\n`);
    // WHEN (one key per listing page, so the page markers carry the keys too)
    const result = await processBucket({ client: s3, bucket, concurrency: 2, listPageSize: 1 });
    // THEN each was processed under its exact name, and the inbox is empty
    expect(result).toMatchObject({ files: 2, errors: [] });
    for (const n of names) expect(JSON.parse(await get(bucket, `processed/${n}/${n}.meta.json`))).toMatchObject({ name: n, wordCount: 3 });
    expect(await keys(bucket, 'inbox/')).toEqual([]);
  }, 30_000);
});

describe('processor-s3api listing keys XML 1.0 cannot carry (moto behind test/servers/s3-proxy.ts, which encodes ListObjectVersions as S3 does)', () => {
  let proxy: S3Proxy;
  beforeAll(async () => { proxy = await S3Proxy.start(moto.url); });
  afterAll(async () => proxy?.stop());

  test('asks for EncodingType=url and decodes the keys S3 encodes, so a key holding \\r is read and published exactly', async () => {
    // GIVEN inbox/carriage\rreturn 1+1.txt (a space comes encoded as "+", a "+" as %2B) and one after it, one key per listing page
    const bucket = await newBucket();
    const name = 'carriage\rreturn 1+1.txt';
    await put(bucket, `inbox/${name}`, 'two w\n');
    await put(bucket, 'inbox/z.txt', 'z\n');
    const client = new S3Client({ forcePathStyle: true, endpoint: proxy.url });
    // WHEN
    const result = await processBucket({ client, bucket, concurrency: 1, listPageSize: 1 });
    client.destroy();
    // THEN every listing asked for encoded keys; the object was read, published and deleted under its exact key
    expect(result).toMatchObject({ files: 2, errors: [] });
    const listings = proxy.seen.filter((r) => r.bucket === bucket && r.query.has('versions'));
    expect(listings.map((r) => r.query.get('encoding-type'))).toEqual(listings.map(() => 'url'));
    expect(listings.map((r) => r.query.get('key-marker'))).toContain(`inbox/${name}`);
    expect(await get(bucket, `processed/${name}/${name}`)).toBe('two w\n');
    expect(await keys(bucket, 'inbox/')).toEqual([]);
  });
});
