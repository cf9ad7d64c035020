/**
 * processor-s3api killed at exact steps and timed out (issue 41): the processor runs in a child
 * process (test/servers/run-process-bucket.ts) against moto behind test/servers/s3-proxy.ts; the
 * proxy holds one request and the test SIGKILLs the child there, or slows requests so that the
 * child meets its timeout, when the runner SIGKILLs it as Lambda does. Later runs must finish the
 * work, leave nothing billed and nothing stale behind.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import {
  CreateBucketCommand, DeleteObjectsCommand, GetObjectCommand, ListMultipartUploadsCommand, ListObjectsV2Command, ListObjectVersionsCommand,
  PutBucketVersioningCommand, PutObjectCommand, S3Client,
} from '@aws-sdk/client-s3';
import { processBucket } from '../../../integ/handlers/processor-s3api/index';
import { MotoServer, startMotoServer } from '../../servers/moto-server';
import { S3Proxy } from '../../servers/s3-proxy';

const ROOT = resolve(__dirname, '..', '..', '..');
const MIB = 1024 * 1024;
type Result = { files: number; errors: { name: string; error: string }[]; retrying?: number };

let moto: MotoServer;
let proxy: S3Proxy;
let s3: S3Client;
let seq = 0;
const env = () => ({
  PATH: process.env.PATH!, AWS_ENDPOINT_URL_S3: proxy.url, AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing',
});

beforeAll(async () => {
  moto = await startMotoServer();
  proxy = await S3Proxy.start(moto.url);
  s3 = new S3Client({ forcePathStyle: true, endpoint: moto.url, region: 'us-east-1', credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
});
afterAll(async () => {
  s3?.destroy();
  await proxy?.stop();
  await moto?.stop();
});
afterEach(() => { proxy.hooks.length = 0; });

async function newBucket(): Promise<string> {
  const bucket = `crash-test-${++seq}`;
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  await s3.send(new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: 'Enabled' } }));
  return bucket;
}
const put = (Bucket: string, Key: string, Body: string | Buffer) =>
  s3.send(new PutObjectCommand({ Bucket, Key, Body, ContentLength: Buffer.byteLength(Body) }));
async function keys(Bucket: string, Prefix: string): Promise<string[]> {
  const res = await s3.send(new ListObjectsV2Command({ Bucket, Prefix, EncodingType: 'url' }));
  return (res.Contents ?? []).map((o) => decodeURIComponent(o.Key!)).sort();
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One run in a child process; `kill` (when given) resolves when the test wants it killed. 'killed' when it was. */
function runChild(options: Record<string, unknown>, kill?: Promise<void>): Promise<Result | 'killed'> {
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', 'test/servers/run-process-bucket.ts', JSON.stringify(options)], { cwd: ROOT, env: { ...env(), PROCESSOR_LOG: process.env.PROCESSOR_LOG ?? '' } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  void kill?.then(() => child.kill('SIGKILL'));
  return new Promise((settle, reject) => child.on('exit', (code, signal) => {
    if (process.env.PROCESSOR_LOG) process.stdout.write(stderr);
    if (signal === 'SIGKILL') return settle('killed');
    const line = stdout.split('\n').find((l) => l.startsWith('RESULT:'));
    if (code !== 0 || !line) reject(new Error(`child exited ${code}/${signal}: ${stderr.slice(-2000)}`));
    else settle(JSON.parse(line.slice('RESULT:'.length)));
  }));
}
/** Resolves when the proxy meets a request `matches` selects; that request is held (never answered). */
function holdAt(matches: (r: { method: string; key: string; query: URLSearchParams; headers: Record<string, unknown> }) => boolean): Promise<void> {
  return new Promise((reached) => proxy.hooks.push((r) => {
    if (!matches(r)) return undefined;
    reached();
    return { hold: true };
  }));
}
const isPartCopy = (r: { method: string; query: URLSearchParams; headers: Record<string, unknown> }) =>
  r.method === 'PUT' && r.query.has('partNumber') && r.query.has('uploadId') && r.headers['x-amz-copy-source'] !== undefined;

