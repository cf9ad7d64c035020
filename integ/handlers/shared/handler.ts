/**
 * What both processors' Lambda handlers share: their settings, the timeout check, the deadlines
 * taken from the Lambda context, and the metrics and log line of each run.
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { assertTimeToWork, chunkDeadline, DeadlineContext, intSetting, ProcessorResult, readDeadline } from './common';
import { DEFAULT_LEASE_SECONDS } from './lease';
import { observability } from './observability';

export interface ProcessorEvent {
  /** Files processed in parallel (overrides env CONCURRENCY). */
  readonly concurrency?: number;
  /** Lease length in seconds (overrides env LEASE_SECONDS): a killed invocation's claims are taken over this long after its last heartbeat. */
  readonly leaseSeconds?: number;
}

/** What a processor needs from its handler for one run. */
export interface RunSettings {
  readonly concurrency: number;
  readonly leaseMs: number;
  /** Epoch ms after which no new chunk starts. */
  readonly deadline: number;
  /** Epoch ms after which no more bytes are read. */
  readonly readDeadline: number;
  /** Epoch ms at which Lambda stops the invocation (Infinity without a context). */
  readonly endsAt: number;
  readonly log: (message: string, extra: Record<string, unknown>) => void;
}

/** Runs one processor invocation: checks the timeout first, then publishes FilesProcessed/FilesFailed. */
export async function runProcessor(
  name: string, defaultConcurrency: number, event: ProcessorEvent | null | undefined, context: DeadlineContext | null | undefined,
  run: (settings: RunSettings) => Promise<ProcessorResult>,
): Promise<ProcessorResult> {
  const ctx = context ?? undefined;
  assertTimeToWork(name, ctx);
  const { logger, metrics } = observability(name);
  const now = Date.now();
  const result = await run({
    concurrency: intSetting('concurrency (event.concurrency or env CONCURRENCY)',
      event?.concurrency, process.env.CONCURRENCY, defaultConcurrency, 1, 1024),
    leaseMs: 1000 * intSetting('leaseSeconds (event.leaseSeconds or env LEASE_SECONDS)',
      event?.leaseSeconds, process.env.LEASE_SECONDS, DEFAULT_LEASE_SECONDS, 1, 3600),
    deadline: chunkDeadline(ctx, now),
    readDeadline: readDeadline(ctx, now),
    endsAt: ctx && typeof ctx.getRemainingTimeInMillis === 'function' ? now + ctx.getRemainingTimeInMillis() : Infinity,
    log: (message, extra) => logger.warn(message, extra),
  });
  metrics.addMetric('FilesProcessed', MetricUnit.Count, result.files);
  metrics.addMetric('FilesFailed', MetricUnit.Count, result.errors.length);
  metrics.publishStoredMetrics();
  logger.info('batch done', { files: result.files, errors: result.errors.length, timings: result.timings });
  return result;
}
