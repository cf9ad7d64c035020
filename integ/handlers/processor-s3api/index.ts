/**
 * "Before" processor: the same job as processor-s3files, through the S3 API only.
 *
 * Layout in the bucket: `inbox/<name>` (new objects); `processing/<name>` (claim markers) and
 * `processing/.leases/<claim>` (one heartbeat object per invocation); `processed/<name>/<name>`
 * (the data) and `processed/<name>/<name>.meta.json`.
 *
 * Steps, a chunk at a time (at most a chunk's count and bytes) while the inbox is listed page by
 * page with ListObjectVersions (so each key's current version and the versions stored before it are
 * known, and memory does not grow with the inbox; keys come URL-encoded, `EncodingType=url`, so a
 * key holding characters XML 1.0 cannot carry, such as `\r`, comes back exactly):
 * 1. claim the name: PutObject `processing/<name>` with `If-None-Match: *`; exactly one invocation
 *    wins. A marker whose owner's lease expired (by S3's clock, see ../shared/lease.ts) is taken
 *    over with `If-Match: <its ETag>`, again by exactly one invocation. A name another live
 *    invocation holds is skipped, not counted and not reported as an error;
 * 2. GetObject of the listed version, streamed through the counter (if that version is gone,
 *    another invocation processed it meanwhile: skipped); at the read deadline the read stops,
 *    even mid-object, and the object is left for the next run;
 * 3. copy that version to `processed/<name>/<name>` (in parts above 5 GiB, CopyObject's limit),
 *    stamped with `x-amz-meta-source-version-id`, then PutObject the metadata naming the same
 *    source version. Before each of these writes the invocation checks that it still holds the
 *    claim (a HeadObject of its marker with `If-Match`), and each write is conditional (`If-Match`
 *    on the ETag it saw, or `If-None-Match: *`), so a writer whose requests stalled past a takeover
 *    cannot overwrite the newer result: its late write fails with 412 and it stops;
 * 4. DeleteObjects of that version and every older one (deleting only the version read would let
 *    the previous upload become current again and be processed next run over the newer result);
 *    a version uploaded during the run is neither copied unread nor deleted;
 * 5. delete the claim marker's versions (after checking the claim once more, so a writer that lost
 *    it neither deletes nor counts). A failure leaves the object in the inbox and is reported.
 * Needs s3:GetObject(Version), s3:PutObject, s3:ListBucket(Versions), s3:DeleteObject(Version) and
 * s3:AbortMultipartUpload on these prefixes.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import {
  AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CopyObjectCommand, CreateMultipartUploadCommand, DeleteObjectCommand,
  DeleteObjectsCommand, GetObjectCommand, HeadObjectCommand, ListObjectVersionsCommand, PutObjectCommand, S3Client, UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
import { s3Client } from '../shared/aws';
import {
  chunkDeadline, chunkSizeFor, DeadlineContext, DEFAULT_CHUNK_BYTES, emptyTimings, errorMessage, FileError, intSetting, metaJson, OutOfTime,
  ProcessorResult, readDeadline, requireEnv, roundTimings, timed, whenSet, workInChunks,
} from '../shared/common';
import { DEFAULT_LEASE_SECONDS, Lease, LeaseLost, LeaseStore, parseLeaseRecord } from '../shared/lease';
import { encodeCopySource, inProgressNameReason, unrepresentableKeyReason } from '../shared/names';
import { observability } from '../shared/observability';
import { keepSucceeded, mapPool } from '../shared/pool';
import { TextStats, TextStatsCounter } from '../shared/text-stats';

/** S3 requests are independent HTTPS calls; 16 matches the file-system side so the comparison is fair. */
export const DEFAULT_CONCURRENCY = 16;
export const INBOX_PREFIX = 'inbox/';
export const PROCESSING_PREFIX = 'processing/';
export const LEASES_PREFIX = 'processing/.leases/';
export const PROCESSED_PREFIX = 'processed/';
/** CopyObject copies at most 5 GiB; larger objects are copied with UploadPartCopy. */
export const MAX_COPY_OBJECT_BYTES = 5 * 1024 ** 3;
export const DEFAULT_COPY_PART_BYTES = 512 * 1024 ** 2;
const MAX_PARTS = 10_000;
const MAX_PART_BYTES = 5 * 1024 ** 3;

