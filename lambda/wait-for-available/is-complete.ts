import type { S3FilesClient } from '@aws-sdk/client-s3files';
import { deleteWhenExported, GUARD_RESOURCE_TYPE, guardPropsForDelete } from './delete-guard';
import { parseProps, parseStartedAt } from './props';
import type { IsCompleteRequest } from './request';
import { checkAvailability, IsCompleteResult, WaitLogger } from './waiter';

export interface IsCompleteDeps {
  readonly client: S3FilesClient;
  readonly now: () => number;
  readonly log: WaitLogger;
}

/** One provider serves two resource types: the availability waiter and the delete guard. */
export async function handleIsComplete(request: IsCompleteRequest, deps: IsCompleteDeps): Promise<IsCompleteResult> {
  if (request.ResourceType === GUARD_RESOURCE_TYPE) {
    // Create/Update of the guard do nothing; only its Delete acts.
    if (request.RequestType !== 'Delete') return { IsComplete: true };
    const props = guardPropsForDelete(request.ResourceProperties, deps.log);
    if (!props?.deleteFileSystem) return { IsComplete: true };
    return deleteWhenExported(deps, props, parseStartedAt(request.Data));
  }
  // The waiter has nothing to do on Delete: the delete guard protects unexported writes.
  if (request.RequestType === 'Delete') return { IsComplete: true };
  const props = parseProps(request.ResourceProperties);
  return checkAvailability(deps, props, parseStartedAt(request.Data));
}
