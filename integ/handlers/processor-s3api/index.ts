/**
 * "Before" processor: the same job as processor-s3files, through the S3 API only, with the same
 * contract (integ/README.md, "What the processors guarantee"): every object in `inbox/` is
 * processed once into `processed/<name>/`, or reported once in `failed/<claim>/` with a reason; a
 * newer upload's result replaces the older result (kept as a noncurrent version in a versioned
 * bucket); an upload is deleted from the inbox only once published or in failed/ (with its key's
 * older versions). Steps, a chunk at a time (at most a chunk's
 * count and bytes) while the inbox is listed page by page (./versions.ts):
 * 1. claim the name with a conditional marker (./claims.ts); a name another live invocation holds
 *    is skipped, not counted and not reported;
 * 2. GetObject of the listed version, streamed through the counter (./read.ts); if that version is
 *    gone, another invocation processed it meanwhile. An object that cannot be read and copied in
 *    the time left is handed back to the next run, at most MAX_ATTEMPTS times, then parked in failed/;
 *    one S3 will not serve to this function (archived, SSE-C, a KMS key it may not use) goes to
 *    failed/ at once, or, when S3 will not copy it either, is parked on its claim marker: reported once;
 * 3. copy that version to `processed/<name>/<name>`, then put the metadata naming the same source
 *    version (./publish.ts): each write conditional, the claim checked before each; no copy runs
 *    past the run's end (./bounds.ts): one that would is stopped and handed back with what was read,
 *    so the next run spends its time on the copy (in parts, resumed, if it never fits one run);
 * 4. delete the version read and every older one (deleting only the version read would let the
 *    previous upload become current again); a version uploaded during the run is neither copied
 *    unread nor deleted, in a bucket without versioning too (copy and delete on the ETag read);
 * 5. delete the claim marker. What cannot be processed (not text, a key the file system cannot
 *    show) is moved to `failed/<claim>/`. At the end, heartbeats and markers killed runs left and no
 *    run can take over any more are removed (./sweep.ts).
 * Needs s3:GetObject(Version), s3:PutObject, s3:ListBucket(Versions), s3:ListBucketMultipartUploads,
 * s3:ListMultipartUploadParts, s3:DeleteObject(Version) and s3:AbortMultipartUpload on these prefixes.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { S3Client } from '@aws-sdk/client-s3';
import { copyBounds, CopyClock, COPY_FINISH_MS, copyReserveMs } from './bounds';
import { BucketClaims, INBOX_PREFIX, Item, LEASES_PREFIX, MAX_ATTEMPTS, S3LeaseStore } from './claims';
import { CopyNotFinished, DEFAULT_COPY_BYTES_PER_SECOND } from './copy';
import { moveToFailed, PublishOptions, removeFromInbox, SourceChanged, writeResult } from './publish';
import { NoTimeToCopy, ReadClock, readItem } from './read';
import { isGone, unservable } from './s3-errors';
import { sweep } from './sweep';
import { currentVersions } from './versions';
import { s3Client } from '../shared/aws';
import {
  chunkSizeFor, DeadlineContext, DEFAULT_CHUNK_BYTES, emptyTimings, errorMessage, OutOfTime, ProcessorResult, requireEnv, roundTimings, timed,
  Timings, whenSet, workInChunks,
} from '../shared/common';
import { ProcessorEvent, runProcessor } from '../shared/handler';
import { DEFAULT_LEASE_SECONDS, Lease, LeaseLost } from '../shared/lease';
import { unrepresentableKeyReason } from '../shared/names';
import { keepSucceeded } from '../shared/pool';
import { NotTextError } from '../shared/text-stats';

export { MAX_ATTEMPTS } from './claims';
export { copyVersion, DEFAULT_COPY_PART_BYTES, MAX_COPY_OBJECT_BYTES } from './copy';
export { currentVersions } from './versions';
export { urlDecoded } from '../shared/names';
export type { ProcessorEvent } from '../shared/handler';

/** S3 requests are independent HTTPS calls; 16 matches the file-system side so the comparison is fair. */
export const DEFAULT_CONCURRENCY = 16;

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
  /** The copy rate time is reserved for, before the read deadline (default 50 MiB/s). */
  readonly copyBytesPerSecond?: number;
  /** Clock for the deadline checks (default Date.now). */
  readonly now?: () => number;
  /** Epoch ms after which no new chunk starts (default: none). */
  readonly deadline?: number;
  /** Epoch ms after which no more bytes are read: objects still being read are left for the next run (default: none). */
  readonly readDeadline?: number;
  /** Epoch ms at which the invocation ends: no copy request runs past it less COPY_FINISH_MS (default: none). */
  readonly endsAt?: number;
  /** Bytes per chunk (default 256 MiB). */
  readonly chunkBytes?: number;
  /** How many times a result write is retried after another writer changed the result (default 3). */
  readonly publishAttempts?: number;
  readonly log?: (message: string, extra: Record<string, unknown>) => void;
}

