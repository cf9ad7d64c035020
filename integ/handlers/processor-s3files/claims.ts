/**
 * This invocation's claim directory, `processing/<claim>/`, and what becomes of each file in it:
 * claimed with one atomic rename (exactly one invocation wins), then published, handed back to the
 * next invocation, put back in the inbox, or moved to `failed/<claim>/` and reported once. A claimed
 * file is never deleted. The counters of the run live here too.
 */
import { link, lstat, mkdir, open, rename, rmdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { CREATE_FLAGS, exists, isErrno, unlinkIfPresent } from './file-io';
import { CLAIM_DIR_MODE, DIR_MODE, FILE_MODE, itemDirName, Layout, REPLACED_PREFIX, shown } from './layout';
import { errorMessage, FileError } from '../shared/common';
import { Lease, LeaseLost } from '../shared/lease';
import { TextStats } from '../shared/text-stats';

/** Times a file is handed back (transient error, deadline, still being written) before it goes to failed/. */
export const MAX_ATTEMPTS = 5;

type Log = (message: string, extra: Record<string, unknown>) => void;

/** A file to claim: in the inbox, or in a claim directory this invocation took over. */
export interface Candidate {
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

export interface Claimed extends Candidate {
  /** `processing/<claim>/<n>/`: becomes `processed/<name>/`. */
  readonly dir: string;
  /** `<dir>/<name>`. */
  readonly path: string;
  stats?: TextStats;
  /** The source's modification time in ns (server clock), which orders results of one name. */
  modifiedNs?: bigint;
  metaWritten?: boolean;
}

export class ClaimDirectory {
  public readonly errors: FileError[] = [];
  public moved = 0;
  public superseded = 0;
  public recovered = 0;
  public retrying = 0;
  private seq = 0;
  private failedDir?: Promise<string>;

  constructor(public readonly layout: Layout, public readonly lease: Lease, public readonly log: Log) {}

  /** A new item directory path in this claim (`<n>` or `<n>-<attempts>`). */
  public nextItemDir(attempts: number): string {
    return join(this.layout.claimDir, itemDirName(++this.seq, attempts));
  }

  /** Where a result is moved away to while a newer one is published. */
  public nextReplaced(): string {
    return join(this.layout.claimDir, `${REPLACED_PREFIX}${++this.seq}`);
  }

  public fail(name: string, error: string): void {
    this.errors.push({ name, error });
    this.log('file not processed', { name, error });
  }

  /** Throws LeaseLost once another invocation may have taken this claim over: its failures are not the files'. */
  public async assertHeld(): Promise<void> {
    if (!this.lease.held() || !await exists(this.layout.claimDir)) {
      throw new LeaseLost(this.lease.lostReason ?? 'the claim directory was taken over');
    }
  }

  /** Claim `c` into its own item directory; undefined if another invocation was first. */
  public async claim(c: Candidate): Promise<Claimed | undefined> {
    const dir = this.nextItemDir(c.attempts);
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
      if (!isErrno(e, 'ENOENT')) this.fail(c.name, `claim failed, left in place: ${errorMessage(e)}`);
      return undefined;
    }
    if (c.adopted) this.recovered++;
    if (c.itemDir) {
      // The dead invocation's partial metadata for this file, and its now empty item directory.
      await unlinkIfPresent(join(c.itemDir, `${c.name}.meta.json`)).catch(() => undefined);
      await rmdir(c.itemDir).catch(() => undefined);
    }
    return { ...c, dir, path };
  }

  /**
   * Move `from` (named `name`: a string, or the raw bytes of a name that is not UTF-8) to
   * `failed/<claim>/<name>`, never over anything there: the destination is first reserved with an
   * exclusive create (see `reserve`), which fails with EEXIST atomically, and the move then replaces
   * only that empty placeholder. So two moves of one name at once (moves run in parallel) cannot
   * overwrite each other: the one that finds the name taken goes to a directory of its own,
   * `failed/<claim>-<tag>/`, made with an exclusive mkdir. (Not link(2) + unlink: S3 Files has no
   * hard links, and a directory cannot be linked.) If the move fails, the placeholder goes and
   * `from` stays where it was (the error is thrown for the caller to report); a crash between the
   * two steps leaves an empty placeholder, never a lost file. Resolves to the directory as messages
   * show it (`failed/<claim>/`).
   */
  public async toFailed(from: string | Buffer, name: string | Buffer, tag: string): Promise<string> {
    const { failed, claimName } = this.layout;
    this.failedDir ??= mkdir(join(failed, claimName), { recursive: true, mode: DIR_MODE }).then(() => join(failed, claimName));
    const within = (dir: string) => (typeof name === 'string' ? join(dir, name) : Buffer.concat([Buffer.from(`${dir}/`), name]));
    const isDir = (await lstat(from)).isDirectory();
    const shared = await this.failedDir;
    let dir = shared;
    if (!await reserve(within(dir), isDir)) {
      dir = await this.ownFailedDir(`${claimName}-${tag}`);
      if (!await reserve(within(dir), isDir)) throw new Error(`${shown(this.layout, dir)}/ was not empty`);
    }
    try {
      await rename(from, within(dir));
    } catch (e) {
      await (isDir ? rmdir : unlink)(within(dir)).catch(() => undefined);
      if (dir !== shared) await rmdir(dir).catch(() => undefined); // the directory made for this move, now empty
      throw e;
    }
    return `${shown(this.layout, dir)}/`;
  }

  /** A new directory under failed/ named `base` (or `base-2`, `base-3`... if taken), made with an exclusive mkdir. */
  private async ownFailedDir(base: string): Promise<string> {
    for (let n = 1; ; n++) {
      const dir = join(this.layout.failed, n === 1 ? base : `${base}-${n}`);
      try {
        await mkdir(dir, { mode: DIR_MODE });
        return dir;
      } catch (e) {
        if (!isErrno(e, 'EEXIST') || n >= 100) throw e;
      }
    }
  }

  /** Moves a claimed file that cannot be processed to failed/ (its metadata dropped first) and reports it once. */
  public async release(c: Claimed, why: string): Promise<void> {
    await this.assertHeld();
    try {
      // Metadata first: an item directory never holds metadata without its data.
      if (c.metaWritten) await unlinkIfPresent(`${c.path}.meta.json`);
      const dir = await this.toFailed(c.path, c.name, c.dir.slice(this.layout.claimDir.length + 1));
      await rmdir(c.dir).catch(() => undefined);
      this.fail(c.name, `${why} (moved to ${dir})`);
    } catch (e) {
      this.fail(c.name, `${why}; could not move it to failed/ (${errorMessage(e)}): it stays in ${shown(this.layout, c.dir)}/ `
        + 'and the next run takes it over');
    }
  }

  /**
   * Keep a file claimed for the next invocation (which takes this claim directory over at once):
   * its item directory is renamed to count the attempt. After MAX_ATTEMPTS it goes to failed/.
   */
  public async handBack(c: Claimed, why: string): Promise<void> {
    await this.assertHeld();
    const attempts = c.attempts + 1;
    if (attempts >= MAX_ATTEMPTS) return this.release(c, `${why}; gave up after ${attempts} attempts`);
    try {
      if (c.metaWritten) await unlinkIfPresent(`${c.path}.meta.json`);
      await rename(c.dir, this.nextItemDir(attempts));
      this.retrying++;
      this.log('file left claimed for the next invocation', { name: c.name, reason: why, attempts });
    } catch (e) {
      await this.release(c, `${why}; could not keep it for a retry (${errorMessage(e)})`);
    }
  }

  /**
   * A file that changed while it was read is still being written: back to the inbox for a later
   * run with link(2) + unlink, which never replaces a name that exists (a newer upload); where that
   * name is taken, or the file system has no hard links (S3 Files), it stays claimed instead. If
   * the unlink fails, the put-back is undone: a file both claimed and in the inbox would be counted twice.
   */
  public async requeue(c: Claimed, why: string): Promise<void> {
    const back = join(this.layout.inbox, c.name);
    try {
      await link(c.path, back);
    } catch (e) {
      return this.handBack(c, isErrno(e, 'EEXIST') ? `${why}; a newer file has the name in inbox/ now` : why);
    }
    try {
      await unlink(c.path);
    } catch (e) {
      const undone = await this.undoLink(back, c.path);
      const reason = `${why}; could not put it back in inbox/ (${errorMessage(e)})`;
      // Not undone: another invocation claimed the inbox name already and processes these bytes.
      return undone ? this.handBack(c, reason) : this.release(c, `${reason}; another invocation took it from inbox/, this copy is kept`);
    }
    await rmdir(c.dir).catch(() => undefined);
    this.log('file still being written, put back in inbox/ for a later run', { name: c.name, reason: why });
  }

  /**
   * Moves an entry of the inbox this processor will not process (a symlink, a directory, a name
   * that is not UTF-8) to failed/, so it is reported once, not on every run. `name` is what the
   * report shows; `raw` the name's bytes when they are not UTF-8.
   */
  public async refuse(from: string | Buffer, name: string, why: string, raw?: Buffer): Promise<void> {
    try {
      const dir = await this.toFailed(from, raw ?? name, `entry-${++this.seq}`);
      this.fail(name, `${why} (moved to ${dir})`);
    } catch (e) {
      // Gone: another invocation moved it first, and reports it.
      if (!isErrno(e, 'ENOENT')) this.fail(name, `${why}; could not move it to failed/ (${errorMessage(e)}): it stays in inbox/`);
    }
  }

  /** Moves an entry this processor cannot use out of a claim directory (so the claim can be removed), reported once. */
  public async quarantineEntry(path: string, name: string, why: string): Promise<void> {
    try {
      const dir = await this.toFailed(path, name, `entry-${++this.seq}`);
      this.fail(name, `${why} (moved to ${dir})`);
    } catch (e) {
      this.fail(name, `${why}; could not move it to failed/ (${errorMessage(e)}): it stays in ${shown(this.layout, path)}`);
    }
  }

  /** Removes the put-back link if it still is this file (same inode); false when another invocation took it. */
  private async undoLink(back: string, claimed: string): Promise<boolean> {
    const [a, b] = await Promise.all([lstat(back).catch(() => undefined), lstat(claimed).catch(() => undefined)]);
    if (!a || !b || a.ino !== b.ino || a.dev !== b.dev) return false;
    return unlink(back).then(() => true, () => false);
  }
}

/**
 * Reserves `path` for a move: creates it empty, exclusively (O_CREAT|O_EXCL, or mkdir for a
 * directory to be moved there: rename replaces an empty directory, and a file only with a file).
 * False when something has the name already; any other error is thrown.
 */
async function reserve(path: string | Buffer, dir: boolean): Promise<boolean> {
  try {
    if (dir) await mkdir(path, { mode: CLAIM_DIR_MODE });
    else await (await open(path, CREATE_FLAGS, FILE_MODE)).close();
    return true;
  } catch (e) {
    if (isErrno(e, 'EEXIST')) return false;
    throw e;
  }
}
