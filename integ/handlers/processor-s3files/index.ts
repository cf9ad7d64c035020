/**
 * "After" processor: does the job with plain file-system calls on an S3 Files mount. Every file
 * in `inbox/` is processed once into `processed/<name>/`, or reported once in `failed/<claim>/`
 * with a reason, even when invocations share the inbox, are killed, time out or race a re-upload.
 * `processed/<name>/` holds the result of the newest upload: a newer upload's result replaces the
 * older result (dropped only once the newer is in place), an older upload is kept in failed/ as
 * superseded; a claimed file is never deleted, nothing in failed/ replaced (integ/README.md, "What
 * the processors guarantee"). The layout is in ./layout.ts. The protocol:
 * 1. each invocation makes `processing/<claim>/` and renews `processing/<claim>/.lease` every
 *    lease/6 (../shared/lease.ts: liveness is judged by the file server's clock only), and first
 *    takes over the claim directories of dead invocations (./adoption.ts);
 * 2. it streams the inbox listing (./inbox.ts) and claims a chunk of files at a time (at most a
 *    chunk's count and bytes), each with one atomic rename `inbox/<name>` ->
 *    `processing/<claim>/<n>/<name>`: exactly one rename wins (./claims.ts);
 * 3. it reads the claimed file (stopping at the read deadline, even mid-file), writes
 *    `<name>.meta.json` beside it (fsync'd), then publishes the pair with **one** atomic rename of
 *    `<n>/` to `processed/<name>/` (./publish.ts); of two results of one name, the source modified
 *    later wins (of equal times, the one claimed later), and the upload that loses is kept in
 *    failed/ and reported;
 * 4. a file that cannot be finished for a reason that may pass (a transient error, the deadline, a
 *    file still being written) is handed back to the next invocation, at most MAX_ATTEMPTS times;
 *    any other failure moves it to `failed/<claim>/`. Nothing ever goes back over a name in the inbox.
 */
