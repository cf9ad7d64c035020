/**
 * The verify run's cleanup of the RETAIN stack's bucket (integ/verify/account-checks.ts:
 * `emptyBucket`, `deleteRetained`) with the real SDK client against moto, behind
 * test/servers/s3-proxy.ts, which answers `EncodingType=url` listings as S3 does (moto ignores the
 * parameter on ListObjectVersions). A key holding a carriage return, a delete S3 refuses (an object
 * under legal hold: moto refuses it in DeleteObjects' `Errors`, as S3 does, though naming it by key
 * only, where S3 adds its version id), and a server that does not encode. Each call runs under a guard: a cleanup that loops fails the test instead of hanging it.
 */
import {
  CreateBucketCommand, DeleteObjectCommand, HeadBucketCommand, ListObjectVersionsCommand, PutBucketVersioningCommand, PutObjectCommand, S3Client,
} from '@aws-sdk/client-s3';
import { S3FilesClient } from '@aws-sdk/client-s3files';
import { deleteRetained, emptyBucket } from '../../integ/verify/account-checks';
import { MotoServer, startMotoServer } from '../servers/moto-server';
import { S3Proxy } from '../servers/s3-proxy';
import { perCall, S3FilesEndpoint } from '../servers/s3files-endpoint';

const creds = { accessKeyId: 'test', secretAccessKey: 'test' };
const CARRIAGE_RETURN_KEY = 'retain/carriage\rreturn.txt';
const OTHER_KEYS = ['retain/plus+and space%20.txt', 'retain/é\\back.txt'];
/** How long a cleanup of a few objects may take on a slow shared machine before it counts as looping. */
const GUARD_SECONDS = 30;

let moto: MotoServer;
let proxy: S3Proxy;
let endpoint: S3FilesEndpoint;
let direct: S3Client;
let viaProxy: S3Client;
let files: S3FilesClient;
let seq = 0;
/**
 * `run` with its own S3 client, or a failure once GUARD_SECONDS pass: then that client refuses
 * every further call, so a cleanup that loops throws and ends instead of running on after the test.
 */
async function guarded<T>(url: string, run: (s3: S3Client) => Promise<T>): Promise<T> {
  let stopped = false;
  const s3 = new S3Client({ region: 'us-east-1', endpoint: url, credentials: creds, forcePathStyle: true, maxAttempts: 1 });
  s3.middlewareStack.add((next) => (args) => (stopped ? Promise.reject(new Error('stopped by the test guard')) : next(args)), { step: 'initialize' });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), GUARD_SECONDS * 1000);
  });
  const work = run(s3);
  try {
    const result = await Promise.race([work, timeout]);
    if (result !== 'timeout') return result;
    stopped = true;
    await work.catch(() => undefined);
    throw new Error(`the cleanup did not return within ${GUARD_SECONDS} s (it loops)`);
  } finally {
    clearTimeout(timer);
    s3.destroy();
  }
}

async function versionsOf(bucket: string): Promise<Array<{ key: string; versionId?: string }>> {
  const page = await viaProxy.send(new ListObjectVersionsCommand({ Bucket: bucket, EncodingType: 'url' }));
  return [...(page.Versions ?? []), ...(page.DeleteMarkers ?? [])].map((v) => ({ key: decodeURIComponent(v.Key!.replace(/\+/g, ' ')), versionId: v.VersionId }));
}

/** A versioned bucket with two versions of each key (a carriage return among them) and a delete marker; optionally one more key under legal hold. */
async function retainedBucket(options: { held?: string } = {}): Promise<{ bucket: string; heldVersion?: string }> {
  const bucket = `verify-retain-${++seq}`;
  if (options.held) {
    await direct.send(new CreateBucketCommand({ Bucket: bucket, ObjectLockEnabledForBucket: true }));
  } else {
    await direct.send(new CreateBucketCommand({ Bucket: bucket }));
    await direct.send(new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: 'Enabled' } }));
  }
  for (const key of [CARRIAGE_RETURN_KEY, ...OTHER_KEYS]) {
    await direct.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'x' }));
    await direct.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'y' }));
  }
  await direct.send(new DeleteObjectCommand({ Bucket: bucket, Key: OTHER_KEYS[0] }));
  if (!options.held) return { bucket };
  const put = await direct.send(new PutObjectCommand({ Bucket: bucket, Key: options.held, Body: 'kept by law', ObjectLockLegalHoldStatus: 'ON' }));
  return { bucket, heldVersion: put.VersionId };
}

