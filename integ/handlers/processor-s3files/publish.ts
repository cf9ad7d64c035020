/**
 * Publishing a result: one atomic rename of an item directory (data + metadata) to
 * `processed/<name>/`. Of two results of one name, the one whose source was modified later wins;
 * the upload that loses is kept in failed/ and reported, never deleted.
 */
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ClaimDirectory, Claimed } from './claims';
import { exists, isErrno, nsToIso, resultModifiedNs } from './file-io';
import { shown } from './layout';
import { LeaseLost } from '../shared/lease';

/** Attempts to publish a result while other invocations keep replacing the name. */
const PUBLISH_ATTEMPTS = 5;

/** What became of a directory offered for publication. */
export type Publication = { readonly published: true } | { readonly published: false; readonly winnerNs: bigint };

/**
 * Make `dir` (a result directory holding `name` and its metadata, source modified at `ns`) the
 * result of `name`, unless the result there has a source modified later. A non-empty
 * `processed/<name>/` makes the rename fail (ENOTEMPTY/EEXIST) instead of being replaced. An older
 * result is moved away first, and what was moved away is checked again: if another invocation
 * published a newer one in between, that one goes back. When `dir` loses, it is left where it is
 * for the caller (an upload is kept, never deleted). Older results moved away are dropped only
 * once a newer result is in place (or there already): if publishing fails, they stay in this claim
 * directory (`replaced-<n>/`), and the end of this run (or the invocation that takes the claim
 * over) publishes the newest of them again, so a failed publish never leaves the name without its result.
 */
export async function publishDir(claims: ClaimDirectory, dir: string, name: string, ns: bigint): Promise<Publication> {
  const target = join(claims.layout.processed, name);
  let candidate = dir;
  let candidateNs = ns;
  let winnerNs: bigint | undefined;
  // Results moved away that the candidate outranks: dropped once a newer one is in processed/.
  const displaced: string[] = [];
  const drop = (dirs: string[]) => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  for (let attempt = 0; attempt < PUBLISH_ATTEMPTS; attempt++) {
    // Fencing: never publish once another invocation may have taken this claim over.
    claims.lease.assertHeld();
    if (await tryRename(claims, candidate, target, name)) {
      await drop(displaced);
      return candidate === dir ? { published: true } : { published: false, winnerNs: winnerNs! };
    }
    const existing = await resultModifiedNs(target, name);
    if (existing !== undefined && existing > candidateNs) {
      await drop([...displaced, ...(candidate !== dir ? [candidate] : [])]);
      return { published: false, winnerNs: existing };
    }
    const away = claims.nextReplaced();
    try {
      await rename(target, away);
    } catch (e) {
      if (isErrno(e, 'ENOENT')) continue; // another invocation moved it first: try again
      throw e;
    }
    // What was moved is not necessarily what was checked: a newer result may have been published since.
    const movedNs = await resultModifiedNs(away, name);
    if (movedNs !== undefined && movedNs > candidateNs) {
      if (candidate !== dir) displaced.push(candidate);
      candidate = away;
      candidateNs = movedNs;
      winnerNs = movedNs;
    } else {
      displaced.push(away);
    }
  }
  throw new Error(`processed/${name} kept being replaced by other invocations (${PUBLISH_ATTEMPTS} attempts)`
    + (candidate === dir ? '' : `; the newer result is kept in ${shown(claims.layout, candidate)}/ and published by a later run`));
}

/** One rename; false when a result is already there. */
async function tryRename(claims: ClaimDirectory, from: string, target: string, name: string): Promise<boolean> {
  try {
    await rename(from, target);
    return true;
  } catch (e) {
    if (isErrno(e, 'ENOENT') && !await exists(claims.layout.claimDir)) throw new LeaseLost('the claim directory was taken over');
    if (isErrno(e, 'ENOTDIR')) {
      throw new Error(`processed/${name} exists and is not a result directory; move it away so the result can be published`);
    }
    if (!isErrno(e, 'ENOTEMPTY', 'EEXIST')) throw e;
    return false;
  }
}

/** Publishes a claimed file's result; a file that loses to a newer upload's result is kept in failed/ and named. */
export async function publish(claims: ClaimDirectory, c: Claimed): Promise<void> {
  const outcome = await publishDir(claims, c.dir, c.name, c.modifiedNs!);
  if (outcome.published) {
    claims.moved++;
    return;
  }
  claims.superseded++;
  await claims.release(c, `superseded: processed/${c.name}/ holds the result of an upload modified later (${nsToIso(outcome.winnerNs)}) `
    + `than this one (${nsToIso(c.modifiedNs!)}); a copy that keeps old times (cp -p, rsync -t) loses to it. Touch it and put it back `
    + 'in inbox/ to make it the result');
}

/** A result moved away by an invocation that died before it was dealt with: published again if it is still the newest. */
export async function restoreReplaced(claims: ClaimDirectory, dir: string, name: string | undefined): Promise<void> {
  if (name === undefined) {
    await rm(dir, { recursive: true, force: true });
    return;
  }
  const outcome = await publishDir(claims, dir, name, await resultModifiedNs(dir, name) ?? 0n);
  // An older result than the one there now: dropped (its upload was published once already).
  if (!outcome.published) await rm(dir, { recursive: true, force: true });
}
