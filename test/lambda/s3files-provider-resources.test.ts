import {
  CreateBucketCommand, DeleteObjectCommand, GetBucketVersioningCommand, ListObjectVersionsCommand, PutBucketVersioningCommand,
  PutObjectCommand, S3Client,
} from '@aws-sdk/client-s3';
import { DeleteFileSystemCommand, GetFileSystemCommand, ListMountTargetsCommand, S3FilesClient } from '@aws-sdk/client-s3files';
import { mockClient } from 'aws-sdk-client-mock';
import {
  BUCKET_CLEANER, cleanerDelete, emptyBucketSlice, isStillAttached,
} from '../../lambda/s3files-provider/bucket-cleaner';
import { BOUNDED_CLIENT_CONFIG } from '../../lambda/s3files-provider/clients';
import { DELETE_GUARD, guardDelete, isPendingExport, parseRetainedFileSystems } from '../../lambda/s3files-provider/delete-guard';
import { handleIsComplete } from '../../lambda/s3files-provider/dispatch';
import type { WaitLogger } from '../../lambda/s3files-provider/resource-handler';
import { describeError, isTransient } from '../../lambda/s3files-provider/sdk-errors';
import { verifyBucketVersioning } from '../../lambda/s3files-provider/versioning';
import { checkAvailability, evaluate, WAITER } from '../../lambda/s3files-provider/waiter';
import { freePort, MotoServer, startMotoServer } from '../servers/moto-server';
import { S3AttachedProxy } from '../servers/s3-attached-proxy';
import { perCall, S3FilesEndpoint } from '../servers/s3files-endpoint';

// The pure functions with an injected clock and a recording logger, against the real SDK and the
// local endpoint; aws-sdk-client-mock only for errors the endpoint cannot produce (403s).

const GUARD = 'Custom::S3FilesDeleteGuard: ';
const CLEANER = 'Custom::S3FilesBucketCleaner: ';
const FS = 'fs-0123456789abcdef0';
const T0 = 1_700_000_000_000;
const creds = { accessKeyId: 'test', secretAccessKey: 'test' };

interface LogLine { level: 'info' | 'warn'; message: string; extra?: Record<string, unknown> }
function recordingLogger(): WaitLogger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  return {
    lines,
    info: (message, extra) => lines.push({ level: 'info', message, extra }),
    warn: (message, extra) => lines.push({ level: 'warn', message, extra }),
  };
}

let endpoint: S3FilesEndpoint;
let client: S3FilesClient;
let moto: MotoServer;
let s3: S3Client;

beforeAll(async () => {
  endpoint = await S3FilesEndpoint.start();
  client = new S3FilesClient({ region: 'us-east-1', endpoint: endpoint.url, credentials: creds });
  moto = await startMotoServer();
  s3 = new S3Client({ region: 'us-east-1', endpoint: moto.url, credentials: creds, forcePathStyle: true });
});
afterAll(async () => {
  client.destroy();
  s3?.destroy();
  await endpoint.stop();
  await moto?.stop();
});
beforeEach(() => endpoint.reset());

function deps(nowMs: number, c: S3FilesClient = client) {
  const log = recordingLogger();
  return { client: c, s3, now: () => nowMs, log };
}

