/**
 * "After" processor: does the job with plain file-system calls on an S3 Files mount.
 *
 * Layout under MOUNT_PATH:
 * - `inbox/`: new files; dotfiles and temporary names (`*.tmp`, `.nfs*` ...) are left alone until
 *   the producer renames them to their final name;
 * - `processing/<claim>/`: one directory per invocation, holding its heartbeat (`.lease`) and one
 *   directory per claimed file (`<n>/<name>`);
 * - `processed/<name>/`: the result, `<name>` (the data) and `<name>.meta.json` (what was counted,
 *   and which source file it describes);
 * - `failed/<claim>/<name>`: files that could not be processed, reported once.
 *
 * Protocol, so invocations sharing an inbox never lose, duplicate or mix up a file:
 * 1. each invocation makes `processing/<claim>/` and renews `processing/<claim>/.lease` every
 *    lease/6 (see ../shared/lease.ts: liveness is judged by the file server's clock only);
 * 2. it streams the inbox listing and claims a chunk of files at a time, each with one atomic
 *    rename `inbox/<name>` -> `processing/<claim>/<n>/<name>`; exactly one rename wins;
 * 3. it reads the claimed file (and releases it if it changed meanwhile: still being written),
 *    writes `<name>.meta.json` beside it (fsync'd), then publishes the pair with **one** atomic
 *    rename of `<n>/` to `processed/<name>/`, so data and metadata always belong together; if a
 *    result for the name exists, the one whose source was modified later wins (a re-upload racing
 *    an earlier invocation never ends with the older data);
 * 4. any failure after the claim moves the file to `failed/<claim>/`, never back over a name in the
 *    inbox (that would destroy a newer upload);
 * 5. an invocation whose lease expired (killed, timed out) has its whole claim directory taken over
 *    by the next invocation with one atomic rename into its own claim directory, so at most one
 *    invocation ever holds a claim, and the dead one's paths no longer exist if it wakes up.
 */
