/**
 * "Before" processor: the same job as processor-s3files, through the S3 API only.
 *
 * Steps per file: GetObject (streamed through the counter), PutObject `processed/<name>.meta.json`,
 * CopyObject to `processed/<name>`, then DeleteObject of the source, only after the copy and the
 * metadata succeeded, so a failure never loses a file. The copy and the delete name the exact
 * version that was read (versioned buckets), so an upload that lands mid-run is neither copied
 * unread nor hidden behind a delete marker. Needs s3:GetObject(Version), s3:PutObject,
 * s3:ListBucket and s3:DeleteObject(Version). Two invocations racing do idempotent work: both copy
 * the same version and write the same metadata, the key ends in processed/ once.
 */
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import {
  CopyObjectCommand, DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client, paginateListObjectsV2,
} from '@aws-sdk/client-s3';
import { s3Client } from '../shared/aws';
import {
  emptyTimings, errorMessage, FileError, intSetting, metaJson, ProcessorResult, requireEnv, roundTimings, timed,
} from '../shared/common';
import { encodeCopySource, unrepresentableKeyReason } from '../shared/names';
import { observability } from '../shared/observability';
import { keepSucceeded } from '../shared/pool';
import { TextStats, TextStatsCounter } from '../shared/text-stats';

/** S3 requests are independent HTTPS calls; 16 matches the file-system side so the comparison is fair. */
export const DEFAULT_CONCURRENCY = 16;
export const INBOX_PREFIX = 'inbox/';
export const PROCESSED_PREFIX = 'processed/';

export interface ProcessorEvent {
  readonly concurrency?: number;
}

export interface BucketProcessorOptions {
  readonly client: S3Client;
  readonly bucket: string;
  readonly concurrency: number;
  readonly log?: (message: string, extra: Record<string, unknown>) => void;
}

export async function handler(event?: ProcessorEvent | null): Promise<ProcessorResult> {
  const { logger, metrics } = observability('processor-s3api');
  const bucket = requireEnv('BUCKET_NAME');
  const concurrency = intSetting('concurrency (event.concurrency or env CONCURRENCY)',
    event?.concurrency, process.env.CONCURRENCY, DEFAULT_CONCURRENCY, 1, 1024);
  const result = await processBucket({
    client: s3Client(), bucket, concurrency, log: (message, extra) => logger.warn(message, extra),
  });
  metrics.addMetric('FilesProcessed', MetricUnit.Count, result.files);
  metrics.addMetric('FilesFailed', MetricUnit.Count, result.errors.length);
  metrics.publishStoredMetrics();
  logger.info('batch done', { files: result.files, errors: result.errors.length, timings: result.timings });
  return result;
}

interface Item {
  readonly name: string;
  readonly key: string;
  stats?: TextStats;
  versionId?: string;
}

export async function processBucket(opts: BucketProcessorOptions): Promise<ProcessorResult> {
  const t0 = performance.now();
  const timings = emptyTimings();
  const errors: FileError[] = [];
  const { client, bucket } = opts;
  const log = opts.log ?? (() => undefined);
  const fail = (name: string, error: string): void => {
    errors.push({ name, error });
    log('file not processed', { name, error });
  };

  const listed = await timed(timings, 'listMs', async () => {
    const items: Item[] = [];
    for await (const page of paginateListObjectsV2({ client }, { Bucket: bucket, Prefix: INBOX_PREFIX })) {
      for (const obj of page.Contents ?? []) {
        const name = obj.Key!.slice(INBOX_PREFIX.length);
        if (name === '') continue; // the "inbox/" folder marker itself
        const reason = unrepresentableKeyReason(name);
        if (reason) fail(name, `refused: ${reason}`);
        else items.push({ name, key: obj.Key! });
      }
    }
    return items;
  });

  const counted = await timed(timings, 'readMs', () =>
    keepSucceeded(listed, opts.concurrency, async (item) => {
      try {
        const res = await client.send(new GetObjectCommand({ Bucket: bucket, Key: item.key }));
        item.versionId = res.VersionId;
        const counter = new TextStatsCounter();
        const body = res.Body as Readable;
        try {
          for await (const chunk of body) {
            const c0 = performance.now();
            counter.update(chunk as Uint8Array);
            timings.processMs += performance.now() - c0;
          }
        } finally {
          body.destroy();
        }
        const c0 = performance.now();
        item.stats = counter.finish();
        timings.processMs += performance.now() - c0;
        return true;
      } catch (e) {
        fail(item.name, errorMessage(e));
        return false;
      }
    }));

  const withMeta = await timed(timings, 'writeMs', () =>
    keepSucceeded(counted, opts.concurrency, async (item) => {
      try {
        await client.send(new PutObjectCommand({
          Bucket: bucket,
          Key: `${PROCESSED_PREFIX}${item.name}.meta.json`,
          Body: metaJson({ name: item.name, ...item.stats! }),
          ContentType: 'application/json',
        }));
        return true;
      } catch (e) {
        fail(item.name, `writing metadata failed, left in inbox/: ${errorMessage(e)}`);
        return false;
      }
    }));

  const moved = await timed(timings, 'renameMs', async () => {
    const done = await keepSucceeded(withMeta, opts.concurrency, async (item) => {
      try {
        await client.send(new CopyObjectCommand({
          Bucket: bucket,
          Key: `${PROCESSED_PREFIX}${item.name}`,
          CopySource: encodeCopySource(bucket, item.key, item.versionId),
        }));
      } catch (e) {
        fail(item.name, `copy to processed/ failed, left in inbox/: ${errorMessage(e)}`);
        return false;
      }
      try {
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: item.key, VersionId: item.versionId }));
        return true;
      } catch (e) {
        fail(item.name, `copied to processed/ but deleting inbox/ failed (a later run processes it again): ${errorMessage(e)}`);
        return false;
      }
    });
    return done.length;
  });

  timings.totalMs = performance.now() - t0;
  return { files: moved, errors, timings: roundTimings(timings), concurrency: opts.concurrency };
}