describe('"leases and recovery": processor-s3api killed at exact steps (child process, SIGKILL)', () => {
  test('"a multipart copy that a killed run left behind is aborted" (or finished) by the next run, even into the killed run\'s own failed/<claim>/ (issue 41.6)', async () => {
    // GIVEN a 6 MiB object that is not text, moved to failed/ in two parts of 5 MiB (a copy limit of 16 bytes)
    const bucket = await newBucket();
    const data = Buffer.concat([Buffer.from([0]), Buffer.alloc(6 * MIB - 1, 0x61)]);
    await put(bucket, 'inbox/bin.dat', data);
    const sizes = { multipartCopyThresholdBytes: 16, copyPartBytes: 5 * MIB, leaseMs: 1_000 };
    // WHEN the run is killed while it copies the second part into failed/<its claim>/bin.dat
    const killed = await runChild({ bucket, ...sizes }, holdAt((r) => isPartCopy(r) && r.key.startsWith('failed/') && r.query.get('partNumber') === '2'));
    proxy.hooks.length = 0;
    // AND the next run comes once its lease ran out
    await sleep(2_500);
    const next = await processBucket({ client: s3, bucket, concurrency: 4, ...sizes });
    // THEN the object is in failed/ once, whole, reported once; no multipart upload is left billed
    expect(killed).toBe('killed');
    expect(next.errors).toEqual([{ name: 'bin.dat', error: expect.stringMatching(/^not text: .* \(moved to failed\/[^/]+\/\)$/) }]);
    const failed = await keys(bucket, 'failed/');
    expect(failed).toHaveLength(1);
    const copy = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: failed[0] }));
    expect(Buffer.from(await copy.Body!.transformToByteArray()).equals(data)).toBe(true);
    expect((await s3.send(new ListMultipartUploadsCommand({ Bucket: bucket }))).Uploads ?? []).toEqual([]);
    expect(await keys(bucket, 'inbox/')).toEqual([]);
  }, 90_000);

  test('a killed run\'s heartbeat (processing/.leases/<claim>) and a claim marker no run can take over any more are removed once provably stale', async () => {
    // GIVEN a run killed while it reads a.txt, holding the claims of a.txt and b.txt
    const bucket = await newBucket();
    await put(bucket, 'inbox/a.txt', 'a words\n');
    await put(bucket, 'inbox/b.txt', 'b words\n');
    const killed = await runChild({ bucket, leaseMs: 1_000 }, holdAt((r) => r.method === 'GET' && r.key === 'inbox/a.txt'));
    proxy.hooks.length = 0;
    // AND its producer deletes a.txt meanwhile (no run will list it again)
    const versions = await s3.send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: 'inbox/a.txt' }));
    const Objects = (versions.Versions ?? []).map((v) => ({ Key: v.Key!, VersionId: v.VersionId }));
    await s3.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects } }));
    // WHEN the next runs come once its lease ran out
    await sleep(2_500);
    const next = [await processBucket({ client: s3, bucket, concurrency: 4, leaseMs: 1_000 })];
    await sleep(1_500);
    next.push(await processBucket({ client: s3, bucket, concurrency: 4, leaseMs: 1_000 }));
    // THEN b.txt was processed, and nothing is left under processing/: no heartbeat, no marker, no version of either
    expect(killed).toBe('killed');
    expect(next.reduce((n, r) => n + r.files, 0)).toBe(1);
    expect(next.flatMap((r) => r.errors)).toEqual([]);
    const left = await s3.send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: 'processing/' }));
    expect([...(left.Versions ?? []), ...(left.DeleteMarkers ?? [])].map((v) => v.Key)).toEqual([]);
  }, 90_000);
});

