/**
 * Taking over the claims of invocations that died (their lease expired) or finished and handed
 * files back (their lease is marked released): each claim directory moves into the taker's with
 * one atomic rename (`adopted-<claim>/`), so exactly one invocation takes it, and the dead one's
 * paths no longer exist if it wakes up. Whatever the taker does not process is handed back.
 */
import { Dirent } from 'node:fs';
import { lstat, mkdir, opendir, readdir, rename, rm, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Candidate, ClaimDirectory } from './claims';
import { isErrno, isLoneMetadata, itemDataFile } from './file-io';
import { ADOPTED_PREFIX, attemptsOf, CLAIM_DIR_MODE, CLAIM_NAME, LEASE_FILE, REPLACED_PREFIX } from './layout';
import { lastHeartbeat } from './lease-store';
import { restoreReplaced } from './publish';
import { finishPutBack, isPutBack } from './put-back';
import { errorMessage } from '../shared/common';
import { RESULT_SUFFIX, unsafeNameReason } from '../shared/names';

/** Moves every expired or released claim directory into ours; resolves to their new paths. */
export async function adoptExpired(claims: ClaimDirectory): Promise<string[]> {
  const { layout, lease, log } = claims;
  // A fresh write of our own lease is "now" on the server's clock.
  await lease.renew();
  const adopted: string[] = [];
  for await (const d of await opendir(layout.processing)) {
    if (!d.isDirectory() || !CLAIM_NAME.test(d.name) || d.name === layout.claimName) continue;
    const path = join(layout.processing, d.name);
    const beat = await lastHeartbeat(path, log).catch((e) => {
      log('could not judge a claim\'s lease (left for a later run)', { claim: d.name, error: errorMessage(e) });
      return undefined;
    });
    if (!beat) continue;
    const damage = lease.damage(beat.at, beat.ttlMs);
    if (damage) log(damage, { claim: d.name, ttlMs: beat.ttlMs, stampedAheadMs: Math.round(beat.at - lease.serverNow) });
    // The holder's own lease length counts (it may be configured differently from ours).
    if (!beat.released && !lease.expired(beat.at, beat.ttlMs)) continue;
    const to = join(layout.claimDir, `${ADOPTED_PREFIX}${d.name}`);
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

/**
 * The claimed files in a directory taken over from another invocation: `<n>/<name>` items (with
 * the times they were handed back), files directly in the claim directory (the layout before item
 * directories), and the items of directories it had itself taken over. Nothing is deleted here; an
 * item holding only a result's metadata is marked for failed/, never processed as an upload.
 */
export async function* adoptedFiles(dir: string): AsyncGenerator<Candidate> {
  for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [] as Dirent[])) {
    const path = join(dir, e.name);
    // Results moved away and put-backs in progress are dealt with once the chunks are done (`settle`).
    if (e.name === LEASE_FILE || e.name.startsWith(REPLACED_PREFIX) || isPutBack(e.name) || unsafeNameReason(e.name)) continue;
    if (e.isDirectory() && e.name.startsWith(ADOPTED_PREFIX)) {
      yield* adoptedFiles(path);
    } else if (e.isDirectory()) {
      const name = await itemDataFile(path).catch(() => undefined);
      if (name === undefined || unsafeNameReason(name)) continue;
      const st = await lstat(join(path, name)).catch(() => undefined);
      // Metadata alone (an older version killed mid-takeover): never taken for an upload, kept in failed/.
      const quarantine = await isLoneMetadata(path, name)
        ? `metadata of ${name.slice(0, -RESULT_SUFFIX.length)} without its data, left by an invocation killed while it took the file over `
          + '(the data was claimed on its own): not an upload, kept in failed/ and not published'
        : undefined;
      if (st) yield { name, from: join(path, name), size: st.size, attempts: attemptsOf(e.name), itemDir: path, adopted: true, quarantine };
    } else if (e.isFile()) {
      const st = await lstat(path).catch(() => undefined);
      if (st) yield { name: e.name, from: path, size: st.size, attempts: 0, adopted: true };
    }
  }
}

/**
 * After the chunk loop: what is left of a claim directory taken over. Files not processed (the
 * deadline came first) move to item directories of our own claim, handed back whole; results a
 * dead invocation had moved away are published again unless a newer one is there; put-backs it had
 * begun are finished; the lease and empty directories go. Only our own bookkeeping is ever deleted.
 */
export async function settle(claims: ClaimDirectory, dir: string): Promise<void> {
  for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [] as Dirent[])) {
    const path = join(dir, e.name);
    if (e.name === LEASE_FILE) {
      await rm(path, { recursive: true, force: true });
    } else if (e.isDirectory() && e.name.startsWith(ADOPTED_PREFIX)) {
      await settle(claims, path);
    } else if (e.isDirectory() && e.name.startsWith(REPLACED_PREFIX)) {
      await restoreReplaced(claims, path, await itemDataFile(path).catch(() => undefined));
    } else if (e.isDirectory() && isPutBack(e.name)) {
      await finishPutBack(claims, path, e.name);
    } else if (e.isDirectory()) {
      await settleItem(claims, path, e.name);
    } else if (e.isFile() && !unsafeNameReason(e.name)) {
      // A file claimed in the layout before item directories.
      const item = claims.nextItemDir(0);
      await mkdir(item, { mode: CLAIM_DIR_MODE });
      await rename(path, join(item, e.name));
      claims.retrying++;
    } else {
      await claims.quarantineEntry(path, e.name, 'not a regular file or directory, found in a claim directory');
    }
  }
  await rmdir(dir).catch(() => undefined);
}

/** An item directory left unprocessed: handed back whole under our claim, its attempts kept. */
async function settleItem(claims: ClaimDirectory, path: string, dirName: string): Promise<void> {
  const name = await itemDataFile(path).catch(() => undefined);
  if (name === undefined) {
    await rmdir(path).catch(() => claims.quarantineEntry(path, dirName, 'unexpected directory in a claim directory'));
    return;
  }
  await rename(path, claims.nextItemDir(attemptsOf(dirName)));
  claims.retrying++;
}
