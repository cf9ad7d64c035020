import { CloudFormationClient, DescribeStackResourcesCommand, paginateDescribeStackEvents, StackEvent } from '@aws-sdk/client-cloudformation';
import { DeleteBucketCommand, DeleteObjectsCommand, ListObjectsV2Command, ListObjectVersionsCommand, S3Client } from '@aws-sdk/client-s3';
import { DeleteFileSystemCommand, GetFileSystemCommand, ListAccessPointsCommand, ListMountTargetsCommand, S3FilesClient } from '@aws-sdk/client-s3files';
import type { AssertionOutcome } from './outcomes';
import { listedKey } from '../handlers/shared/names';

// The runner's own assertions: what happens around the deployment, which an assertion stack
// cannot see (the waiter against the mount targets, stack events, what destroy leaves).

/** The lifecycle values of the S3 Files API model (2025-05-05), plus the newer `misconfigured`. */
export const MODEL_STATES = ['creating', 'available', 'updating', 'deleting', 'deleted', 'error', 'misconfigured'];
/** The waiter's provider polls every 10 s (docs/performance.md, "Deploy wait"); the monitor every 5 s. */
export const WAITER_POLL_SECONDS = 10;
export const MONITOR_POLL_SECONDS = 5;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const errorName = (e: unknown) => (e as { name?: string }).name ?? 'Error';

/** Physical ids of one stack's resources by type (file systems, buckets, VPCs, clusters...). */
export interface StackResource {
  readonly type: string;
  readonly logicalId: string;
  readonly physicalId: string;
}

export async function resourcesOf(cfn: CloudFormationClient, stackName: string): Promise<StackResource[]> {
  try {
    const out = await cfn.send(new DescribeStackResourcesCommand({ StackName: stackName }));
    return (out.StackResources ?? []).map((r) => ({ type: r.ResourceType ?? '', logicalId: r.LogicalResourceId ?? '', physicalId: r.PhysicalResourceId ?? '' }));
  } catch {
    return [];
  }
}

export const fileSystemIdOf = (physicalId: string) => physicalId.split('/').pop() ?? physicalId;

/**
 * Watches one file system's mount targets and access points while its stack deploys: every
 * status seen, and when all mount targets were first seen `available`.
 */
export class MountTargetMonitor {
  readonly seen = new Set<string>();
  allAvailableAt?: number;
  mountTargets = 0;
  private stopped = false;

  constructor(private readonly cfn: CloudFormationClient, private readonly s3files: S3FilesClient, private readonly stackName: string,
    private readonly expectedMountTargets: number) {}

  async run(): Promise<void> {
    let fileSystemId: string | undefined;
    while (!this.stopped) {
      try {
        fileSystemId ??= (await resourcesOf(this.cfn, this.stackName)).filter((r) => r.type === 'AWS::S3Files::FileSystem' && r.physicalId).map((r) => fileSystemIdOf(r.physicalId))[0];
        if (fileSystemId) {
          const mts = (await this.s3files.send(new ListMountTargetsCommand({ fileSystemId }))).mountTargets ?? [];
          const aps = (await this.s3files.send(new ListAccessPointsCommand({ fileSystemId }))).accessPoints ?? [];
          for (const x of [...mts, ...aps]) if (x.status) this.seen.add(x.status);
          this.mountTargets = mts.length;
          if (this.allAvailableAt === undefined && mts.length >= this.expectedMountTargets && mts.every((m) => m.status === 'available')) this.allAvailableAt = Date.now();
        }
      } catch {
        // A throttled or early call is retried at the next tick.
      }
      await sleep(MONITOR_POLL_SECONDS * 1000);
    }
  }

  stop(): void {
    this.stopped = true;
  }
}

/** Every stack event (a deleted stack's too, by its stack id). */
export async function eventsOf(cfn: CloudFormationClient, stackId: string): Promise<StackEvent[]> {
  const events: StackEvent[] = [];
  try {
    for await (const page of paginateDescribeStackEvents({ client: cfn }, { StackName: stackId })) events.push(...(page.StackEvents ?? []));
  } catch {
    // No events: the stack was never created.
  }
  return events.reverse();
}

