import {
  CreateBucketCommand, ListObjectVersionsCommand, PutBucketVersioningCommand, PutObjectCommand, S3Client,
} from '@aws-sdk/client-s3';
import { DeleteFileSystemCommand, GetFileSystemCommand, S3FilesClient } from '@aws-sdk/client-s3files';
import type { IsCompleteRequest, IsCompleteResult, OnEventRequest, OnEventResponse } from '../../lambda/s3files-provider/resource-handler';
import { MotoServer, startMotoServer } from '../servers/moto-server';
import { atTimes, perCall, S3FilesEndpoint } from '../servers/s3files-endpoint';

// The handlers build their SDK clients once, at module load, from the environment (like in Lambda):
// point them at the loopback servers first, then load them.
type OnEvent = (event: OnEventRequest) => Promise<OnEventResponse>;
type IsComplete = (event: IsCompleteRequest) => Promise<IsCompleteResult>;

let endpoint: S3FilesEndpoint;
let moto: MotoServer;
let onEvent: OnEvent;
let isComplete: IsComplete;
const savedEnv = { ...process.env };

const FS = 'fs-0123456789abcdef0';

beforeAll(async () => {
  endpoint = await S3FilesEndpoint.start();
  moto = await startMotoServer();
  Object.assign(process.env, {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_ENDPOINT_URL_S3FILES: endpoint.url,
    AWS_ENDPOINT_URL_S3: moto.url,
    POWERTOOLS_LOG_LEVEL: 'SILENT',
  });
  delete process.env.AWS_SESSION_TOKEN;
  delete process.env.AWS_PROFILE;
  onEvent = jest.requireActual<typeof import('../../lambda/s3files-provider/on-event.lambda')>(
    '../../lambda/s3files-provider/on-event.lambda').handler;
  isComplete = jest.requireActual<typeof import('../../lambda/s3files-provider/is-complete.lambda')>(
    '../../lambda/s3files-provider/is-complete.lambda').handler;
});

afterAll(async () => {
  await endpoint?.stop();
  await moto?.stop();
  process.env = savedEnv;
});

beforeEach(() => endpoint.reset());

const WAITER = 'Custom::S3FilesMountTargetsAvailable';
const GUARD = 'Custom::S3FilesDeleteGuard';
const CLEANER = 'Custom::S3FilesBucketCleaner';

function request(type: 'Create' | 'Update' | 'Delete', props: Record<string, unknown>, resourceType = WAITER): OnEventRequest {
  return {
    RequestType: type,
    ServiceToken: 'arn:aws:lambda:us-east-1:111122223333:function:provider',
    ResponseURL: '...',
    StackId: 'arn:aws:cloudformation:us-east-1:111122223333:stack/s/1',
    RequestId: 'req-1',
    LogicalResourceId: 'MountTargetsAvailable',
    ResourceType: resourceType,
    ...(type === 'Create' ? {} : { PhysicalResourceId: FS }),
    ResourceProperties: { ServiceToken: 'arn', ...props },
  };
}

interface Outcome {
  readonly polls: number;
  readonly complete: boolean;
  readonly error?: Error;
  readonly onEventResult: OnEventResponse;
}

/**
 * Drives the handlers like the Provider framework: onEvent once, then isComplete with the merged
 * event until it completes or throws (0-ms sleep instead of the 10-s queryInterval).
 */