import { randomUUID } from 'node:crypto';
import { constants as fsc, Dirent } from 'node:fs';
import { lstat, mkdir, open, opendir, readdir, readFile, rename, rm, rmdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import {
  chunkDeadline, chunkSizeFor, DeadlineContext, emptyTimings, errorMessage, FileError, intSetting, metaJson, ProcessorResult,
  requireEnv, roundTimings, timed, whenSet, workInChunks,
} from '../shared/common';
import { DEFAULT_LEASE_SECONDS, Lease, LeaseLost, LeaseStore, parseLeaseRecord } from '../shared/lease';
import { inProgressNameReason, resultNameReason, unsafeNameReason } from '../shared/names';
import { observability } from '../shared/observability';
import { keepSucceeded, mapPool } from '../shared/pool';
import { TextStats, TextStatsCounter } from '../shared/text-stats';
import { ensureDir } from '../shared/working-dirs';

/**
 * Files handled in parallel. On S3 Files every open/read/rename is an NFS round trip, so latency
 * rather than CPU bounds throughput; 16 keeps enough requests in flight without exhausting the
 * libuv pool (set UV_THREADPOOL_SIZE >= this value on the function) or memory (256 KiB per file).
 */
export const DEFAULT_CONCURRENCY = 16;
// open(2) flags are bit masks.
/* eslint-disable no-bitwise */
const READ_FLAGS = fsc.O_RDONLY | fsc.O_NOFOLLOW | fsc.O_NONBLOCK;
const CREATE_FLAGS = fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL | fsc.O_NOFOLLOW;
const RENEW_FLAGS = fsc.O_WRONLY | fsc.O_NOFOLLOW;
const DIR_FLAGS = fsc.O_RDONLY | fsc.O_DIRECTORY;
/* eslint-enable no-bitwise */
const READ_CHUNK_BYTES = 256 * 1024;
const DIR_MODE = 0o755;
const CLAIM_DIR_MODE = 0o700;
const FILE_MODE = 0o644;
const CLAIM_NAME = /^\d{13}-[0-9a-f-]{36}$/;
const LEASE_FILE = '.lease';
const ADOPTED_PREFIX = 'adopted-';
/** Attempts to publish a result while other invocations keep replacing the name. */
const PUBLISH_ATTEMPTS = 5;

export interface ProcessorEvent {
  /** Files processed in parallel (overrides env CONCURRENCY). */
  readonly concurrency?: number;
  /** Lease length in seconds (overrides env LEASE_SECONDS): a killed invocation's claims are taken over this long after its last heartbeat. */
  readonly leaseSeconds?: number;
}

export interface MountProcessorOptions {
  readonly mountPath: string;
  readonly concurrency: number;
  /** Lease length (default 30 s). */
  readonly leaseMs?: number;
  /** Clock for the deadline checks (default Date.now). */
  readonly now?: () => number;
  /** Epoch ms after which no new chunk is claimed (default: none). */
  readonly deadline?: number;
  readonly log?: (message: string, extra: Record<string, unknown>) => void;
}

/** A file to claim: in the inbox, or in a claim directory this invocation took over. */
interface Candidate {
  readonly name: string;
  readonly from: string;
  /** Set when the file is claimed only to be moved to failed/ (why). */
  readonly quarantine?: string;
}

interface Claimed extends Candidate {
  /** `processing/<claim>/<n>/`: becomes `processed/<name>/`. */
  readonly dir: string;
  /** `<dir>/<name>`. */
  readonly path: string;
  stats?: TextStats;
  /** The source's modification time in ns (server clock), which orders results of one name. */
  modifiedNs?: bigint;
  metaWritten?: boolean;
}

export async function handler(event?: ProcessorEvent | null, context?: DeadlineContext): Promise<ProcessorResult> {
  const { logger, metrics } = observability('processor-s3files');
  const mountPath = requireEnv('MOUNT_PATH');
  const concurrency = intSetting('concurrency (event.concurrency or env CONCURRENCY)',
    event?.concurrency, process.env.CONCURRENCY, DEFAULT_CONCURRENCY, 1, 1024);
  const leaseSeconds = intSetting('leaseSeconds (event.leaseSeconds or env LEASE_SECONDS)',
    event?.leaseSeconds, process.env.LEASE_SECONDS, DEFAULT_LEASE_SECONDS, 1, 3600);
  const result = await processMount({
    mountPath,
    concurrency,
    leaseMs: leaseSeconds * 1000,
    deadline: chunkDeadline(context ?? undefined),
    log: (message, extra) => logger.warn(message, extra),
  });
  metrics.addMetric('FilesProcessed', MetricUnit.Count, result.files);
  metrics.addMetric('FilesFailed', MetricUnit.Count, result.errors.length);
  metrics.publishStoredMetrics();
  logger.info('batch done', { files: result.files, errors: result.errors.length, timings: result.timings });
  return result;
}

function entryRefusal(entry: Dirent): string | undefined {
  const unsafe = unsafeNameReason(entry.name);
  if (unsafe) return `refused: ${unsafe}`;
  if (entry.isSymbolicLink()) return 'refused: symlink (not followed)';
  if (!entry.isFile()) return 'skipped: not a regular file';
  return undefined;
}

function isErrno(e: unknown, ...codes: string[]): boolean {
  return codes.includes((e as NodeJS.ErrnoException)?.code ?? '');
}

const nsToMs = (ns: bigint): number => Number(ns) / 1e6;
const exists = (path: string): Promise<boolean> => lstat(path).then(() => true, () => false);

/**
 * The heartbeat of a claim directory: `processing/<claim>/.lease`. The NFS server stamps its mtime
 * on every write, so the record carries the server's time. Renewing opens the existing file
 * without O_CREAT: once another invocation has taken the directory over, the path is gone.
 */
class MountLeaseStore implements LeaseStore {
  constructor(private readonly path: string) {}

  public async write(body: string, create: boolean): Promise<number> {
    let fh;
    try {
      fh = await open(this.path, create ? CREATE_FLAGS : RENEW_FLAGS, FILE_MODE);
    } catch (e) {
      if (!create && isErrno(e, 'ENOENT')) throw new LeaseLost(`${this.path} is gone: another invocation took this claim over`);
      throw e;
    }
    try {
      const data = Buffer.from(body, 'utf8');
      await fh.write(data, 0, data.length, 0);
      await fh.truncate(data.length);
      await fh.sync();
      return nsToMs((await fh.stat({ bigint: true })).mtimeNs);
    } finally {
      await fh.close();
    }
  }

  public async remove(): Promise<void> {
    await unlink(this.path);
  }
}

/**
 * When another invocation's claim directory last showed life, in server time: its `.lease`
 * mtime (opening the file revalidates NFS's attribute cache), or the directory's own mtime if it
 * has no lease (killed between mkdir and the first heartbeat). Undefined if it is gone.
 */
async function lastHeartbeat(dir: string): Promise<{ at: number; ttlMs?: number } | undefined> {
  try {
    const fh = await open(join(dir, LEASE_FILE), READ_FLAGS);
    try {
      const st = await fh.stat({ bigint: true });
      return { at: nsToMs(st.mtimeNs), ttlMs: parseLeaseRecord(await fh.readFile('utf8'))?.ttlMs };
    } finally {
      await fh.close();
    }
  } catch (e) {
    if (!isErrno(e, 'ENOENT')) throw e;
  }
  const st = await lstat(dir, { bigint: true }).catch(() => undefined);
  return st ? { at: nsToMs(st.mtimeNs) } : undefined;
}

/** The data file of a claimed item directory (`<name>`, beside an optional `<name>.meta.json`). */
async function itemDataFile(dir: string): Promise<string | undefined> {
  const files = (await readdir(dir, { withFileTypes: true })).filter((f) => f.isFile()).map((f) => f.name);
  return files.sort((a, b) => a.length - b.length || a.localeCompare(b))[0];
}

/**
 * The claimed files in a directory taken over from a dead invocation: `<n>/<name>` items, and the
 * items of directories it had itself taken over. Results it had moved away (`replaced-*`) are deleted.
 */
async function* adoptedFiles(dir: string): AsyncGenerator<Candidate> {
  for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [] as Dirent[])) {
    const path = join(dir, e.name);
    if (!e.isDirectory()) continue;
    if (e.name.startsWith(ADOPTED_PREFIX)) {
      yield* adoptedFiles(path);
    } else if (e.name.startsWith('replaced-')) {
      await rm(path, { recursive: true, force: true });
    } else {
      const name = await itemDataFile(path);
      if (name !== undefined && !unsafeNameReason(name)) yield { name, from: join(path, name) };
    }
  }
}