import { readdir, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { adoptedFiles, adoptExpired, settle } from './adoption';
import { Candidate, ClaimDirectory, Claimed } from './claims';
import { ChangedWhileReading, isTransient, itemDataFile, nsToIso, readStats, syncDir, writeDurably } from './file-io';
import { inboxFiles } from './inbox';
import { createClaimDir, LEASE_FILE, layoutOf, prepareLayout, REPLACED_PREFIX } from './layout';
import { MountLeaseStore } from './lease-store';
import { publish, restoreReplaced } from './publish';
import { putBack } from './put-back';
import {
  chunkSizeFor, DeadlineContext, DEFAULT_CHUNK_BYTES, emptyTimings, errorMessage, metaJson, OutOfTime, ProcessorResult, requireEnv,
  roundTimings, timed, Timings, whenSet, workInChunks,
} from '../shared/common';
import { ProcessorEvent, runProcessor } from '../shared/handler';
import { DEFAULT_LEASE_SECONDS, Lease, LeaseLost } from '../shared/lease';
import { keepSucceeded, mapPool } from '../shared/pool';

export { MAX_ATTEMPTS } from './claims';
export type { ProcessorEvent } from '../shared/handler';

/**
 * Files handled in parallel. On S3 Files every open/read/rename is an NFS round trip, so latency
 * rather than CPU bounds throughput; 16 keeps enough requests in flight without exhausting the
 * libuv pool (set UV_THREADPOOL_SIZE >= this value on the function) or memory (256 KiB per file).
 */
export const DEFAULT_CONCURRENCY = 16;

export interface MountProcessorOptions {
  readonly mountPath: string;
  readonly concurrency: number;
  /** Lease length (default 30 s). */
  readonly leaseMs?: number;
  /** Clock for the deadline checks (default Date.now). */
  readonly now?: () => number;
  /** Epoch ms after which no new chunk is claimed (default: none). */
  readonly deadline?: number;
  /** Epoch ms after which no more bytes are read: files still being read are handed back (default: none). */
  readonly readDeadline?: number;
  /** Bytes per chunk (default 256 MiB). */
  readonly chunkBytes?: number;
  readonly log?: (message: string, extra: Record<string, unknown>) => void;
}

export async function handler(event?: ProcessorEvent | null, context?: DeadlineContext): Promise<ProcessorResult> {
  return runProcessor('processor-s3files', DEFAULT_CONCURRENCY, event, context, (s) => processMount({
    mountPath: requireEnv('MOUNT_PATH'), concurrency: s.concurrency, leaseMs: s.leaseMs, deadline: s.deadline, readDeadline: s.readDeadline, log: s.log,
  }));
}

/** The read deadline passed before a chunk could start. */
class DeadlineReached extends Error {}

export async function processMount(opts: MountProcessorOptions): Promise<ProcessorResult> {
  const t0 = performance.now();
  const timings = emptyTimings();
  const log = opts.log ?? (() => undefined);
  const layout = layoutOf(opts.mountPath);
  await timed(timings, 'listMs', () => prepareLayout(layout));
  const lease = new Lease(new MountLeaseStore(join(layout.claimDir, LEASE_FILE)), {
    owner: layout.claimName, ttlMs: opts.leaseMs ?? DEFAULT_LEASE_SECONDS * 1000, log,
  });
  const claims = new ClaimDirectory(layout, lease, log);
  await timed(timings, 'claimMs', async () => {
    await createClaimDir(layout);
    await lease.start();
  });
  let deferred = false;
  let stopped: string | undefined;
  try {
    deferred = await work(claims, opts, timings);
  } catch (e) {
    if (!(e instanceof LeaseLost)) throw e;
    stopped = e.message;
    log('stopped early', { reason: e.message });
  } finally {
    await finish(claims, stopped !== undefined);
  }
  timings.totalMs = performance.now() - t0;
  const { moved: files, errors, recovered, superseded, retrying } = claims;
  const counts = whenSet({ deferred, recovered, superseded, retrying, stopped });
  return { files, errors, timings: roundTimings(timings), concurrency: opts.concurrency, ...counts };
}

/**
 * Takes dead invocations' claims over, then works in chunks: claim a chunk (a count of files and a
 * number of bytes), then read, write and publish it. Invocations sharing an inbox interleave their
 * claims; a crash strands at most one chunk, which a later run takes over when the lease expires.
 * Near the deadline it claims nothing more; at the read deadline it stops reading, even mid-file.
 * Resolves to whether files were left for the next invocation.
 */
async function work(claims: ClaimDirectory, opts: MountProcessorOptions, timings: Timings): Promise<boolean> {
  const { layout, lease, log } = claims;
  const now = opts.now ?? Date.now;
  const outOfTime = (): boolean => now() >= (opts.readDeadline ?? Infinity);
  const adopted = await timed(timings, 'claimMs', () => adoptExpired(claims));
  // Files of other invocations first (they have waited longest), then the inbox, streamed.
  async function* candidates(): AsyncGenerator<Candidate> {
    for (const dir of adopted) yield* adoptedFiles(dir);
    yield* inboxFiles(claims, opts.concurrency);
  }
  const deferred = await workInChunks(candidates(), {
    size: chunkSizeFor(opts.concurrency),
    maxBytes: opts.chunkBytes ?? DEFAULT_CHUNK_BYTES,
    sizeOf: (c) => c.size,
    deadline: opts.deadline,
    now,
    timings,
    log,
    beforeChunk: () => {
      lease.assertHeld();
      // Past the read deadline nothing could be read: leave the rest where it is.
      if (outOfTime()) throw new DeadlineReached();
    },
  }, (chunk) => processChunk(claims, chunk, { concurrency: opts.concurrency, timings, outOfTime })).catch((e) => {
    if (e instanceof DeadlineReached) return true;
    throw e;
  });
  // Whatever taken-over claims still hold is handed back, never deleted.
  for (const dir of adopted) await settle(claims, dir);
  for (const e of await readdir(layout.claimDir).catch(() => [] as string[])) {
    if (!e.startsWith(REPLACED_PREFIX)) continue;
    const dir = join(layout.claimDir, e);
    await restoreReplaced(claims, dir, await itemDataFile(dir).catch(() => undefined));
  }
  await timed(timings, 'renameMs', () => syncDir(layout.processed));
  return deferred;
}

interface ChunkContext {
  readonly concurrency: number;
  readonly timings: Timings;
  readonly outOfTime: () => boolean;
}

/** One chunk, end to end: claim, read and count, write the metadata beside the data, publish. */
async function processChunk(claims: ClaimDirectory, chunk: Candidate[], ctx: ChunkContext): Promise<void> {
  const { concurrency, timings } = ctx;
  const claimed = await timed(timings, 'claimMs', async () =>
    (await mapPool(chunk, concurrency, (c) => claims.claim(c))).filter((c): c is Claimed => c !== undefined));
  const counted = await timed(timings, 'readMs', () => keepSucceeded(claimed, concurrency, (c) => count(claims, c, ctx)));
  const withMeta = await timed(timings, 'writeMs', () => keepSucceeded(counted, concurrency, (c) => writeMeta(claims, c)));
  await timed(timings, 'renameMs', () => mapPool(withMeta, concurrency, async (c) => {
    try {
      await publish(claims, c);
    } catch (e) {
      if (e instanceof LeaseLost) throw e;
      const why = `publishing to processed/ failed: ${errorMessage(e)}`;
      await (isTransient(e) ? claims.handBack(c, why) : claims.release(c, why));
    }
  }));
}

/** Reads and counts a claimed file; false when it was handed back, put back or released instead. */
async function count(claims: ClaimDirectory, c: Claimed, ctx: ChunkContext): Promise<boolean> {
  if (c.quarantine) {
    await claims.release(c, c.quarantine);
    return false;
  }
  try {
    const r = await readStats(c.path, ctx.timings, ctx.outOfTime);
    c.stats = r.stats;
    c.rank = r.rank;
    return true;
  } catch (e) {
    if (e instanceof ChangedWhileReading) await putBack(claims, c, e.message);
    else if (e instanceof OutOfTime || isTransient(e)) await claims.handBack(c, errorMessage(e));
    else await claims.release(c, errorMessage(e));
    return false;
  }
}

/** Writes `<name>.meta.json` beside the data, naming the source it describes; false when the file was handed back or released. */
async function writeMeta(claims: ClaimDirectory, c: Claimed): Promise<boolean> {
  const { modifiedNs, claimedNs } = c.rank!;
  const source = { modified: nsToIso(modifiedNs), modifiedNs: String(modifiedNs), claimedNs: String(claimedNs), claim: claims.layout.claimName };
  try {
    c.metaWritten = true; // from the first byte: a failed write may leave a partial file
    await writeDurably(`${c.path}.meta.json`, metaJson({ name: c.name, ...c.stats!, source }));
    return true;
  } catch (e) {
    const why = `writing metadata failed: ${errorMessage(e)}`;
    await (isTransient(e) ? claims.handBack(c, why) : claims.release(c, why));
    return false;
  }
}

/**
 * Ends the run: with files handed back, the lease is marked released so the next invocation takes
 * them over at once; otherwise the lease and the empty claim directory go.
 */
async function finish(claims: ClaimDirectory, stopped: boolean): Promise<void> {
  const { layout, lease, log } = claims;
  await claims.tidyFailed();
  if (stopped) {
    await lease.stop();
    return;
  }
  const left = (await readdir(layout.claimDir).catch(() => [] as string[])).filter((n) => n !== LEASE_FILE);
  if (left.length > 0) {
    await lease.release();
    log('files left claimed for the next invocation', { claim: layout.claimName, entries: left.length });
  } else {
    await lease.stop();
    await rmdir(layout.claimDir).catch(() => undefined);
  }
}
