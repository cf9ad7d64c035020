/**
 * processor-s3api against integ/README.md's promises where issue 41 found them broken: objects S3
 * will not serve to the function. Against moto (which refuses archived objects as S3 does) behind
 * test/servers/s3-proxy.ts, which answers for SSE-C and KMS as S3 does (moto serves those anyway).
 */
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, PutBucketVersioningCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { processBucket } from '../../../integ/handlers/processor-s3api/index';
import { MotoServer, startMotoServer } from '../../servers/moto-server';
import { S3Proxy } from '../../servers/s3-proxy';

let moto: MotoServer;
let proxy: S3Proxy;
let s3: S3Client;
let viaProxy: S3Client;
const region = 'us-east-1';
const credentials = { accessKeyId: 'testing', secretAccessKey: 'testing' };

beforeAll(async () => {
  moto = await startMotoServer();
  proxy = await S3Proxy.start(moto.url);
  s3 = new S3Client({ forcePathStyle: true, endpoint: moto.url, region, credentials });
  viaProxy = new S3Client({ forcePathStyle: true, endpoint: proxy.url, region, credentials });
});
afterAll(async () => {
  s3?.destroy();
  viaProxy?.destroy();
  await proxy?.stop();
  await moto?.stop();
});

async function keys(Bucket: string, Prefix: string): Promise<string[]> {
  const res = await s3.send(new ListObjectsV2Command({ Bucket, Prefix, EncodingType: 'url' }));
  return (res.Contents ?? []).map((o) => decodeURIComponent(o.Key!)).sort();
}

describe('"hand-backs and retries", "any other failure goes to failed/ at once, reported once": objects S3 will not serve', () => {
  test('archived (GLACIER, DEEP_ARCHIVE), SSE-C and KMS-denied objects are reported once, parked where they cannot be moved, and never again (issue 41.5)', async () => {
    // GIVEN archived objects (moto refuses to serve or copy them, as S3 does), two that S3 answers for as it does for
    // SSE-C and a KMS key the function may not use (GetObject and CopyObject), and a good one
    const bucket = 'unservable-objects';
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    await s3.send(new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: 'Enabled' } }));
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'inbox/cold.txt', Body: 'cold words\n', StorageClass: 'GLACIER' }));
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'inbox/deep.txt', Body: 'deep words\n', StorageClass: 'DEEP_ARCHIVE' }));
    for (const name of ['ssec.txt', 'kms.txt', 'ok.txt']) await s3.send(new PutObjectCommand({ Bucket: bucket, Key: `inbox/${name}`, Body: `${name} words\n` }));
    const answers: Record<string, { status: number; code: string; message: string }> = {
      'ssec.txt': { status: 400, code: 'InvalidRequest', message: 'The object was stored using a form of Server Side Encryption. The correct parameters must be provided to retrieve the object.' },
      'kms.txt': { status: 403, code: 'AccessDenied', message: 'User: arn:aws:sts::123456789012:assumed-role/processor/fn is not authorized to perform: kms:Decrypt' },
    };
    proxy.hooks.push((r) => {
      const source = String(r.headers['x-amz-copy-source'] ?? '');
      const name = Object.keys(answers).find((n) => (r.method === 'GET' && r.key === `inbox/${n}`) || source.includes(`inbox/${n}`));
      return name ? { error: answers[name] } : undefined;
    });
    // WHEN three runs come
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await processBucket({ client: viaProxy, bucket, concurrency: 4 }));
    // THEN the first reports each once, saying why and where it stays; the later ones report nothing and count them parked
    expect(runs[0].files).toBe(1);
    expect(runs[0].errors.map((e) => e.name).sort()).toEqual(['cold.txt', 'deep.txt', 'kms.txt', 'ssec.txt']);
    for (const e of runs[0].errors) {
      expect(e.error).toMatch(/^S3 will not serve it to this function \((InvalidObjectState|InvalidRequest|AccessDenied): .*\); it cannot be moved to failed\/ either \(.*\): it stays in inbox\/, parked/);
    }
    expect(runs.slice(1).map((r) => r.errors)).toEqual([[], []]);
    expect(runs.slice(1).map((r) => r.parked)).toEqual([4, 4]);
    expect(await keys(bucket, 'inbox/')).toEqual(['inbox/cold.txt', 'inbox/deep.txt', 'inbox/kms.txt', 'inbox/ssec.txt']);
    const ok = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'processed/ok.txt/ok.txt' }));
    expect(await ok.Body!.transformToString()).toBe('ok.txt words\n');
    // AND a new upload of a parked name is processed
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'inbox/cold.txt', Body: 'restored words\n' }));
    expect(await processBucket({ client: viaProxy, bucket, concurrency: 4 })).toMatchObject({ files: 1, errors: [], parked: 3 });
  }, 60_000);
});
