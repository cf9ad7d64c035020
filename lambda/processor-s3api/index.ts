/**
 * "Before" processor: the same job as processor-s3files, through the S3 API only.
 *
 * The inbox is listed with ListObjectVersions, so each key's current version and the versions
 * stored before it are known. Steps per file: GetObject of that current version (streamed through
 * the counter), PutObject `processed/<name>.meta.json`, CopyObject of that version to
 * `processed/<name>`, then one DeleteObjects of that version and every older one, only after the
 * copy and the metadata succeeded, so a failure never loses a file. Deleting only the version read
 * would let the previous upload become current again and be processed next run, overwriting the
 * newer result; a version uploaded during the run is neither copied unread nor deleted, so it is
 * processed next run. Needs s3:GetObject(Version), s3:PutObject, s3:ListBucket(Versions) and
 * s3:DeleteObject(Version). Two invocations racing do idempotent work: both copy
 * the same version and write the same metadata, the key ends in processed/ once.
 */
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import {
  CopyObjectCommand, DeleteObjectsCommand, GetObjectCommand, ListObjectVersionsCommand, PutObjectCommand, S3Client,
} from '@aws-sdk/client-s3';
import { s3Client } from '../shared/aws';
import {
  chunkDeadline, chunkSizeFor, chunksUntil, DeadlineContext, emptyTimings, errorMessage, FileError, intSetting, metaJson, ProcessorResult,
  requireEnv, roundTimings, timed,
} from '../shared/common';
import { encodeCopySource, inProgressNameReason, unrepresentableKeyReason } from '../shared/names';
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
  /** Clock for the deadline checks (default Date.now). */
  readonly now?: () => number;
  /** Epoch ms after which no new chunk starts (default: none). */
  readonly deadline?: number;
  readonly log?: (message: string, extra: Record<string, unknown>) => void;
}

export async function handler(event?: ProcessorEvent | null, context?: DeadlineContext): Promise<ProcessorResult> {
  const { logger, metrics } = observability('processor-s3api');
  const bucket = requireEnv('BUCKET_NAME');
  const concurrency = intSetting('concurrency (event.concurrency or env CONCURRENCY)',
    event?.concurrency, process.env.CONCURRENCY, DEFAULT_CONCURRENCY, 1, 1024);
  const result = await processBucket({
    client: s3Client(), bucket, concurrency, deadline: chunkDeadline(context ?? undefined), log: (message, extra) => logger.warn(message, extra),
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
  /** The current version when listed (undefined in an unversioned bucket: "null"). */
  readonly versionId?: string;
  /** Versions of the key stored before it, deleted with it. */
  readonly older: string[];
  stats?: TextStats;
}

/**
 * Every key under `prefix` with its current version and the versions stored before it. S3 lists a
 * key's versions newest first, across pages. Keys whose current version is a delete marker are skipped.
 */
export interface CurrentVersion {
  readonly key: string;
  /** Undefined in a bucket that never had versioning. */
  readonly versionId?: string;
  /** Versions stored before the current one. */
  readonly older: string[];
}

export async function listCurrentVersions(client: S3Client, bucket: string, prefix: string): Promise<CurrentVersion[]> {
  const byKey = new Map<string, { key: string; versionId?: string; older: string[]; deleted: boolean }>();
  let markers: { KeyMarker?: string; VersionIdMarker?: string } = {};
  for (;;) {
    const page = await client.send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: prefix, ...markers }));
    const entries = [
      ...(page.Versions ?? []).map((v) => ({ key: v.Key!, versionId: v.VersionId, latest: v.IsLatest === true, marker: false })),
      ...(page.DeleteMarkers ?? []).map((m) => ({ key: m.Key!, versionId: m.VersionId, latest: m.IsLatest === true, marker: true })),
    ];
    for (const e of entries) {
      let item = byKey.get(e.key);
      if (!item) byKey.set(e.key, item = { key: e.key, older: [], deleted: false });
      if (e.latest) {
        item.versionId = e.marker ? undefined : e.versionId;
        item.deleted = e.marker;
      }
    }
    // Versions (not markers) that are not the current one are the older ones.
    for (const v of page.Versions ?? []) {
      if (v.IsLatest !== true && v.VersionId) byKey.get(v.Key!)!.older.push(v.VersionId);
    }
    if (!page.IsTruncated) break;
    markers = { KeyMarker: page.NextKeyMarker, VersionIdMarker: page.NextVersionIdMarker };
  }
  return [...byKey.values()].filter((i) => !i.deleted).map(({ key, versionId, older }) => ({ key, versionId, older }));
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
    for (const { key, versionId, older } of await listCurrentVersions(client, bucket, INBOX_PREFIX)) {
      const name = key.slice(INBOX_PREFIX.length);
      if (name === '') continue; // the "inbox/" folder marker itself
      const reason = unrepresentableKeyReason(name);
      if (reason) fail(name, `refused: ${reason}`);
      // Skipped like on the mount (still being written), so both sides do the same job.
      else if (!inProgressNameReason(name)) items.push({ name, key, versionId, older });
    }
    return items;
  });

  // End to end in chunks (read -> write -> move), so a run that meets its deadline has finished
  // whole files instead of reading everything and moving nothing.
  let moved = 0;
  let deferred = 0;
  const batches = chunksUntil(listed, chunkSizeFor(opts.concurrency), opts.deadline ?? Infinity, opts.now ?? Date.now, (count) => {
    deferred = count;
    log('deadline near: leaving the rest for the next invocation', { deferred });
  });
  for (const batch of batches) {
    const counted = await timed(timings, 'readMs', () =>
      keepSucceeded(batch, opts.concurrency, async (item) => {
        try {
          const res = await client.send(new GetObjectCommand({ Bucket: bucket, Key: item.key, VersionId: item.versionId }));
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

    moved += await timed(timings, 'renameMs', async () => {
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
          // The version read and every older one, so none becomes current again. At most 1,000 per call.
          const versions = [item.versionId ?? 'null', ...item.older].map((VersionId) => ({ Key: item.key, VersionId }));
          for (let i = 0; i < versions.length; i += 1000) {
            const Objects = versions.slice(i, i + 1000);
            const res = await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects, Quiet: true } }));
            if (res.Errors?.length) throw new Error(`${res.Errors[0].Code}: ${res.Errors[0].Message}`);
          }
          return true;
        } catch (e) {
          fail(item.name, `copied to processed/ but deleting inbox/ failed (a later run processes it again): ${errorMessage(e)}`);
          return false;
        }
      });
      return done.length;
    });
  }

  timings.totalMs = performance.now() - t0;
  return { files: moved, errors, timings: roundTimings(timings), concurrency: opts.concurrency, ...(deferred ? { deferred } : {}) };
}