export interface ProcessorEvent {
  readonly concurrency?: number;
  /** Lease length in seconds (overrides env LEASE_SECONDS). */
  readonly leaseSeconds?: number;
}

export interface BucketProcessorOptions {
  readonly client: S3Client;
  readonly bucket: string;
  readonly concurrency: number;
  /** Lease length (default 30 s). */
  readonly leaseMs?: number;
  /** Keys per ListObjectVersions page (default 1000, S3's maximum). */
  readonly listPageSize?: number;
  /** Objects larger than this are copied in parts (default 5 GiB, CopyObject's limit). */
  readonly multipartCopyThresholdBytes?: number;
  /** Part size of those copies (default 512 MiB; raised when 10,000 parts would not cover the object). */
  readonly copyPartBytes?: number;
  /** Clock for the deadline checks (default Date.now). */
  readonly now?: () => number;
  /** Epoch ms after which no new chunk starts (default: none). */
  readonly deadline?: number;
  /** Epoch ms after which no more bytes are read: objects still being read are left for the next run (default: none). */
  readonly readDeadline?: number;
  /** Bytes per chunk (default 256 MiB). */
  readonly chunkBytes?: number;
  /** How many times a result write is retried after another writer changed the result (default 3). */
  readonly publishAttempts?: number;
  readonly log?: (message: string, extra: Record<string, unknown>) => void;
}

export async function handler(event?: ProcessorEvent | null, context?: DeadlineContext): Promise<ProcessorResult> {
  const { logger, metrics } = observability('processor-s3api');
  const bucket = requireEnv('BUCKET_NAME');
  const concurrency = intSetting('concurrency (event.concurrency or env CONCURRENCY)',
    event?.concurrency, process.env.CONCURRENCY, DEFAULT_CONCURRENCY, 1, 1024);
  const leaseSeconds = intSetting('leaseSeconds (event.leaseSeconds or env LEASE_SECONDS)',
    event?.leaseSeconds, process.env.LEASE_SECONDS, DEFAULT_LEASE_SECONDS, 1, 3600);
  const result = await processBucket({
    client: s3Client(),
    bucket,
    concurrency,
    leaseMs: leaseSeconds * 1000,
    deadline: chunkDeadline(context ?? undefined),
    readDeadline: readDeadline(context ?? undefined),
    log: (message, extra) => logger.warn(message, extra),
  });
  metrics.addMetric('FilesProcessed', MetricUnit.Count, result.files);
  metrics.addMetric('FilesFailed', MetricUnit.Count, result.errors.length);
  metrics.publishStoredMetrics();
  logger.info('batch done', { files: result.files, errors: result.errors.length, timings: result.timings });
  return result;
}

/** A key whose current version is an object (not a delete marker), with the versions stored before it. */
export interface CurrentVersion {
  readonly key: string;
  /** Undefined in a bucket that never had versioning. */
  readonly versionId?: string;
  /** Versions stored before the current one. */
  readonly older: string[];
  readonly size: number;
  readonly lastModified?: Date;
}

/**
 * Every key under `prefix` with its current version, one ListObjectVersions page at a time. S3
 * lists a key's versions newest first and may continue them on the next page: the page's last key
 * (NextKeyMarker) is held back until its versions are complete.
 */
