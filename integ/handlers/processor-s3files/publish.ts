/**
 * Publishing a result: one atomic rename of an item directory (data + metadata) to
 * `processed/<name>/`. Of two results of one name, the one whose source was modified later wins,
 * and of equal modification times the one claimed later; the upload that loses is kept in failed/
 * and reported, never deleted, and a result is dropped only for one strictly newer.
 */
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ClaimDirectory, Claimed } from './claims';
import { exists, isErrno, newer, nsToIso, Rank, resultRank } from './file-io';
import { shown } from './layout';
import { LeaseLost } from '../shared/lease';

/** Attempts to publish a result while other invocations keep replacing the name. */
const PUBLISH_ATTEMPTS = 5;

/** What became of a directory offered for publication: published, or not, beside the rank of the result that stays. */
export type Publication = { readonly published: true } | { readonly published: false; readonly winner: Rank };

/** A result moved away to publish another, with the rank of its source (undefined: unreadable metadata). */
interface Displaced {
  readonly dir: string;
  readonly rank?: Rank;
}

/**
 * Make `dir` (a result directory holding `name` and its metadata, its source ranked `rank`) the
 * result of `name`, unless the result there is not strictly older (./file-io.ts, `newer`: the later
 * modification time, then the later claim). A non-empty `processed/<name>/` makes the rename fail
 * (ENOTEMPTY/EEXIST) instead of being replaced. An older result is moved away first, and what was
 * moved away is checked again: if another invocation published one that is not older in between,
 * that one goes back. When `dir` loses, it is left where it is for the caller (an upload is kept,
 * never deleted). A result moved away is dropped only when one strictly newer is in place: one that
 * cannot be told from the winner stays in this claim directory (`replaced-<n>/`), and the end of
 * this run (or the invocation that takes the claim over) publishes it again or keeps it in failed/
 * (./publish.ts, `restoreReplaced`); so does one moved away when publishing fails, so a failed
 * publish never leaves the name without its result.
 */
export async function publishDir(claims: ClaimDirectory, dir: string, name: string, rank: Rank): Promise<Publication> {
  const target = join(claims.layout.processed, name);
  let candidate: Displaced = { dir, rank };
  const displaced: Displaced[] = [];
  // Only what is strictly older than the result in place goes; unreadable results (no rank) are no result.
  const dropOlder = (winner: Rank, dirs: Displaced[]) => Promise.all(dirs.filter((d) => d.rank === undefined || newer(winner, d.rank))
    .map((d) => rm(d.dir, { recursive: true, force: true })));
  for (let attempt = 0; attempt < PUBLISH_ATTEMPTS; attempt++) {
    // Fencing: never publish once another invocation may have taken this claim over.
    claims.lease.assertHeld();
    if (await tryRename(claims, candidate.dir, target, name)) {
      await dropOlder(candidate.rank!, displaced);
      return candidate.dir === dir ? { published: true } : { published: false, winner: candidate.rank! };
    }
    const existing = await resultRank(target, name);
    if (existing !== undefined && !newer(candidate.rank!, existing)) {
      await dropOlder(existing, [...displaced, ...(candidate.dir !== dir ? [candidate] : [])]);
      return { published: false, winner: existing };
    }
    const away = claims.nextReplaced();
    try {
      await rename(target, away);
    } catch (e) {
      if (isErrno(e, 'ENOENT')) continue; // another invocation moved it first: try again
      throw e;
    }
    // What was moved is not necessarily what was checked: another result may have been published since.
    const moved: Displaced = { dir: away, rank: await resultRank(away, name) };
    if (moved.rank !== undefined && !newer(candidate.rank!, moved.rank)) {
      if (candidate.dir !== dir) displaced.push(candidate);
      candidate = moved;
    } else {
      displaced.push(moved);
    }
  }
  throw new Error(`processed/${name} kept being replaced by other invocations (${PUBLISH_ATTEMPTS} attempts)`
    + (candidate.dir === dir ? '' : `; the newer result is kept in ${shown(claims.layout, candidate.dir)}/ and published by a later run`));
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

/** Why an upload is not the result: the result there comes from a newer upload (or one that cannot be told apart). */
export function supersededReason(name: string, ours: Rank, winner: Rank): string {
  const why = ours.modifiedNs === winner.modifiedNs
    ? `holds the result of an upload with the same modification time (${nsToIso(ours.modifiedNs)}) that was claimed `
      + `${newer(winner, ours) ? 'later' : 'at the same time'}; of two uploads with equal times the one claimed later is the result`
    : `holds the result of an upload modified later (${nsToIso(winner.modifiedNs)}) than this one (${nsToIso(ours.modifiedNs)}); a copy `
      + 'that keeps old times (cp -p, rsync -t) loses to it';
  return `superseded: processed/${name}/ ${why}. Touch it and put it back in inbox/ to make it the result`;
}

/** Publishes a claimed file's result; a file that loses to a newer upload's result is kept in failed/ and named. */
export async function publish(claims: ClaimDirectory, c: Claimed): Promise<void> {
  const outcome = await publishDir(claims, c.dir, c.name, c.rank!);
  if (outcome.published) {
    claims.moved++;
    return;
  }
  claims.superseded++;
  await claims.release(c, supersededReason(c.name, c.rank!, outcome.winner));
}

/**
 * A result moved away by an invocation that died (or lost a race) before it was dealt with:
 * published again if it is the newest; dropped if the result there is strictly newer (its upload
 * was published once already); otherwise (the two cannot be told apart) kept in failed/, reported.
 */
export async function restoreReplaced(claims: ClaimDirectory, dir: string, name: string | undefined): Promise<void> {
  const rank = name === undefined ? undefined : await resultRank(dir, name);
  if (name === undefined || rank === undefined) {
    await rm(dir, { recursive: true, force: true });
    return;
  }
  const outcome = await publishDir(claims, dir, name, rank);
  if (outcome.published) return;
  if (newer(outcome.winner, rank)) {
    await rm(dir, { recursive: true, force: true });
  } else {
    claims.superseded++;
    await claims.quarantineEntry(dir, name, `${supersededReason(name, rank, outcome.winner)} (a result directory, kept whole)`);
  }
}