/** The first failure's reason in a stack's events (why an assertion stack did not report). */
export function firstFailure(events: readonly StackEvent[]): string | undefined {
  const failed = events.find((e) => /_FAILED$/.test(e.ResourceStatus ?? '') && e.ResourceStatusReason && !/cancelled|Resource creation cancelled/i.test(e.ResourceStatusReason));
  return failed ? `${failed.LogicalResourceId}: ${failed.ResourceStatusReason}` : undefined;
}

/** How long each custom resource of the library took per operation: seconds between IN_PROGRESS and COMPLETE/FAILED. */
export interface Duration {
  readonly resource: string;
  readonly operation: string;
  readonly seconds: number;
  readonly ok: boolean;
}

export function customResourceDurations(events: readonly StackEvent[], match: RegExp): Duration[] {
  const started = new Map<string, number>();
  const out: Duration[] = [];
  for (const e of events) {
    if (!(e.ResourceType ?? '').startsWith('Custom::') || !match.test(e.LogicalResourceId ?? '')) continue;
    const [operation, state] = (e.ResourceStatus ?? '').split(/_(?=IN_PROGRESS|COMPLETE|FAILED)/);
    const key = `${e.LogicalResourceId} ${operation}`;
    const at = e.Timestamp?.getTime() ?? 0;
    if (state === 'IN_PROGRESS') started.set(key, started.get(key) ?? at);
    else if (started.has(key)) out.push({ resource: e.LogicalResourceId ?? '', operation, seconds: Math.round((at - started.get(key)!) / 1000), ok: state === 'COMPLETE' });
  }
  return out;
}

/** `waiter.within-one-poll` and `service.states-in-model` from the monitor and the core stack's events. */
export function waiterOutcomes(monitor: MountTargetMonitor, events: readonly StackEvent[]): AssertionOutcome[] {
  const done = events.find((e) => /MountTargetsAvailable/.test(e.LogicalResourceId ?? '') && e.ResourceStatus === 'CREATE_COMPLETE')?.Timestamp?.getTime();
  const states = [...monitor.seen].sort();
  const unknown = states.filter((s) => !MODEL_STATES.includes(s));
  const stateOutcome: AssertionOutcome = states.length === 0
    ? { id: 'service.states-in-model', status: 'not run', note: 'no status was seen (the monitor never found the file system)' }
    : { id: 'service.states-in-model', status: unknown.length ? 'refuted' : 'confirmed', evidence: { seen: states, notInModel: unknown } };
  if (done === undefined || monitor.allAvailableAt === undefined) {
    return [{ id: 'waiter.within-one-poll', status: 'not run', note: `waiter done: ${done ?? 'not seen'}; all mount targets available: ${monitor.allAvailableAt ?? 'not seen'}` }, stateOutcome];
  }
  const lagSeconds = (done - monitor.allAvailableAt) / 1000;
  // Negative: the waiter finished before the monitor saw every mount target available (too early?).
  const limit = WAITER_POLL_SECONDS + MONITOR_POLL_SECONDS;
  const ok = lagSeconds >= -MONITOR_POLL_SECONDS && lagSeconds <= limit;
  return [{ id: 'waiter.within-one-poll', status: ok ? 'confirmed' : 'refuted', evidence: { lagSeconds, limitSeconds: limit, mountTargets: monitor.mountTargets } }, stateOutcome];
}

/** What deleting the retained file system and bucket found: the outcome, and what it had to leave. */
export interface RetainedCleanup {
  readonly outcome: AssertionOutcome;
  /** Why the bucket was kept (object versions it could not delete, each named), for the report's errors; undefined when it went. */
  readonly kept?: string;
}

/**
 * Deletes a retained file system and its bucket as docs/lifecycle.md says users should, and
 * records every error the service answers on the way (`service.errors-as-modelled`). A bucket that
 * keeps object versions (a delete refused, or accepted and still listed) is left in place, with
 * those versions named in `kept`: DeleteBucket is not sent.
 */
