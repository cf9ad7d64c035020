import type { S3FilesClient } from '@aws-sdk/client-s3files';
import type { S3Sender } from './clients';
import { PropertyReader, show } from './properties';
import { ResourceError } from './resource-error';

export { ResourceError };

/** What the Provider framework hands onEvent (a CloudFormation custom resource request). */
export interface OnEventRequest {
  readonly RequestType: 'Create' | 'Update' | 'Delete';
  readonly ResourceType?: string;
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

export interface IsCompleteResult {
  readonly IsComplete: boolean;
}

/** The logging surface the handlers need (Powertools' Logger satisfies it). */
export interface WaitLogger {
  info(message: string, extra?: Record<string, unknown>): void;
  warn(message: string, extra?: Record<string, unknown>): void;
}

export interface OnEventDeps {
  readonly s3: S3Sender;
  /** Epoch ms; injected so timeouts can be tested without waiting. */
  readonly now: () => number;
  readonly log: WaitLogger;
}

export interface IsCompleteDeps {
  readonly client: S3FilesClient;
  readonly s3: S3Sender;
  readonly now: () => number;
  readonly log: WaitLogger;
  /** How long one poll may take before it answers "not yet" (default POLL_BUDGET_MS). */
  readonly budgetMs?: number;
  /** Logical ids of the stack's RETAIN file systems, from the handler's environment (see deletesOnDelete). */
  readonly retainedFileSystems?: ReadonlySet<string>;
}

/** One isComplete poll: the work, and the resource's own bound (past it, a poll over budget fails). */
export interface Poll {
  readonly work: Promise<IsCompleteResult>;
  readonly timeoutSeconds: number;
}

const REQUEST_TYPES = ['Create', 'Update', 'Delete'];

/**
 * One resource type of the provider (after aws-cdk's `custom-resource-handlers` ResourceHandler):
 * strict properties for Create/Update, lenient ones for Delete, a physical id, and the polls.
 */
export abstract class ResourceHandler<P> {
  constructor(public readonly resourceType: string) {}

  /** Properties parsed strictly: Create/Update fail naming the property, the value and the fix. */
  public parse(input: Record<string, unknown> | undefined): P {
    return this.read(new PropertyReader(this.resourceType, input ?? {}));
  }

  /**
   * Properties parsed leniently, for Delete: a Delete that throws would leave the stack stuck (e.g.
   * rolling back a Create that failed on bad properties), so unusable ones mean "do nothing".
   */
  public parseForDelete(input: Record<string, unknown> | undefined, log: WaitLogger): P | undefined {
    try {
      return this.parse(input);
    } catch (error) {
      log.warn(`${this.resourceType}: Delete with unusable properties; doing nothing`, { error: (error as Error).message });
      return undefined;
    }
  }

  public async onEvent(request: OnEventRequest, deps: OnEventDeps): Promise<OnEventResponse> {
    if (!REQUEST_TYPES.includes(request.RequestType)) {
      throw this.error(`unsupported RequestType ${JSON.stringify(request.RequestType)} (expected Create, Update or Delete).`);
    }
    const Data = { StartedAt: String(deps.now()) };
    if (request.RequestType === 'Delete') {
      const props = this.parseForDelete(request.ResourceProperties, deps.log);
      deps.log.info(`${this.resourceType}: Delete`, this.summary(props));
      return { PhysicalResourceId: request.PhysicalResourceId ?? (props ? this.physicalId(props) : 'none'), Data };
    }
    const props = this.parse(request.ResourceProperties);
    await this.beforePolls(props, deps);
    deps.log.info(`${this.resourceType}: ${request.RequestType}`, this.summary(props));
    return { PhysicalResourceId: this.physicalId(props), Data };
  }

  /** The poll this isComplete request needs, or undefined when it is complete at once. */
  public poll(request: IsCompleteRequest, deps: IsCompleteDeps): { startedAt: number; poll?: Poll } {
    const startedAt = this.startedAt(request.Data);
    if (request.RequestType === 'Delete') {
      return { startedAt, poll: this.pollDelete(this.parseForDelete(request.ResourceProperties, deps.log), deps, startedAt) };
    }
    return { startedAt, poll: this.pollCreateOrUpdate(this.parse(request.ResourceProperties), deps, startedAt) };
  }

  public error(message: string): ResourceError {
    return new ResourceError(this.resourceType, message);
  }

  /** Reads `Data.StartedAt` (epoch ms as a string) that onEvent handed to isComplete. */
  private startedAt(data: Record<string, unknown> | undefined): number {
    const raw = data?.StartedAt;
    const value = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : typeof raw === 'number' ? raw : NaN;
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw this.error(`isComplete needs Data.StartedAt (epoch ms) from onEvent, got ${show(raw)}.`);
    }
    return value;
  }

  protected abstract read(properties: PropertyReader): P;
  /** What a later Delete must name: a replacement's Delete then carries the old resource's id. */
  protected abstract physicalId(props: P): string;
  /** What onEvent logs about the request. */
  protected abstract summary(props: P | undefined): Record<string, unknown>;
  /** Work onEvent does for Create/Update before isComplete polls (the waiter's versioning check). */
  protected async beforePolls(_props: P, _deps: OnEventDeps): Promise<void> {}
  protected abstract pollCreateOrUpdate(props: P, deps: IsCompleteDeps, startedAt: number): Poll | undefined;
  protected abstract pollDelete(props: P | undefined, deps: IsCompleteDeps, startedAt: number): Poll | undefined;
}
