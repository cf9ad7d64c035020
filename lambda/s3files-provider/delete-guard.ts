import {
  DeleteFileSystemCommand, GetFileSystemCommand, paginateListAccessPoints, paginateListMountTargets,
  S3FilesClient,
} from '@aws-sdk/client-s3files';
import { PropertyReader, show } from './properties';
import { IsCompleteDeps, IsCompleteResult, Poll, ResourceHandler, WaitLogger } from './resource-handler';
import { describeError, isNotFound, isTransient } from './sdk-errors';
import { readFileSystemId } from './waiter';
import {
  DELETE_GUARD_RESOURCE_TYPE, DELETE_TIMEOUT_SECONDS, GUARD_TOTAL_SECONDS,
} from '../../src/private/provider/custom-resource-contract';
export { RETAINED_FILE_SYSTEMS_ENV } from '../../src/private/provider/custom-resource-contract';

/**
 * `Custom::S3FilesDeleteGuard`: sits between a file system and everything that uses it (mount
 * targets, access points, policy). On deletion it runs after those are gone and, for
 * RemovalPolicy.DESTROY, deletes the file system itself without forceDelete, retrying while the
 * service refuses because writes are still pending export to S3. Create and Update only validate.
 * Properties of older versions (`BucketArn`, `EmptyBucket`) are ignored: it never empties a bucket.
 */

/** Default bound on the export wait: thirty export cycles of ~60 s. */
export const DEFAULT_GUARD_TIMEOUT_SECONDS = DELETE_TIMEOUT_SECONDS;
/** Default bound on the whole Delete (export wait, detachment): inside CloudFormation's hour. */
export const DEFAULT_GUARD_TOTAL_SECONDS = GUARD_TOTAL_SECONDS;
/**
 * Mount targets or access points that are not being deleted block the deletion. The stack deletes
 * its own before the guard runs, so after this grace the remaining ones were made outside the stack.
 */
export const BLOCKER_GRACE_SECONDS = 120;

export interface DeleteGuardProps {
  readonly fileSystemId: string;
  /** "true" only for RemovalPolicy.DESTROY; with RETAIN the guard never deletes anything. */
  readonly deleteFileSystem: boolean;
  /**
   * The logical id of its file system in the stack. A guard removed in an update's cleanup holds its
   * old properties; if the file system of that logical id is RETAIN now (listed in the handler's
   * environment, which the update already changed), the guard keeps the old file system.
   */
  readonly fileSystemLogicalId?: string;
  readonly deleteTimeoutSeconds: number;
  readonly totalTimeoutSeconds: number;
}

/** The guard only talks to S3 Files. */
export interface GuardDeps {
  readonly client: S3FilesClient;
  readonly now: () => number;
  readonly log: WaitLogger;
}

class DeleteGuardHandler extends ResourceHandler<DeleteGuardProps> {
  constructor() {
    super(DELETE_GUARD_RESOURCE_TYPE);
  }

  protected read(properties: PropertyReader): DeleteGuardProps {
    const fileSystemId = readFileSystemId(properties);
    const logicalId = properties.raw('FileSystemLogicalId');
    if (logicalId !== undefined && (typeof logicalId !== 'string' || !/^[A-Za-z0-9]{1,255}$/.test(logicalId))) {
      properties.fail(`"FileSystemLogicalId" must be a CloudFormation logical id (letters and digits), got ${show(logicalId)}.`);
    }
    return {
      fileSystemId,
      deleteFileSystem: properties.boolean('DeleteFileSystem'),
      fileSystemLogicalId: logicalId,
      deleteTimeoutSeconds: properties.seconds('DeleteTimeoutSeconds', DEFAULT_GUARD_TIMEOUT_SECONDS),
      totalTimeoutSeconds: properties.seconds('TotalTimeoutSeconds', DEFAULT_GUARD_TOTAL_SECONDS),
    };
  }

  /**
   * The file system id: when the file system is replaced, CloudFormation later sends Delete for the
   * old id with the old properties, so the old file system is guarded too.
   */
  protected physicalId(props: DeleteGuardProps): string {
    return props.fileSystemId;
  }

