/**
 * S3's limit on an object key, and keys that keep within it. A name in the inbox can be as long as
 * the inbox key allows (1,018 bytes after `inbox/`), so the keys this processor derives from it,
 * `processing/<name>` (the claim marker) and `failed/<claim>/<name>` (58 bytes before the name), can
 * be longer than S3 accepts: S3 refuses them (KeyTooLongError), and such an object would be reported
 * on every run instead of once. A key that would be too long is shortened instead, the same way by
 * every invocation.
 */
import { createHash } from 'node:crypto';

/** S3 user guide, "Naming Amazon S3 objects": "a sequence of Unicode characters with UTF-8 encoding of up to 1,024 bytes long". */
export const MAX_KEY_BYTES = 1024;
/** Hex digits of the name's SHA-256 that end a shortened key (64 bits: two names that share a start stay apart). */
const HASH_CHARS = 16;
/** Separates the kept start of a name from its hash in a shortened key. */
const HASH_SEPARATOR = '~';

/** A key derived from a name: the name whole when it fits, otherwise shortened. */
export interface DerivedKey {
  readonly key: string;
  /** The name was too long for the key: the key ends with `~<hash>`. */
  readonly shortened: boolean;
}

/**
 * `prefix + name` when it is at most MAX_KEY_BYTES bytes (UTF-8); otherwise `prefix`, the longest
 * start of `name` that fits (cut between characters, never inside one), `~` and the first 16 hex
 * digits of the SHA-256 of the whole name: exactly MAX_KEY_BYTES bytes or a few less. The same name
 * always gives the same key.
 */
export function keyWithin(prefix: string, name: string): DerivedKey {
  const whole = `${prefix}${name}`;
  if (Buffer.byteLength(whole, 'utf8') <= MAX_KEY_BYTES) return { key: whole, shortened: false };
  let budget = MAX_KEY_BYTES - Buffer.byteLength(prefix, 'utf8') - HASH_SEPARATOR.length - HASH_CHARS;
  if (budget < 0) throw new Error(`the key prefix ${prefix} leaves no room for a name within S3's ${MAX_KEY_BYTES} bytes`);
  let start = '';
  for (const ch of name) {
    const bytes = Buffer.byteLength(ch, 'utf8');
    if (bytes > budget) break;
    start += ch;
    budget -= bytes;
  }
  const hash = createHash('sha256').update(name, 'utf8').digest('hex').slice(0, HASH_CHARS);
  return { key: `${prefix}${start}${HASH_SEPARATOR}${hash}`, shortened: true };
}