async function drive(
  type: 'Create' | 'Update' | 'Delete', props: Record<string, unknown>,
  opts: { maxPolls?: number; startedAtOffsetMs?: number; resourceType?: string } = {},
): Promise<Outcome> {
  const req = request(type, props, opts.resourceType);
  const onEventResult = await onEvent(req);
  const startedAt = String(Number(onEventResult.Data.StartedAt) - (opts.startedAtOffsetMs ?? 0));
  const merged: IsCompleteRequest = { ...req, ...onEventResult, Data: { StartedAt: startedAt } };
  let polls = 0;
  while (polls < (opts.maxPolls ?? 50)) {
    polls++;
    try {
      const r = await isComplete(merged);
      if (r.IsComplete) return { polls, complete: true, onEventResult };
    } catch (error) {
      return { polls, complete: false, error: error as Error, onEventResult };
    }
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  return { polls, complete: false, onEventResult };
}

const baseProps = { FileSystemId: FS, ExpectedMountTargetCount: '2', AccessPointIds: ['fsap-1'], TimeoutSeconds: '1200' };

describe('Create/Update: wait for mount targets and access points', () => {
  test('completes once both mount targets and the access point go creating -> available', async () => {
    // GIVEN two mount targets available on the 3rd and 4th look, an access point on the 2nd
    endpoint.setMountTargets(FS, [
      { id: 'fsmt-a', timeline: perCall('creating', 'creating', 'available') },
      { id: 'fsmt-b', timeline: perCall('creating', 'creating', 'creating', 'available') },
    ]);
    endpoint.setAccessPoint('fsap-1', perCall('creating', 'available'), FS);
    // WHEN the provider drives the handlers
    const out = await drive('Create', baseProps);
    // THEN it completes on the 4th poll, with the file system as physical id and a start time
    expect(out.error).toBeUndefined();
    expect(out).toMatchObject({ complete: true, polls: 4 });
    expect(out.onEventResult.PhysicalResourceId).toBe(FS);
    expect(out.onEventResult.Data.StartedAt).toMatch(/^\d{13}$/);
    // AND one ListMountTargets (filtered by file system) plus one GetAccessPoint per poll
    expect(endpoint.count('ListMountTargets')).toBe(4);
    expect(endpoint.count('GetAccessPoint')).toBe(4);
    expect(endpoint.requests.filter((r) => r.operation === 'ListMountTargets').every((r) => r.query.fileSystemId === FS)).toBe(true);
    expect(endpoint.count('Unknown')).toBe(0);
  });

  test('Update waits the same way', async () => {
    // GIVEN one mount target becoming available on the 2nd look
    endpoint.setMountTargets(FS, [{ id: 'fsmt-a', timeline: perCall('updating', 'available') }]);
    // WHEN an Update is driven
    const out = await drive('Update', { FileSystemId: FS, ExpectedMountTargetCount: '1' });
    // THEN it completes on the 2nd poll
    expect(out).toMatchObject({ complete: true, polls: 2 });
  });

  test('is not done while fewer mount targets exist than expected, even if those are available', async () => {
    // GIVEN mount target b appears only on the 3rd look
    endpoint.setMountTargets(FS, [
      { id: 'fsmt-a', timeline: perCall('available') },
      { id: 'fsmt-b', timeline: perCall('absent', 'absent', 'creating', 'available') },
    ]);
    endpoint.setAccessPoint('fsap-1', perCall('available'), FS);
    // WHEN driven
    const out = await drive('Create', baseProps);
    // THEN it completes only when b exists and is available
    expect(out).toMatchObject({ complete: true, polls: 4 });
  });

  test('follows pagination over several pages and waits for a mount target on the last page', async () => {
    // GIVEN 7 mount targets served 2 per page; the last one is slow
    endpoint.pageSize = 2;
    endpoint.setMountTargets(FS, Array.from({ length: 7 }, (_, i) => ({
      id: `fsmt-${i}`,
      timeline: i === 6 ? perCall('creating', 'creating', 'available') : perCall('available'),
    })));
    // WHEN driven with 7 expected mount targets and no access point
    const out = await drive('Create', { FileSystemId: FS, ExpectedMountTargetCount: '7', AccessPointIds: [] });
    // THEN 3 polls x 4 pages, each page filtered by file system, tokens passed back
    expect(out).toMatchObject({ complete: true, polls: 3 });
    const lists = endpoint.requests.filter((r) => r.operation === 'ListMountTargets');
    expect(lists).toHaveLength(12);
    expect(lists.every((r) => r.query.fileSystemId === FS)).toBe(true);
    expect(lists.filter((r) => r.query.nextToken).length).toBe(9);
    expect(lists[0].query.maxResults).toBe('100');
  });

  test('fails at once with the service statusMessage when a mount target goes to error', async () => {
    // GIVEN mount target b fails on its 2nd look
    endpoint.setMountTargets(FS, [
      { id: 'fsmt-a', timeline: perCall('creating', 'available') },
      { id: 'fsmt-b', timeline: perCall('creating', { status: 'error', statusMessage: 'Subnet subnet-1 has no free IP addresses' }) },
    ]);
    endpoint.setAccessPoint('fsap-1', perCall('available'), FS);
    // WHEN driven
    const out = await drive('Create', baseProps);
    // THEN the 2nd poll throws naming the mount target and the service's message
    expect(out.polls).toBe(2);
    expect(out.error?.message).toMatch(/mount target fsmt-b \(error: Subnet subnet-1 has no free IP addresses\)/);
  });

  test('fails at once when an access point goes to error', async () => {
    // GIVEN available mount targets and an access point in error
    endpoint.setMountTargets(FS, [{ id: 'fsmt-a', timeline: perCall('available') }]);
    endpoint.setAccessPoint('fsap-1', perCall('creating', 'error'), FS);
    // WHEN driven
    const out = await drive('Create', { ...baseProps, ExpectedMountTargetCount: '1' });
    // THEN it names the access point
    expect(out.polls).toBe(2);
    expect(out.error?.message).toMatch(/access point fsap-1 \(error\)/);
  });

  test('keeps waiting through 429 ThrottlingException beyond the SDK retries', async () => {
    // GIVEN 4 throttled ListMountTargets calls (more than the handlers' 2 attempts per call), then available
    endpoint.setMountTargets(FS, [{ id: 'fsmt-a', timeline: perCall('available') }]);
    endpoint.injectFaults({ operation: 'ListMountTargets', status: 429, count: 4 });
    // WHEN driven
    const out = await drive('Create', { FileSystemId: FS, ExpectedMountTargetCount: '1' });
    // THEN two polls report not complete (instead of failing) and the third completes
    expect(out).toMatchObject({ complete: true, polls: 3 });
    const statuses = endpoint.requests.filter((r) => r.operation === 'ListMountTargets').map((r) => r.status);
    expect(statuses).toEqual([429, 429, 429, 429, 200]);
  });

  test('keeps waiting through 5xx errors', async () => {
    // GIVEN an InternalServerException and 503s on GetAccessPoint for one whole poll
    endpoint.setMountTargets(FS, [{ id: 'fsmt-a', timeline: perCall('available') }]);
    endpoint.setAccessPoint('fsap-1', perCall('available'), FS);
    endpoint.injectFaults({ operation: 'GetAccessPoint', status: 500 }, { operation: 'GetAccessPoint', status: 503, count: 2 });
    // WHEN driven
    const out = await drive('Create', { ...baseProps, ExpectedMountTargetCount: '1' });
    // THEN it completes on the next poll
    expect(out).toMatchObject({ complete: true, polls: 2 });
  });

  test('treats an unknown status (misconfigured) as not available and keeps waiting', async () => {
    // GIVEN a mount target reporting a status the SDK model does not list
    endpoint.setMountTargets(FS, [{ id: 'fsmt-a', timeline: perCall('misconfigured', 'misconfigured', 'available') }]);
    // WHEN driven
    const out = await drive('Create', { FileSystemId: FS, ExpectedMountTargetCount: '1' });
    // THEN it completes once available
    expect(out).toMatchObject({ complete: true, polls: 3 });
  });

  test('times out naming the mount target stuck in creating and its last status', async () => {
    // GIVEN one mount target never leaving creating, and a start 2 s ago with a 1 s timeout
    endpoint.setMountTargets(FS, [
      { id: 'fsmt-a', timeline: perCall('available') },
      { id: 'fsmt-stuck', timeline: perCall('creating') },
    ]);
    endpoint.setAccessPoint('fsap-1', perCall('available'), FS);
    // WHEN driven
    const out = await drive('Create', { ...baseProps, TimeoutSeconds: '1' }, { startedAtOffsetMs: 2_000 });
    // THEN the first poll fails with a message naming only the stuck one
    expect(out.polls).toBe(1);
    expect(out.error?.message).toMatch(/timed out after 1 s waiting for file system fs-0123456789abcdef0/);
    expect(out.error?.message).toMatch(/still not available: mount target fsmt-stuck \(creating\)/);
    expect(out.error?.message).not.toMatch(/fsmt-a/);
    expect(out.error?.message).toMatch(/availabilityTimeout/);
  });

  test('time-based scripts: completes after the scripted time has passed', async () => {
    // GIVEN a mount target that becomes available 300 ms after the script is set
    endpoint.setMountTargets(FS, [{ id: 'fsmt-a', timeline: atTimes([0, 'creating'], [300, 'available']) }]);
    // WHEN driven with a short real sleep between polls
    const req = request('Create', { FileSystemId: FS, ExpectedMountTargetCount: '1' });
    const first = await onEvent(req);
    const merged = { ...req, ...first };
    const before = await isComplete(merged);
    await new Promise((r) => setTimeout(r, 400));
    const after = await isComplete(merged);
    // THEN it is incomplete before and complete after
    expect(before.IsComplete).toBe(false);
    expect(after.IsComplete).toBe(true);
  });
});

describe('Delete of the waiter', () => {
  test('is a no-op: completes at once without calling the service', async () => {
    // GIVEN a file system with a pending export (the waiter must not care)
    endpoint.setFileSystem(FS, perCall('available'));
    endpoint.setPendingExport(FS, perCall('pending'));
    // WHEN a Delete is driven
    const out = await drive('Delete', { FileSystemId: FS });
    // THEN it completes on the first poll, keeping the physical id, with no API call
    expect(out).toMatchObject({ complete: true, polls: 1 });
    expect(out.onEventResult.PhysicalResourceId).toBe(FS);
    expect(endpoint.count()).toBe(0);
  });

  test('with invalid properties does not throw (a failed Create must be able to roll back)', async () => {
    // GIVEN properties that would fail validation
    // WHEN a Delete is driven
    const out = await drive('Delete', { ExpectedMountTargetCount: 'many' });
    // THEN it completes without error
    expect(out).toMatchObject({ complete: true, polls: 1 });
  });
});

describe('the delete guard (Custom::S3FilesDeleteGuard) through the provider handlers', () => {
  const destroy = { FileSystemId: FS, DeleteFileSystem: 'true', DeleteTimeoutSeconds: '1800' };

  test('Create and Update are no-ops: no API call, the file system id is the physical id', async () => {
    // GIVEN an existing file system
    endpoint.setFileSystem(FS, perCall('available'));
    // WHEN Create and Update are driven
    const created = await drive('Create', destroy, { resourceType: GUARD });
    const updated = await drive('Update', { ...destroy, DeleteFileSystem: 'false' }, { resourceType: GUARD });
    // THEN both complete at once and nothing was called
    expect(created).toMatchObject({ complete: true, polls: 1 });
    expect(updated).toMatchObject({ complete: true, polls: 1 });
    expect(created.onEventResult.PhysicalResourceId).toBe(FS);
    expect(endpoint.count()).toBe(0);
  });

  test('Delete (DESTROY) retries DeleteFileSystem while the service answers the pending-export 409, then the file system is gone', async () => {
    // GIVEN a file system whose writes are pending export for the first three delete attempts
    endpoint.setFileSystem(FS, perCall('available'));
    endpoint.setPendingExport(FS, perCall('pending', 'pending', 'pending', 'clear'));
    // WHEN the provider drives the guard's Delete
    const out = await drive('Delete', destroy, { resourceType: GUARD });
    // THEN three refusals, one accepted deletion without forceDelete, then a 404 ends it
    expect(out.error).toBeUndefined();
    expect(out).toMatchObject({ complete: true, polls: 5 });
    const deletes = endpoint.requests.filter((r) => r.operation === 'DeleteFileSystem');
    expect(deletes.map((r) => r.status)).toEqual([409, 409, 409, 204]);
    expect(deletes.every((r) => r.query.forceDelete === undefined)).toBe(true);
    expect(endpoint.requests.at(-1)).toMatchObject({ operation: 'GetFileSystem', status: 404 });
    // AND CloudFormation's own delete of the file system then finds it gone (NotFound = deleted)
    const client = new S3FilesClient({});
    await expect(client.send(new GetFileSystemCommand({ fileSystemId: FS }))).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    client.destroy();
  });

  test('Delete (DESTROY) fails clearly when the export outlasts the bound, and the file system is kept', async () => {
    // GIVEN an export that never drains and a Delete that started 1801 s ago
    endpoint.setFileSystem(FS, perCall('available'));
    endpoint.setPendingExport(FS, perCall('pending'));
    // WHEN driven
    const out = await drive('Delete', destroy, { resourceType: GUARD, startedAtOffsetMs: 1_801_000 });
    // THEN it fails on the first poll with the file system, the wait and how to finish
    expect(out.polls).toBe(1);
    expect(out.error?.message).toMatch(/file system fs-0123456789abcdef0 is still not deleted after waiting 180\d s \(limit 1800 s\)/);
    expect(out.error?.message).toMatch(/pending export to S3/);
    expect(out.error?.message).toMatch(/retry the stack deletion/);
    const client = new S3FilesClient({});
    await expect(client.send(new GetFileSystemCommand({ fileSystemId: FS }))).resolves.toMatchObject({ status: 'available' });
    client.destroy();
  });

  test('Delete (RETAIN) deletes nothing', async () => {
    // GIVEN a retained file system
    endpoint.setFileSystem(FS, perCall('available'));
    // WHEN the guard's Delete runs with DeleteFileSystem "false"
    const out = await drive('Delete', { ...destroy, DeleteFileSystem: 'false' }, { resourceType: GUARD });
    // THEN it completes with no API call
    expect(out).toMatchObject({ complete: true, polls: 1 });
    expect(endpoint.count()).toBe(0);
  });

  test('Delete treats an already-deleted file system (404) as done', async () => {
    // GIVEN no such file system
    // WHEN driven
    const out = await drive('Delete', destroy, { resourceType: GUARD });
    // THEN one GetFileSystem 404 and done
    expect(out).toMatchObject({ complete: true, polls: 1 });
    expect(endpoint.requests.map((r) => r.status)).toEqual([404]);
  });

  test('Create with bad properties fails naming the property; Delete with bad properties does not throw', async () => {
    // GIVEN a guard without a file system id
    // WHEN Create and Delete run
    const created = await onEvent(request('Create', { DeleteFileSystem: 'true' }, GUARD)).catch((e: Error) => e);
    const deleted = await drive('Delete', { DeleteFileSystem: 'sure' }, { resourceType: GUARD });
    // THEN
    expect((created as Error).message).toBe(`${GUARD}: "FileSystemId" is required (the S3 Files file system id, e.g. fs-0123456789abcdef0), got nothing.`);
    expect(deleted).toMatchObject({ complete: true, polls: 1 });
    expect(endpoint.count()).toBe(0);
  });
});

describe('the deployed handlers bound every call and empty a created bucket only after detachment', () => {
  test('a hung ListMountTargets costs one poll, not the deployment', async () => {
    // GIVEN the real isComplete module (its production client settings) and a service that hangs twice
    endpoint.setMountTargets(FS, [{ id: 'fsmt-a', timeline: perCall('available') }]);
    endpoint.injectFaults({ operation: 'ListMountTargets', status: 'stall', stallMs: 30_000, count: 2 });
    // WHEN driven
    const started = Date.now();
    const out = await drive('Create', { FileSystemId: FS, ExpectedMountTargetCount: '1' });
    // THEN the stalled poll answered "not yet" inside Lambda's 60 s, and the next one completed
    expect(out).toMatchObject({ complete: true, polls: 2 });
    expect(Date.now() - started).toBeLessThan(45_000);
  }, 60_000);

  test('DESTROY with a created bucket: the guard deletes the file system; then the bucket cleaner waits for detachment, empties and deletes the bucket', async () => {
    // GIVEN a versioned bucket with data, and its file system
    const bucket = 'created-by-the-construct';
    const s3 = new S3Client({ forcePathStyle: true });
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    await s3.send(new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: 'Enabled' } }));
    for (const key of ['a.txt', 'a.txt', 'dir/b.txt']) await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: key }));
    endpoint.setFileSystem(FS, perCall('available'), `arn:aws:s3:::${bucket}`);
    endpoint.setDetachment(FS, perCall('attached', 'detached'));
    // WHEN the guard's Delete, then the cleaner's (CloudFormation's order: the guard depends on the cleaner), are driven like the provider does
    const guard = await drive('Delete', {
      FileSystemId: FS, DeleteFileSystem: 'true', DeleteTimeoutSeconds: '1800', TotalTimeoutSeconds: '3300',
    }, { resourceType: GUARD });
    const versionsAfterGuard = await s3.send(new ListObjectVersionsCommand({ Bucket: bucket }));
    const cleaner = await drive('Delete', {
      BucketArn: `arn:aws:s3:::${bucket}`, EmptyOnDelete: 'true', TotalTimeoutSeconds: '3300',
    }, { resourceType: CLEANER });
    // THEN the guard deleted the file system and left the bucket as it was
    expect(guard).toMatchObject({ complete: true });
    expect(versionsAfterGuard.Versions).toHaveLength(3);
    // AND the cleaner waited for the detachment, emptied the bucket and deleted it
    expect(cleaner.error).toBeUndefined();
    expect(cleaner.complete).toBe(true);
    await expect(s3.send(new ListObjectVersionsCommand({ Bucket: bucket }))).rejects.toThrow(/does not exist|NoSuchBucket/);
    const order = endpoint.requests.map((r) => r.operation).filter((o) => o === 'DeleteFileSystem' || o === 'ListFileSystems');
    expect(order).toEqual(['DeleteFileSystem', 'ListFileSystems', 'ListFileSystems']);
    s3.destroy();
  });
});