describe('"deadlines and memory": processor-s3api and its timeout (child process; the runner SIGKILLs it at its end, as Lambda does)', () => {
  test('"a run always returns": an object whose copy outlasts what is left after its read is handed back, copied first by the next run, and processed (issue 41.9)', async () => {
    // GIVEN a 2 MiB object S3 serves in 4.5 s and copies in 5 s (to scale: the 100 MiB object read at ~5.5 MiB/s, a 22 s copy),
    // and runs of 9 s whose copies must end 3 s before the end (reading stops 3 s before it)
    const bucket = await newBucket();
    const text = 'big object words\n'.repeat(Math.ceil((2 * MIB) / 17));
    await put(bucket, 'inbox/big.txt', text);
    proxy.hooks.push((r) => {
      if (r.method === 'GET' && r.key === 'inbox/big.txt' && !r.query.has('versions')) return { delayMs: 4_500 };
      if (r.method === 'PUT' && r.key === 'processed/big.txt/big.txt' && r.headers['x-amz-copy-source'] !== undefined) return { delayMs: 5_000 };
      return undefined;
    });
    // WHEN runs come one after the other
    const runs: (Result | 'killed')[] = [];
    for (let i = 0; i < 3 && (await keys(bucket, 'inbox/')).length > 0; i++) {
      runs.push(await runChild({ bucket, remainingMs: 9_000, chunkMarginMs: 8_000, readMarginMs: 3_000, leaseMs: 2_000 }));
    }
    // THEN no run was killed; the first handed the object back, the second published it whole
    expect(runs).not.toContain('killed');
    const results = runs as Result[];
    expect(results.flatMap((r) => r.errors)).toEqual([]);
    expect(results[0]).toMatchObject({ files: 0, retrying: 1 });
    expect(results.reduce((n, r) => n + r.files, 0)).toBe(1);
    const published = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'processed/big.txt/big.txt' }));
    expect(await published.Body!.transformToString()).toBe(text);
    expect(await keys(bucket, 'inbox/')).toEqual([]);
    // AND the second run did not read it again: what the first had counted came with the claim
    expect(proxy.seen.filter((r) => r.bucket === bucket && r.method === 'GET' && r.key === 'inbox/big.txt')).toHaveLength(1);
  }, 120_000);

  test('"a run always returns": an object whose copy would not fit in a whole run is copied in parts (issue 41.9)', async () => {
    // GIVEN a 12 MiB object S3 copies whole in 8 s, longer than a run has for copying (6 s), and a part of 5 MiB in 3 s
    const bucket = await newBucket();
    const text = 'slow copy words\n'.repeat(Math.ceil((12 * MIB) / 16));
    await put(bucket, 'inbox/slow.txt', text);
    proxy.hooks.push((r) => (r.method === 'PUT' && r.key === 'processed/slow.txt/slow.txt' && r.headers['x-amz-copy-source'] !== undefined
      ? { delayMs: r.query.has('partNumber') ? 3_000 : 8_000 } : undefined));
    // WHEN runs come one after the other
    const runs: (Result | 'killed')[] = [];
    for (let i = 0; i < 3 && (await keys(bucket, 'inbox/')).length > 0; i++) {
      runs.push(await runChild({ bucket, remainingMs: 9_000, chunkMarginMs: 8_000, readMarginMs: 3_000, leaseMs: 2_000 }));
    }
    // THEN no run was killed; the first stopped its whole copy, the second copied in parts and published it
    expect(runs).not.toContain('killed');
    expect((runs as Result[]).map((r) => r.files)).toEqual([0, 1]);
    expect(proxy.seen.some((r) => r.bucket === bucket && r.key === 'processed/slow.txt/slow.txt' && r.query.has('partNumber'))).toBe(true);
    const published = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'processed/slow.txt/slow.txt' }));
    expect(await published.Body!.transformToString()).toBe(text);
    expect((await s3.send(new ListMultipartUploadsCommand({ Bucket: bucket }))).Uploads ?? []).toEqual([]);
  }, 120_000);
});