describe('checkAvailability with an injected clock', () => {
  const props = WAITER.parse({ FileSystemId: FS, ExpectedMountTargetCount: '2', AccessPointIds: ['fsap-late'], TimeoutSeconds: '600' });

  test('is not complete before the timeout and fails right at it, naming missing mount targets and access points', async () => {
    // GIVEN one of two mount targets, creating, and an access point not visible yet (404)
    endpoint.setMountTargets(FS, [{ id: 'fsmt-a', timeline: perCall('creating') }]);
    // WHEN polled just before and at the 600 s timeout
    const before = await checkAvailability(deps(T0 + 599_999), props, T0);
    const at = checkAvailability(deps(T0 + 600_000), props, T0);
    // THEN the first keeps waiting and the second names what is missing
    expect(before.IsComplete).toBe(false);
    await expect(at).rejects.toThrow(
      /timed out after 600 s .*only 1 of 2 expected mount targets exist; still not available: mount target fsmt-a \(creating\); access point fsap-late \(not found\)/,
    );
  });

  test('logs unknown statuses as warnings with the status', async () => {
    // GIVEN a mount target in a state the SDK model does not know
    endpoint.setMountTargets(FS, [{ id: 'fsmt-a', timeline: perCall('misconfigured') }]);
    const d = deps(T0);
    // WHEN polled
    const r = await checkAvailability(d, WAITER.parse({ FileSystemId: FS }), T0);
    // THEN it keeps waiting and says why
    expect(r.IsComplete).toBe(false);
    expect(d.log.lines).toContainEqual(expect.objectContaining({
      level: 'warn', extra: expect.objectContaining({ id: 'fsmt-a', status: 'misconfigured' }),
    }));
  });

  test('logs throttling (mapped by the SDK to ThrottlingException) and keeps waiting', async () => {
    // GIVEN every attempt of one poll throttled
    endpoint.setMountTargets(FS, [{ id: 'fsmt-a', timeline: perCall('available') }]);
    endpoint.injectFaults({ operation: 'ListMountTargets', status: 429, count: 3 });
    const d = deps(T0);
    // WHEN polled
    const r = await checkAvailability(d, WAITER.parse({ FileSystemId: FS }), T0);
    // THEN not complete, with a warning naming the exception
    expect(r.IsComplete).toBe(false);
    expect(d.log.lines).toContainEqual(expect.objectContaining({
      level: 'warn', extra: expect.objectContaining({ error: expect.stringMatching(/^ThrottlingException \(HTTP 429\)/) }),
    }));
  });

  test('fails at the timeout with the last transient error when the service keeps failing', async () => {
    // GIVEN a poll that fails with 500s, past the timeout
    endpoint.injectFaults({ status: 500, count: 3 });
    // WHEN polled
    const p = checkAvailability(deps(T0 + 2_000_000), WAITER.parse({ FileSystemId: FS }), T0);
    // THEN the failure names the error
    await expect(p).rejects.toThrow(/timed out after 1200 s .*last poll failed with InternalServerException \(HTTP 500\)/);
  });

  test('treats a refused connection as transient', async () => {
    // GIVEN a client pointed at a closed loopback port
    const port = await freePort();
    const dead = new S3FilesClient({ region: 'us-east-1', endpoint: `http://127.0.0.1:${port}`, credentials: creds, maxAttempts: 1 });
    // WHEN polled
    const r = await checkAvailability(deps(T0, dead), WAITER.parse({ FileSystemId: FS }), T0);
    // THEN it keeps waiting
    expect(r.IsComplete).toBe(false);
    dead.destroy();
  });

  test('fails at once on a non-transient error such as AccessDenied', async () => {
    // GIVEN a client whose ListMountTargets is denied
    const denied = new S3FilesClient({ region: 'us-east-1', credentials: creds });
    const mock = mockClient(denied);
    mock.on(ListMountTargetsCommand).rejects(Object.assign(new Error('not authorized'), {
      name: 'AccessDeniedException', $metadata: { httpStatusCode: 403 },
    }));
    // WHEN polled
    const p = checkAvailability(deps(T0, denied), WAITER.parse({ FileSystemId: FS }), T0);
    // THEN the message names the error and the permission to check
    await expect(p).rejects.toThrow(/could not read the state of file system .*AccessDeniedException \(HTTP 403\).*s3files:ListMountTargets/);
    mock.restore();
  });
});

describe('evaluate', () => {
  test('ignores mount targets being deleted when counting', () => {
    // GIVEN an old mount target deleting next to a new available one
    const snapshot = {
      mountTargets: [
        { kind: 'mount target' as const, id: 'old', status: 'deleting' },
        { kind: 'mount target' as const, id: 'new', status: 'available' },
      ],
      accessPoints: [],
    };
    // WHEN evaluated for 1 and for 2 expected
    // THEN only the active one counts
    expect(evaluate(snapshot, 1).complete).toBe(true);
    expect(evaluate(snapshot, 2)).toMatchObject({ complete: false, activeMountTargets: 1 });
  });
});

