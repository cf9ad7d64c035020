/**
 * "After" processor: does the job with plain file-system calls on an S3 Files mount.
 *
 * Layout under MOUNT_PATH:
 * - `inbox/`: new files; dotfiles and temporary names (`*.tmp`, `.nfs*` ...) are left alone until
 *   the producer renames them to their final name;
 * - `processing/<claim>/`: one directory per invocation, holding its heartbeat (`.lease`) and one
 *   directory per claimed file (`<n>/<name>`, or `<n>-<attempts>/<name>` for a file handed back);
 * - `processed/<name>/`: the result, `<name>` (the data) and `<name>.meta.json` (what was counted,
 *   and which source file it describes);
 * - `failed/<claim>/<name>`: files that could not be processed, reported once.
 *
 * Protocol, so invocations sharing an inbox never lose, duplicate or mix up a file:
 * 1. each invocation makes `processing/<claim>/` and renews `processing/<claim>/.lease` every
 *    lease/6 (see ../shared/lease.ts: liveness is judged by the file server's clock only);
 * 2. it streams the inbox listing and claims a chunk of files at a time (at most a chunk's count
 *    and bytes), each with one atomic rename `inbox/<name>` -> `processing/<claim>/<n>/<name>`;
 *    exactly one rename wins;
 * 3. it reads the claimed file (stopping at the read deadline, even mid-file), writes
 *    `<name>.meta.json` beside it (fsync'd), then publishes the pair with **one** atomic rename of
 *    `<n>/` to `processed/<name>/`, so data and metadata always belong together; if a result for the
 *    name exists, the one whose source was modified later wins, checked again on what was actually
 *    moved away (a re-upload racing an earlier invocation never ends with the older data);
 * 4. a file that cannot be finished for a reason that may pass (a transient error such as ENOSPC,
 *    the deadline, a file still being written) is handed back: it stays claimed, and the
 *    invocation marks its lease released so the next one takes it over at once; after
 *    MAX_ATTEMPTS it goes to `failed/`. Any other failure moves the file to `failed/<claim>/`. A
 *    file never goes back over a name in the inbox (that would destroy a newer upload);
 * 5. an invocation whose lease expired (killed, timed out) or was released has its whole claim
 *    directory taken over by the next invocation with one atomic rename into its own claim
 *    directory, so at most one invocation ever holds a claim, and the dead one's paths no longer
 *    exist if it wakes up. Whatever the taker does not process is handed back the same way: a
 *    claimed file, in any layout this processor ever wrote, is processed or handed back, never deleted.
 */
import { randomUUID } from 'node:crypto';
import { constants as fsc, Dirent } from 'node:fs';
import { link, lstat, mkdir, open, opendir, readdir, readFile, rename, rm, rmdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import {
  chunkDeadline, chunkSizeFor, DeadlineContext, DEFAULT_CHUNK_BYTES, emptyTimings, errorMessage, FileError, intSetting, metaJson, OutOfTime,
  ProcessorResult, readDeadline, requireEnv, roundTimings, timed, whenSet, workInChunks,
} from '../shared/common';
import { DEFAULT_LEASE_SECONDS, Lease, LeaseLost, LeaseStore, MAX_LEASE_SECONDS, parseLeaseRecord } from '../shared/lease';
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
/** Times a file is handed back (transient error, deadline, still being written) before it goes to failed/. */
export const MAX_ATTEMPTS = 5;
/** `<n>` or `<n>-<attempts>`: a claimed file's item directory. */
const ITEM_DIR = /^\d+(?:-(\d+))?$/;
/** Errors that may pass (space freed, server back): the file is handed back, not failed. */
const TRANSIENT_CODES = ['ENOSPC', 'EDQUOT', 'ETIMEDOUT', 'EAGAIN', 'EBUSY', 'ENOMEM', 'EMFILE', 'ENFILE', 'ESTALE'];
/** Inbox entries whose size is looked up at once (in parallel: each lstat is a round trip on NFS). */
const LIST_BATCH = 64;

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
  /** Epoch ms after which no more bytes are read: files still being read are handed back (default: none). */
  readonly readDeadline?: number;
  /** Bytes per chunk (default 256 MiB). */
  readonly chunkBytes?: number;
  readonly log?: (message: string, extra: Record<string, unknown>) => void;
}