describe('the test endpoint models the pending-export conflict of DeleteFileSystem', () => {
  test('the real SDK maps the 409 to ConflictException, and forceDelete bypasses it', async () => {
    // GIVEN a file system with a pending export for the first delete attempt
    endpoint.setFileSystem(FS, perCall('available'));
    endpoint.setPendingExport(FS, perCall('pending', 'clear'));
    const client = new S3FilesClient({});
    // WHEN deleting twice
    const first = await client.send(new DeleteFileSystemCommand({ fileSystemId: FS })).catch((e: Error) => e);
    await client.send(new DeleteFileSystemCommand({ fileSystemId: FS }));
    // THEN the first is a ConflictException about the pending export, the second succeeds
    expect(first).toMatchObject({ name: 'ConflictException' });
    expect((first as Error).message).toMatch(/pending export/);
    expect(endpoint.requests.map((r) => r.status)).toEqual([409, 204]);
    client.destroy();
  });
});

describe('validation of the resource properties (onEvent)', () => {
  const W = 'Custom::S3FilesMountTargetsAvailable: ';
  const timeoutFix = 'Set availabilityTimeout to 1-3600 s (default 1200).';
  const countFix = 'Pass the number of mount targets the file system gets (one per Availability Zone).';
  test.each([
    [WAITER, { ExpectedMountTargetCount: '2' },
      `${W}"FileSystemId" is required (the S3 Files file system id, e.g. fs-0123456789abcdef0), got nothing.`],
    [WAITER, { FileSystemId: '  ' }, `${W}"FileSystemId" is required (the S3 Files file system id, e.g. fs-0123456789abcdef0), got "  ".`],
    [WAITER, { FileSystemId: FS, ExpectedMountTargetCount: '1.5' },
      `${W}"ExpectedMountTargetCount" must be a whole number between 1 and 1000, got "1.5". ${countFix}`],
    [WAITER, { FileSystemId: FS, ExpectedMountTargetCount: '0' },
      `${W}"ExpectedMountTargetCount" must be a whole number between 1 and 1000, got "0". ${countFix}`],
    [WAITER, { FileSystemId: FS, TimeoutSeconds: 'abc' }, `${W}"TimeoutSeconds" must be a whole number between 1 and 3600, got "abc". ${timeoutFix}`],
    [WAITER, { FileSystemId: FS, TimeoutSeconds: '3601' }, `${W}"TimeoutSeconds" must be a whole number between 1 and 3600, got "3601". ${timeoutFix}`],
    [WAITER, { FileSystemId: FS, AccessPointIds: 'fsap-1' }, `${W}"AccessPointIds" must be a list of access point ids, got "fsap-1".`],
    [WAITER, { FileSystemId: FS, AccessPointIds: ['fsap-1', ''] },
      `${W}"AccessPointIds" must contain only non-empty access point ids, got ["fsap-1",""].`],
    [WAITER, { FileSystemId: FS, VerifyBucketVersioning: 'yes' }, `${W}"VerifyBucketVersioning" must be "true" or "false", got "yes".`],
    [WAITER, { FileSystemId: FS, VerifyBucketVersioning: 'true' },
      `${W}"VerifyBucketVersioning" is "true" but "BucketName" is missing: pass the bucket name to check.`],
    [WAITER, { FileSystemId: FS, BucketName: 42 }, `${W}"BucketName" must be a bucket name string, got 42.`],
    // Each resource type's errors carry its own type, never the waiter's.
    [GUARD, { DeleteFileSystem: 'true' },
      `${GUARD}: "FileSystemId" is required (the S3 Files file system id, e.g. fs-0123456789abcdef0), got nothing.`],
    [GUARD, { FileSystemId: FS, DeleteFileSystem: 'yes' }, `${GUARD}: "DeleteFileSystem" must be "true" or "false", got "yes".`],
    [GUARD, { FileSystemId: FS, DeleteTimeoutSeconds: '0' }, `${GUARD}: "DeleteTimeoutSeconds" must be a whole number between 1 and 3600, got "0".`],
    [GUARD, { FileSystemId: FS, FileSystemLogicalId: 'Files/Resource' },
      `${GUARD}: "FileSystemLogicalId" must be a CloudFormation logical id (letters and digits), got "Files/Resource".`],
    [CLEANER, {}, `${CLEANER}: "BucketArn" must be a bucket ARN (arn:aws:s3:::name), got nothing.`],
    [CLEANER, { BucketArn: 'arn:aws:s3:::b', EmptyOnDelete: 'yes' }, `${CLEANER}: "EmptyOnDelete" must be "true" or "false", got "yes".`],
    [CLEANER, { BucketArn: 'arn:aws:s3:::b', TotalTimeoutSeconds: '7200' },
      `${CLEANER}: "TotalTimeoutSeconds" must be a whole number between 1 and 3600, got "7200".`],
  ])('%s rejects %j with the whole message, labelled with its own type', async (resourceType, props, message) => {
    // GIVEN bad properties
    // WHEN onEvent runs a Create
    const error = await onEvent(request('Create', props, resourceType)).catch((e: Error) => e);
    // THEN it fails with one message naming the resource type, the property, the value and the fix
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe(message);
    expect(endpoint.count()).toBe(0);
  });

  test('an unknown ResourceType is an error in onEvent and in isComplete, never taken for the waiter', async () => {
    // GIVEN a resource type this provider does not serve, with properties the waiter would accept
    const req = request('Create', { FileSystemId: FS }, 'Custom::S3FilesSomethingElse');
    // WHEN onEvent and isComplete run
    const onEventError = await onEvent(req).catch((e: Error) => e);
    const isCompleteError = await isComplete({ ...req, Data: { StartedAt: String(Date.now()) } }).catch((e: Error) => e);
    // THEN both refuse it, naming the type and the ones served
    const message = 'Unsupported resource type "Custom::S3FilesSomethingElse": this provider serves '
      + 'Custom::S3FilesMountTargetsAvailable, Custom::S3FilesDeleteGuard, Custom::S3FilesBucketCleaner.';
    expect((onEventError as Error).message).toBe(message);
    expect((isCompleteError as Error).message).toBe(message);
    expect(endpoint.count()).toBe(0);
  });

  test('rejects an unknown RequestType', async () => {
    // GIVEN a request type CloudFormation never sends
    const req = { ...request('Create', { FileSystemId: FS }), RequestType: 'Replace' } as unknown as OnEventRequest;
    // WHEN / THEN
    await expect(onEvent(req)).rejects.toThrow('Custom::S3FilesMountTargetsAvailable: unsupported RequestType "Replace" (expected Create, Update or Delete).');
  });

  test('isComplete refuses an event without Data.StartedAt', async () => {
    // GIVEN an isComplete event that did not come through onEvent
    const req: IsCompleteRequest = { ...request('Create', { FileSystemId: FS }, GUARD), Data: {} };
    // WHEN / THEN the message carries the request's own resource type
    await expect(isComplete(req)).rejects.toThrow(`${GUARD}: isComplete needs Data.StartedAt (epoch ms) from onEvent, got nothing.`);
  });
});