describe('guardDelete (delete guard) with an injected clock', () => {
  const props = DELETE_GUARD.parse({ FileSystemId: FS, DeleteFileSystem: 'true', DeleteTimeoutSeconds: '300' });

  test('retries while DeleteFileSystem answers pending export, never with forceDelete, and is done once the file system is gone', async () => {
    // GIVEN a file system whose first two deletions are refused with the pending-export 409
    endpoint.setFileSystem(FS, perCall('available'));
    endpoint.setPendingExport(FS, perCall('pending', 'pending', 'clear'));
    // WHEN polled four times, 10 s apart
    const results = [];
    for (let i = 0; i < 4; i++) results.push((await guardDelete(deps(T0 + i * 10_000), props, T0)).IsComplete);
    // THEN: refused, refused, accepted (still waiting), gone (404)
    expect(results).toEqual([false, false, false, true]);
    const deletes = endpoint.requests.filter((r) => r.operation === 'DeleteFileSystem');
    expect(deletes.map((r) => r.status)).toEqual([409, 409, 204]);
    expect(deletes.every((r) => r.query.forceDelete === undefined)).toBe(true);
  });

  test('treats a file system that does not exist (404) as done, without calling DeleteFileSystem', async () => {
    // GIVEN no file system
    // WHEN polled / THEN done after one GetFileSystem
    expect((await guardDelete(deps(T0), props, T0)).IsComplete).toBe(true);
    expect(endpoint.requests.map((r) => `${r.operation} ${r.status}`)).toEqual(['GetFileSystem 404']);
  });

  test('waits while the file system is deleting and is done once it shows deleted', async () => {
    // GIVEN a file system going deleting -> deleted
    endpoint.setFileSystem(FS, perCall('deleting', 'deleted'));
    // WHEN polled twice / THEN not yet, then done, with no DeleteFileSystem call
    expect((await guardDelete(deps(T0), props, T0)).IsComplete).toBe(false);
    expect((await guardDelete(deps(T0 + 10_000), props, T0)).IsComplete).toBe(true);
    expect(endpoint.count('DeleteFileSystem')).toBe(0);
  });

  test('fails at the bound naming the file system, the wait, the reason and how to finish', async () => {
    // GIVEN an export that never drains, polled at the 300 s bound
    endpoint.setFileSystem(FS, perCall('available'));
    endpoint.setPendingExport(FS, perCall('pending'));
    // WHEN polled
    const p = guardDelete(deps(T0 + 300_000), props, T0);
    // THEN the message names all of it, and nothing was force-deleted
    await expect(p).rejects.toThrow(new RegExp('Custom::S3FilesDeleteGuard: file system fs-0123456789abcdef0 is still not deleted after '
      + 'waiting 300 s \\(limit 300 s\\): the service reports data pending export to S3 .*ConflictException \\(HTTP 409\\).*'
      + 'no unexported write is lost.*retry the stack deletion later \\(the PendingExports metric falling to 0 is a hint'));
    expect(endpoint.count('DeleteFileSystem')).toBe(1);
  });

  test('a deletion under way (deleting, no export pending) is waited for up to the whole Delete, not only the export bound', async () => {
    // GIVEN export bound 300 s, whole Delete 600 s, and a file system that stays deleting
    const bounded = DELETE_GUARD.parse({ FileSystemId: FS, DeleteFileSystem: 'true', DeleteTimeoutSeconds: '300', TotalTimeoutSeconds: '600' });
    endpoint.setFileSystem(FS, perCall('deleting'));
    // WHEN polled past the export bound / THEN it keeps waiting
    expect((await guardDelete(deps(T0 + 400_000), bounded, T0)).IsComplete).toBe(false);
    // WHEN polled at the whole bound / THEN it fails, saying it was not an export
    await expect(guardDelete(deps(T0 + 600_000), bounded, T0)).rejects.toThrow(
      /file system fs-0123456789abcdef0 is still not deleted after waiting 600 s \(limit 600 s\): the file system is still being deleted\..*check the file system in the S3 console/);
    expect(endpoint.count('DeleteFileSystem')).toBe(0);
  });

  test('a removed guard with DESTROY properties keeps its file system when the file system of its logical id is RETAIN now', async () => {
    // GIVEN an old guard (DESTROY) of logical id Files, and the handler's environment listing Files as RETAIN
    endpoint.setFileSystem(FS, perCall('available'));
    const request = {
      RequestType: 'Delete',
      ResourceType: 'Custom::S3FilesDeleteGuard',
      PhysicalResourceId: FS,
      ResourceProperties: { FileSystemId: FS, DeleteFileSystem: 'true', FileSystemLogicalId: 'FilesResource1234' },
      Data: { StartedAt: String(T0) },
    } as any;
    const d = deps(T0);
    // WHEN its Delete is polled
    const kept = await handleIsComplete(request, { ...d, retainedFileSystems: parseRetainedFileSystems(' FilesResource1234,Other ') });
    // THEN it is done without deleting, and says why
    expect(kept).toEqual({ IsComplete: true });
    expect(endpoint.count('DeleteFileSystem')).toBe(0);
    expect(d.log.lines.map((l) => l.message)).toContain('Delete guard: the file system of this logical id is RETAIN now, so this file system is kept');
    // AND with another logical id listed (or none), the same Delete deletes
    await handleIsComplete(request, { ...deps(T0), retainedFileSystems: parseRetainedFileSystems('Other') });
    expect(endpoint.count('DeleteFileSystem')).toBe(1);
  });

  test('keeps waiting through throttling and 5xx, within the bound', async () => {
    // GIVEN GetFileSystem throttled for a whole poll (the SDK retries 3 times)
    endpoint.setFileSystem(FS, perCall('available'));
    endpoint.injectFaults({ operation: 'GetFileSystem', status: 429, count: 3 });
    // WHEN polled twice / THEN the throttled poll waits, the next deletes
    expect((await guardDelete(deps(T0), props, T0)).IsComplete).toBe(false);
    expect((await guardDelete(deps(T0 + 10_000), props, T0)).IsComplete).toBe(false);
    expect((await guardDelete(deps(T0 + 20_000), props, T0)).IsComplete).toBe(true);
  });

  test('waits while the stack\'s own mount targets are still being deleted, naming nothing as a blocker', async () => {
    // GIVEN a mount target of this file system on its way out (deleting), then gone
    endpoint.setFileSystem(FS, perCall('available'));
    endpoint.setMountTargets(FS, [{ id: 'fsmt-own', timeline: perCall('deleting', 'deleting', 'absent') }]);
    // WHEN polled from 200 s on (past the blocker grace)
    const d = deps(T0 + 200_000);
    const results = [(await guardDelete(d, props, T0)).IsComplete];
    for (let i = 1; i < 4; i++) results.push((await guardDelete(deps(T0 + 200_000 + i * 10_000), props, T0)).IsComplete);
    // THEN it waits while refused (a deleting mount target is no blocker), then the deletion goes through
    expect(d.log.lines.at(-1)?.extra?.reason).toMatch(/refused the deletion for now .*on their way out/);
    expect(results).toEqual([false, false, false, true]);
    expect(endpoint.requests.filter((r) => r.operation === 'DeleteFileSystem').map((r) => r.status)).toEqual([409, 409, 204]);
  });

  test('a mount target made outside the stack fails the deletion after a short grace, naming it and the fix (not exports)', async () => {
    // GIVEN an available mount target the stack did not create
    endpoint.setFileSystem(FS, perCall('available'));
    endpoint.setMountTargets(FS, [{ id: 'fsmt-foreign', subnetId: 'subnet-0aaa', timeline: perCall('available') }]);
    endpoint.setAccessPoint('fsap-foreign', perCall('available'), FS);
    // WHEN polled within the grace / THEN it waits and says what blocks
    const early = deps(T0 + 60_000);
    expect((await guardDelete(early, props, T0)).IsComplete).toBe(false);
    expect(early.log.lines.at(-1)?.extra?.reason).toMatch(/still has mount target fsmt-foreign \(available, subnet subnet-0aaa\); access point fsap-foreign \(available\)/);
    // WHEN polled after the grace / THEN it fails with what to delete, without export or force-delete advice
    const late = guardDelete(deps(T0 + 121_000), props, T0);
    await expect(late).rejects.toThrow(/file system fs-0123456789abcdef0 cannot be deleted: it still has mount target fsmt-foreign .*access point fsap-foreign .*created outside it.*delete them .*retry the stack deletion/);
    await expect(guardDelete(deps(T0 + 121_000), props, T0)).rejects.not.toThrow(/pending export|force/i);
    expect(endpoint.requests.filter((r) => r.operation === 'DeleteFileSystem').every((r) => r.status === 409)).toBe(true);
  });

  test('fails at once on AccessDenied, keeping the file system and naming the permission', async () => {
    // GIVEN DeleteFileSystem denied
    const c = new S3FilesClient({ region: 'us-east-1', credentials: creds });
    const mock = mockClient(c);
    mock.on(GetFileSystemCommand).resolves({ status: 'available' });
    mock.on(DeleteFileSystemCommand).rejects(Object.assign(new Error('denied'), { name: 'AccessDeniedException', $metadata: { httpStatusCode: 403 } }));
    // WHEN polled / THEN
    await expect(guardDelete(deps(T0, c), props, T0)).rejects.toThrow(/could not delete file system .*s3files:DeleteFileSystem/);
    mock.restore();
  });

  test.each([
    [{ name: 'ConflictException', errorCode: 'FileSystemHasPendingExport', message: 'x', $metadata: { httpStatusCode: 409 } }, true],
    [{ name: 'ConflictException', message: 'has data pending export to S3', $metadata: { httpStatusCode: 409 } }, true],
    [{ name: 'ConflictException', message: 'in use', $metadata: { httpStatusCode: 409 } }, false],
    [{ name: 'ValidationException', message: 'pending export', $metadata: { httpStatusCode: 400 } }, false],
  ])('isPendingExport(%j) is %s', (error, expected) => {
    // GIVEN an SDK-shaped error / WHEN classified / THEN
    expect(isPendingExport(error)).toBe(expected);
  });

  test.each([
    [{ DeleteFileSystem: 'true' }, `${GUARD}"FileSystemId" is required (the S3 Files file system id, e.g. fs-0123456789abcdef0), got nothing.`],
    [{ FileSystemId: FS, DeleteFileSystem: 'yes' }, `${GUARD}"DeleteFileSystem" must be "true" or "false", got "yes".`],
    [{ FileSystemId: FS, DeleteTimeoutSeconds: '0' }, `${GUARD}"DeleteTimeoutSeconds" must be a whole number between 1 and 3600, got "0".`],
    [{ FileSystemId: FS, TotalTimeoutSeconds: '7200' }, `${GUARD}"TotalTimeoutSeconds" must be a whole number between 1 and 3600, got "7200".`],
    [{ FileSystemId: FS, DeleteTimeoutSeconds: 'soon' }, `${GUARD}"DeleteTimeoutSeconds" must be a whole number between 1 and 3600, got "soon".`],
    [{ FileSystemId: FS, DeleteTimeoutSeconds: true }, `${GUARD}"DeleteTimeoutSeconds" must be a whole number between 1 and 3600, got true.`],
    [{ FileSystemId: FS, FileSystemLogicalId: 'Files/Resource' },
      `${GUARD}"FileSystemLogicalId" must be a CloudFormation logical id (letters and digits), got "Files/Resource".`],
  ])('the guard rejects %j with the whole message, under its own type', (input, message) => {
    // GIVEN bad guard properties / WHEN parsed / THEN the resource type, the property, the value and the fix are named
    expect(() => DELETE_GUARD.parse(input)).toThrow(new Error(message));
  });

  test('defaults: no deletion, 1800 s for exports, 3300 s in all; the bucket properties of older versions are ignored; lenient on Delete', () => {
    // GIVEN minimal and broken properties
    const log = recordingLogger();
    // THEN
    expect(DELETE_GUARD.parse({ FileSystemId: FS })).toEqual({
      fileSystemId: FS, deleteFileSystem: false, deleteTimeoutSeconds: 1800, totalTimeoutSeconds: 3300,
    });
    expect(DELETE_GUARD.parse({ FileSystemId: FS, BucketArn: 'arn:aws:s3:::b', EmptyBucket: 'true' })).toEqual(DELETE_GUARD.parse({ FileSystemId: FS }));
    expect(DELETE_GUARD.parseForDelete({ DeleteFileSystem: 'maybe' }, log)).toBeUndefined();
    expect(log.lines[0]).toMatchObject({ level: 'warn' });
  });
});

