import { BUCKET_CLEANER } from './bucket-cleaner';
import { OVER_BUDGET, POLL_BUDGET_MS, withinBudget } from './clients';
import { DELETE_GUARD } from './delete-guard';
import {
  IsCompleteDeps, IsCompleteRequest, IsCompleteResult, OnEventDeps, OnEventRequest, OnEventResponse, ResourceHandler,
} from './resource-handler';
import { WAITER } from './waiter';

/**
 * The provider serves three resource types, each with its own handler (after aws-cdk's
 * `custom-resource-handlers/lib/aws-eks/cluster-resource-handler`): the availability waiter, the
 * delete guard and the bucket cleaner. A type not in this table is an error, never the waiter.
 */
const HANDLERS: ReadonlyMap<string, ResourceHandler<unknown>> = new Map(
  [WAITER, DELETE_GUARD, BUCKET_CLEANER].map((h): [string, ResourceHandler<unknown>] => [h.resourceType, h]),
);

export function handlerFor(resourceType: unknown): ResourceHandler<unknown> {
  const handler = typeof resourceType === 'string' ? HANDLERS.get(resourceType) : undefined;
  if (!handler) {
    throw new Error(`Unsupported resource type ${JSON.stringify(resourceType)}: this provider serves ${[...HANDLERS.keys()].join(', ')}.`);
  }
  return handler;
}

export async function handleOnEvent(request: OnEventRequest, deps: OnEventDeps): Promise<OnEventResponse> {
  return handlerFor(request.ResourceType).onEvent(request, deps);
}

export async function handleIsComplete(request: IsCompleteRequest, deps: IsCompleteDeps): Promise<IsCompleteResult> {
  const handler = handlerFor(request.ResourceType);
  const { startedAt, poll } = handler.poll(request, deps);
  if (!poll) return { IsComplete: true };
  // A poll that outlives Lambda's 60 s would fail the deployment at once: answer "not yet" instead,
  // unless the resource's own time is up.
  const budgetMs = deps.budgetMs ?? POLL_BUDGET_MS;
  const result = await withinBudget(poll.work, budgetMs);
  if (result !== OVER_BUDGET) return result;
  poll.work.catch(() => undefined);
  const elapsedSeconds = Math.round((deps.now() - startedAt) / 1000);
  if (elapsedSeconds >= poll.timeoutSeconds) {
    throw handler.error(`gave up after ${elapsedSeconds} s (limit ${poll.timeoutSeconds} s): the S3 Files or S3 API did not answer `
      + 'within a poll. Check the service health and the handler logs, then retry.');
  }
  deps.log.warn('The service did not answer within this poll; trying again on the next one', { elapsedSeconds, budgetMs });
  return { IsComplete: false };
}
