import {
  GetAccessPointCommand,
  paginateListMountTargets,
  S3FilesClient,
} from '@aws-sdk/client-s3files';
import { describeError, isNotFound, isTransient } from './errors';
import { RESOURCE_TYPE, WaitForAvailableProps } from './props';

/** The logging surface the waiter needs (Powertools' Logger satisfies it). */
export interface WaitLogger {
  info(message: string, extra?: Record<string, unknown>): void;
  warn(message: string, extra?: Record<string, unknown>): void;
}

export interface WaiterDeps {
  readonly client: S3FilesClient;
  /** Epoch ms; injected so timeouts can be tested without waiting. */
  readonly now: () => number;
  readonly log: WaitLogger;
}

export interface IsCompleteResult {
  readonly IsComplete: boolean;
}

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

/** Fails the deployment: the message is what CloudFormation shows the user. */
export class WaitFailedError extends Error {
  constructor(message: string) {
    super(`${RESOURCE_TYPE}: ${message}`);
    this.name = 'WaitFailedError';
  }
}

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
      throw new WaitFailedError(`could not read the state of file system ${fs}: ${describeError(error)}. `
        + 'Check that the file system exists and the waiter role may call s3files:ListMountTargets and s3files:GetAccessPoint.');
    }
    deps.log.warn('Transient error while polling; will retry on the next poll', { fileSystemId: fs, error: describeError(error) });
    if (timedOut) {
      throw new WaitFailedError(`timed out after ${props.timeoutSeconds} s waiting for file system ${fs}; `
        + `the last poll failed with ${describeError(error)}. Raise availabilityTimeout or retry the deployment.`);
    }
    return { IsComplete: false };
  }

  const verdict = evaluate(snapshot, props.expectedMountTargetCount);
  if (verdict.failed.length > 0) {
    throw new WaitFailedError(`file system ${fs}: ${verdict.failed.map(describeState).join('; ')} reported status "error". `
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
    throw new WaitFailedError(`timed out after ${props.timeoutSeconds} s waiting for file system ${fs}: ${missing}${notReady}. `
      + 'Mount targets usually take 3-5 minutes; raise availabilityTimeout or check the resources in the S3 console.');
  }
  deps.log.info('Waiting for mount targets and access points', summary);
  return { IsComplete: false };
}