/** A file to claim: in the inbox, or in a claim directory this invocation took over. */
interface Candidate {
  readonly name: string;
  readonly from: string;
  /** Size when listed (bounds a chunk's bytes). */
  readonly size: number;
  /** Times it was handed back already. */
  readonly attempts: number;
  /** The item directory it was in, in a claim directory this invocation took over. */
  readonly itemDir?: string;
  /** Taken over from another invocation's claim. */
  readonly adopted?: boolean;
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
    readDeadline: readDeadline(context ?? undefined),
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

type Log = (message: string, extra: Record<string, unknown>) => void;

const isTransient = (e: unknown): boolean => isErrno(e, ...TRANSIENT_CODES);
/** An item directory's name: `<n>`, or `<n>-<attempts>` once the file was handed back. */
const itemDirName = (n: number, attempts: number): string => (attempts > 0 ? `${n}-${attempts}` : String(n));
const attemptsOf = (dirName: string): number => Number(ITEM_DIR.exec(dirName)?.[1] ?? 0);

/** What a claim directory's heartbeat says: when it last showed life (server time), and the lease its holder promised. */
interface Heartbeat {
  readonly at: number;
  readonly ttlMs?: number;
  readonly released?: boolean;
}

/**
 * When another invocation's claim directory last showed life, in server time: its `.lease`
 * mtime (opening the file revalidates NFS's attribute cache), or the directory's own mtime if it
 * has no lease (killed between mkdir and the first heartbeat) or an unreadable one (logged, never
 * a reason to leave the claims stranded). Undefined if it is gone.
 */
async function lastHeartbeat(dir: string, log: Log): Promise<Heartbeat | undefined> {
  const claim = dir.slice(dir.lastIndexOf('/') + 1);
  try {
    const fh = await open(join(dir, LEASE_FILE), READ_FLAGS);
    try {
      const st = await fh.stat({ bigint: true });
      if (!st.isFile()) throw Object.assign(new Error(`${LEASE_FILE} is not a regular file`), { code: 'EISDIR' });
      const record = parseLeaseRecord(await fh.readFile('utf8'));
      if (!record) log('unreadable lease record: judged by its modification time and this invocation\'s lease length', { claim });
      return { at: nsToMs(st.mtimeNs), ttlMs: record?.ttlMs, released: record?.released === true };
    } finally {
      await fh.close();
    }
  } catch (e) {
    if (!isErrno(e, 'ENOENT')) {
      log('unreadable lease: judged by the claim directory\'s modification time and this invocation\'s lease length', { claim, error: errorMessage(e) });
    }
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
 * The claimed files in a directory taken over from another invocation: `<n>/<name>` items (with
 * the times they were handed back), files directly in the claim directory (the layout before item
 * directories), and the items of directories it had itself taken over. Nothing is deleted here.
 */
async function* adoptedFiles(dir: string): AsyncGenerator<Candidate> {
  for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [] as Dirent[])) {
    const path = join(dir, e.name);
    if (e.name === LEASE_FILE || e.name.startsWith('replaced-') || unsafeNameReason(e.name)) continue;
    if (e.isDirectory() && e.name.startsWith(ADOPTED_PREFIX)) {
      yield* adoptedFiles(path);
    } else if (e.isDirectory()) {
      const name = await itemDataFile(path).catch(() => undefined);
      if (name === undefined || unsafeNameReason(name)) continue;
      const st = await lstat(join(path, name)).catch(() => undefined);
      if (st) yield { name, from: join(path, name), size: st.size, attempts: attemptsOf(e.name), itemDir: path, adopted: true };
    } else if (e.isFile()) {
      const st = await lstat(path).catch(() => undefined);
      if (st) yield { name: e.name, from: path, size: st.size, attempts: 0, adopted: true };
    }
  }
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
  const failed = join(root, 'failed');
  // The time in the name only sorts claims for humans; liveness comes from the lease.
  const claimName = `${Date.now()}-${randomUUID()}`;
  const claimDir = join(processing, claimName);
  const fail = (name: string, error: string): void => {
    errors.push({ name, error });
    log('file not processed', { name, error });
  };
  const readBy = opts.readDeadline ?? Infinity;
  const outOfTime = (): boolean => now() >= readBy;

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
    // Every directory this processor writes in, checked up front: a permission problem is named
    // once, instead of every run reporting (or stranding) the same file again.
    await ensureDir(inbox, root);
    await ensureDir(processed, root);
    await ensureDir(processing, root);
    await ensureDir(failed, root);
    await mkdir(claimDir, { mode: CLAIM_DIR_MODE });
    await lease.start();
  });

  let seq = 0;
  let moved = 0;
  let superseded = 0;
  let recovered = 0;
  let retrying = 0;
  let deferred = false;
  let stopped: string | undefined;
  const adopted: string[] = [];

  const claimLost = async (): Promise<void> => {
    if (!lease.held() || !await exists(claimDir)) throw new LeaseLost(lease.lostReason ?? 'the claim directory was taken over');
  };

  /** Claim `c` into its own item directory; undefined if another invocation was first. */
  const claim = async (c: Candidate): Promise<Claimed | undefined> => {
    const dir = join(claimDir, itemDirName(++seq, c.attempts));
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
    } catch (e) {
      await rmdir(dir).catch(() => undefined);
      // ENOENT: another invocation claimed it first, which is the expected outcome of a race.
      if (!isErrno(e, 'ENOENT')) fail(c.name, `claim failed, left in place: ${errorMessage(e)}`);
      return undefined;
    }
    if (c.adopted) recovered++;
    if (c.itemDir) {
      // The dead invocation's partial metadata for this file, and its now empty item directory.
      await unlink(join(c.itemDir, `${c.name}.meta.json`)).catch(() => undefined);
      await rmdir(c.itemDir).catch(() => undefined);
    }
    return { ...c, dir, path };
  };

  // Quarantine a claimed file that could not be processed; if even that fails, say where it is.
  let failedDir: Promise<string> | undefined;
  const toFailed = async (path: string, name: string, tag: string): Promise<string> => {
    failedDir ??= mkdir(join(failed, claimName), { recursive: true, mode: DIR_MODE }).then(() => join(failed, claimName));
    let target = join(await failedDir, name);
    // The same name failing twice in one run: the second gets its own directory.
    if (await exists(target)) {
      const own = join(failed, `${claimName}-${tag}`);
      await mkdir(own, { mode: DIR_MODE });
      target = join(own, name);
    }
    await rename(path, target);
    return target;
  };
  const release = async (c: Claimed, why: string): Promise<void> => {
    // Failing because our claims were taken over is not the file's failure: stop instead.
    await claimLost();
    try {
      // Metadata first: an item directory never holds metadata without its data.
      if (c.metaWritten) await unlink(`${c.path}.meta.json`).catch((e) => { if (!isErrno(e, 'ENOENT')) throw e; });
      const target = await toFailed(c.path, c.name, c.dir.slice(claimDir.length + 1));
      await rmdir(c.dir).catch(() => undefined);
      fail(c.name, `${why} (moved to ${target.slice(root.length + 1, -c.name.length)})`);
    } catch (e) {
      fail(c.name, `${why}; could not move it to failed/ (${errorMessage(e)}): it stays in ${c.dir.slice(root.length + 1)}/ `
        + 'and the next run takes it over');
    }
  };

  /**
   * Keep a file claimed for the next invocation (which takes this claim directory over at once):
   * its item directory is renamed to count the attempt. After MAX_ATTEMPTS it goes to failed/.
   */
  const handBack = async (c: Claimed, why: string): Promise<void> => {
    await claimLost();
    const attempts = c.attempts + 1;
    if (attempts >= MAX_ATTEMPTS) return release(c, `${why}; gave up after ${attempts} attempts`);
    try {
      if (c.metaWritten) await unlink(`${c.path}.meta.json`).catch((e) => { if (!isErrno(e, 'ENOENT')) throw e; });
      await rename(c.dir, join(claimDir, itemDirName(++seq, attempts)));
      retrying++;
      log('file left claimed for the next invocation', { name: c.name, reason: why, attempts });
    } catch (e) {
      await release(c, `${why}; could not keep it for a retry (${errorMessage(e)})`);
    }
  };

  // A file that changed while it was read is still being written: back to the inbox for a later
  // run with link(2) + unlink, which never replaces a name that exists (a newer upload); where
  // that name is taken, or the file system has no hard links (S3 Files), it stays claimed instead.
  const requeue = async (c: Claimed, why: string): Promise<void> => {
    try {
      await link(c.path, join(inbox, c.name));
    } catch (e) {
      return handBack(c, isErrno(e, 'EEXIST') ? `${why}; a newer file has the name in inbox/ now` : why);
    }
    await unlink(c.path).catch(() => undefined);
    await rmdir(c.dir).catch(() => undefined);
    log('file still being written, put back in inbox/ for a later run', { name: c.name, reason: why });
  };

  /**
   * Make `dir` (a result directory holding `name` and its metadata, source modified at `ns`) the
   * result of `name`, unless the result there has a source modified later. One rename publishes; a
   * non-empty `processed/<name>/` makes it fail (ENOTEMPTY/EEXIST) instead of being replaced. An
   * older result is moved away first, and what was moved away is checked again: if another
   * invocation published a newer one in between, that one goes back and `dir` is dropped.
   * Resolves to whether `dir` itself ended up published.
   */
  const publishDir = async (dir: string, name: string, ns: bigint): Promise<boolean> => {
    const target = join(processed, name);
    let candidate = dir;
    let candidateNs = ns;
    for (let attempt = 0; attempt < PUBLISH_ATTEMPTS; attempt++) {
      // Fencing: never publish once another invocation may have taken this claim over.
      lease.assertHeld();
      try {
        await rename(candidate, target);
        return candidate === dir;
      } catch (e) {
        if (isErrno(e, 'ENOENT') && !await exists(claimDir)) throw new LeaseLost('the claim directory was taken over');
        if (isErrno(e, 'ENOTDIR')) {
          throw new Error(`processed/${name} exists and is not a result directory; move it away so the result can be published`);
        }
        if (!isErrno(e, 'ENOTEMPTY', 'EEXIST')) throw e;
      }
      const existing = await resultModifiedNs(target, name);
      if (existing !== undefined && existing > candidateNs) {
        await rm(candidate, { recursive: true, force: true });
        return false;
      }
      const away = join(claimDir, `replaced-${++seq}`);
      try {
        await rename(target, away);
      } catch (e) {
        if (isErrno(e, 'ENOENT')) continue; // another invocation moved it first: try again
        throw e;
      }
      // What was moved is not necessarily what was checked: a newer result may have been published since.
      const movedNs = await resultModifiedNs(away, name);
      if (movedNs !== undefined && movedNs > candidateNs) {
        await rm(candidate, { recursive: true, force: true });
        candidate = away;
        candidateNs = movedNs;
      } else {
        await rm(away, { recursive: true, force: true });
      }
    }
    throw new Error(`processed/${name} kept being replaced by other invocations (${PUBLISH_ATTEMPTS} attempts)`
      + (candidate === dir ? '' : `; the newer result is kept in ${candidate.slice(root.length + 1)}/ and published by a later run`));
  };

  const publish = async (c: Claimed): Promise<'published' | 'superseded'> =>
    (await publishDir(c.dir, c.name, c.modifiedNs!) ? 'published' : 'superseded');

  /** Move an entry this processor cannot use out of a claim directory (so the claim can be removed), reported once. */
  const quarantineEntry = async (path: string, name: string, why: string): Promise<void> => {
    try {
      const target = await toFailed(path, name, `entry-${++seq}`);
      fail(name, `${why} (moved to ${target.slice(root.length + 1, -name.length)})`);
    } catch (e) {
      fail(name, `${why}; could not move it to failed/ (${errorMessage(e)}): it stays in ${path.slice(root.length + 1)}`);
    }
  };

  /**
   * After the chunk loop: what is left of a claim directory taken over. Files not processed (the
   * deadline came first) move to item directories of our own claim, handed back whole; results a
   * dead invocation had moved away are published again unless a newer one is there; the lease and
   * empty directories go. Only our own bookkeeping is ever deleted.
   */
  const settle = async (dir: string): Promise<void> => {
    for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [] as Dirent[])) {
      const path = join(dir, e.name);
      if (e.name === LEASE_FILE) {
        await rm(path, { recursive: true, force: true });
      } else if (e.isDirectory() && e.name.startsWith(ADOPTED_PREFIX)) {
        await settle(path);
      } else if (e.isDirectory() && e.name.startsWith('replaced-')) {
        await restore(path);
      } else if (e.isDirectory()) {
        const name = await itemDataFile(path).catch(() => undefined);
        if (name === undefined) {
          await rmdir(path).catch(() => quarantineEntry(path, e.name, 'unexpected directory in a claim directory'));
        } else {
          await rename(path, join(claimDir, itemDirName(++seq, attemptsOf(e.name))));
          retrying++;
        }
      } else if (e.isFile() && !unsafeNameReason(e.name)) {
        // A file claimed in the layout before item directories.
        const item = join(claimDir, itemDirName(++seq, 0));
        await mkdir(item, { mode: CLAIM_DIR_MODE });
        await rename(path, join(item, e.name));
        retrying++;
      } else {
        await quarantineEntry(path, e.name, 'not a regular file or directory, found in a claim directory');
      }
    }
    await rmdir(dir).catch(() => undefined);
  };
  /** A result moved away by an invocation that died before it was dealt with: published again if it is still the newest. */
  const restore = async (dir: string): Promise<void> => {
    const name = await itemDataFile(dir).catch(() => undefined);
    if (name === undefined) {
      await rm(dir, { recursive: true, force: true });
      return;
    }
    await publishDir(dir, name, await resultModifiedNs(dir, name) ?? 0n);
  };

  const processChunk = async (chunk: Candidate[]): Promise<void> => {
    // --- claim (part of listing: it is how this invocation takes its share of the list) ---
    const claimed = await timed(timings, 'listMs', async () =>
      (await mapPool(chunk, opts.concurrency, claim)).filter((c): c is Claimed => c !== undefined));

    // --- read (streamed, stopping at the read deadline) + count ---
    const counted = await timed(timings, 'readMs', () =>
      keepSucceeded(claimed, opts.concurrency, async (c) => {
        if (c.quarantine) {
          await release(c, c.quarantine);
          return false;
        }
        try {
          const r = await readStats(c.path, timings, outOfTime);
          c.stats = r.stats;
          c.modifiedNs = r.modifiedNs;
          return true;
        } catch (e) {
          if (e instanceof ChangedWhileReading) await requeue(c, e.message);
          else if (e instanceof OutOfTime || isTransient(e)) await handBack(c, errorMessage(e));
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
          const why = `writing metadata failed: ${errorMessage(e)}`;
          await (isTransient(e) ? handBack(c, why) : release(c, why));
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
          const why = `publishing to processed/ failed: ${errorMessage(e)}`;
          await (isTransient(e) ? handBack(c, why) : release(c, why));
        }
      }));
  };

  /** Inbox entries to claim, with their sizes, a batch of lstat calls at a time. */
  async function* inboxFiles(): AsyncGenerator<Candidate> {
    const dir = await opendir(inbox, { bufferSize: 128 });
    let batch: Dirent[] = [];
    const sized = async function* (entries: Dirent[]): AsyncGenerator<Candidate> {
      const sizes = await mapPool(entries, opts.concurrency, (entry) => lstat(join(inbox, entry.name)).then((st) => st.size, () => undefined));
      for (const [i, entry] of entries.entries()) {
        // Gone (claimed by another invocation since it was listed): nothing to do.
        if (sizes[i] === undefined) continue;
        // A name whose result cannot be written is claimed only to be quarantined, so it is reported once.
        yield { name: entry.name, from: join(inbox, entry.name), size: sizes[i]!, attempts: 0, quarantine: resultNameReason(entry.name) };
      }
    };
    for await (const entry of dir) {
      // Still being written (a temp name the producer renames when done): not ours yet, not an error.
      if (inProgressNameReason(entry.name)) continue;
      const refusal = entryRefusal(entry);
      if (refusal) {
        fail(entry.name, refusal);
        continue;
      }
      batch.push(entry);
      if (batch.length >= LIST_BATCH) {
        yield* sized(batch);
        batch = [];
      }
    }
    yield* sized(batch);
  }

  // Files of other invocations first (they have waited longest), then the inbox, streamed: the
  // listing is never held whole, so memory does not grow with the inbox.
  async function* candidates(): AsyncGenerator<Candidate> {
    for (const dir of adopted) yield* adoptedFiles(dir);
    yield* inboxFiles();
  }

  try {
    adopted.push(...await timed(timings, 'listMs', () => adoptExpired(processing, claimName, claimDir, lease, log)));
    // Work in chunks: claim a chunk (a count of files and a number of bytes), then read, write and
    // publish it. Invocations sharing an inbox interleave their claims and share the work; a crash
    // strands at most one chunk of claims, which a later run takes over when the lease expires.
    // Near the deadline claim nothing more; at the read deadline stop reading, even mid-file.
    deferred = await workInChunks(candidates(), {
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
    }, processChunk).catch((e) => {
      if (e instanceof DeadlineReached) return true;
      throw e;
    });
    // Whatever taken-over claims still hold is handed back, never deleted.
    for (const dir of adopted) await settle(dir);
    for (const e of await readdir(claimDir).catch(() => [] as string[])) {
      if (e.startsWith('replaced-')) await restore(join(claimDir, e));
    }
    await timed(timings, 'renameMs', () => syncDir(processed));
  } catch (e) {
    if (!(e instanceof LeaseLost)) throw e;
    stopped = e.message;
    log('stopped early', { reason: e.message });
  } finally {
    if (stopped !== undefined) {
      await lease.stop();
    } else {
      const left = (await readdir(claimDir).catch(() => [] as string[])).filter((n) => n !== LEASE_FILE);
      if (left.length > 0) {
        // Files handed back: the next invocation takes this claim directory over at once.
        await lease.release();
        log('files left claimed for the next invocation', { claim: claimName, entries: left.length });
      } else {
        await lease.stop();
        await rmdir(claimDir).catch(() => undefined);
      }
    }
  }

  timings.totalMs = performance.now() - t0;
  return {
    files: moved,
    errors,
    timings: roundTimings(timings),
    concurrency: opts.concurrency,
    ...whenSet({ deferred, recovered, superseded, retrying, stopped }),
  };
}

