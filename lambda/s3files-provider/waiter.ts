import {
  GetAccessPointCommand,
  paginateListMountTargets,
  S3FilesClient,
} from '@aws-sdk/client-s3files';
import type { PropertyReader } from './properties';
import {
  IsCompleteDeps, IsCompleteResult, OnEventDeps, Poll, ResourceError, ResourceHandler, WaitLogger,
} from './resource-handler';
import { describeError, isNotFound, isTransient } from './sdk-errors';
import { verifyBucketVersioning } from './versioning';
import {
  CUSTOM_RESOURCE_MAX_SECONDS, DEFAULT_AVAILABILITY_TIMEOUT_SECONDS, WAITER_RESOURCE_TYPE,
} from '../../src/private/provider/custom-resource-contract';

/**
 * `Custom::S3FilesMountTargetsAvailable`: Create/Update wait until the file system's mount targets
 * and the listed access points are `available` (and, for an imported bucket, check its versioning
 * first). Delete has nothing to wait for: the delete guard protects unexported writes.
 */
export interface WaitForAvailableProps {
  readonly fileSystemId: string;
  readonly expectedMountTargetCount: number;
  readonly accessPointIds: string[];
  readonly timeoutSeconds: number;
  readonly verifyBucketVersioning: boolean;
  readonly bucketName?: string;
}

export interface WaiterDeps {
  readonly client: S3FilesClient;
  /** Epoch ms; injected so timeouts can be tested without waiting. */
  readonly now: () => number;
  readonly log: WaitLogger;
}

const FILE_SYSTEM_ID = 'the S3 Files file system id, e.g. fs-0123456789abcdef0';

/** The file system id every resource of the provider names the same way. */
export function readFileSystemId(properties: PropertyReader): string {
  return properties.requiredString('FileSystemId', FILE_SYSTEM_ID);
}

class WaiterHandler extends ResourceHandler<WaitForAvailableProps> {
  constructor() {
    super(WAITER_RESOURCE_TYPE);
  }

  protected read(properties: PropertyReader): WaitForAvailableProps {
    const fileSystemId = readFileSystemId(properties);
    const verify = properties.boolean('VerifyBucketVersioning');
    const bucketName = properties.optionalString('BucketName', 'a bucket name');
    if (verify && !bucketName) {
      properties.fail('"VerifyBucketVersioning" is "true" but "BucketName" is missing: pass the bucket name to check.');
    }
    return {
      fileSystemId,
      expectedMountTargetCount: properties.integer('ExpectedMountTargetCount', {
        fallback: 1, min: 1, max: 1000, fix: 'Pass the number of mount targets the file system gets (one per Availability Zone).',
      }),
      accessPointIds: properties.idList('AccessPointIds', 'access point ids'),
      timeoutSeconds: properties.integer('TimeoutSeconds', {
        fallback: DEFAULT_AVAILABILITY_TIMEOUT_SECONDS,
        min: 1,
        max: CUSTOM_RESOURCE_MAX_SECONDS,
        fix: `Set availabilityTimeout to 1-${CUSTOM_RESOURCE_MAX_SECONDS} s (default ${DEFAULT_AVAILABILITY_TIMEOUT_SECONDS}).`,
      }),
      verifyBucketVersioning: verify,
      bucketName,
    };
  }

  protected physicalId(props: WaitForAvailableProps): string {
    return props.fileSystemId;
  }

  protected summary(props: WaitForAvailableProps | undefined): Record<string, unknown> {
    return {
      fileSystemId: props?.fileSystemId,
      expectedMountTargetCount: props?.expectedMountTargetCount,
      accessPointIds: props?.accessPointIds,
      timeoutSeconds: props?.timeoutSeconds,
    };
  }

  protected async beforePolls(props: WaitForAvailableProps, deps: OnEventDeps): Promise<void> {
    if (!props.verifyBucketVersioning || !props.bucketName) return;
    await verifyBucketVersioning(deps.s3, props.bucketName);
    deps.log.info('Bucket versioning is enabled', { bucketName: props.bucketName });
  }

  protected pollCreateOrUpdate(props: WaitForAvailableProps, deps: IsCompleteDeps, startedAt: number): Poll {
    return { work: checkAvailability(deps, props, startedAt), timeoutSeconds: props.timeoutSeconds };
  }

  protected pollDelete(): undefined {
    return undefined;
  }
}

export const WAITER = new WaiterHandler();

/** Fails the deployment: the message is what CloudFormation shows the user. */
const waitFailed = (message: string): ResourceError => WAITER.error(message);

export type ResourceKind = 'mount target' | 'access point';

export interface ResourceState {
  readonly kind: ResourceKind;
  readonly id: string;
  /** The service's lifecycle status, or `not found` while an access point is not yet visible. */
  readonly status: string;
  readonly statusMessage?: string;
}

export interface AvailabilitySnapshot {
  readonly mountTargets: ResourceState[];
  readonly accessPoints: ResourceState[];
}

/** Statuses the 2025-05-05 API model lists; anything else is logged and waited on. */
const KNOWN_STATUSES = new Set(['creating', 'available', 'updating', 'deleting', 'deleted', 'error']);
/** Mount targets on their way out do not count towards the expected number. */
const LEAVING = new Set(['deleting', 'deleted']);
const PAGE_SIZE = 100;