export async function* currentVersions(client: S3Client, bucket: string, prefix: string, pageSize = 1000): AsyncGenerator<CurrentVersion> {
  type Acc = { key: string; versionId?: string; older: string[]; latest?: 'object' | 'deleted'; size: number; lastModified?: Date };
  let carried: Acc | undefined;
  let markers: { KeyMarker?: string; VersionIdMarker?: string } = {};
  for (;;) {
    const page = await client.send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: prefix, MaxKeys: pageSize, EncodingType: 'url', ...markers }));
    const byKey = new Map<string, Acc>();
    if (carried) byKey.set(carried.key, carried);
    // Keys come encoded only when the response says so (S3 does; a server that ignores the parameter sends them as they are).
    const keyOf = (k: string): string => (page.EncodingType === 'url' ? urlDecoded(k) : k);
    const acc = (key: string): Acc => {
      let a = byKey.get(key);
      if (!a) byKey.set(key, a = { key, older: [], size: 0 });
      return a;
    };
    for (const v of page.Versions ?? []) {
      const a = acc(keyOf(v.Key!));
      if (v.IsLatest) Object.assign(a, { versionId: v.VersionId === 'null' ? undefined : v.VersionId, latest: 'object', size: v.Size ?? 0, lastModified: v.LastModified });
      else if (v.VersionId) a.older.push(v.VersionId);
    }
    for (const m of page.DeleteMarkers ?? []) {
      if (m.IsLatest) acc(keyOf(m.Key!)).latest = 'deleted';
    }
    const nextKey = page.NextKeyMarker === undefined ? undefined : keyOf(page.NextKeyMarker);
    carried = page.IsTruncated ? byKey.get(nextKey!) : undefined;
    for (const a of [...byKey.values()].sort((x, y) => Buffer.compare(Buffer.from(x.key), Buffer.from(y.key)))) {
      if (a === carried || a.latest !== 'object') continue;
      yield { key: a.key, versionId: a.versionId, older: a.older, size: a.size, lastModified: a.lastModified };
    }
    if (!page.IsTruncated) return;
    markers = { KeyMarker: nextKey, VersionIdMarker: page.NextVersionIdMarker };
  }
}

/**
 * A key as listed with `EncodingType=url`: S3 percent-encodes it (a space may come as `+`, so a
 * literal `+` comes as `%2B`), as the SDKs that decode it (botocore's unquote_plus) assume.
 */
export function urlDecoded(key: string): string {
  return decodeURIComponent(key.replace(/\+/g, ' '));
}

interface Item extends CurrentVersion {
  readonly name: string;
  /** The claim marker's versions to delete when done. */
  markerVersions?: (string | undefined)[];
  /** The ETag of the marker this invocation wrote: the claim is ours while the marker still has it. */
  markerEtag?: string;
  stats?: TextStats;
  contentType?: string;
}

function isCode(e: unknown, ...names: string[]): boolean {
  const err = e as { name?: string; Code?: string; $metadata?: { httpStatusCode?: number } };
  return names.includes(err?.name ?? '') || names.includes(err?.Code ?? '');
}
const isConditionFailure = (e: unknown): boolean =>
  isCode(e, 'PreconditionFailed', 'ConditionalRequestConflict') || [409, 412].includes((e as any)?.$metadata?.httpStatusCode);
const isGone = (e: unknown): boolean =>
  isCode(e, 'NoSuchKey', 'NoSuchVersion', 'NotFound') || (e as any)?.$metadata?.httpStatusCode === 404;

/** The invocation named in a claim marker, or undefined if the marker is not one of ours. */
function markerOwner(text: string): string | undefined {
  try {
    const owner = JSON.parse(text)?.owner;
    return typeof owner === 'string' && /^\d{13}-[0-9a-f-]{36}$/.test(owner) ? owner : undefined;
  } catch {
    return undefined;
  }
}

/**
 * This invocation's heartbeat object. S3 stamps LastModified with its own clock; a versioned
 * bucket keeps every renewal, so the previous version is deleted after each one.
 */
class S3LeaseStore implements LeaseStore {
  private versionId?: string;
  constructor(private readonly client: S3Client, private readonly bucket: string, private readonly key: string) {}

  public async write(body: string): Promise<number> {
    const put = await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: this.key, Body: body, ContentType: 'application/json' }));
    const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.key, VersionId: put.VersionId }));
    const previous = this.versionId;
    this.versionId = put.VersionId;
    if (previous !== undefined && previous !== put.VersionId) {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.key, VersionId: previous })).catch(() => undefined);
    }
    return head.LastModified!.getTime();
  }

  public async remove(): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.key, VersionId: this.versionId }));
  }
}

