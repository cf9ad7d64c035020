/**
 * "After" processor: does the job with plain file-system calls on an S3 Files mount.
 *
 * Layout under MOUNT_PATH: `inbox/` (new files), `processing/<claim>/` (files this or another
 * invocation has claimed), `processed/` (results: `<name>` and `<name>.meta.json`),
 * `failed/<claim>/` (files that could not be processed, with the run that tried).
 *
 * Claim protocol, so several invocations can share one inbox without losing or duplicating a file:
 * 1. each invocation makes its own `processing/<epochMs>-<uuid>/` directory;
 * 2. it claims a file with one atomic rename `inbox/<name>` -> `processing/<claim>/<name>`;
 *    exactly one rename succeeds, the losers get ENOENT and skip the file silently; claims are made
 *    a chunk at a time, so concurrent invocations share the inbox instead of one taking it all;
 * 3. it reads the claimed file, writes `processed/<name>.meta.json` (temp file + fsync + rename),
 *    then renames the file into `processed/`; so a data file in processed/ always has its metadata;
 * 4. any failure after the claim moves the file to `failed/<claim>/<name>` and reports it. Never back
 *    to `inbox/<name>`: a rename replaces its target, so that would destroy a corrected file the
 *    producer uploaded meanwhile; and a bad file is reported once, not on every run;
 * 5. claims older than CLAIM_STALE_SECONDS (an invocation that timed out or crashed) are taken over
 *    by a later invocation with the same atomic rename into its own claim directory.
 */
