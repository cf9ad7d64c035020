import type { S3FilesClient } from '@aws-sdk/client-s3files';
import { parseProps, parseStartedAt } from './props';
import { IsCompleteRequest, propsForDelete } from './request';
import { checkAvailability, checkExportDrained, IsCompleteResult, WaitLogger } from './waiter';

export interface IsCompleteDeps {
  readonly client: S3FilesClient;
  readonly now: () => number;
  readonly log: WaitLogger;
}

export async function handleIsComplete(request: IsCompleteRequest, deps: IsCompleteDeps): Promise<IsCompleteResult> {
  if (request.RequestType === 'Delete') {
    const props = propsForDelete(request, deps.log);
    if (!props?.waitForExportOnDelete) return { IsComplete: true };
    return checkExportDrained(deps, props, parseStartedAt(request.Data));
  }
  const props = parseProps(request.ResourceProperties);
  return checkAvailability(deps, props, parseStartedAt(request.Data));
}