export async function handler(event?: ProcessorEvent | null, context?: DeadlineContext): Promise<ProcessorResult> {
  return runProcessor('processor-s3api', DEFAULT_CONCURRENCY, event, context, (s) => processBucket({
    client: s3Client(),
    bucket: requireEnv('BUCKET_NAME'),
    concurrency: s.concurrency,
    leaseMs: s.leaseMs,
    deadline: s.deadline,
    readDeadline: s.readDeadline,
    endsAt: s.endsAt,
    log: s.log,
  }));
}

interface ChunkContext {
  readonly concurrency: number;
  readonly timings: Timings;
  readonly clock: ReadClock;
  readonly publish: PublishOptions;
}

export async function processBucket(opts: BucketProcessorOptions): Promise<ProcessorResult> {
  const t0 = performance.now();
  const timings = emptyTimings();
  const log = opts.log ?? (() => undefined);
  const now = opts.now ?? Date.now;
  const claimName = `${Date.now()}-${randomUUID()}`;
  const lease = new Lease(new S3LeaseStore(opts.client, opts.bucket, `${LEASES_PREFIX}${claimName}`), {
    owner: claimName, ttlMs: opts.leaseMs ?? DEFAULT_LEASE_SECONDS * 1000, log,
  });
  const claims = new BucketClaims(opts.client, opts.bucket, claimName, lease, log);
  await timed(timings, 'claimMs', () => lease.start());
  const copyBy = (opts.endsAt ?? Infinity) - COPY_FINISH_MS;
  const copyClock: CopyClock = {
    // Without an end, every copy fits the run: its start does not matter (and the clock is not read for it).
    now, startedAt: Number.isFinite(copyBy) ? now() : -Infinity, copyBy, bytesPerSecond: opts.copyBytesPerSecond ?? DEFAULT_COPY_BYTES_PER_SECOND,
  };
  const ctx: ChunkContext = {
    concurrency: opts.concurrency,
    timings,
    clock: { now, readBy: opts.readDeadline ?? Infinity, reserveMs: (item) => copyReserveMs(copyClock, item, opts.copyPartBytes) },
    publish: {
      attempts: opts.publishAttempts ?? 3,
      threshold: opts.multipartCopyThresholdBytes,
      partBytes: opts.copyPartBytes,
      bounds: (item, key) => copyBounds(claims, copyClock, item, key, opts.copyPartBytes),
    },
  };
  // End to end in chunks (claim -> read -> write -> delete), so a run that meets its deadline has
  // finished whole files instead of reading everything and moving nothing.
  let deferred = false;
  let stopped: string | undefined;
  try {
    deferred = await workInChunks(inboxItems(claims, opts.listPageSize), {
      size: chunkSizeFor(opts.concurrency),
      maxBytes: opts.chunkBytes ?? DEFAULT_CHUNK_BYTES,
      sizeOf: (item) => item.size,
      deadline: opts.deadline,
      now,
      timings,
      log,
      beforeChunk: () => lease.assertHeld(),
    }, (chunk) => processChunk(claims, chunk, ctx));
  } catch (e) {
    // Our lease or a claim was taken over (our requests stalled past the lease): stop, leave the rest to the taker.
    if (!(e instanceof LeaseLost)) throw e;
    stopped = e.message;
    log('stopped early', { reason: e.message });
  } finally {
    if (stopped === undefined) await timed(timings, 'claimMs', () => sweep(claims));
    await lease.stop();
  }
  timings.totalMs = performance.now() - t0;
  const { moved: files, errors, recovered, skippedClaimed, vanished, retrying, parked } = claims;
  const counts = whenSet({ deferred, recovered, skippedClaimed, vanished, retrying, parked, stopped });
  return { files, errors, timings: roundTimings(timings), concurrency: opts.concurrency, ...counts };
}

/** The inbox's direct children, each with why it cannot be processed, if so. On S3 an object is never half-written: every name counts. */
async function* inboxItems(claims: BucketClaims, pageSize?: number): AsyncGenerator<Item> {
  for await (const v of currentVersions(claims.client, claims.bucket, INBOX_PREFIX, pageSize)) {
    const name = v.key.slice(INBOX_PREFIX.length);
    if (name === '') continue; // the "inbox/" folder marker itself
    const reason = unrepresentableKeyReason(name);
    yield { ...v, name, attempts: 0, ...(reason ? { refusal: `refused: ${reason}` } : {}) };
  }
}