describe('bucket versioning check against moto S3', () => {
  const s3 = () => new S3Client({ forcePathStyle: true });

  beforeAll(async () => {
    const client = s3();
    for (const bucket of ['versioned-bucket', 'plain-bucket', 'suspended-bucket']) {
      await client.send(new CreateBucketCommand({ Bucket: bucket }));
    }
    await client.send(new PutBucketVersioningCommand({ Bucket: 'versioned-bucket', VersioningConfiguration: { Status: 'Enabled' } }));
    await client.send(new PutBucketVersioningCommand({ Bucket: 'suspended-bucket', VersioningConfiguration: { Status: 'Enabled' } }));
    await client.send(new PutBucketVersioningCommand({ Bucket: 'suspended-bucket', VersioningConfiguration: { Status: 'Suspended' } }));
    client.destroy();
  });

  test('passes for a versioned bucket', async () => {
    // GIVEN a bucket with versioning enabled
    // WHEN onEvent verifies it
    const out = await onEvent(request('Create', { FileSystemId: FS, VerifyBucketVersioning: 'true', BucketName: 'versioned-bucket' }));
    // THEN the resource is created
    expect(out.PhysicalResourceId).toBe(FS);
  });

  test('fails for a bucket that never had versioning, naming the bucket, the status and the fix', async () => {
    // GIVEN a bucket without versioning
    // WHEN onEvent verifies it
    const p = onEvent(request('Create', { FileSystemId: FS, VerifyBucketVersioning: 'true', BucketName: 'plain-bucket' }));
    // THEN the message names the bucket, the status found and how to fix it
    await expect(p).rejects.toThrow(/bucket "plain-bucket" must have versioning enabled.*never enabled.*put-bucket-versioning --bucket plain-bucket/);
  });

  test('fails for a bucket with suspended versioning', async () => {
    // GIVEN a bucket whose versioning was suspended
    // WHEN an Update verifies it
    const p = onEvent(request('Update', { FileSystemId: FS, VerifyBucketVersioning: 'true', BucketName: 'suspended-bucket' }));
    // THEN the status found is named
    await expect(p).rejects.toThrow(/versioning is "Suspended"/);
  });

  test('fails for a bucket that does not exist', async () => {
    // GIVEN no such bucket
    // WHEN onEvent verifies it
    const p = onEvent(request('Create', { FileSystemId: FS, VerifyBucketVersioning: 'true', BucketName: 'no-such-bucket' }));
    // THEN it says so
    await expect(p).rejects.toThrow(/bucket "no-such-bucket" does not exist/);
  });

  test('is skipped when VerifyBucketVersioning is "false"', async () => {
    // GIVEN an unversioned bucket but no check requested
    // WHEN onEvent runs
    const out = await onEvent(request('Create', { FileSystemId: FS, VerifyBucketVersioning: 'false', BucketName: 'plain-bucket' }));
    // THEN it succeeds
    expect(out.PhysicalResourceId).toBe(FS);
  });
});