  protected summary(props: DeleteGuardProps | undefined): Record<string, unknown> {
    return { fileSystemId: props?.fileSystemId, deleteFileSystem: props?.deleteFileSystem ?? false };
  }

  /** Create and Update do nothing once the properties are valid. */
  protected pollCreateOrUpdate(): undefined {
    return undefined;
  }

  protected pollDelete(props: DeleteGuardProps | undefined, deps: IsCompleteDeps, startedAt: number): Poll | undefined {
    if (!deletesOnDelete(props, deps.retainedFileSystems ?? new Set(), deps.log)) return undefined;
    return { work: guardDelete(deps, props, startedAt), timeoutSeconds: props.totalTimeoutSeconds };
  }
}

export const DELETE_GUARD = new DeleteGuardHandler();

/** Fails the stack deletion; the message is what CloudFormation shows. */
const guardFailed = (message: string) => DELETE_GUARD.error(message);

/** The logical ids in the handler's `RETAINED_FILE_SYSTEMS_ENV` variable. */
export function parseRetainedFileSystems(value: string | undefined): ReadonlySet<string> {
  return new Set((value ?? '').split(',').map((id) => id.trim()).filter((id) => id !== ''));
}

/**
 * Whether this Delete deletes the file system: only for a guard whose properties say DESTROY, and not
 * when its file system (by logical id) is RETAIN in the stack's current template: switching to RETAIN
 * in the same deployment as a replacement removes the old guard with its old DESTROY properties.
 */
export function deletesOnDelete(props: DeleteGuardProps | undefined, retained: ReadonlySet<string>, log: WaitLogger): props is DeleteGuardProps {
  if (!props?.deleteFileSystem) return false;
  if (props.fileSystemLogicalId !== undefined && retained.has(props.fileSystemLogicalId)) {
    log.info('Delete guard: the file system of this logical id is RETAIN now, so this file system is kept', {
      fileSystemId: props.fileSystemId, fileSystemLogicalId: props.fileSystemLogicalId,
    });
    return false;
  }
  return true;
}

function isConflict(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'ConflictException' || e?.$metadata?.httpStatusCode === 409;
}

/** The service's "FileSystemHasPendingExport" refusal of DeleteFileSystem (409). */
export function isPendingExport(error: unknown): boolean {
  const e = error as { errorCode?: string; message?: string };
  return isConflict(error) && (e?.errorCode === 'FileSystemHasPendingExport' || /pending export/i.test(e?.message ?? ''));
}

/** Mount targets and access points of the file system that are not on their way out. */
export async function findBlockers(client: S3FilesClient, fileSystemId: string): Promise<string[]> {
  const leaving = new Set(['deleting', 'deleted']);
  const blockers: string[] = [];
  for await (const page of paginateListMountTargets({ client, pageSize: 100 }, { fileSystemId })) {
    for (const mt of page.mountTargets ?? []) {
      if (!leaving.has(mt.status ?? '')) blockers.push(`mount target ${mt.mountTargetId} (${mt.status}${mt.subnetId ? `, subnet ${mt.subnetId}` : ''})`);
    }
  }
  for await (const page of paginateListAccessPoints({ client, pageSize: 100 }, { fileSystemId })) {
    for (const ap of page.accessPoints ?? []) {
      if (!leaving.has(ap.status ?? '')) blockers.push(`access point ${ap.accessPointId} (${ap.status})`);
    }
  }
  return blockers;
}

type Step = { readonly done: true } | { readonly done: false; readonly reason: string; readonly pendingExport?: boolean };