describe('the delete guard never touches the bucket; the bucket cleaner empties and deletes it only when no file system lists it (moto S3)', () => {
  const BUCKET = 'guarded-bucket';
  const cleaner = BUCKET_CLEANER.parse({ BucketArn: `arn:aws:s3:::${BUCKET}`, EmptyOnDelete: 'true', TotalTimeoutSeconds: '600' });
  let proxy: S3AttachedProxy;
  let viaProxy: S3Client;

  beforeAll(async () => {
    // GIVEN a versioned bucket, reached through a proxy that can keep it "attached" for DeleteBucket
    proxy = await S3AttachedProxy.start(moto.url);
    viaProxy = new S3Client({ region: 'us-east-1', endpoint: proxy.url, credentials: creds, forcePathStyle: true });
  });
  afterAll(async () => {
    viaProxy.destroy();
    await proxy.stop();
  });
  beforeEach(async () => {
    // Each test starts from an empty versioned bucket (a test may delete it).
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET })).catch(() => undefined);
    await s3.send(new PutBucketVersioningCommand({ Bucket: BUCKET, VersioningConfiguration: { Status: 'Enabled' } }));
    while (!(await emptyBucketSlice(s3, BUCKET, Date.now)).empty);
    proxy.deleteBucketCalls.length = 0;
  });

  async function seed(n: number): Promise<void> {
    for (let i = 0; i < n; i++) {
      await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: `data/file-${i}.txt`, Body: `v1 ${i}` }));
      await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: `data/file-${i}.txt`, Body: `v2 ${i}` }));
    }
    await s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: 'data/file-0.txt' }));
  }

  async function versions(): Promise<number> {
    const page = await s3.send(new ListObjectVersionsCommand({ Bucket: BUCKET }));
    return (page.Versions?.length ?? 0) + (page.DeleteMarkers?.length ?? 0);
  }

  const cleanerDeps = (nowMs: number) => ({ ...deps(nowMs), s3: viaProxy });

  test('a replaced file system\'s old guard (properties of any version, EmptyBucket "true" included) deletes its file system and leaves the bucket alone', async () => {
    // GIVEN the bucket the new file system uses, with data, and the old file system detached from it
    await seed(3);
    endpoint.setFileSystem(FS, perCall('available'), `arn:aws:s3:::${BUCKET}`);
    endpoint.setDetachment(FS, perCall('detached'));
    const old = DELETE_GUARD.parse({ FileSystemId: FS, DeleteFileSystem: 'true', BucketArn: `arn:aws:s3:::${BUCKET}`, EmptyBucket: 'true', TotalTimeoutSeconds: '600' });
    // WHEN the old guard's Delete runs to the end
    const results: boolean[] = [];
    for (let i = 0; i < 6 && !results.at(-1); i++) results.push((await guardDelete(deps(T0 + i * 10_000), old, T0)).IsComplete);
    // THEN the old file system is deleted and not one object version is
    expect(results.at(-1)).toBe(true);
    expect(await versions()).toBe(7);
    expect(endpoint.requests.filter((r) => r.operation === 'ListFileSystems')).toEqual([]);
  });

  test('waits while any file system lists the bucket, then removes every version and marker and deletes the bucket through S3\'s attached-conflict', async () => {
    await seed(5);
    expect(await versions()).toBe(11);
    // a file system (not necessarily the construct's) still lists the bucket twice; S3 refuses DeleteBucket twice more
    endpoint.setFileSystem(FS, perCall('available'), `arn:aws:s3:::${BUCKET}`);
    await client.send(new DeleteFileSystemCommand({ fileSystemId: FS }));
    endpoint.setDetachment(FS, perCall('attached', 'attached', 'detached'));
    proxy.keepAttached(BUCKET, 2);
    // WHEN the cleaner is polled until done
    const results: boolean[] = [];
    const seen: number[] = [];
    for (let i = 0; i < 8 && !results.at(-1); i++) {
      results.push((await cleanerDelete(cleanerDeps(T0 + i * 10_000), cleaner, T0)).IsComplete);
      seen.push(await versions().catch(() => -1));
    }
    // THEN nothing was deleted while it was listed; then emptied; then deleted after two refusals
    expect(results).toEqual([false, false, false, false, true]);
    expect(seen.slice(0, 2)).toEqual([11, 11]);
    expect(proxy.deleteBucketCalls.map((c) => c.status)).toEqual([409, 409, 204]);
    await expect(s3.send(new GetBucketVersioningCommand({ Bucket: BUCKET }))).rejects.toThrow(/NoSuchBucket|does not exist/);
  });

  test('fails at the total bound while a deleted file system still lists the bucket, keeping every object', async () => {
    await seed(1);
    endpoint.setFileSystem(FS, perCall('available'), `arn:aws:s3:::${BUCKET}`);
    await client.send(new DeleteFileSystemCommand({ fileSystemId: FS }));
    endpoint.setDetachment(FS, perCall('attached'));
    const late = cleanerDelete(cleanerDeps(T0 + 600_000), cleaner, T0);
    await expect(late).rejects.toThrow(/bucket guarded-bucket is still used by file system fs-0123456789abcdef0 \(deleted\), so it was not emptied after 600 s \(limit 600 s\)\. The bucket and whatever is still in it are kept/);
    expect(await versions()).toBe(3);
    expect(await emptyBucketSlice(s3, BUCKET, Date.now)).toMatchObject({ empty: true });
  });

  test('a file system that lists the bucket and is not being deleted (RETAIN, or made elsewhere) fails the cleaner after a short grace, emptying nothing', async () => {
    // GIVEN an available file system on the bucket that the stack does not delete
    await seed(1);
    endpoint.setFileSystem(FS, perCall('available'), `arn:aws:s3:::${BUCKET}`);
    // WHEN polled within the grace / THEN it waits
    expect((await cleanerDelete(cleanerDeps(T0 + 60_000), cleaner, T0)).IsComplete).toBe(false);
    // WHEN polled after it / THEN it fails at once (not after 55 minutes), naming the file system and both ways to finish
    await expect(cleanerDelete(cleanerDeps(T0 + 121_000), cleaner, T0)).rejects.toThrow(new RegExp(
      'Custom::S3FilesBucketCleaner: bucket guarded-bucket is still used by file system fs-0123456789abcdef0 \\(available\\), which is not being deleted '
      + '\\(a file system with RemovalPolicy.RETAIN keeps using the bucket.*\\)\\. Nothing was emptied: the bucket and its data are kept\\. '
      + 'To finish: delete that file system .*or retry the stack deletion keeping the bucket \\(aws cloudformation delete-stack --retain-resources'));
    expect(await versions()).toBe(3);
  });

  test('fails at the total bound while S3 keeps refusing DeleteBucket; an already-deleted bucket is done', async () => {
    proxy.keepAttached(BUCKET, 5);
    await expect(cleanerDelete(cleanerDeps(T0 + 600_000), cleaner, T0)).rejects.toThrow(/is empty, but S3 still refuses to delete it \(BucketHasS3FileSystemAttached \(HTTP 409\)/);
    proxy.keepAttached(BUCKET, 0);
    expect(await cleanerDelete(cleanerDeps(T0), cleaner, T0)).toEqual({ IsComplete: true });
    expect(await cleanerDelete(cleanerDeps(T0), cleaner, T0)).toEqual({ IsComplete: true });
    expect(isStillAttached({ name: 'BucketHasS3FileSystemAttached', $metadata: { httpStatusCode: 409 } })).toBe(true);
    expect(isStillAttached({ name: 'BucketNotEmpty', $metadata: { httpStatusCode: 409 } })).toBe(false);
  });

  test.each([
    [{}, `${CLEANER}"BucketArn" must be a bucket ARN (arn:aws:s3:::name), got nothing.`],
    [{ BucketArn: 'arn:aws:s3:::b/key' }, `${CLEANER}"BucketArn" must be a bucket ARN (arn:aws:s3:::name), got "arn:aws:s3:::b/key".`],
    [{ BucketArn: 'arn:aws:s3:::b', EmptyOnDelete: 'yes' }, `${CLEANER}"EmptyOnDelete" must be "true" or "false", got "yes".`],
    [{ BucketArn: 'arn:aws:s3:::b', TotalTimeoutSeconds: '0' }, `${CLEANER}"TotalTimeoutSeconds" must be a whole number between 1 and 3600, got "0".`],
  ])('the cleaner rejects %j with the whole message, under its own type', (input, message) => {
    // GIVEN bad cleaner properties / WHEN parsed / THEN its own type labels the error, never the waiter's
    expect(() => BUCKET_CLEANER.parse(input)).toThrow(new Error(message));
  });

  test('a large bucket is emptied over several polls, each within its slice', async () => {
    // GIVEN 1,200 objects (two DeleteObjects pages) and a clock that ends the slice after one batch
    for (let i = 0; i < 1200; i += 100) {
      await Promise.all(Array.from({ length: 100 }, (_, j) => s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: `bulk/${i + j}`, Body: 'x' }))));
    }
    let t = T0;
    const clock = () => (t += 30_000);
    // WHEN / THEN the first slice deletes one batch of 1,000, the next the rest
    expect(await emptyBucketSlice(s3, BUCKET, clock)).toEqual({ empty: false, deleted: 1000 });
    expect(await emptyBucketSlice(s3, BUCKET, clock)).toEqual({ empty: true, deleted: 200 });
  });
});