function describeState(s: ResourceState): string {
  return `${s.kind} ${s.id} (${s.status}${s.statusMessage ? `: ${s.statusMessage}` : ''})`;
}

/** One look at every mount target of the file system and every listed access point. */
export async function observe(client: S3FilesClient, props: WaitForAvailableProps): Promise<AvailabilitySnapshot> {
  const mountTargets: ResourceState[] = [];
  const pages = paginateListMountTargets({ client, pageSize: PAGE_SIZE }, { fileSystemId: props.fileSystemId });
  for await (const page of pages) {
    for (const mt of page.mountTargets ?? []) {
      mountTargets.push({
        kind: 'mount target',
        id: mt.mountTargetId ?? '(no id)',
        status: mt.status ?? 'unknown',
        statusMessage: mt.statusMessage,
      });
    }
  }
  const accessPoints = await Promise.all(props.accessPointIds.map(async (id): Promise<ResourceState> => {
    try {
      const ap = await client.send(new GetAccessPointCommand({ accessPointId: id }));
      return { kind: 'access point', id, status: ap.status ?? 'unknown' };
    } catch (error) {
      // Right after creation an access point may not be visible yet: keep waiting, the timeout bounds it.
      if (isNotFound(error)) return { kind: 'access point', id, status: 'not found' };
      throw error;
    }
  }));
  return { mountTargets, accessPoints };
}

export interface Evaluation {
  readonly complete: boolean;
  readonly failed: ResourceState[];
  readonly pending: ResourceState[];
  readonly unknown: ResourceState[];
  readonly activeMountTargets: number;
}

/** Pure verdict over one snapshot. */
export function evaluate(snapshot: AvailabilitySnapshot, expectedMountTargetCount: number): Evaluation {
  const active = snapshot.mountTargets.filter((mt) => !LEAVING.has(mt.status));
  const all = [...active, ...snapshot.accessPoints];
  const failed = all.filter((s) => s.status === 'error');
  const pending = all.filter((s) => s.status !== 'available');
  const unknown = all.filter((s) => !KNOWN_STATUSES.has(s.status) && s.status !== 'not found');
  const complete = failed.length === 0 && pending.length === 0 && active.length >= expectedMountTargetCount;
  return { complete, failed, pending, unknown, activeMountTargets: active.length };
}

/**
 * isComplete for Create/Update: done when at least the expected number of mount targets exist and
 * they and every listed access point are `available`. Throws on `error` and on timeout.
 */
export async function checkAvailability(
  deps: WaiterDeps, props: WaitForAvailableProps, startedAtMs: number,
): Promise<IsCompleteResult> {
  const elapsedMs = deps.now() - startedAtMs;
  const timedOut = elapsedMs >= props.timeoutSeconds * 1000;
  const fs = props.fileSystemId;

  let snapshot: AvailabilitySnapshot;
  try {
    snapshot = await observe(deps.client, props);
  } catch (error) {
    if (!isTransient(error)) {
      throw waitFailed(`could not read the state of file system ${fs}: ${describeError(error)}. `
        + 'Check that the file system exists and the waiter role may call s3files:ListMountTargets and s3files:GetAccessPoint.');
    }
    deps.log.warn('Transient error while polling; will retry on the next poll', { fileSystemId: fs, error: describeError(error) });
    if (timedOut) {
      throw waitFailed(`timed out after ${props.timeoutSeconds} s waiting for file system ${fs}; `
        + `the last poll failed with ${describeError(error)}. Raise availabilityTimeout or retry the deployment.`);
    }
    return { IsComplete: false };
  }

  const verdict = evaluate(snapshot, props.expectedMountTargetCount);
  if (verdict.failed.length > 0) {
    throw waitFailed(`file system ${fs}: ${verdict.failed.map(describeState).join('; ')} reported status "error". `
      + 'Fix the cause shown (subnet, security group, quota) and redeploy.');
  }
  for (const s of verdict.unknown) {
    deps.log.warn('Unknown status; treating it as not available yet', { fileSystemId: fs, kind: s.kind, id: s.id, status: s.status });
  }
  const summary = {
    fileSystemId: fs,
    elapsedSeconds: Math.round(elapsedMs / 1000),
    mountTargets: snapshot.mountTargets.map((s) => `${s.id}=${s.status}`),
    accessPoints: snapshot.accessPoints.map((s) => `${s.id}=${s.status}`),
  };
  if (verdict.complete) {
    deps.log.info('File system ready: mount targets and access points available', summary);
    return { IsComplete: true };
  }
  if (timedOut) {
    const missing = verdict.activeMountTargets < props.expectedMountTargetCount
      ? `only ${verdict.activeMountTargets} of ${props.expectedMountTargetCount} expected mount targets exist; ` : '';
    const notReady = verdict.pending.length > 0 ? `still not available: ${verdict.pending.map(describeState).join('; ')}` : '';
    throw waitFailed(`timed out after ${props.timeoutSeconds} s waiting for file system ${fs}: ${missing}${notReady}. `
      + 'Mount targets took 3-5 minutes in two third-party write-ups; raise availabilityTimeout or check the resources in the S3 console.');
  }
  deps.log.info('Waiting for mount targets and access points', summary);
  return { IsComplete: false };
}
