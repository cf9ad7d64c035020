/**
 * The bucket cleaner and keys S3 returns in another encoding (issue 37, item 4): a key holding a
 * carriage return comes back through XML 1.0 as a line feed unless the listing asks for
 * `EncodingType=url`. Against moto behind test/servers/s3-proxy.ts, which encodes listings as S3
 * does when asked (moto ignores the parameter on ListObjectVersions), and against moto alone (a
 * server that does not encode), where the deletes remove nothing and the cleaner must say so.
 */
import { CreateBucketCommand, GetBucketVersioningCommand, ListObjectVersionsCommand, PutBucketVersioningCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { S3FilesClient } from '@aws-sdk/client-s3files';
import { BUCKET_CLEANER, cleanerDelete, emptyBucketSlice } from '../../lambda/s3files-provider/bucket-cleaner';
import type { WaitLogger } from '../../lambda/s3files-provider/resource-handler';
import { MotoServer, startMotoServer } from '../servers/moto-server';
import { S3Proxy } from '../servers/s3-proxy';
import { S3FilesEndpoint } from '../servers/s3files-endpoint';

const creds = { accessKeyId: 'test', secretAccessKey: 'test' };
const T0 = 1_700_000_000_000;
const log: WaitLogger = { info: () => undefined, warn: () => undefined };
let moto: MotoServer;
let proxy: S3Proxy;
let endpoint: S3FilesEndpoint;
let files: S3FilesClient;
let direct: S3Client;
let viaProxy: S3Client;
let seq = 0;

beforeAll(async () => {
  moto = await startMotoServer();
  proxy = await S3Proxy.start(moto.url);
  endpoint = await S3FilesEndpoint.start();
  files = new S3FilesClient({ region: 'us-east-1', endpoint: endpoint.url, credentials: creds });
  direct = new S3Client({ region: 'us-east-1', endpoint: moto.url, credentials: creds, forcePathStyle: true });
  viaProxy = new S3Client({ region: 'us-east-1', endpoint: proxy.url, credentials: creds, forcePathStyle: true });
});
afterAll(async () => {
  files?.destroy();
  direct?.destroy();
  viaProxy?.destroy();
  await proxy?.stop();
  await endpoint?.stop();
  await moto?.stop();
});

/** A versioned bucket holding the keys the integ processors publish on purpose, a carriage return among them. */
async function bucketWithKeys(): Promise<{ bucket: string; cleaner: ReturnType<typeof BUCKET_CLEANER.parse> }> {
  const bucket = `encoded-keys-${++seq}`;
  await direct.send(new CreateBucketCommand({ Bucket: bucket }));
  await direct.send(new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: 'Enabled' } }));
  for (const key of ['processed/carriage\rreturn.txt/carriage\rreturn.txt', 'inbox/plus+and space%20.txt', 'failed/é\\back.txt']) {
    await direct.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'x' }));
    await direct.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'y' }));
  }
  return { bucket, cleaner: BUCKET_CLEANER.parse({ BucketArn: `arn:aws:s3:::${bucket}`, EmptyOnDelete: 'true', TotalTimeoutSeconds: '600' }) };
}

describe('the bucket cleaner lists with EncodingType=url and decodes the keys', () => {
  test('a bucket holding a key with a carriage return is emptied and deleted (S3 encodes the listing when asked)', async () => {
    // GIVEN the bucket, reached through a server that answers listings as S3 does
    const { bucket, cleaner } = await bucketWithKeys();
    // WHEN the cleaner's Delete is polled until done
    const results: boolean[] = [];
    for (let i = 0; i < 4 && !results.at(-1); i++) {
      results.push((await cleanerDelete({ client: files, s3: viaProxy, now: () => T0 + i * 10_000, log }, cleaner, T0)).IsComplete);
    }
    // THEN every version went and the bucket is gone; every listing asked for encoded keys
    expect(results.at(-1)).toBe(true);
    await expect(direct.send(new GetBucketVersioningCommand({ Bucket: bucket }))).rejects.toThrow(/NoSuchBucket|does not exist/);
    const listings = proxy.seen.filter((r) => r.bucket === bucket && r.query.has('versions'));
    expect(listings.length).toBeGreaterThan(0);
    expect(listings.map((r) => r.query.get('encoding-type'))).toEqual(listings.map(() => 'url'));
  });

  test('against a server that does not encode, deletes that remove nothing are named as such, not blamed on the cleaner\'s policy', async () => {
    // GIVEN the bucket, reached directly (moto sends the carriage return through XML: it comes back a line feed)
    const { bucket } = await bucketWithKeys();
    // WHEN a slice empties it / THEN it fails saying the deletes removed nothing, and keeps the object
    const slice = emptyBucketSlice(direct, bucket, () => T0);
    await expect(slice).rejects.toThrow(/the deletes removed nothing\. .*it is not a permission of the cleaner/);
    await expect(slice).rejects.not.toThrow(/policy/);
    const left = await direct.send(new ListObjectVersionsCommand({ Bucket: bucket }));
    expect(left.Versions?.length).toBe(2);
  });
});