export async function processBucket(opts: BucketProcessorOptions): Promise<ProcessorResult> {
  const t0 = performance.now();
  const timings = emptyTimings();
  const errors: FileError[] = [];
  const { client, bucket } = opts;
  const log = opts.log ?? (() => undefined);
  const now = opts.now ?? Date.now;
  const claimName = `${Date.now()}-${randomUUID()}`;
  const threshold = opts.multipartCopyThresholdBytes ?? MAX_COPY_OBJECT_BYTES;
  const fail = (name: string, error: string): void => {
    errors.push({ name, error });
    log('file not processed', { name, error });
  };
  let moved = 0;
  let skippedClaimed = 0;
  let vanished = 0;
  let recovered = 0;
  let retrying = 0;
  const readBy = opts.readDeadline ?? Infinity;
  const outOfTime = (): boolean => now() >= readBy;
  const publishAttempts = opts.publishAttempts ?? 3;

  const lease = new Lease(new S3LeaseStore(client, bucket, `${LEASES_PREFIX}${claimName}`), {
    owner: claimName, ttlMs: opts.leaseMs ?? DEFAULT_LEASE_SECONDS * 1000, log,
  });
  await timed(timings, 'listMs', () => lease.start());

  /** Claim the item's name; false if a live invocation holds it or another one won the race. */
  const claim = async (item: Item): Promise<boolean> => {
    const Key = `${PROCESSING_PREFIX}${item.name}`;
    const Body = JSON.stringify({ owner: claimName, key: item.key, versionId: item.versionId ?? null });
    try {
      const put = await client.send(new PutObjectCommand({ Bucket: bucket, Key, Body, IfNoneMatch: '*' }));
      item.markerVersions = [put.VersionId];
      item.markerEtag = put.ETag;
      return true;
    } catch (e) {
      if (!isConditionFailure(e)) throw e;
    }
    // Someone holds (or held) the name: take it over only if its owner's lease expired.
    let marker;
    try {
      marker = await client.send(new GetObjectCommand({ Bucket: bucket, Key }));
    } catch (e) {
      if (isGone(e)) return false; // released just now: the next run picks the name up
      throw e;
    }
    const owner = markerOwner(await marker.Body!.transformToString());
    const holder = owner ? await client.send(new GetObjectCommand({ Bucket: bucket, Key: `${LEASES_PREFIX}${owner}` })).catch((e) => {
      if (isGone(e)) return undefined;
      throw e;
    }) : undefined;
    const record = holder ? parseLeaseRecord(await holder.Body!.transformToString()) : undefined;
    const lastSign = (holder?.LastModified ?? marker.LastModified!).getTime();
    // Our latest heartbeat is "now" on S3's clock (at most a heartbeat old: that only delays a takeover).
    if (!lease.expired(lastSign, record?.ttlMs)) {
      skippedClaimed++;
      return false;
    }
    try {
      const put = await client.send(new PutObjectCommand({ Bucket: bucket, Key, Body, IfMatch: marker.ETag }));
      item.markerVersions = [put.VersionId, marker.VersionId];
      item.markerEtag = put.ETag;
      recovered++;
      log('took over a claim whose owner\'s lease expired', { name: item.name, owner });
      return true;
    } catch (e) {
      if (isConditionFailure(e)) return false;
      throw e;
    }
  };

  const releaseClaim = async (item: Item): Promise<void> => {
    for (const VersionId of item.markerVersions ?? []) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: `${PROCESSING_PREFIX}${item.name}`, VersionId })).catch((e) =>
        log('claim marker not deleted (it expires with this invocation\'s lease)', { name: item.name, error: errorMessage(e) }));
    }
  };

  const processChunk = async (chunk: Item[]): Promise<void> => {
    const claimed = await timed(timings, 'listMs', () => keepSucceeded(chunk, opts.concurrency, async (item) => {
      try {
        return await claim(item);
      } catch (e) {
        fail(item.name, `claim failed, left in inbox/: ${errorMessage(e)}`);
        return false;
      }
    }));

    const counted = await timed(timings, 'readMs', () =>
      keepSucceeded(claimed, opts.concurrency, async (item) => {
        try {
          const res = await client.send(new GetObjectCommand({ Bucket: bucket, Key: item.key, VersionId: item.versionId }));
          item.contentType = res.ContentType;
          const counter = new TextStatsCounter();
          const body = res.Body as Readable;
          let done = 0;
          try {
            for await (const chunkBytes of body) {
              const c0 = performance.now();
              counter.update(chunkBytes as Uint8Array);
              timings.processMs += performance.now() - c0;
              done += (chunkBytes as Uint8Array).length;
              // Past the read deadline stop, even mid-object: publishing what is read must fit in what is left.
              if (done < item.size && outOfTime()) throw new OutOfTime(done, item.size);
            }
          } finally {
            body.destroy();
          }
          const c0 = performance.now();
          item.stats = counter.finish();
          timings.processMs += performance.now() - c0;
          return true;
        } catch (e) {
          // The listed version is gone: another invocation processed it after we listed, or it was deleted.
          if (isGone(e)) {vanished++;} else if (e instanceof OutOfTime) {
            retrying++;
            log('object left in inbox/ for the next run', { name: item.name, reason: e.message });
          } else {fail(item.name, `${errorMessage(e)} (left in inbox/)`);}
          await releaseClaim(item);
          return false;
        }
      }));

    // --- publish: copy the data, then put the metadata (each write conditional, the claim checked before each) ---
    const dataKeyOf = (item: Item): string => `${PROCESSED_PREFIX}${item.name}/${item.name}`;
    const writeResult = async (item: Item, phase: 'copy' | 'meta'): Promise<void> => {
      const dataKey = dataKeyOf(item);
      const Key = phase === 'copy' ? dataKey : `${dataKey}.meta.json`;
      const source = {
        key: item.key, versionId: item.versionId ?? 'null', modified: item.lastModified?.toISOString() ?? '', claim: claimName,
      };
      // First as a new object; if one is there (an older result, or another writer's), on the ETag seen.
      let condition: { IfNoneMatch?: string; IfMatch?: string } = { IfNoneMatch: '*' };
      for (let attempt = 0; ; attempt++) {
        await assertClaim(item);
        try {
          if (phase === 'copy') {
            await copyVersion(client, bucket, item, dataKey, { 'source-version-id': source.versionId }, threshold, opts.copyPartBytes, condition);
          } else {
            await client.send(new PutObjectCommand({
              Bucket: bucket, Key, Body: metaJson({ name: item.name, ...item.stats!, source }), ContentType: 'application/json', ...condition,
            }));
          }
          return;
        } catch (e) {
          if (!isConditionFailure(e) || attempt + 1 >= publishAttempts) throw e;
        }
        // Someone else wrote it since we looked: write over what is there now only if the claim is still ours (checked above).
        const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key })).catch((e) => {
          if (isGone(e)) return undefined;
          throw e;
        });
        condition = head?.ETag ? { IfMatch: head.ETag } : { IfNoneMatch: '*' };
      }
    };
    /** Throws LeaseLost unless this invocation still holds its lease and the item's claim marker is the one it wrote. */
    const assertClaim = async (item: Item): Promise<void> => {
      lease.assertHeld();
      try {
        await client.send(new HeadObjectCommand({ Bucket: bucket, Key: `${PROCESSING_PREFIX}${item.name}`, IfMatch: item.markerEtag }));
      } catch (e) {
        if (isConditionFailure(e) || isGone(e)) throw new LeaseLost(`the claim on ${item.name} was taken over`);
        throw e;
      }
    };
    const publishStep = (phase: 'copy' | 'meta') => async (item: Item): Promise<boolean> => {
      try {
        await writeResult(item, phase);
        return true;
      } catch (e) {
        if (e instanceof LeaseLost) throw e;
        fail(item.name, `writing the result failed, left in inbox/: ${errorMessage(e)}`);
        await releaseClaim(item);
        return false;
      }
    };

    // The data copy is the S3 API's "move" (copy + delete): timed with the delete, like the rename on the mount.
    const copied = await timed(timings, 'renameMs', () => keepSucceeded(counted, opts.concurrency, publishStep('copy')));
    const published = await timed(timings, 'writeMs', () => keepSucceeded(copied, opts.concurrency, publishStep('meta')));

    moved += await timed(timings, 'renameMs', async () => {
      const done = await keepSucceeded(published, opts.concurrency, async (item) => {
        try {
          // A writer that lost its claim neither deletes nor counts: the one holding it does.
          await assertClaim(item);
          // The version read and every older one, so none becomes current again. At most 1,000 per call.
          const versions = [item.versionId ?? 'null', ...item.older].map((VersionId) => ({ Key: item.key, VersionId }));
          for (let i = 0; i < versions.length; i += 1000) {
            const Objects = versions.slice(i, i + 1000);
            const res = await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects, Quiet: true } }));
            if (res.Errors?.length) throw new Error(`${res.Errors[0].Code}: ${res.Errors[0].Message}`);
          }
          await releaseClaim(item);
          return true;
        } catch (e) {
          if (e instanceof LeaseLost) throw e;
          fail(item.name, `published to processed/ but deleting inbox/ failed (a later run processes it again): ${errorMessage(e)}`);
          await releaseClaim(item);
          return false;
        }
      });
      return done.length;
    });
  };

  async function* items(): AsyncGenerator<Item> {
    for await (const v of currentVersions(client, bucket, INBOX_PREFIX, opts.listPageSize)) {
      const name = v.key.slice(INBOX_PREFIX.length);
      if (name === '') continue; // the "inbox/" folder marker itself
      const reason = unrepresentableKeyReason(name);
      if (reason) fail(name, `refused: ${reason}`);
      // Skipped like on the mount (still being written), so both sides do the same job.
      else if (!inProgressNameReason(name)) yield { ...v, name };
    }
  }

  // End to end in chunks (claim -> read -> write -> delete), so a run that meets its deadline has
  // finished whole files instead of reading everything and moving nothing.
  let deferred = false;
  let stopped: string | undefined;
  try {
    deferred = await workInChunks(items(), {
      size: chunkSizeFor(opts.concurrency),
      maxBytes: opts.chunkBytes ?? DEFAULT_CHUNK_BYTES,
      sizeOf: (item) => item.size,
      deadline: opts.deadline,
      now,
      timings,
      log,
      beforeChunk: () => lease.assertHeld(),
    }, processChunk);
  } catch (e) {
    // Our lease or a claim was taken over (our requests stalled past the lease): stop, leave the rest to the taker.
    if (!(e instanceof LeaseLost)) throw e;
    stopped = e.message;
    log('stopped early', { reason: e.message });
  } finally {
    await lease.stop();
  }

  timings.totalMs = performance.now() - t0;
  return {
    files: moved,
    errors,
    timings: roundTimings(timings),
    concurrency: opts.concurrency,
    ...whenSet({ deferred, recovered, skippedClaimed, vanished, retrying, stopped }),
  };
}

