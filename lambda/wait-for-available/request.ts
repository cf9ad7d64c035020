import { parseProps, WaitForAvailableProps } from './props';
import type { WaitLogger } from './waiter';

/** What the Provider framework hands onEvent (a CloudFormation custom resource request). */
export interface OnEventRequest {
  readonly RequestType: 'Create' | 'Update' | 'Delete';
  readonly ResourceProperties?: Record<string, unknown>;
  readonly PhysicalResourceId?: string;
  readonly [key: string]: unknown;
}

export interface OnEventResponse {
  readonly PhysicalResourceId: string;
  readonly Data: { readonly StartedAt: string };
}

/** isComplete receives the request merged with onEvent's response. */
export interface IsCompleteRequest extends OnEventRequest {
  readonly Data?: Record<string, unknown>;
}

/**
 * Props on Delete are parsed leniently: a Delete that throws would leave the stack stuck
 * (e.g. rolling back a Create that failed on bad props), so bad props mean "no wait".
 */
export function propsForDelete(request: OnEventRequest, log: WaitLogger): WaitForAvailableProps | undefined {
  try {
    return parseProps(request.ResourceProperties);
  } catch (error) {
    log.warn('Delete with unusable properties', { error: (error as Error).message });
    return undefined;
  }
}

