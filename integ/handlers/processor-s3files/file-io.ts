/** The mount processor's file calls: open flags, errno checks, the streamed count, durable writes. */
import { constants as fsc } from 'node:fs';
import { lstat, open, readdir, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { FILE_MODE } from './layout';
import { OutOfTime, Timings } from '../shared/common';
import { RESULT_SUFFIX } from '../shared/names';
import { TextStats, TextStatsCounter } from '../shared/text-stats';

// open(2) flags are bit masks.
/* eslint-disable no-bitwise */
/** O_NOFOLLOW: an entry swapped for a symlink fails with ELOOP; O_NONBLOCK: a FIFO never blocks the read. */
export const READ_FLAGS = fsc.O_RDONLY | fsc.O_NOFOLLOW | fsc.O_NONBLOCK;
export const CREATE_FLAGS = fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL | fsc.O_NOFOLLOW;
export const RENEW_FLAGS = fsc.O_WRONLY | fsc.O_NOFOLLOW;
const DIR_FLAGS = fsc.O_RDONLY | fsc.O_DIRECTORY;
/* eslint-enable no-bitwise */
const READ_CHUNK_BYTES = 256 * 1024;
/** Errors that may pass (space freed, server back): the file is handed back, not failed. */
const TRANSIENT_CODES = ['ENOSPC', 'EDQUOT', 'ETIMEDOUT', 'EAGAIN', 'EBUSY', 'ENOMEM', 'EMFILE', 'ENFILE', 'ESTALE'];

export function isErrno(e: unknown, ...codes: string[]): boolean {
  return codes.includes((e as NodeJS.ErrnoException)?.code ?? '');
}
export const isTransient = (e: unknown): boolean => isErrno(e, ...TRANSIENT_CODES);
export const nsToMs = (ns: bigint): number => Number(ns) / 1e6;
export const nsToIso = (ns: bigint): string => new Date(Number(ns / 1_000_000n)).toISOString();
export const exists = (path: string | Buffer): Promise<boolean> => lstat(path).then(() => true, () => false);

/** Removes a file; one that is already gone is fine. */
export async function unlinkIfPresent(path: string): Promise<void> {
  await unlink(path).catch((e) => {
    if (!isErrno(e, 'ENOENT')) throw e;
  });
}

/** The file's size or modification time changed while it was read: a producer is still writing it. */
export class ChangedWhileReading extends Error {}

/**
 * Count a file, streamed. `outOfTime` is checked between reads once the first block is in (so a
 * file that fits one block always completes): past the read deadline the read stops with `OutOfTime`.
 */
export async function readStats(path: string, timings: Timings, outOfTime: () => boolean): Promise<{ stats: TextStats; rank: Rank }> {
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
    return { stats, rank: { modifiedNs: st.mtimeNs, claimedNs: st.ctimeNs } };
  } finally {
    await fh.close();
  }
}

/** Write a new file and fsync it before it is published, so a crash never exposes a partial file. */
export async function writeDurably(path: string, data: string): Promise<void> {
  const fh = await open(path, CREATE_FLAGS, FILE_MODE);
  try {
    await fh.writeFile(data, 'utf8');
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Persist the directory entries created by the renames (best effort: not every file system allows it). */
export async function syncDir(path: string): Promise<void> {
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

/** The data file of a claimed item directory (`<name>`, beside an optional `<name>.meta.json`). */
export async function itemDataFile(dir: string): Promise<string | undefined> {
  const files = (await readdir(dir, { withFileTypes: true })).filter((f) => f.isFile()).map((f) => f.name);
  return files.sort((a, b) => a.length - b.length || a.localeCompare(b))[0];
}

/**
 * Which of two uploads of one name is newer: the later modification time, and between equal ones
 * (whole-second times, `tar x`, `cp -p`, `touch -r`) the one claimed later. `claimedNs` is the
 * claimed file's status-change time (ctime, server clock) when it was read: Linux file systems set
 * it on the rename that claims the file, and only directories holding it are renamed after that
 * (hand-backs, takeovers, publishing), so it stays the time of its first claim; where a file system
 * does not set it on rename, it is the time the upload was last written or had its times set.
 */
export interface Rank {
  readonly modifiedNs: bigint;
  readonly claimedNs?: bigint;
}

/** True when `a` is strictly newer than `b`; uploads that cannot be told apart are neither. */
export function newer(a: Rank, b: Rank): boolean {
  if (a.modifiedNs !== b.modifiedNs) return a.modifiedNs > b.modifiedNs;
  return a.claimedNs !== undefined && b.claimedNs !== undefined && a.claimedNs > b.claimedNs;
}

/** The rank of the source recorded in a result directory, or undefined if unreadable. */
export async function resultRank(dir: string, name: string): Promise<Rank | undefined> {
  try {
    const m = JSON.parse(await readFile(join(dir, `${name}${RESULT_SUFFIX}`), 'utf8'));
    const digits = (v: unknown): v is string => typeof v === 'string' && /^\d+$/.test(v);
    if (!digits(m?.source?.modifiedNs)) return undefined;
    return { modifiedNs: BigInt(m.source.modifiedNs), ...(digits(m.source.claimedNs) ? { claimedNs: BigInt(m.source.claimedNs) } : {}) };
  } catch {
    return undefined;
  }
}

/**
 * Whether `dir/file` is a result's metadata left without its data (`<name>.meta.json` describing
 * `<name>`): an older version of this processor could leave one alone in an item directory when it
 * was killed while taking the item over. It must never be processed as an upload of its own.
 */
export async function isLoneMetadata(dir: string, file: string): Promise<boolean> {
  if (!file.endsWith(RESULT_SUFFIX)) return false;
  try {
    const m = JSON.parse(await readFile(join(dir, file), 'utf8'));
    return m?.name === file.slice(0, -RESULT_SUFFIX.length) && typeof m?.source === 'object' && m.source !== null;
  } catch {
    return false;
  }
}