/**
 * Copy one version to `destKey` with `metadata`: CopyObject up to `threshold`, above it a
 * multipart upload of UploadPartCopy ranges (aborted on failure, so no parts are left billed).
 */
export async function copyVersion(
  client: S3Client, bucket: string, src: { key: string; versionId?: string; size: number; contentType?: string },
  destKey: string, metadata: Record<string, string>, threshold = MAX_COPY_OBJECT_BYTES, partBytes = DEFAULT_COPY_PART_BYTES,
  condition: { IfMatch?: string; IfNoneMatch?: string } = {},
): Promise<void> {
  const CopySource = encodeCopySource(bucket, src.key, src.versionId);
  if (src.size <= threshold) {
    await client.send(new CopyObjectCommand({
      Bucket: bucket, Key: destKey, CopySource, MetadataDirective: 'REPLACE', Metadata: metadata, ContentType: src.contentType, ...condition,
    }));
    return;
  }
  const part = Math.min(MAX_PART_BYTES, Math.max(partBytes, Math.ceil(src.size / MAX_PARTS)));
  const { UploadId } = await client.send(new CreateMultipartUploadCommand({
    Bucket: bucket, Key: destKey, Metadata: metadata, ContentType: src.contentType,
  }));
  try {
    const ranges = Array.from({ length: Math.ceil(src.size / part) }, (_, i) => [i * part, Math.min(src.size, (i + 1) * part) - 1]);
    const parts = await mapPool(ranges, 4, async ([first, last], i) => {
      const r = await client.send(new UploadPartCopyCommand({
        Bucket: bucket, Key: destKey, UploadId, PartNumber: i + 1, CopySource, CopySourceRange: `bytes=${first}-${last}`,
      }));
      return { PartNumber: i + 1, ETag: r.CopyPartResult!.ETag };
    });
    await client.send(new CompleteMultipartUploadCommand({
      Bucket: bucket, Key: destKey, UploadId, MultipartUpload: { Parts: parts }, ...condition,
    }));
  } catch (e) {
    await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: destKey, UploadId })).catch(() => undefined);
    throw e;
  }
}