const listingsOf = (bucket: string) => proxy.seen.filter((r) => r.bucket === bucket && r.method === 'GET' && r.query.has('versions'));
const deletesOf = (bucket: string) => proxy.seen.filter((r) => r.bucket === bucket && r.method === 'POST' && r.query.has('delete'));

describe('the verify run empties the retained bucket: keys url-encoded, refusals named, no endless loop [python tools]', () => {
  beforeAll(async () => {
    [moto, endpoint] = await Promise.all([startMotoServer(), S3FilesEndpoint.start()]);
    proxy = await S3Proxy.start(moto.url);
    direct = new S3Client({ region: 'us-east-1', endpoint: moto.url, credentials: creds, forcePathStyle: true });
    viaProxy = new S3Client({ region: 'us-east-1', endpoint: proxy.url, credentials: creds, forcePathStyle: true });
    files = new S3FilesClient({ region: 'us-east-1', endpoint: endpoint.url, credentials: creds });
  }, 60_000);
  afterAll(async () => {
    direct?.destroy();
    viaProxy?.destroy();
    files?.destroy();
    await proxy?.stop();
    await endpoint?.stop();
    await moto?.stop();
  });

  test('a bucket holding a key with a carriage return is emptied, every listing asking for url-encoded keys', async () => {
    // GIVEN a versioned bucket whose keys hold a carriage return, a plus, a space, a %, a backslash and an é
    const { bucket } = await retainedBucket();
    // WHEN it is emptied through a server that encodes listings as S3 does
    const result = await guarded(proxy.url, (s3) => emptyBucket(s3, bucket));
    // THEN every version and the delete marker went, and every listing asked for encoding-type=url
    expect(result).toEqual({ deleted: 7, notDeleted: [] });
    expect(await versionsOf(bucket)).toEqual([]);
    expect(listingsOf(bucket).map((r) => r.query.get('encoding-type'))).toEqual(listingsOf(bucket).map(() => 'url'));
  }, 60_000);

  test('a delete S3 refuses (legal hold) is returned with its key, version and error after the rest went, and the loop stops', async () => {
    // GIVEN the same keys in an object-lock bucket, plus one object version under legal hold
    const held = 'retain/held by law+1.txt';
    const { bucket, heldVersion } = await retainedBucket({ held });
    // WHEN it is emptied
    const result = await guarded(proxy.url, (s3) => emptyBucket(s3, bucket));
    // THEN the held version is named with S3's error; everything else went; the refused delete was retried once, not forever
    expect(result).toEqual({
      deleted: 7,
      notDeleted: [{ key: held, versionId: heldVersion, code: 'AccessDenied', message: expect.stringMatching(/object lock/) }],
    });
    expect([deletesOf(bucket).length, listingsOf(bucket).length]).toEqual([2, 3]);
    expect(await versionsOf(bucket)).toEqual([{ key: held, versionId: heldVersion }]);
  }, 60_000);

  test('against a server that does not encode, the delete that removes nothing ends the loop and is named as such', async () => {
    // GIVEN the bucket, reached directly: moto sends the carriage return through XML 1.0, which reads it back as a line feed
    const { bucket } = await retainedBucket();
    // WHEN it is emptied / THEN the other keys went, and the two versions whose deletes removed nothing are returned
    const result = await guarded(moto.url, (s3) => emptyBucket(s3, bucket));
    expect(result.deleted).toBe(5);
    expect(result.notDeleted.map((n) => [n.key, n.code])).toEqual([
      ['retain/carriage\nreturn.txt', 'StillListed'], ['retain/carriage\nreturn.txt', 'StillListed'],
    ]);
  }, 60_000);

  test('deleteRetained keeps a bucket it cannot empty, never sends DeleteBucket, and says which keys it could not delete', async () => {
    // GIVEN the retained file system (deletable at once) and its bucket, one object of which is under legal hold
    const held = 'retain/held\rby law.txt';
    const { bucket, heldVersion } = await retainedBucket({ held });
    endpoint.setFileSystem('fs-0000000000000000a', perCall('available'), `arn:aws:s3:::${bucket}`);
    // WHEN the run deletes them as docs/lifecycle.md tells users to
    const logged: string[] = [];
    const cleanup = await guarded(proxy.url, (s3) => deleteRetained(s3, files, 'fs-0000000000000000a', bucket, (m) => logged.push(m)));
    // THEN the report's line names the key (its carriage return visible) and version; the bucket is still there
    expect(cleanup.kept).toContain(`bucket ${bucket} kept: 1 object version could not be deleted: "retain/held\\rby law.txt" (version ${heldVersion}): AccessDenied`);
    expect(logged).toContain(cleanup.kept);
    expect(cleanup.outcome).toMatchObject({
      id: 'service.errors-as-modelled',
      status: 'not run',
      evidence: { notDeleted: [{ key: held, versionId: heldVersion, code: 'AccessDenied' }] },
      note: expect.stringContaining('DeleteBucket was not sent'),
    });
    expect(proxy.seen.filter((r) => r.bucket === bucket && r.method === 'DELETE' && r.key === '')).toEqual([]);
    await expect(direct.send(new HeadBucketCommand({ Bucket: bucket }))).resolves.toBeDefined();
  }, 60_000);

  test('deleteRetained keeps a bucket S3 refuses to list, says so, and does not report it as the service\'s error model refuted', async () => {
    const { bucket } = await retainedBucket();
    endpoint.setFileSystem('fs-0000000000000000c', perCall('available'), `arn:aws:s3:::${bucket}`);
    const refuse = (r: { bucket: string; method: string; query: URLSearchParams }) => (r.bucket === bucket && r.method === 'GET' && r.query.has('versions')
      ? { error: { status: 403, code: 'AccessDenied', message: 'Access Denied' } } : undefined);
    proxy.hooks.push(refuse);
    try {
      const cleanup = await guarded(proxy.url, (s3) => deleteRetained(s3, files, 'fs-0000000000000000c', bucket, () => undefined));
      expect(cleanup.kept).toMatch(new RegExp(`^bucket ${bucket} kept: AccessDenied, emptying the bucket stopped: .*Remove the cause, empty it \\(every object version\\) and delete it\\.$`));
      expect(cleanup.outcome).toMatchObject({ id: 'service.errors-as-modelled', status: 'not run' });
      await expect(direct.send(new HeadBucketCommand({ Bucket: bucket }))).resolves.toBeDefined();
    } finally {
      proxy.hooks.splice(proxy.hooks.indexOf(refuse), 1);
    }
  }, 60_000);

  test('a bucket that never empties (each pass removes versions, new ones keep coming) ends after the pass limit, naming what is still there', async () => {
    const { bucket } = await retainedBucket();
    let writes = 0;
    const writer = async (r: { bucket: string; method: string; query: URLSearchParams }) => {
      if (r.bucket === bucket && r.method === 'POST' && r.query.has('delete')) await direct.send(new PutObjectCommand({ Bucket: bucket, Key: `retain/new-${++writes}.txt`, Body: 'x' }));
      return undefined;
    };
    proxy.hooks.push(writer);
    try {
      const result = await guarded(proxy.url, (s3) => emptyBucket(s3, bucket, 3));
      expect(result.notDeleted.length).toBeGreaterThan(0);
      expect(result.notDeleted[0]).toMatchObject({ code: 'StillWritten', message: 'still listed after 3 passes that each removed versions' });
    } finally {
      proxy.hooks.splice(proxy.hooks.indexOf(writer), 1);
    }
  }, 60_000);

  test('deleteRetained empties and deletes a bucket it can empty, keys with a carriage return included', async () => {
    const { bucket } = await retainedBucket();
    endpoint.setFileSystem('fs-0000000000000000b', perCall('available'), `arn:aws:s3:::${bucket}`);
    const cleanup = await guarded(proxy.url, (s3) => deleteRetained(s3, files, 'fs-0000000000000000b', bucket, () => undefined));
    expect(cleanup.kept).toBeUndefined();
    expect(cleanup.outcome).toMatchObject({ id: 'service.errors-as-modelled', status: 'not run' });
    await expect(direct.send(new HeadBucketCommand({ Bucket: bucket }))).rejects.toThrow();
  }, 60_000);
});