export async function deleteRetained(
  s3: S3Client, s3files: S3FilesClient, fileSystemId: string, bucket: string, log: (m: string) => void,
): Promise<RetainedCleanup> {
  const errors: Array<{ call: string; error: string; message?: string }> = [];
  const retry = async (call: string, action: () => Promise<unknown>, retryOn: (name: string) => boolean, minutes: number) => {
    const deadline = Date.now() + minutes * 60_000;
    for (;;) {
      try {
        return await action();
      } catch (e) {
        errors.push({ call, error: errorName(e), message: (e as Error).message?.slice(0, 200) });
        if (!retryOn(errorName(e)) || Date.now() > deadline) throw e;
        log(`${call}: ${errorName(e)}, retrying in 15 s`);
        await sleep(15_000);
      }
    }
  };
  const expected = ['ConflictException', 'BucketHasS3FileSystemAttached'];
  let emptied: EmptyBucketResult;
  try {
    await retry('DeleteFileSystem', () => s3files.send(new DeleteFileSystemCommand({ fileSystemId })), (n) => n === 'ConflictException', 30);
    await retry('GetFileSystem (until gone)', async () => {
      const f = await s3files.send(new GetFileSystemCommand({ fileSystemId })).catch((e) => (errorName(e) === 'ResourceNotFoundException' ? undefined : Promise.reject(e)));
      if (f && f.status !== 'deleted') throw Object.assign(new Error(`status ${f.status}`), { name: 'StillDeleting' });
    }, (n) => n === 'StillDeleting', 30);
    // S3 refusing the emptying (AccessDenied, SlowDown past the SDK's retries) keeps the bucket and
    // says so; it is not the file system's error model, which the calls around it test.
    emptied = await emptyBucket(s3, bucket).catch((e) => ({
      deleted: 0, notDeleted: [{ key: '*', code: errorName(e), message: `emptying the bucket stopped: ${(e as Error).message?.slice(0, 200)}` }],
    }));
    if (emptied.notDeleted.length === 0) {
      await retry('DeleteBucket', () => s3.send(new DeleteBucketCommand({ Bucket: bucket })), (n) => n === 'BucketHasS3FileSystemAttached', 30);
    }
  } catch (e) {
    return { outcome: { id: 'service.errors-as-modelled', status: 'refuted', evidence: { errors }, note: `cleanup stopped at ${errorName(e)}: ${(e as Error).message}` } };
  }
  // A kept bucket is the run's leftover (reported with its keys), not the service's error.
  const kept = emptied.notDeleted.length ? keptBucketMessage(bucket, emptied.notDeleted) : undefined;
  if (kept) log(kept);
  const keptEvidence = kept ? { notDeleted: emptied.notDeleted } : {};
  const keptNote = kept ? `DeleteBucket was not sent: ${kept}` : undefined;
  const service = errors.filter((x) => x.error !== 'StillDeleting');
  if (service.length === 0) {
    const note = ['the service answered no error (no pending export, the bucket detached at once)', keptNote].filter(Boolean).join('; ');
    return { outcome: { id: 'service.errors-as-modelled', status: 'not run', evidence: { errors, ...keptEvidence }, note }, kept };
  }
  const unexpected = service.filter((x) => !expected.includes(x.error));
  const status = unexpected.length ? 'refuted' : 'confirmed';
  return { outcome: { id: 'service.errors-as-modelled', status, evidence: { errors: service, ...keptEvidence }, ...(keptNote ? { note: keptNote } : {}) }, kept };
}

/** An object version the bucket kept, with why (S3's error for it, or a delete S3 accepted that removed nothing). */
export interface NotDeleted {
  readonly key: string;
  readonly versionId?: string;
  readonly code: string;
  readonly message: string;
}

export interface EmptyBucketResult {
  /** Object versions and delete markers that went (as the listings show). */
  readonly deleted: number;
  /** What is still listed when a pass removed nothing; empty when the bucket is empty. */
  readonly notDeleted: readonly NotDeleted[];
}

/** The report's line for a bucket kept because of `notDeleted` (keys as JSON strings, so a `\r` shows). */
export function keptBucketMessage(bucket: string, notDeleted: readonly NotDeleted[]): string {
  // The emptying itself failed (key '*'): no version to name.
  if (notDeleted.length === 1 && notDeleted[0].key === '*') {
    return `bucket ${bucket} kept: ${notDeleted[0].code}, ${notDeleted[0].message}. Remove the cause, empty it (every object version) and delete it.`;
  }
  const shown = notDeleted.slice(0, 20).map((n) => `${JSON.stringify(n.key)}${n.versionId ? ` (version ${n.versionId})` : ''}: ${n.code} ${n.message}`);
  const more = notDeleted.length > shown.length ? `; and ${notDeleted.length - shown.length} more (report.json)` : '';
  return `bucket ${bucket} kept: ${notDeleted.length} object version${notDeleted.length === 1 ? '' : 's'} could not be deleted: ${shown.join('; ')}${more}. `
    + `Remove the cause (a legal hold, a retention, a bucket policy), delete them (aws s3api delete-object --bucket ${bucket} --key <key> --version-id <id>), then the bucket.`;
}

