/**
 * The inbox as a stream of files to claim. The listing is never held whole, so memory does not
 * grow with the inbox. Entries this processor will not process (symlinks, directories, names
 * that are not UTF-8) are moved to failed/ as they are met, so each is reported once; files still
 * being written under a temporary name are left alone.
 */
import { Dirent } from 'node:fs';
import { lstat, opendir } from 'node:fs/promises';
import { join } from 'node:path';
import { Candidate, ClaimDirectory } from './claims';
import { inProgressNameReason, resultNameReason, unsafeNameReason } from '../shared/names';
import { mapPool } from '../shared/pool';

/** Inbox entries whose size is looked up at once (in parallel: each lstat is a round trip on NFS). */
const LIST_BATCH = 64;
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Why an inbox entry is refused, or undefined for a regular file with a usable name. */
function refusal(entry: Dirent, name: string): string | undefined {
  const unsafe = unsafeNameReason(name);
  if (unsafe) return `refused: ${unsafe}`;
  if (entry.isSymbolicLink()) return 'refused: a symlink, never followed';
  if (entry.isDirectory()) return 'refused: a directory; only regular files directly in inbox/ are processed';
  if (!entry.isFile()) return 'refused: not a regular file';
  return undefined;
}

/** A name's bytes as a report can show them: printable ASCII as is, every other byte as `\xNN`. */
export function printableName(raw: Buffer): string {
  return [...raw].map((b) => (b >= 0x20 && b < 0x7f && b !== 0x5c ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`)).join('');
}

/** The entry's name as UTF-8, or undefined when its bytes are not UTF-8 (S3 keys must be). */
function utf8Name(raw: Buffer): string | undefined {
  try {
    return UTF8.decode(raw);
  } catch {
    return undefined;
  }
}

export async function* inboxFiles(claims: ClaimDirectory, concurrency: number): AsyncGenerator<Candidate> {
  const inbox = claims.layout.inbox;
  // Raw names: decoding them as UTF-8 would turn bytes that are not into U+FFFD, a name that does not exist.
  const dir = await opendir(inbox, { bufferSize: 128, encoding: 'buffer' as BufferEncoding });
  let batch: { entry: Dirent; name: string }[] = [];
  for await (const entry of dir) {
    const raw = entry.name as unknown as Buffer;
    const name = utf8Name(raw);
    if (name === undefined) {
      await claims.refuse(Buffer.concat([Buffer.from(`${inbox}/`), raw]), printableName(raw),
        'refused: the name is not valid UTF-8, so it cannot become an S3 key; rename it in UTF-8', raw);
      continue;
    }
    // Still being written (a temp name the producer renames when done): not ours yet, not an error.
    if (inProgressNameReason(name)) continue;
    const why = refusal(entry, name);
    if (why) {
      await claims.refuse(join(inbox, name), name, why);
      continue;
    }
    batch.push({ entry, name });
    if (batch.length >= LIST_BATCH) {
      yield* sized(inbox, batch, concurrency);
      batch = [];
    }
  }
  yield* sized(inbox, batch, concurrency);
}

/** The batch's files with their sizes; one gone since it was listed was claimed by another invocation. */
async function* sized(inbox: string, batch: { name: string }[], concurrency: number): AsyncGenerator<Candidate> {
  const sizes = await mapPool(batch, concurrency, ({ name }) => lstat(join(inbox, name)).then((st) => st.size, () => undefined));
  for (const [i, { name }] of batch.entries()) {
    if (sizes[i] === undefined) continue;
    // A name whose result cannot be written is claimed only to be quarantined, so it is reported once.
    yield { name, from: join(inbox, name), size: sizes[i]!, attempts: 0, quarantine: resultNameReason(name) };
  }
}
