import { DeleteFileSystemCommand, GetFileSystemCommand } from '@aws-sdk/client-s3files';
import { describeError, isNotFound, isTransient } from './errors';
import { InvalidPropertyError, MAX_TIMEOUT_SECONDS, show } from './props';
import type { IsCompleteResult, WaiterDeps, WaitLogger } from './waiter';

/**
 * `Custom::S3FilesDeleteGuard`: sits between a file system and everything that uses it (mount
 * targets, access points, policy). On stack deletion it runs after those are gone and deletes the
 * file system itself, without forceDelete, retrying while the service refuses because writes are
 * still pending export to S3. CloudFormation's own delete of the file system then finds it gone.
 */
export const GUARD_RESOURCE_TYPE = 'Custom::S3FilesDeleteGuard';

/** Default bound on the wait: thirty export cycles of ~60 s. */
export const DEFAULT_GUARD_TIMEOUT_SECONDS = 1800;

export interface DeleteGuardProps {
  readonly fileSystemId: string;
  /** "true" only for RemovalPolicy.DESTROY; with RETAIN the guard never deletes anything. */
  readonly deleteFileSystem: boolean;
  readonly deleteTimeoutSeconds: number;
}

/** Fails the stack deletion; the message is what CloudFormation shows. */
export class DeleteGuardError extends Error {
  constructor(message: string) {
    super(`${GUARD_RESOURCE_TYPE}: ${message}`);
    this.name = 'DeleteGuardError';
  }
}

/** Strict parse (Create/Update): bad properties fail the deployment with the property named. */
export function parseGuardProps(input: Record<string, unknown> | undefined): DeleteGuardProps {
  const props = input ?? {};
  const fs = props.FileSystemId;
  if (typeof fs !== 'string' || fs.trim() === '') {
    throw new InvalidPropertyError(`"FileSystemId" is required by ${GUARD_RESOURCE_TYPE}, got ${show(fs)}.`);
  }
  const flag = props.DeleteFileSystem;
  if (flag !== undefined && flag !== 'true' && flag !== 'false' && flag !== true && flag !== false) {
    throw new InvalidPropertyError(`"DeleteFileSystem" must be "true" or "false", got ${show(flag)}.`);
  }
  const rawTimeout = props.DeleteTimeoutSeconds;
  let timeout = DEFAULT_GUARD_TIMEOUT_SECONDS;
  if (rawTimeout !== undefined && rawTimeout !== '') {
    const text = String(rawTimeout).trim();
    timeout = /^\d+$/.test(text) ? Number(text) : NaN;
    if (!Number.isSafeInteger(timeout) || timeout < 1 || timeout > MAX_TIMEOUT_SECONDS) {
      throw new InvalidPropertyError(`"DeleteTimeoutSeconds" must be a whole number between 1 and ${MAX_TIMEOUT_SECONDS}, got ${show(rawTimeout)}.`);
    }
  }
  return { fileSystemId: fs.trim(), deleteFileSystem: flag === 'true' || flag === true, deleteTimeoutSeconds: timeout };
}

/**
 * Lenient parse for Delete: a Delete that throws on its own properties would leave the stack stuck,
 * so unusable properties mean "delete nothing" (CloudFormation's delete of the file system still
 * runs and fails loudly if exports are pending).
 */
export function guardPropsForDelete(input: Record<string, unknown> | undefined, log: WaitLogger): DeleteGuardProps | undefined {
  try {
    return parseGuardProps(input);
  } catch (error) {
    log.warn('Delete guard with unusable properties: leaving the file system to CloudFormation', { error: (error as Error).message });
    return undefined;
  }
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

/**
 * One poll of the guard's Delete. Done when the file system is gone (404 or `deleted`). Otherwise
 * asks for the deletion (never forceDelete) and waits while the service refuses with a conflict
 * (pending export, or a mount target still on its way out) or is briefly unavailable. Fails, keeping
 * the file system, after `deleteTimeoutSeconds` or on a non-retryable error.
 */
export async function deleteWhenExported(deps: WaiterDeps, props: DeleteGuardProps, startedAtMs: number): Promise<IsCompleteResult> {
  const fs = props.fileSystemId;
  const elapsedMs = deps.now() - startedAtMs;
  let reason: string;
  try {
    const current = await deps.client.send(new GetFileSystemCommand({ fileSystemId: fs }));
    if (current.status === 'deleted') {
      deps.log.info('File system deleted', { fileSystemId: fs });
      return { IsComplete: true };
    }
    if (current.status === 'deleting') {
      reason = 'the file system is still being deleted';
    } else {
      await deps.client.send(new DeleteFileSystemCommand({ fileSystemId: fs }));
      deps.log.info('DeleteFileSystem accepted: no export pending', { fileSystemId: fs, elapsedSeconds: Math.round(elapsedMs / 1000) });
      reason = 'the deletion was accepted and is in progress';
    }
  } catch (error) {
    if (isNotFound(error)) {
      deps.log.info('File system no longer exists', { fileSystemId: fs });
      return { IsComplete: true };
    }
    if (isPendingExport(error)) {
      reason = `the service reports data pending export to S3 (${describeError(error)})`;
    } else if (isConflict(error)) {
      reason = `the service refused the deletion for now (${describeError(error)})`;
    } else if (isTransient(error)) {
      reason = `the last call failed with ${describeError(error)}`;
    } else {
      throw new DeleteGuardError(`could not delete file system ${fs}: ${describeError(error)}. The file system is kept, `
        + 'so no unexported write is lost. Check that the waiter role may call s3files:GetFileSystem and '
        + 's3files:DeleteFileSystem on it, then retry the stack deletion.');
    }
  }
  if (elapsedMs >= props.deleteTimeoutSeconds * 1000) {
    throw new DeleteGuardError(`file system ${fs} is still not deleted after waiting ${Math.round(elapsedMs / 1000)} s `
      + `(limit ${props.deleteTimeoutSeconds} s): ${reason}. Nothing was force-deleted, so no unexported write is lost. `
      + 'To finish: wait until its PendingExports metric is 0, then retry the stack deletion. To discard the unexported '
      + `writes instead, delete it yourself with forceDelete (aws s3files delete-file-system --file-system-id ${fs} --force-delete) and retry.`);
  }
  deps.log.info('Waiting to delete the file system', { fileSystemId: fs, elapsedSeconds: Math.round(elapsedMs / 1000), reason });
  return { IsComplete: false };
}