/** Remove what is left of a drained claim directory: everything but data files still in it. */
async function tidy(dir: string, keep: (path: string) => boolean): Promise<void> {
  for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [] as Dirent[])) {
    const path = join(dir, e.name);
    if (e.isDirectory()) await tidy(path, keep);
    else if (!keep(path)) await unlink(path).catch(() => undefined);
  }
  // ENOTEMPTY: a file that could not be moved stays, and a later run recovers it.
  await rmdir(dir).catch(() => undefined);
}

export async function processMount(opts: MountProcessorOptions): Promise<ProcessorResult> {
  const t0 = performance.now();
  const timings = emptyTimings();
  const errors: FileError[] = [];
  const log = opts.log ?? (() => undefined);
  const now = opts.now ?? Date.now;
  const root = opts.mountPath;
  const inbox = join(root, 'inbox');
  const processed = join(root, 'processed');
  const processing = join(root, 'processing');
  // The time in the name only sorts claims for humans; liveness comes from the lease.
  const claimName = `${Date.now()}-${randomUUID()}`;
  const claimDir = join(processing, claimName);
  const fail = (name: string, error: string): void => {
    errors.push({ name, error });
    log('file not processed', { name, error });
  };

  const rootStat = await lstat(root).catch((e) => {
    throw new Error(`MOUNT_PATH ${root} is not accessible (${errorMessage(e)}); check the function's file system configuration.`);
  });
  if (!rootStat.isDirectory() && !rootStat.isSymbolicLink()) {
    throw new Error(`MOUNT_PATH ${root} is not a directory; check the function's file system configuration.`);
  }

  const lease = new Lease(new MountLeaseStore(join(claimDir, LEASE_FILE)), {
    owner: claimName, ttlMs: opts.leaseMs ?? DEFAULT_LEASE_SECONDS * 1000, log,
  });
  await timed(timings, 'listMs', async () => {
    await ensureDir(inbox, root);
    await ensureDir(processed, root);
    await ensureDir(processing, root);
    await mkdir(claimDir, { mode: CLAIM_DIR_MODE });
    await lease.start();
  });

  let seq = 0;
  let moved = 0;
  let superseded = 0;
  let recovered = 0;
  let deferred = false;
  let stopped: string | undefined;
  const adopted: string[] = [];
  const adoptedData = new Set<string>();

  /** Claim `c` into its own item directory; undefined if another invocation was first. */
  const claim = async (c: Candidate): Promise<Claimed | undefined> => {
    const dir = join(claimDir, String(++seq));
    try {
      // Not recursive: if our claim directory was taken over, this fails instead of recreating it.
      await mkdir(dir, { mode: CLAIM_DIR_MODE });
    } catch (e) {
      if (isErrno(e, 'ENOENT')) throw new LeaseLost('the claim directory was taken over');
      throw e;
    }
    const path = join(dir, c.name);
    try {
      await rename(c.from, path);
      return { ...c, dir, path };
    } catch (e) {
      await rmdir(dir).catch(() => undefined);
      // ENOENT: another invocation claimed it first, which is the expected outcome of a race.
      if (!isErrno(e, 'ENOENT')) fail(c.name, `claim failed, left in place: ${errorMessage(e)}`);
      return undefined;
    }
  };

  // Quarantine a claimed file that could not be processed; if even that fails, say where it is.
  let failedDir: Promise<string> | undefined;
  const release = async (c: Claimed, why: string): Promise<void> => {
    // Failing because our claims were taken over is not the file's failure: stop instead.
    if (!lease.held() || !await exists(claimDir)) throw new LeaseLost(lease.lostReason ?? 'the claim directory was taken over');
    try {
      // Metadata first: an item directory never holds metadata without its data.
      if (c.metaWritten) await unlink(`${c.path}.meta.json`).catch((e) => { if (!isErrno(e, 'ENOENT')) throw e; });
      failedDir ??= mkdir(join(root, 'failed', claimName), { recursive: true, mode: DIR_MODE }).then(() => join(root, 'failed', claimName));
      let target = join(await failedDir, c.name);
      // The same name failing twice in one run: the second gets its own directory.
      if (await exists(target)) {
        const own = join(root, 'failed', `${claimName}-${c.dir.slice(claimDir.length + 1)}`);
        await mkdir(own, { mode: DIR_MODE });
        target = join(own, c.name);
      }
      await rename(c.path, target);
      await rmdir(c.dir).catch(() => undefined);
      fail(c.name, `${why} (moved to ${target.slice(root.length + 1, -c.name.length)})`);
    } catch (e) {
      fail(c.name, `${why}; could not move it to failed/ (${errorMessage(e)}): it stays in ${c.dir.slice(root.length + 1)}/ `
        + 'and is taken over by a later run once this invocation\'s lease expires');
    }
  };

  // A file that changed while it was read is still being written: back to the inbox for a later
  // run, but only if that name is free (a rename would replace a newer upload); else quarantine.
  const requeue = async (c: Claimed, why: string): Promise<void> => {
    const back = join(inbox, c.name);
    const free = await lstat(back).then(() => false, (e) => isErrno(e, 'ENOENT'));
    if (!free) return release(c, `${why}; a newer file has the name now`);
    try {
      await rename(c.path, back);
      await rmdir(c.dir).catch(() => undefined);
      log('file still being written, left for a later run', { name: c.name, reason: why });
    } catch (e) {
      await release(c, `${why}; could not put it back (${errorMessage(e)})`);
    }
  };

  /**
   * Publish `processed/<name>/` with one rename. A non-empty directory of that name makes rename
   * fail (ENOTEMPTY/EEXIST) instead of replacing it: then the result whose source was modified
   * later stays, and the other is deleted; losers of a replace race retry.
   */
  const publish = async (c: Claimed): Promise<'published' | 'superseded'> => {
    const target = join(processed, c.name);
    for (let attempt = 0; attempt < PUBLISH_ATTEMPTS; attempt++) {
      // Fencing: never publish once another invocation may have taken this claim over.
      lease.assertHeld();
      try {
        await rename(c.dir, target);
        return 'published';
      } catch (e) {
        if (isErrno(e, 'ENOENT') && !await exists(claimDir)) throw new LeaseLost('the claim directory was taken over');
        if (isErrno(e, 'ENOTDIR')) {
          throw new Error(`processed/${c.name} exists and is not a result directory; move it away so the result can be published`);
        }
        if (!isErrno(e, 'ENOTEMPTY', 'EEXIST')) throw e;
      }
      const existing = await resultModifiedNs(target, c.name);
      if (existing !== undefined && existing > c.modifiedNs!) {
        await rm(c.dir, { recursive: true, force: true });
        return 'superseded';
      }
      const away = join(claimDir, `replaced-${c.dir.slice(claimDir.length + 1)}-${attempt}`);
      try {
        await rename(target, away);
      } catch (e) {
        if (isErrno(e, 'ENOENT')) continue; // another invocation moved it first: try again
        throw e;
      }
      await rm(away, { recursive: true, force: true });
    }
    throw new Error(`processed/${c.name} kept being replaced by other invocations (${PUBLISH_ATTEMPTS} attempts)`);
  };

  const processChunk = async (chunk: Candidate[]): Promise<void> => {
    // --- claim (part of listing: it is how this invocation takes its share of the list) ---
    const claimed = await timed(timings, 'listMs', async () =>
      (await mapPool(chunk, opts.concurrency, claim)).filter((c): c is Claimed => c !== undefined));

    // --- read (streamed) + count ---
    const counted = await timed(timings, 'readMs', () =>
      keepSucceeded(claimed, opts.concurrency, async (c) => {
        if (c.quarantine) {
          await release(c, c.quarantine);
          return false;
        }
        try {
          const r = await readStats(c.path, timings);
          c.stats = r.stats;
          c.modifiedNs = r.modifiedNs;
          return true;
        } catch (e) {
          if (e instanceof ChangedWhileReading) await requeue(c, e.message);
          else await release(c, errorMessage(e));
          return false;
        }
      }));

    // --- write metadata beside the data, in the item directory ---
    const withMeta = await timed(timings, 'writeMs', () =>
      keepSucceeded(counted, opts.concurrency, async (c) => {
        const source = { modified: new Date(Number(c.modifiedNs! / 1_000_000n)).toISOString(), modifiedNs: String(c.modifiedNs), claim: claimName };
        try {
          c.metaWritten = true; // from the first byte: a failed write may leave a partial file
          await writeDurably(`${c.path}.meta.json`, metaJson({ name: c.name, ...c.stats!, source }));
          return true;
        } catch (e) {
          await release(c, `writing metadata failed: ${errorMessage(e)}`);
          return false;
        }
      }));

    // --- publish: one rename per result ---
    await timed(timings, 'renameMs', () =>
      mapPool(withMeta, opts.concurrency, async (c) => {
        try {
          if (await publish(c) === 'published') moved++;
          else superseded++;
        } catch (e) {
          if (e instanceof LeaseLost) throw e;
          await release(c, `publishing to processed/ failed: ${errorMessage(e)}`);
        }
      }));
  };

  // Files of dead invocations first (they have waited longest), then the inbox, streamed: the
  // listing is never held whole, so memory does not grow with the inbox.
  async function* candidates(): AsyncGenerator<Candidate> {
    for (const dir of adopted) {
      for await (const c of adoptedFiles(dir)) {
        adoptedData.add(c.from);
        recovered++;
        yield c;
      }
    }
    const dir = await opendir(inbox, { bufferSize: 128 });
    for await (const entry of dir) {
      // Still being written (a temp name the producer renames when done): not ours yet, not an error.
      if (inProgressNameReason(entry.name)) continue;
      const refusal = entryRefusal(entry);
      if (refusal) {
        fail(entry.name, refusal);
        continue;
      }
      // A name whose result cannot be written is claimed only to be quarantined, so it is reported once.
      yield { name: entry.name, from: join(inbox, entry.name), quarantine: resultNameReason(entry.name) };
    }
  }

  try {
    adopted.push(...await timed(timings, 'listMs', () => adoptExpired(processing, claimName, claimDir, lease, log)));
    // Work in chunks: claim a chunk, then read, write and publish it. Invocations sharing an inbox
    // interleave their claims and share the work; a crash strands at most one chunk of claims,
    // which a later run takes over when the lease expires. Near the deadline claim nothing more.
    deferred = await workInChunks(candidates(), {
      size: chunkSizeFor(opts.concurrency), deadline: opts.deadline, now, timings, log, beforeChunk: () => lease.assertHeld(),
    }, processChunk);
    await timed(timings, 'renameMs', () => syncDir(processed));
  } catch (e) {
    if (!(e instanceof LeaseLost)) throw e;
    stopped = e.message;
    log('stopped early', { reason: e.message });
  } finally {
    await lease.stop();
    if (stopped === undefined) {
      for (const dir of adopted) await tidy(dir, (p) => adoptedData.has(p));
      await tidy(claimDir, () => true);
    }
  }

  timings.totalMs = performance.now() - t0;
  return {
    files: moved,
    errors,
    timings: roundTimings(timings),
    concurrency: opts.concurrency,
    ...whenSet({ deferred, recovered, superseded, stopped }),
  };
}