/** The read deadline passed before a chunk could start. */
class DeadlineReached extends Error {}

/**
 * Take over the claim directories of invocations whose lease expired or was released, each with
 * one atomic rename into ours (`adopted-<claim>/`): if several invocations try, exactly one succeeds.
 */
async function adoptExpired(processing: string, own: string, claimDir: string, lease: Lease, log: Log): Promise<string[]> {
  // A fresh write of our own lease is "now" on the server's clock.
  await lease.renew();
  const adopted: string[] = [];
  for await (const d of await opendir(processing)) {
    if (!d.isDirectory() || !CLAIM_NAME.test(d.name) || d.name === own) continue;
    const path = join(processing, d.name);
    const beat = await lastHeartbeat(path, log).catch((e) => {
      log('could not judge a claim\'s lease (left for a later run)', { claim: d.name, error: errorMessage(e) });
      return undefined;
    });
    if (beat?.ttlMs !== undefined && beat.ttlMs > MAX_LEASE_SECONDS * 1000) {
      log('lease promises more than the longest lease a processor may hold: treated as expired', { claim: d.name, ttlMs: beat.ttlMs });
    }
    // The holder's own lease length counts (it may be configured differently from ours).
    if (!beat || !(beat.released || lease.expired(beat.at, beat.ttlMs))) continue;
    const to = join(claimDir, `${ADOPTED_PREFIX}${d.name}`);
    try {
      await rename(path, to);
      adopted.push(to);
      log(beat.released ? 'took over the claims an invocation handed back' : 'took over the claims of an invocation whose lease expired',
        { claim: d.name, silentForMs: Math.round(lease.serverNow - beat.at) });
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

/**
 * Count a file, streamed. `outOfTime` is checked between reads once the first block is in (so a
 * file that fits one block always completes): past the read deadline the read stops with `OutOfTime`.
 */
async function readStats(path: string, timings: { processMs: number }, outOfTime: () => boolean): Promise<{ stats: TextStats; modifiedNs: bigint }> {
  // O_NOFOLLOW: if the entry was swapped for a symlink after listing, open fails with ELOOP.
  const fh = await open(path, READ_FLAGS);
  try {
    const st = await fh.stat({ bigint: true });
    if (!st.isFile()) throw new Error('not a regular file');
    const size = Number(st.size);
    const counter = new TextStatsCounter();
    const buf = Buffer.allocUnsafe(Math.min(READ_CHUNK_BYTES, Math.max(size, 1)));
    let done = 0;
    for (;;) {
      if (done > 0 && done < size && outOfTime()) throw new OutOfTime(done, size);
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      done += bytesRead;
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
