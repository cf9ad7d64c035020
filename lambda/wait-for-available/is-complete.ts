import type { S3Client } from '@aws-sdk/client-s3';
import type { S3FilesClient } from '@aws-sdk/client-s3files';
import { BucketCleanerError, cleanerDelete, cleanerPropsForDelete, CLEANER_RESOURCE_TYPE } from './bucket-cleaner';
import { OVER_BUDGET, POLL_BUDGET_MS, withinBudget } from './clients';
import { DeleteGuardError, deletesOnDelete, GUARD_RESOURCE_TYPE, guardDelete, guardPropsForDelete } from './delete-guard';
import { parseProps, parseStartedAt } from './props';
import type { IsCompleteRequest } from './request';
import { checkAvailability, IsCompleteResult, WaitFailedError, WaitLogger } from './waiter';

export interface IsCompleteDeps {
  readonly client: S3FilesClient;
  readonly s3: S3Client;
  readonly now: () => number;
  readonly log: WaitLogger;
  /** How long one poll may take before it answers "not yet" (default POLL_BUDGET_MS). */
  readonly budgetMs?: number;
  /** Logical ids of the stack's RETAIN file systems, from the handler's environment (see deletesOnDelete). */
  readonly retainedFileSystems?: ReadonlySet<string>;
}

/** One provider serves three resource types: the availability waiter, the delete guard and the bucket cleaner. */
export async function handleIsComplete(request: IsCompleteRequest, deps: IsCompleteDeps): Promise<IsCompleteResult> {
  const startedAt = parseStartedAt(request.Data);
  let timeoutSeconds: number;
  let work: Promise<IsCompleteResult>;
  if (request.ResourceType === GUARD_RESOURCE_TYPE) {
    // Create/Update of the guard do nothing; only its Delete acts.
    if (request.RequestType !== 'Delete') return { IsComplete: true };
    const props = guardPropsForDelete(request.ResourceProperties, deps.log);
    if (!deletesOnDelete(props, deps.retainedFileSystems ?? new Set(), deps.log)) return { IsComplete: true };
    timeoutSeconds = props.totalTimeoutSeconds;
    work = guardDelete(deps, props, startedAt);
  } else if (request.ResourceType === CLEANER_RESOURCE_TYPE) {
    // Only its Delete acts, and only with DESTROY.
    if (request.RequestType !== 'Delete') return { IsComplete: true };
    const props = cleanerPropsForDelete(request.ResourceProperties, deps.log);
    if (!props?.emptyOnDelete) return { IsComplete: true };
    timeoutSeconds = props.totalTimeoutSeconds;
    work = cleanerDelete(deps, props, startedAt);
  } else {
    // The waiter has nothing to do on Delete: the delete guard protects unexported writes.
    if (request.RequestType === 'Delete') return { IsComplete: true };
    const props = parseProps(request.ResourceProperties);
    timeoutSeconds = props.timeoutSeconds;
    work = checkAvailability(deps, props, startedAt);
  }
  // A poll that outlives Lambda's 60 s would fail the deployment at once: answer "not yet" instead,
  // unless the resource's own time is up.
  const result = await withinBudget(work, deps.budgetMs ?? POLL_BUDGET_MS);
  if (result !== OVER_BUDGET) return result;
  work.catch(() => undefined);
  const elapsedSeconds = Math.round((deps.now() - startedAt) / 1000);
  if (elapsedSeconds >= timeoutSeconds) {
    const message = `gave up after ${elapsedSeconds} s (limit ${timeoutSeconds} s): the S3 Files or S3 API did not answer `
      + 'within a poll. Check the service health and the handler logs, then retry.';
    throw request.ResourceType === GUARD_RESOURCE_TYPE ? new DeleteGuardError(message)
      : request.ResourceType === CLEANER_RESOURCE_TYPE ? new BucketCleanerError(message) : new WaitFailedError(message);
  }
  deps.log.warn('The service did not answer within this poll; trying again on the next one', { elapsedSeconds, budgetMs: deps.budgetMs ?? POLL_BUDGET_MS });
  return { IsComplete: false };
}