interface Version {
  readonly Key: string;
  readonly VersionId?: string;
}

const versionIdOf = (v: { Key?: string; VersionId?: string }) => `${v.VersionId ?? 'null'}\n${v.Key ?? ''}`;

/** Every object version and delete marker, keys decoded (listed with `EncodingType=url`). */
async function listAllVersions(s3: S3Client, bucket: string): Promise<Version[]> {
  const all: Version[] = [];
  let markers: { KeyMarker?: string; VersionIdMarker?: string } = {};
  for (;;) {
    const page = await s3.send(new ListObjectVersionsCommand({ Bucket: bucket, EncodingType: 'url', ...markers }));
    for (const v of [...(page.Versions ?? []), ...(page.DeleteMarkers ?? [])]) {
      all.push({ Key: listedKey(v.Key!, page.EncodingType), VersionId: v.VersionId });
    }
    if (!page.IsTruncated) return all;
    // NextKeyMarker is encoded like the keys; a version id never is.
    markers = { KeyMarker: listedKey(page.NextKeyMarker ?? '', page.EncodingType), VersionIdMarker: page.NextVersionIdMarker };
  }
}

/**
 * Deletes every object version and delete marker of a bucket, in passes: each pass lists the
 * whole bucket with `EncodingType=url` (without it S3 sends keys through XML 1.0, where a carriage
 * return comes back as a line feed and the delete of that key removes nothing) and deletes what it
 * lists; S3's `Errors` are kept per version. It stops when the bucket is empty or when a pass
 * removed nothing (no version the previous pass deleted is gone), and then returns what is still
 * listed, each with the error S3 gave for it or as a delete accepted that removed nothing.
 */
export async function emptyBucket(s3: S3Client, bucket: string, maxPasses = 20): Promise<EmptyBucketResult> {
  let deleted = 0;
  let attempted: Set<string> | undefined;
  let refused: NotDeleted[] = [];
  for (let pass = 0; ; pass++) {
    const listed = await listAllVersions(s3, bucket);
    const ids = new Set(listed.map(versionIdOf));
    const gone = attempted ? [...attempted].filter((id) => !ids.has(id)).length : 0;
    deleted += gone;
    if (listed.length === 0) return { deleted, notDeleted: [] };
    // Each pass removed something, yet versions keep coming: something still writes to the bucket.
    if (pass >= maxPasses) {
      return { deleted, notDeleted: listed.map((v) => ({ key: v.Key, versionId: v.VersionId, code: 'StillWritten', message: `still listed after ${maxPasses} passes that each removed versions` })) };
    }
    if (attempted && gone === 0) {
      // An error names its version by id when S3 gives one (it does); else by key, which came back
      // through XML 1.0 unencoded: its parser reads a carriage return (or CR LF) as a line feed.
      const asXmlReadsIt = (key: string) => key.replace(/\r\n?/g, '\n');
      const refusal = (v: Version) => refused.find((e) => (e.versionId && e.versionId !== 'null' ? e.versionId === v.VersionId : e.key === asXmlReadsIt(v.Key)))
        ?? { code: 'StillListed', message: 'the delete was accepted, yet the version is still listed' };
      return { deleted, notDeleted: listed.map((v) => ({ key: v.Key, versionId: v.VersionId, code: refusal(v).code, message: refusal(v).message })) };
    }
    attempted = ids;
    refused = [];
    for (let i = 0; i < listed.length; i += 1000) {
      const result = await s3.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: listed.slice(i, i + 1000), Quiet: true } }));
      refused.push(...(result.Errors ?? []).map((e) => ({ key: e.Key ?? '', versionId: e.VersionId, code: e.Code ?? 'Error', message: e.Message ?? '' })));
    }
  }
}

/** How many objects a bucket holds under a prefix (`removal.retain-keeps`). */
export async function objectCount(s3: S3Client, bucket: string, prefix: string): Promise<number> {
  const out = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
  return out.KeyCount ?? 0;
}
