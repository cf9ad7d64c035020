/**
 * Inbox entries this processor refuses and may not move to failed/: a directory that an S3 upload
 * made (a key `inbox/<dir>/<name>` shows `inbox/<dir>/` as root:root 0755, and renaming a directory
 * needs write permission in it, which the access point's user lacks). Such an entry stays in
 * inbox/; the refusal is recorded in `failed/.not-moved/<name>` (the entry's inode and the reason),
 * so it is reported once, not on every run, until another entry takes the name.
 */
import { lstat, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ClaimDirectory } from './claims';
import { DIR_MODE, FILE_MODE } from './layout';
import { errorMessage } from '../shared/common';

/** Under failed/: one record per refused entry that could not be moved. */
export const NOT_MOVED_DIR = '.not-moved';

/**
 * Records that `from` (named `name`: a string, or the raw bytes of a name that is not UTF-8; the
 * report shows `shown`) stays in inbox/, and reports it the first
 * time only. False when not even the record can be written (the caller reports as before).
 */
export async function refusedInPlace(
  claims: ClaimDirectory, from: string | Buffer, shown: string, name: string | Buffer, why: string, error: unknown,
): Promise<boolean> {
  try {
    const st = await lstat(from);
    const dir = join(claims.layout.failed, NOT_MOVED_DIR);
    const record = typeof name === 'string' ? join(dir, name) : Buffer.concat([Buffer.from(`${dir}/`), name]);
    const identity = `${st.dev}:${st.ino}`;
    const seen = await readFile(record, 'utf8').then((t) => JSON.parse(t)?.entry, () => undefined);
    if (seen === identity) return true; // reported when it was recorded
    await mkdir(dir, { recursive: true, mode: DIR_MODE });
    await writeFile(record, `${JSON.stringify({ entry: identity, reason: why, error: errorMessage(error), claim: claims.layout.claimName })}\n`, { mode: FILE_MODE });
    claims.fail(shown, `${why}; it cannot be moved to failed/ (${errorMessage(error)}) and stays in inbox/, recorded in failed/${NOT_MOVED_DIR}/ `
      + 'and not reported again while it is there. A directory an S3 upload made (a key under inbox/<dir>/) is root:root 0755 on the mount and '
      + 'the access point\'s user cannot move it: delete those keys through the S3 API, or move it with a uid-0 access point that has '
      + 's3files:ClientRootAccess');
    return true;
  } catch {
    return false;
  }
}