describe('stalled calls never outlive a poll', () => {
  test('the production client settings turn a hung S3 Files call into a transient TimeoutError, so the waiter keeps waiting', async () => {
    // GIVEN a client with the handlers' settings and an endpoint that holds ListMountTargets for 30 s
    const bounded = new S3FilesClient({ ...BOUNDED_CLIENT_CONFIG, region: 'us-east-1', endpoint: endpoint.url, credentials: creds });
    endpoint.injectFaults({ operation: 'ListMountTargets', status: 'stall', stallMs: 30_000, count: 2 });
    const props = WAITER.parse({ FileSystemId: FS, ExpectedMountTargetCount: '1', TimeoutSeconds: '600' });
    const d = deps(T0, bounded);
    // WHEN one poll runs
    const started = Date.now();
    const result = await checkAvailability(d, props, T0);
    const tookMs = Date.now() - started;
    // THEN it answers "not yet" well inside Lambda's 60 s, having logged the timeout as transient
    expect(result.IsComplete).toBe(false);
    expect(tookMs).toBeLessThan(45_000);
    expect(d.log.lines.at(-1)).toMatchObject({ level: 'warn', message: expect.stringMatching(/Transient error/) });
    expect(String(d.log.lines.at(-1)?.extra?.error)).toMatch(/TimeoutError|timed? ?out/i);
    bounded.destroy();
  }, 60_000);

  test('a poll over its budget answers "not yet", and fails once the resource\'s own time is up', async () => {
    // GIVEN an endpoint that stalls every GetFileSystem longer than the poll budget
    endpoint.setFileSystem(FS, perCall('available'));
    endpoint.injectFaults({ operation: 'GetFileSystem', status: 'stall', stallMs: 3_000, count: 2 });
    const request = {
      RequestType: 'Delete' as const,
      ResourceType: 'Custom::S3FilesDeleteGuard',
      ResourceProperties: { FileSystemId: FS, DeleteFileSystem: 'true', TotalTimeoutSeconds: '600' },
      Data: { StartedAt: String(T0) },
    };
    // WHEN polled with a 200 ms budget, early and at the bound
    const early = await handleIsComplete(request, { ...deps(T0 + 10_000), budgetMs: 200 });
    const late = handleIsComplete(request, { ...deps(T0 + 600_000), budgetMs: 200 });
    // THEN
    expect(early.IsComplete).toBe(false);
    await expect(late).rejects.toThrow(/Custom::S3FilesDeleteGuard: gave up after 600 s \(limit 600 s\): the S3 Files or S3 API did not answer within a poll/);
  });
});

