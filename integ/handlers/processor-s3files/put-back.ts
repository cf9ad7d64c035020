/**
 * Putting a file that changed while it was read (still being written) back in the inbox, so that
 * no crash leaves it both claimed and in the inbox (processed and counted twice). Its item
 * directory is first renamed to `back-<n>-<links>/` in the claim directory: atomic, so the file is
 * claimed under one name or the other, and that name is one no inbox listing or takeover ever
 * claims. Then link(2) gives it its inbox name, which never replaces a file that took the name (a
 * newer upload), and then the claim's name goes. An invocation that takes the claim over finishes
 * what was begun (`finishPutBack`): `<links>` is the file's link count before the inbox link, so a
 * higher count means that link was made (the file is in inbox/, or was claimed from it since).
 * Where the name is taken, or the file system has no hard links (S3 Files has none), the file
 * stays claimed for the next invocation instead.
 */
import { link, lstat, rename, rmdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { ClaimDirectory, Claimed } from './claims';
import { isErrno, itemDataFile } from './file-io';
import { errorMessage } from '../shared/common';

/** A put-back in progress, in a claim directory: `back-<n>-<links>/<name>`. */
export const BACK_PREFIX = 'back-';
const BACK_DIR = /^back-\d+-(\d+)$/;

/** Puts a claimed file back in inbox/ for a later run (see the module comment). */
export async function putBack(claims: ClaimDirectory, c: Claimed, why: string): Promise<void> {
  let links: number;
  const back = join(claims.layout.claimDir, `${BACK_PREFIX}${claims.nextSeq()}-`);
  try {
    links = (await lstat(c.path)).nlink;
    await rename(c.dir, `${back}${links}`);
  } catch {
    return claims.handBack(c, why);
  }
  const moved: Claimed = { ...c, dir: `${back}${links}`, path: join(`${back}${links}`, c.name) };
  const inbox = join(claims.layout.inbox, c.name);
  try {
    await link(moved.path, inbox);
  } catch (e) {
    return claims.handBack(moved, isErrno(e, 'EEXIST') ? `${why}; a newer file has the name in inbox/ now` : why);
  }
  try {
    await unlink(moved.path);
  } catch (e) {
    const undone = await undoLink(inbox, moved.path);
    const reason = `${why}; could not put it back in inbox/ (${errorMessage(e)})`;
    // Not undone: another invocation claimed the inbox name already and processes these bytes.
    return undone ? claims.handBack(moved, reason) : claims.release(moved, `${reason}; another invocation took it from inbox/, this copy is kept`);
  }
  await rmdir(moved.dir).catch(() => undefined);
  claims.log('file still being written, put back in inbox/ for a later run', { name: c.name, reason: why });
}

/** Whether `name` (an entry of a claim directory) is a put-back in progress. */
export const isPutBack = (name: string): boolean => BACK_DIR.test(name);

/** Finishes a put-back a dead invocation began (`dir` is its `back-<n>-<links>/`, now in this claim). */
export async function finishPutBack(claims: ClaimDirectory, dir: string, dirName: string): Promise<void> {
  const name = await itemDataFile(dir).catch(() => undefined);
  if (name === undefined) {
    await rmdir(dir).catch(() => undefined);
    return;
  }
  const path = join(dir, name);
  const linked = (await lstat(path)).nlink > Number(BACK_DIR.exec(dirName)![1]);
  if (!linked) {
    try {
      await link(path, join(claims.layout.inbox, name));
    } catch (e) {
      // The name is taken (a newer upload), or no hard links: it stays claimed for the next run.
      await rename(dir, claims.nextItemDir(1));
      claims.retrying++;
      claims.log('file left claimed for the next invocation', { name, reason: `a put-back could not be finished: ${errorMessage(e)}` });
      return;
    }
  }
  // The file has its inbox name (or was claimed from the inbox since): this name is the only extra one.
  await unlink(path);
  await rmdir(dir).catch(() => undefined);
  claims.log('finished a put-back a killed invocation had begun', { name });
}

/** Removes the put-back link if it still is this file (same inode); false when another invocation took it. */
async function undoLink(back: string, claimed: string): Promise<boolean> {
  const [a, b] = await Promise.all([lstat(back).catch(() => undefined), lstat(claimed).catch(() => undefined)]);
  if (!a || !b || a.ino !== b.ino || a.dev !== b.dev) return false;
  return unlink(back).then(() => true, () => false);
}
