import { GetBucketVersioningCommand, S3Client } from '@aws-sdk/client-s3';
import { GetFileSystemCommand, ListMountTargetsCommand, S3FilesClient } from '@aws-sdk/client-s3files';
import { mockClient } from 'aws-sdk-client-mock';
import { describeError, isTransient } from '../../lambda/wait-for-available/errors';
import { parseProps, parseStartedAt } from '../../lambda/wait-for-available/props';
import { verifyBucketVersioning } from '../../lambda/wait-for-available/versioning';
import {
  checkAvailability, checkExportDrained, evaluate, reportsPendingExport, WaitLogger,
} from '../../lambda/wait-for-available/waiter';
import { freePort } from '../servers/moto-server';
import { perCall, S3FilesEndpoint } from '../servers/s3files-endpoint';

// The pure functions with an injected clock and a recording logger, against the real SDK and the
// local endpoint; aws-sdk-client-mock only for errors the endpoint cannot produce (403s).

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

beforeAll(async () => {
  endpoint = await S3FilesEndpoint.start();
  client = new S3FilesClient({ region: 'us-east-1', endpoint: endpoint.url, credentials: creds });
});
afterAll(async () => {
  client.destroy();
  await endpoint.stop();
});
beforeEach(() => endpoint.reset());

function deps(nowMs: number, c: S3FilesClient = client) {
  const log = recordingLogger();
  return { client: c, now: () => nowMs, log };
}

describe('checkAvailability with an injected clock', () => {
  const props = parseProps({ FileSystemId: FS, ExpectedMountTargetCount: '2', AccessPointIds: ['fsap-late'], TimeoutSeconds: '600' });

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
    const r = await checkAvailability(d, parseProps({ FileSystemId: FS }), T0);
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
    const r = await checkAvailability(d, parseProps({ FileSystemId: FS }), T0);
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
    const p = checkAvailability(deps(T0 + 2_000_000), parseProps({ FileSystemId: FS }), T0);
    // THEN the failure names the error
    await expect(p).rejects.toThrow(/timed out after 1200 s .*last poll failed with InternalServerException \(HTTP 500\)/);
  });

  test('treats a refused connection as transient', async () => {
    // GIVEN a client pointed at a closed loopback port
    const port = await freePort();
    const dead = new S3FilesClient({ region: 'us-east-1', endpoint: `http://127.0.0.1:${port}`, credentials: creds, maxAttempts: 1 });
    // WHEN polled
    const r = await checkAvailability(deps(T0, dead), parseProps({ FileSystemId: FS }), T0);
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
    const p = checkAvailability(deps(T0, denied), parseProps({ FileSystemId: FS }), T0);
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

describe('checkExportDrained with an injected clock', () => {
  const props = parseProps({ FileSystemId: FS, WaitForExportOnDelete: 'true', DeleteTimeoutSeconds: '300', ExportSettleSeconds: '90' });

  test('waits for the settle time, then lets deletion proceed', async () => {
    // GIVEN a file system that reports nothing pending
    endpoint.setFileSystem(FS, perCall('available'));
    // WHEN polled before and after 90 s
    const early = await checkExportDrained(deps(T0 + 89_000), props, T0);
    const late = await checkExportDrained(deps(T0 + 90_000), props, T0);
    // THEN it completes only after the settle time
    expect(early.IsComplete).toBe(false);
    expect(late.IsComplete).toBe(true);
  });

  test('never waits longer than DeleteTimeoutSeconds when nothing is reported', async () => {
    // GIVEN a settle time longer than the delete bound
    endpoint.setFileSystem(FS, perCall('available'));
    const short = parseProps({ FileSystemId: FS, WaitForExportOnDelete: 'true', DeleteTimeoutSeconds: '30', ExportSettleSeconds: '90' });
    // WHEN polled at the bound
    const r = await checkExportDrained(deps(T0 + 30_000), short, T0);
    // THEN it completes
    expect(r.IsComplete).toBe(true);
  });

  test('completes when the file system is already deleting', async () => {
    // GIVEN a file system in deleting
    endpoint.setFileSystem(FS, perCall('deleting'));
    // WHEN polled at once
    // THEN nothing to wait for
    expect((await checkExportDrained(deps(T0), props, T0)).IsComplete).toBe(true);
  });

  test('fails at the bound with the last transient error', async () => {
    // GIVEN GetFileSystem failing with 503s past the bound
    endpoint.injectFaults({ operation: 'GetFileSystem', status: 503, count: 3 });
    // WHEN polled
    const p = checkExportDrained(deps(T0 + 300_000), props, T0);
    // THEN the reason is named
    await expect(p).rejects.toThrow(/timed out after 300 s .*the last poll failed with .*HTTP 503/);
  });

  test('fails at once on AccessDenied, keeping the file system', async () => {
    // GIVEN GetFileSystem denied
    const denied = new S3FilesClient({ region: 'us-east-1', credentials: creds });
    const mock = mockClient(denied);
    mock.on(GetFileSystemCommand).rejects(Object.assign(new Error('denied'), { name: 'AccessDeniedException', $metadata: { httpStatusCode: 403 } }));
    // WHEN polled
    const p = checkExportDrained(deps(T0, denied), props, T0);
    // THEN the message says what to grant
    await expect(p).rejects.toThrow(/could not read file system .* grant s3files:GetFileSystem/);
    mock.restore();
  });

  test.each([
    ['File system has data pending export to S3', true],
    ['Exports pending: 3 files', true],
    ['Some files have not yet been exported', true],
    ['Mount target creation in progress', false],
    [undefined, false],
  ])('reportsPendingExport(%j) is %s', (message, expected) => {
    // GIVEN a status message / WHEN classified / THEN
    expect(reportsPendingExport(message)).toBe(expected);
  });
});

describe('verifyBucketVersioning narrow error path', () => {
  test('names the missing permission when GetBucketVersioning is denied', async () => {
    // GIVEN a denied GetBucketVersioning
    const s3 = new S3Client({ region: 'us-east-1', credentials: creds });
    const mock = mockClient(s3);
    mock.on(GetBucketVersioningCommand).rejects(Object.assign(new Error('Access Denied'), { name: 'AccessDenied', $metadata: { httpStatusCode: 403 } }));
    // WHEN verified / THEN
    await expect(verifyBucketVersioning(s3, 'b')).rejects.toThrow(/could not read the versioning of bucket "b".*s3:GetBucketVersioning/);
    mock.restore();
  });
});

describe('small parsers', () => {
  test('accept JS numbers and booleans, and drop duplicate access point ids', () => {
    // GIVEN a direct invocation with native types
    const p = parseProps({ FileSystemId: FS, ExpectedMountTargetCount: 3, WaitForExportOnDelete: true, AccessPointIds: ['a', 'a', 'b'] });
    // THEN they are accepted
    expect(p).toMatchObject({ expectedMountTargetCount: 3, waitForExportOnDelete: true, accessPointIds: ['a', 'b'], timeoutSeconds: 1200 });
    expect(parseStartedAt({ StartedAt: T0 })).toBe(T0);
    expect(() => parseStartedAt(undefined)).toThrow(/Data.StartedAt/);
  });

  test('errors: network codes are transient, and non-objects are described', () => {
    // GIVEN raw errors / THEN
    expect(isTransient({ code: 'ECONNRESET' })).toBe(true);
    expect(isTransient({ name: 'TimeoutError' })).toBe(true);
    expect(isTransient({ name: 'ValidationException', $metadata: { httpStatusCode: 400 } })).toBe(false);
    expect(describeError('boom')).toBe('Error: boom');
  });
});