import { randomUUID } from 'node:crypto';
import { constants as fsc, Dirent } from 'node:fs';
import { access, lstat, mkdir, open, readdir, rename, rmdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import {
  chunkDeadline, chunkSizeFor, chunksUntil, DeadlineContext, emptyTimings, errorMessage, FileError, intSetting, metaJson, ProcessorResult,
  requireEnv, roundTimings, timed,
} from '../shared/common';
import { inProgressNameReason, resultNameReason, unsafeNameReason } from '../shared/names';
import { observability } from '../shared/observability';
import { keepSucceeded, mapPool } from '../shared/pool';
import { TextStats, TextStatsCounter } from '../shared/text-stats';

/**
 * Files handled in parallel. On S3 Files every open/read/rename is an NFS round trip, so latency
 * rather than CPU bounds throughput; 16 keeps enough requests in flight without exhausting the
 * libuv pool (set UV_THREADPOOL_SIZE >= this value on the function) or memory (256 KiB per file).
 */
export const DEFAULT_CONCURRENCY = 16;
/** Longer than Lambda's 15-minute maximum timeout, so a live invocation's claim is never taken. */
export const DEFAULT_CLAIM_STALE_SECONDS = 1200;
// open(2) flags are bit masks.
/* eslint-disable no-bitwise */
const READ_FLAGS = fsc.O_RDONLY | fsc.O_NOFOLLOW | fsc.O_NONBLOCK;
const CREATE_FLAGS = fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL | fsc.O_NOFOLLOW;
const DIR_FLAGS = fsc.O_RDONLY | fsc.O_DIRECTORY;
/* eslint-enable no-bitwise */
const READ_CHUNK_BYTES = 256 * 1024;
const DIR_MODE = 0o755;
const CLAIM_DIR_MODE = 0o700;
const FILE_MODE = 0o644;
const CLAIM_NAME = /^(\d{13})-[0-9a-f-]{36}$/;

export interface ProcessorEvent {
  /** Files processed in parallel (overrides env CONCURRENCY). */
  readonly concurrency?: number;
  /** Age after which another invocation's claim is recovered (overrides env CLAIM_STALE_SECONDS). */
  readonly claimStaleSeconds?: number;
}

export interface MountProcessorOptions {
  readonly mountPath: string;
  readonly concurrency: number;
  readonly claimStaleMs: number;
  /** Clock for the deadline checks (default Date.now). */
  readonly now?: () => number;
  /** Epoch ms after which no new chunk is claimed (default: none). */
  readonly deadline?: number;
  readonly log?: (message: string, extra: Record<string, unknown>) => void;
}

interface Claimed {
  readonly name: string;
  /** Set when the file is claimed only to be moved to failed/ (why). */
  readonly quarantine?: string;
  /** Where the file was before the claim (restored on failure). */
  readonly from: string;
  readonly path: string;
  stats?: TextStats;
  metaWritten?: boolean;
}

export async function handler(event?: ProcessorEvent | null, context?: DeadlineContext): Promise<ProcessorResult> {
  const { logger, metrics } = observability('processor-s3files');
  const mountPath = requireEnv('MOUNT_PATH');
  const concurrency = intSetting('concurrency (event.concurrency or env CONCURRENCY)',
    event?.concurrency, process.env.CONCURRENCY, DEFAULT_CONCURRENCY, 1, 1024);
  const staleSeconds = intSetting('claimStaleSeconds (event.claimStaleSeconds or env CLAIM_STALE_SECONDS)',
    event?.claimStaleSeconds, process.env.CLAIM_STALE_SECONDS, DEFAULT_CLAIM_STALE_SECONDS, 0, 7 * 24 * 3600);
  const result = await processMount({
    mountPath,
    concurrency,
    claimStaleMs: staleSeconds * 1000,
    deadline: chunkDeadline(context ?? undefined),
    log: (message, extra) => logger.warn(message, extra),
  });
  metrics.addMetric('FilesProcessed', MetricUnit.Count, result.files);
  metrics.addMetric('FilesFailed', MetricUnit.Count, result.errors.length);
  metrics.publishStoredMetrics();
  logger.info('batch done', { files: result.files, errors: result.errors.length, timings: result.timings });
  return result;
}

/** Permission bits of a mode, in octal as `ls -l` users know them. */
function modeBits(mode: number): string {
  return (mode % 0o10000).toString(8);
}

/** Who this process is, for messages about permissions. */
function whoAmI(): string {
  return typeof process.getuid === 'function' ? `uid ${process.getuid()} gid ${process.getgid!()}` : 'this user';
}

const S3_BORN_HINT = 'Directories created through the S3 API appear as root:root 0755, so a non-root access point user cannot '
  + 'write in them: create the working directories through the mount as the access point\'s user (before the first upload), '
  + 'or fix their owner with a uid-0 access point that has s3files:ClientRootAccess.';

/** Why `path` could not be created or written, in words that name the fix. */
async function explainWriteError(path: string, root: string, e: unknown): Promise<string> {
  const code = (e as NodeJS.ErrnoException)?.code ?? 'error';
  if (code === 'EROFS') {
    return `${path}: the file system is mounted read-only (EROFS): this function cannot write. Grant it s3files:ClientWrite (drop readOnly) to process files.`;
  }
  const rootWritable = await access(root, fsc.W_OK).then(() => true, () => false);
  if (!rootWritable && (code === 'ENOENT' || code === 'EACCES' || code === 'EPERM')) {
    return `${path}: MOUNT_PATH ${root} is not writable for ${whoAmI()} (${code}): the mount is read-only (no s3files:ClientWrite) `
      + 'or the access point\'s root directory belongs to another user. Grant ClientWrite, or use an access point whose user owns its root directory.';
  }
  const parent = await lstat(join(path, '..')).catch(() => undefined);
  const owner = parent ? ` (the parent is owned by ${parent.uid}:${parent.gid}, mode ${modeBits(parent.mode)})` : '';
  return `${path}: cannot create or use it as ${whoAmI()} (${code})${owner}. ${S3_BORN_HINT}`;
}

/**
 * A directory we own under the mount: create it if missing, refuse it if it is a symlink, and say
 * plainly when this user cannot write in it (rather than failing every file with EACCES).
 */
async function ensureDir(path: string, root: string): Promise<void> {
  try {
    await mkdir(path, { recursive: true, mode: DIR_MODE });
  } catch (e) {
    throw new Error(await explainWriteError(path, root, e));
  }
  const st = await lstat(path);
  if (!st.isDirectory()) {
    throw new Error(`${path} must be a real directory under MOUNT_PATH, found a ${st.isSymbolicLink() ? 'symlink' : 'non-directory'}; remove it.`);
  }
  try {
    // eslint-disable-next-line no-bitwise
    await access(path, fsc.W_OK | fsc.X_OK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException)?.code ?? 'error';
    if (code === 'EROFS') throw new Error(await explainWriteError(path, root, e));
    throw new Error(`${path} is not writable for ${whoAmI()} (owner ${st.uid}:${st.gid}, mode ${modeBits(st.mode)}). ${S3_BORN_HINT}`);
  }
}

function entryRefusal(entry: Dirent): string | undefined {
  const unsafe = unsafeNameReason(entry.name);
  if (unsafe) return `refused: ${unsafe}`;
  if (entry.isSymbolicLink()) return 'refused: symlink (not followed)';
  if (!entry.isFile()) return 'skipped: not a regular file';
  return undefined;
}

function isErrno(e: unknown, code: string): boolean {
  return (e as NodeJS.ErrnoException)?.code === code;
}

export async function processMount(opts: MountProcessorOptions): Promise<ProcessorResult> {
  const t0 = performance.now();
  const timings = emptyTimings();
  const errors: FileError[] = [];
  const log = opts.log ?? (() => undefined);
  const root = opts.mountPath;
  const inbox = join(root, 'inbox');
  const processed = join(root, 'processed');
  const processing = join(root, 'processing');
  const claimName = `${Date.now()}-${randomUUID()}`;
  const claimDir = join(processing, claimName);
  // Unique to this invocation, so a quarantined name never replaces another file.
  const failedDir = join(root, 'failed', claimName);
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

  // --- list ---
  const { candidates, staleDirs } = await timed(timings, 'listMs', async () => {
    await ensureDir(inbox, root);
    await ensureDir(processed, root);
    await ensureDir(processing, root);
    await mkdir(claimDir, { mode: CLAIM_DIR_MODE });

    const found: { name: string; from: string; quarantine?: string }[] = [];
    const seen = new Set<string>();
    for (const entry of await readdir(inbox, { withFileTypes: true })) {
      // Still being written (a temp name the producer renames when done): not ours yet, not an error.
      if (inProgressNameReason(entry.name)) continue;
      const refusal = entryRefusal(entry);
      if (refusal) {
        fail(entry.name, refusal);
        continue;
      }
      seen.add(entry.name);
      // A name whose result cannot be written is claimed only to be quarantined, so it is reported once.
      found.push({ name: entry.name, from: join(inbox, entry.name), quarantine: resultNameReason(entry.name) });
    }
    const stale = await staleClaims(processing, claimName, opts.claimStaleMs, seen);
    await sweepStaleTemps(processed, opts.claimStaleMs, log);
    return { candidates: [...found, ...stale.files], staleDirs: stale.dirs };
  });

  // Quarantine a claimed file that could not be processed; if even that fails, say where it is.
  let failedDirMade: Promise<unknown> | undefined;
  const release = async (c: Claimed, why: string): Promise<void> => {
    try {
      failedDirMade ??= mkdir(failedDir, { recursive: true, mode: DIR_MODE });
      await failedDirMade;
      await rename(c.path, join(failedDir, c.name));
      fail(c.name, `${why} (moved to failed/${claimName}/)`);
    } catch (e) {
      fail(c.name, `${why}; could not move it to failed/ (${errorMessage(e)}): it stays in processing/${claimName}/ and is recovered by a later run`);
    }
  };

  // A file that changed while it was read is still being written: back to the inbox for a later
  // run, but only if that name is free (a rename would replace a newer upload); else quarantine.
  const requeue = async (c: Claimed, why: string): Promise<void> => {
    const free = await lstat(c.from).then(() => false, (e) => isErrno(e, 'ENOENT'));
    if (!free) return release(c, `${why}; a newer file has the name now`);
    try {
      await rename(c.path, c.from);
      log('file still being written, left for a later run', { name: c.name, reason: why });
    } catch (e) {
      await release(c, `${why}; could not put it back (${errorMessage(e)})`);
    }
  };

  // Work in chunks: claim a chunk, then read, write and move it. Invocations sharing an inbox then
  // interleave their claims and share the work, and a crash strands at most one chunk of claims.
  // Near the deadline, claim nothing more: what is left stays in the inbox for the next run
  // (a claim stranded by a killed invocation would wait for recovery instead).
  let moved = 0;
  let deferred = 0;
  const chunks = chunksUntil(candidates, chunkSizeFor(opts.concurrency), opts.deadline ?? Infinity, opts.now ?? Date.now, (count) => {
    deferred = count;
    log('deadline near: leaving the rest for the next invocation', { deferred });
  });
  for (const chunk of chunks) {

    // --- claim (part of listing: it is how this invocation takes its share of the list) ---
    const claimed = await timed(timings, 'listMs', async () => {
      const won = await mapPool(chunk, opts.concurrency, async (c): Promise<Claimed | undefined> => {
        const path = join(claimDir, c.name);
        try {
          await rename(c.from, path);
          return { ...c, path };
        } catch (e) {
          // ENOENT: another invocation claimed it first, which is the expected outcome of a race.
          if (!isErrno(e, 'ENOENT')) fail(c.name, `claim failed, left in place: ${errorMessage(e)}`);
          return undefined;
        }
      });
      return won.filter((c): c is Claimed => c !== undefined);
    });

    // --- read (streamed) + count ---
    const counted = await timed(timings, 'readMs', () =>
      keepSucceeded(claimed, opts.concurrency, async (c) => {
        if (c.quarantine) {
          await release(c, c.quarantine);
          return false;
        }
        try {
          c.stats = await readStats(c.path, timings);
          return true;
        } catch (e) {
          if (e instanceof ChangedWhileReading) await requeue(c, e.message);
          else await release(c, errorMessage(e));
          return false;
        }
      }));

    // --- write metadata atomically ---
    const withMeta = await timed(timings, 'writeMs', () =>
      keepSucceeded(counted, opts.concurrency, async (c) => {
        const tmp = join(processed, `.tmp-${claimName.slice(0, 13)}-${randomUUID()}`);
        try {
          await writeDurably(tmp, metaJson({ name: c.name, ...c.stats! }));
          await rename(tmp, join(processed, `${c.name}.meta.json`));
          return true;
        } catch (e) {
          await unlink(tmp).catch(() => undefined);
          await release(c, `writing metadata failed: ${errorMessage(e)}`);
          return false;
        }
      }));

    // --- move into processed/ ---
    moved += await timed(timings, 'renameMs', async () => {
      const done = await keepSucceeded(withMeta, opts.concurrency, async (c) => {
        try {
          await rename(c.path, join(processed, c.name));
          return true;
        } catch (e) {
          if (isErrno(e, 'ENOENT')) {
            fail(c.name, 'claim lost: another invocation recovered it as stale (raise CLAIM_STALE_SECONDS)');
          } else {
            await release(c, `move to processed/ failed: ${errorMessage(e)}`);
          }
          return false;
        }
      });
      return done.length;
    });
  }
  await timed(timings, 'renameMs', () => syncDir(processed));
  // Drained stale claim directories go; ENOTEMPTY (a name left for the next run) is fine.
  await Promise.all(staleDirs.map((d) => rmdir(d).catch(() => undefined)));

  await rmdir(claimDir).catch((e) => log('claim directory not removed', { claimDir, error: errorMessage(e) }));
  timings.totalMs = performance.now() - t0;
  return { files: moved, errors, timings: roundTimings(timings), concurrency: opts.concurrency, ...(deferred ? { deferred } : {}) };
}

/**
 * Metadata temp files (`processed/.tmp-<epochMs>-<uuid>`) of invocations killed mid-write: older
 * than the claim staleness, nobody will rename them any more. Deleted before they are exported to S3
 * as clutter, or left forever.
 */
async function sweepStaleTemps(processed: string, staleMs: number, log: (m: string, e: Record<string, unknown>) => void): Promise<void> {
  const now = Date.now();
  for (const name of await readdir(processed).catch(() => [] as string[])) {
    const m = /^\.tmp-(\d{13})-/.exec(name);
    if (m && now - Number(m[1]) >= staleMs) {
      await unlink(join(processed, name)).then(() => log('stale temp file removed', { name }), () => undefined);
    }
  }
}

/** Files in other invocations' claim directories older than `staleMs`, to be re-claimed. */
async function staleClaims(processing: string, own: string, staleMs: number, seen: Set<string>) {
  const found: { name: string; from: string }[] = [];
  const dirs: string[] = [];
  const now = Date.now();
  for (const dir of await readdir(processing, { withFileTypes: true })) {
    const m = CLAIM_NAME.exec(dir.name);
    if (!dir.isDirectory() || !m || dir.name === own || now - Number(m[1]) < staleMs) continue;
    const dirPath = join(processing, dir.name);
    dirs.push(dirPath);
    const entries = await readdir(dirPath, { withFileTypes: true }).catch(() => [] as Dirent[]);
    for (const entry of entries) {
      // Same name claimed twice (inbox and a stale claim): leave the second for the next run so
      // one rename can never overwrite the other inside our claim directory.
      if (!entry.isFile() || unsafeNameReason(entry.name) || seen.has(entry.name)) continue;
      seen.add(entry.name);
      found.push({ name: entry.name, from: join(dirPath, entry.name) });
    }
  }
  return { files: found, dirs };
}

/** The file's size or modification time changed while it was read: a producer is still writing it. */
class ChangedWhileReading extends Error {}

async function readStats(path: string, timings: { processMs: number }): Promise<TextStats> {
  // O_NOFOLLOW: if the entry was swapped for a symlink after listing, open fails with ELOOP.
  const fh = await open(path, READ_FLAGS);
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new Error('not a regular file');
    const counter = new TextStatsCounter();
    const buf = Buffer.allocUnsafe(Math.min(READ_CHUNK_BYTES, Math.max(st.size, 1)));
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      const c0 = performance.now();
      counter.update(buf.subarray(0, bytesRead));
      timings.processMs += performance.now() - c0;
    }
    const after = await fh.stat();
    if (after.size !== st.size || after.mtimeMs !== st.mtimeMs) {
      throw new ChangedWhileReading(`changed while it was read (size ${st.size} -> ${after.size}): still being written`);
    }
    const c0 = performance.now();
    const stats = counter.finish();
    timings.processMs += performance.now() - c0;
    return stats;
  } finally {
    await fh.close();
  }
}

/** Write a new file and fsync it before it is renamed into place, so a crash never exposes a partial file. */
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