/** Deletes the file system (never forceDelete); done once it is gone. */
async function deleteFileSystemStep(deps: GuardDeps, props: DeleteGuardProps, elapsedMs: number): Promise<Step> {
  const fs = props.fileSystemId;
  try {
    const current = await deps.client.send(new GetFileSystemCommand({ fileSystemId: fs }));
    if (current.status === 'deleted') return { done: true };
    if (current.status === 'deleting') return { done: false, reason: 'the file system is still being deleted' };
    await deps.client.send(new DeleteFileSystemCommand({ fileSystemId: fs }));
    deps.log.info('DeleteFileSystem accepted: no export pending', { fileSystemId: fs, elapsedSeconds: Math.round(elapsedMs / 1000) });
    return { done: false, reason: 'the deletion was accepted and is in progress' };
  } catch (error) {
    if (isNotFound(error)) return { done: true };
    if (isPendingExport(error)) {
      return { done: false, pendingExport: true, reason: `the service reports data pending export to S3 (${describeError(error)})` };
    }
    if (isConflict(error)) return conflictStep(deps, props, error, elapsedMs);
    if (isTransient(error)) return { done: false, reason: `the last call failed with ${describeError(error)}` };
    throw guardFailed(`could not delete file system ${fs}: ${describeError(error)}. The file system is kept, `
      + 'so no unexported write is lost. Check that the delete guard\'s policy (on the waiter\'s isComplete role) allows '
      + 's3files:GetFileSystem and s3files:DeleteFileSystem on it, then retry the stack deletion.');
  }
}

/** A conflict that is not about exports: say what blocks, and stop waiting for what will not go away. */
async function conflictStep(deps: GuardDeps, props: DeleteGuardProps, error: unknown, elapsedMs: number): Promise<Step> {
  const fs = props.fileSystemId;
  let blockers: string[];
  try {
    blockers = await findBlockers(deps.client, fs);
  } catch (listError) {
    if (!isTransient(listError)) throw listError;
    return { done: false, reason: `the service refused the deletion for now (${describeError(error)})` };
  }
  if (blockers.length === 0) {
    return { done: false, reason: `the service refused the deletion for now (${describeError(error)}); its mount targets and access points are on their way out` };
  }
  if (elapsedMs >= BLOCKER_GRACE_SECONDS * 1000) {
    throw guardFailed(`file system ${fs} cannot be deleted: it still has ${blockers.join('; ')}. This stack deletes its own `
      + 'mount targets and access points before this guard runs, so these were created outside it. Nothing was deleted. '
      + 'To finish: delete them (aws s3files delete-mount-target / delete-access-point), then retry the stack deletion.');
  }
  return { done: false, reason: `the service refused the deletion: the file system still has ${blockers.join('; ')}` };
}

/**
 * One poll of the guard's Delete (DESTROY). Deletes the file system, retrying while exports are
 * pending (up to `deleteTimeoutSeconds`). It never touches the bucket: emptying a created bucket
 * belongs to the bucket's own deletion (the bucket cleaner), never to a file system's.
 */
export async function guardDelete(deps: GuardDeps, props: DeleteGuardProps, startedAtMs: number): Promise<IsCompleteResult> {
  const fs = props.fileSystemId;
  const elapsedMs = deps.now() - startedAtMs;
  const elapsed = Math.round(elapsedMs / 1000);
  const deleted = await deleteFileSystemStep(deps, props, elapsedMs);
  if (!deleted.done) {
    // Pending exports are waited for up to deleteTimeoutSeconds; a deletion under way, up to the whole Delete.
    const limit = deleted.pendingExport ? Math.min(props.deleteTimeoutSeconds, props.totalTimeoutSeconds) : props.totalTimeoutSeconds;
    if (elapsedMs >= limit * 1000) {
      const finish = deleted.pendingExport
        ? 'To finish: retry the stack deletion later (the PendingExports metric falling to 0 is a hint, not a promise, that the export is done). To discard the unexported '
          + `writes instead, delete it yourself with forceDelete (aws s3files delete-file-system --file-system-id ${fs} --force-delete) and retry.`
        : 'To finish: check the file system in the S3 console, then retry the stack deletion.';
      throw guardFailed(`file system ${fs} is still not deleted after waiting ${elapsed} s (limit ${limit} s): ${deleted.reason}. `
        + `Nothing was force-deleted, so no unexported write is lost. ${finish}`);
    }
    deps.log.info('Waiting to delete the file system', { fileSystemId: fs, elapsedSeconds: elapsed, reason: deleted.reason });
    return { IsComplete: false };
  }
  deps.log.info('File system deleted', { fileSystemId: fs, elapsedSeconds: elapsed });
  return { IsComplete: true };
}