describe('verifyBucketVersioning narrow error path', () => {
  test('names the missing permission when GetBucketVersioning is denied', async () => {
    // GIVEN a denied GetBucketVersioning
    const denied = new S3Client({ region: 'us-east-1', credentials: creds });
    const mock = mockClient(denied);
    mock.on(GetBucketVersioningCommand).rejects(Object.assign(new Error('Access Denied'), { name: 'AccessDenied', $metadata: { httpStatusCode: 403 } }));
    // WHEN verified / THEN
    await expect(verifyBucketVersioning(denied, 'b')).rejects.toThrow(/could not read the versioning of bucket "b".*s3:GetBucketVersioning/);
    mock.restore();
  });
});

describe('small parsers', () => {
  test('accept JS numbers and booleans, and drop duplicate access point ids', () => {
    // GIVEN a direct invocation with native types
    const p = WAITER.parse({ FileSystemId: FS, ExpectedMountTargetCount: 3, VerifyBucketVersioning: true, BucketName: 'b', AccessPointIds: ['a', 'a', 'b'] });
    // THEN they are accepted
    expect(p).toMatchObject({ expectedMountTargetCount: 3, verifyBucketVersioning: true, accessPointIds: ['a', 'b'], timeoutSeconds: 1200 });
  });

  test('isComplete accepts a numeric StartedAt', async () => {
    // GIVEN a waiter Delete whose StartedAt is a JS number / WHEN polled / THEN it is complete at once
    const request = { RequestType: 'Delete' as const, ResourceType: 'Custom::S3FilesMountTargetsAvailable', ResourceProperties: {}, Data: { StartedAt: T0 } };
    await expect(handleIsComplete(request, deps(T0))).resolves.toEqual({ IsComplete: true });
  });

  test('errors: network codes are transient, and non-objects are described', () => {
    // GIVEN raw errors / THEN
    expect(isTransient({ code: 'ECONNRESET' })).toBe(true);
    expect(isTransient({ name: 'TimeoutError' })).toBe(true);
    expect(isTransient({ name: 'ValidationException', $metadata: { httpStatusCode: 400 } })).toBe(false);
    expect(describeError('boom')).toBe('Error: boom');
  });
});