/**
 * Take over the claim directories of invocations whose lease expired, each with one atomic rename
 * into ours (`adopted-<claim>/`): if several invocations try, exactly one rename succeeds.
 */
async function adoptExpired(
  processing: string, own: string, claimDir: string, lease: Lease, log: (m: string, e: Record<string, unknown>) => void,
): Promise<string[]> {
  // A fresh write of our own lease is "now" on the server's clock.
  await lease.renew();
  const adopted: string[] = [];
  for await (const d of await opendir(processing)) {
    if (!d.isDirectory() || !CLAIM_NAME.test(d.name) || d.name === own) continue;
    const path = join(processing, d.name);
    const beat = await lastHeartbeat(path).catch(() => undefined);
    // The holder's own lease length counts (it may be configured differently from ours).
    if (!beat || !lease.expired(beat.at, beat.ttlMs)) continue;
    const to = join(claimDir, `${ADOPTED_PREFIX}${d.name}`);
    try {
      await rename(path, to);
      adopted.push(to);
      log('took over the claims of an invocation whose lease expired', { claim: d.name, silentForMs: Math.round(lease.serverNow - beat.at) });
    } catch (e) {
      // ENOENT: another invocation took it over first.
      if (!isErrno(e, 'ENOENT')) log('could not take over an expired claim', { claim: d.name, error: errorMessage(e) });
    }
  }
  return adopted;
}

