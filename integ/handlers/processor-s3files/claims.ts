/**
 * This invocation's claim directory, `processing/<claim>/`, and what becomes of each file in it:
 * claimed with one atomic rename (exactly one invocation wins), then published, handed back to the
 * next invocation, put back in the inbox (./put-back.ts), or moved to `failed/<claim>/` and
 * reported once. A claimed
 * file is never deleted. The counters of the run live here too.
 */
import { lstat, mkdir, open, rename, rmdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { CREATE_FLAGS, exists, isErrno, Rank, unlinkIfPresent } from './file-io';
import { CLAIM_DIR_MODE, DIR_MODE, FILE_MODE, itemDirName, Layout, REPLACED_PREFIX, shown } from './layout';
import { refusedInPlace } from './refusals';
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
  /** The source's modification and claim times (server clock), which order results of one name. */
  rank?: Rank;
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
    return join(this.layout.claimDir, itemDirName(this.nextSeq(), attempts));
  }

  /** A number no other entry of this claim directory has. */
  public nextSeq(): number {
    return ++this.seq;
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
    if (c.itemDir) return this.claimItem(c, dir);
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
    return { ...c, dir, path };
  }

  /**
   * A taken-over item moves whole, by renaming its directory: the file is not renamed again, so its
   * ctime stays the time of its first claim (./file-io.ts, `Rank`). The dead invocation's metadata
   * goes first, so a crash between the two steps leaves the data alone in its item directory (a
   * claim like any other), never metadata alone, which a later run could take for an upload.
   */
  private async claimItem(c: Candidate, dir: string): Promise<Claimed | undefined> {
    try {
      await unlinkIfPresent(join(c.itemDir!, `${c.name}.meta.json`));
      await rename(c.itemDir!, dir);
    } catch (e) {
      if (isErrno(e, 'ENOENT') && !await exists(this.layout.claimDir)) throw new LeaseLost('the claim directory was taken over');
      this.fail(c.name, `claim failed, left in place: ${errorMessage(e)}`);
      return undefined;
    }
    if (c.adopted) this.recovered++;
    return { ...c, dir, path: join(dir, c.name) };
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
      if (isErrno(e, 'ENOENT')) return;
      // This user may not move it (a directory an S3 upload made: root:root 0755): reported once, recorded.
      if (isErrno(e, 'EACCES', 'EPERM') && await refusedInPlace(this, from, name, raw ?? name, why, e)) return;
      this.fail(name, `${why}; could not move it to failed/ (${errorMessage(e)}): it stays in inbox/`);
    }
  }

  /** Removes this run's `failed/<claim>/` if nothing was moved there after all (a move that failed). */
  public async tidyFailed(): Promise<void> {
    if (this.failedDir) await rmdir(await this.failedDir.catch(() => join(this.layout.failed, this.layout.claimName))).catch(() => undefined);
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