describe('endpoint configuration', () => {
  test('@aws-sdk/client-s3files honours AWS_ENDPOINT_URL_S3FILES (service id "S3Files")', async () => {
    // GIVEN the env var set in beforeAll and a default-config client
    endpoint.setFileSystem(FS, perCall('available'));
    const client = new S3FilesClient({});
    // WHEN it calls GetFileSystem
    const out = await client.send(new GetFileSystemCommand({ fileSystemId: FS }));
    // THEN the loopback endpoint served it
    expect(client.config.serviceId).toBe('S3Files');
    expect(out.status).toBe('available');
    expect(endpoint.requests).toEqual([expect.objectContaining({ operation: 'GetFileSystem', path: `/file-systems/${FS}` })]);
    client.destroy();
  });
});

describe('the shipped bundles load @aws-sdk/client-s3 only where they call S3', () => {
  const { spawnSync } = jest.requireActual<typeof import('child_process')>('child_process');
  const path = jest.requireActual<typeof import('path')>('path');
  // Module._load sees every require, the runtime-provided SDK's included (it is external to the bundle).
  const loads = (bundle: string): { s3: boolean } => {
    const file = path.join(__dirname, '..', '..', 'assets', 'lambda', 's3files-provider', `${bundle}.lambda`, 'index.js');
    const script = `const M = require('module'); const seen = []; const load = M._load;
      M._load = function (r, ...a) { seen.push(r); return load.call(this, r, ...a); };
      require(${JSON.stringify(file)}); console.log(JSON.stringify({ s3: seen.includes('@aws-sdk/client-s3') }));`;
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { ...process.env, NODE_PATH: path.join(__dirname, '..', '..', 'node_modules') } });
    expect(r.stderr).toBe('');
    return JSON.parse(r.stdout);
  };

  test.each(['is-complete', 'on-event'])('requiring %s does not load it (most of a cold start, and only the cleaner and the versioning check use it)', (bundle) => {
    expect(loads(bundle)).toEqual({ s3: false });
  });
});