/** The source modification time recorded in an existing result, or undefined if unreadable. */
async function resultModifiedNs(dir: string, name: string): Promise<bigint | undefined> {
  try {
    const m = JSON.parse(await readFile(join(dir, `${name}.meta.json`), 'utf8'));
    return /^\d+$/.test(m?.source?.modifiedNs ?? '') ? BigInt(m.source.modifiedNs) : undefined;
  } catch {
    return undefined;
  }
}

/** The file's size or modification time changed while it was read: a producer is still writing it. */
class ChangedWhileReading extends Error {}

async function readStats(path: string, timings: { processMs: number }): Promise<{ stats: TextStats; modifiedNs: bigint }> {
  // O_NOFOLLOW: if the entry was swapped for a symlink after listing, open fails with ELOOP.
  const fh = await open(path, READ_FLAGS);
  try {
    const st = await fh.stat({ bigint: true });
    if (!st.isFile()) throw new Error('not a regular file');
    const counter = new TextStatsCounter();
    const buf = Buffer.allocUnsafe(Math.min(READ_CHUNK_BYTES, Math.max(Number(st.size), 1)));
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      const c0 = performance.now();
      counter.update(buf.subarray(0, bytesRead));
      timings.processMs += performance.now() - c0;
    }
    const after = await fh.stat({ bigint: true });
    if (after.size !== st.size || after.mtimeNs !== st.mtimeNs) {
      throw new ChangedWhileReading(`changed while it was read (size ${st.size} -> ${after.size}): still being written`);
    }
    const c0 = performance.now();
    const stats = counter.finish();
    timings.processMs += performance.now() - c0;
    return { stats, modifiedNs: st.mtimeNs };
  } finally {
    await fh.close();
  }
}

/** Write a new file and fsync it before it is published, so a crash never exposes a partial file. */
async function writeDurably(path: string, data: string): Promise<void> {
  const fh = await open(path, CREATE_FLAGS, FILE_MODE);
  try {
    await fh.writeFile(data, 'utf8');
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Persist the directory entries created by the renames (best effort: not every file system allows it). */
async function syncDir(path: string): Promise<void> {
  try {
    const fh = await open(path, DIR_FLAGS);
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    // fsync on a directory is advisory here; the renames themselves are already atomic.
  }
}