/** One chunk, end to end: claim, park what cannot be processed, read, copy, write the metadata, delete from the inbox. */
async function processChunk(claims: BucketClaims, chunk: Item[], ctx: ChunkContext): Promise<void> {
  const { concurrency, timings } = ctx;
  const claimed = await timed(timings, 'claimMs', () => keepSucceeded(chunk, concurrency, async (item) => {
    try {
      return await claims.claim(item);
    } catch (e) {
      claims.fail(item.name, `claim failed, left in inbox/: ${errorMessage(e)}`);
      return false;
    }
  }));
  const readable = await timed(timings, 'renameMs', () => keepSucceeded(claimed, concurrency, async (item) => {
    const why = item.refusal ?? (item.attempts >= MAX_ATTEMPTS
      ? `gave up after ${item.attempts} attempts: each run that had it stopped (killed or timed out) before finishing it` : undefined);
    if (why === undefined) return true;
    await moveToFailed(claims, item, why, ctx.publish);
    return false;
  }));
  const counted = await timed(timings, 'readMs', () => keepSucceeded(readable, concurrency, (item) => read(claims, item, ctx)));
  // The data copy is the S3 API's "move" (copy + delete): timed with the delete, like the rename on the mount.
  const copied = await timed(timings, 'renameMs', () => keepSucceeded(counted, concurrency, (item) => publishStep(claims, item, 'copy', ctx)));
  const published = await timed(timings, 'writeMs', () => keepSucceeded(copied, concurrency, (item) => publishStep(claims, item, 'meta', ctx)));
  await timed(timings, 'renameMs', () => keepSucceeded(published, concurrency, (item) => finishItem(claims, item)));
}

/** Reads and counts one object; false when it was handed back, parked, reported or had vanished. */
async function read(claims: BucketClaims, item: Item, ctx: ChunkContext): Promise<boolean> {
  try {
    await readItem(claims.client, claims.bucket, item, ctx.clock, ctx.timings);
    return true;
  } catch (e) {
    if (e instanceof NoTimeToCopy && !e.neverFits) {
      // Bad luck, not the object's fault: no attempt is counted, the next run starts it early enough.
      claims.retrying++;
      claims.log('object left in inbox/ for the next run', { name: item.name, reason: e.message });
      await claims.release(item);
      return false;
    }
    if (e instanceof OutOfTime || e instanceof NoTimeToCopy) {
      if (!await claims.handBack(item, e.message)) await moveToFailed(claims, item, `${e.message}; gave up after ${MAX_ATTEMPTS} attempts`, ctx.publish);
      return false;
    }
    const refused = unservable(e);
    if (e instanceof NotTextError || refused) {
      // Never readable by this function: moved to failed/ at once (or parked, if S3 will not copy it either), reported once.
      await moveToFailed(claims, item, refused ? `S3 will not serve it to this function (${refused})` : errorMessage(e), ctx.publish);
      return false;
    }
    // The listed version is gone: another invocation processed it after we listed, or it was deleted.
    if (isGone(e)) claims.vanished++;
    else claims.fail(item.name, `${errorMessage(e)} (left in inbox/)`);
    await claims.release(item);
    return false;
  }
}

/** One write of the result; false when the object stays in the inbox (reported, or uploaded again). */
async function publishStep(claims: BucketClaims, item: Item, phase: 'copy' | 'meta', ctx: ChunkContext): Promise<boolean> {
  try {
    await writeResult(claims, item, phase, ctx.publish);
    return true;
  } catch (e) {
    if (e instanceof LeaseLost) throw e;
    if (e instanceof CopyNotFinished) {
      // What was read is kept with the claim, so the next run spends its time on the copy alone (or its next parts).
      item.carried = {
        ...item.carried,
        copying: undefined,
        read: { etag: item.readEtag, contentType: item.contentType, stats: item.stats! },
        ...(e.upload ? { upload: e.upload } : { copyMs: Math.max(item.carried?.copyMs ?? 0, e.elapsedMs) }),
      };
      if (!await claims.handBack(item, e.message, !e.progressed)) {
        await moveToFailed(claims, item, `${e.message}; gave up after ${MAX_ATTEMPTS} attempts`, ctx.publish);
      }
      return false;
    }
    if (e instanceof SourceChanged) {
      claims.retrying++;
      claims.log('object left in inbox/ for the next run', { name: item.name, reason: e.message });
    } else {
      claims.fail(item.name, `writing the result failed, left in inbox/: ${errorMessage(e)}`);
    }
    await claims.release(item);
    return false;
  }
}

/** Deletes what was read from the inbox and frees the name; a writer that lost its claim neither deletes nor counts. */
async function finishItem(claims: BucketClaims, item: Item): Promise<boolean> {
  try {
    await claims.assertClaim(item);
    if (!await removeFromInbox(claims, item)) {
      claims.log('uploaded again after it was copied: the new upload stays in inbox/ for the next run', { name: item.name });
    }
    await claims.release(item);
    claims.moved++;
    return true;
  } catch (e) {
    if (e instanceof LeaseLost) throw e;
    claims.fail(item.name, `published to processed/ but deleting inbox/ failed (a later run processes it again): ${errorMessage(e)}`);
    await claims.release(item);
    return false;
  }
}
