/** NAME_MAX on Linux, NFS and S3 Files: longer key components are not shown on the mount. */
export const MAX_COMPONENT_BYTES = 255;

/**
 * Why a single inbox entry name must not be used as a path component, or undefined when it is safe.
 * Refuses `.`/`..`, `/` and NUL, so a name can never climb out of the directory it came from.
 * (`a..b` is an ordinary name and is accepted: only whole `..` components traverse. A backslash is
 * an ordinary byte on Linux, NFS and in an S3 key, never a separator there, and is accepted too.)
 */
export function unsafeNameReason(name: string): string | undefined {
  if (name === '' ) return 'empty name';
  if (name === '.' || name === '..') return `'${name}' is a path traversal component`;
  if (name.includes('/')) return 'name contains a path separator';
  if (name.includes('\0')) return 'name contains a NUL character';
  if (Buffer.byteLength(name, 'utf8') > MAX_COMPONENT_BYTES) {
    return `name is longer than ${MAX_COMPONENT_BYTES} bytes`;
  }
  return undefined;
}

/** Suffixes producers and tools give files they are still writing. */
const IN_PROGRESS_SUFFIXES = ['.tmp', '.temp', '.part', '.partial', '.crdownload', '.download', '.swp', '~'];

/**
 * Why a name looks like a file that is still being written, or undefined: dotfiles (including
 * `.nfs*` silly-rename files and `.x.tmp` write-then-rename temporaries) and temporary suffixes.
 * Such files are skipped, not claimed: the producer renames them to their final name when done.
 */
export function inProgressNameReason(name: string): string | undefined {
  if (name.startsWith('.')) return name.startsWith('.nfs') ? 'NFS silly-rename file' : 'dotfile (a temporary or hidden file)';
  const lower = name.toLowerCase();
  const suffix = IN_PROGRESS_SUFFIXES.find((x) => lower.endsWith(x));
  return suffix ? `temporary suffix ${suffix}` : undefined;
}

/** The suffix of a result's metadata file (`processed/<name>/<name>.meta.json`). */
export const RESULT_SUFFIX = '.meta.json';

/**
 * Why a name cannot have a result, or undefined: `<name>.meta.json` must itself be a valid
 * component (≤ 255 bytes), or writing it fails on the mount (ENAMETOOLONG) and its S3 key is one
 * the mount cannot show. Checked when listing, so such a file is never half-processed. (A name that
 * itself ends with `.meta.json` is fine: each result has its own directory.)
 */
export function resultNameReason(name: string): string | undefined {
  const bytes = Buffer.byteLength(`${name}${RESULT_SUFFIX}`, 'utf8');
  return bytes > MAX_COMPONENT_BYTES
    ? `name too long for its result: "<name>${RESULT_SUFFIX}" would be ${bytes} bytes, over ${MAX_COMPONENT_BYTES}; shorten the name to at most ${MAX_COMPONENT_BYTES - RESULT_SUFFIX.length} bytes`
    : undefined;
}

/**
 * Why an object key (relative to the inbox prefix) cannot be processed as an inbox file, mirroring
 * what S3 Files can show on the mount (trailing `/`, `.`/`..` components, components > 255 bytes
 * are not imported) plus keys in sub-"directories", which the file-system processor also skips.
 */
export function unrepresentableKeyReason(relativeKey: string): string | undefined {
  if (relativeKey.endsWith('/')) return 'key ends with "/" (a directory marker), not a file';
  const parts = relativeKey.split('/');
  if (parts.some((p) => p === '.' || p === '..')) {
    return 'key has a "." or ".." component, which the file system cannot represent';
  }
  if (parts.some((p) => p === '')) return 'key has an empty component ("//"), which the file system cannot represent';
  if (parts.some((p) => Buffer.byteLength(p, 'utf8') > MAX_COMPONENT_BYTES)) {
    return `key has a component longer than ${MAX_COMPONENT_BYTES} bytes, which the file system cannot represent`;
  }
  if (parts.length > 1) return 'key is in a sub-directory of inbox/; only direct children are processed';
  return unsafeNameReason(relativeKey) ?? resultNameReason(relativeKey);
}

/** RFC 3986 encoding of each key segment for CopyObject's CopySource (`bucket/key`). */
export function encodeCopySource(bucket: string, key: string, versionId?: string): string {
  const enc = (s: string): string => encodeURIComponent(s)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const path = `${bucket}/${key.split('/').map(enc).join('/')}`;
  return versionId !== undefined ? `${path}?versionId=${encodeURIComponent(versionId)}` : path;
}

/**
 * A key as an S3 listing asked for `EncodingType=url` returns it: percent-encoded (a space may come
 * as `+`, so a literal `+` comes as `%2B`, as the SDKs that decode it, botocore's unquote_plus,
 * assume), or as it is when the answer does not say `url` (a server that ignores the parameter).
 * Every listing asks for it: without it a key holding `\r` comes back through XML 1.0 as `\n`.
 */
export function listedKey(key: string, encodingType: string | undefined): string {
  return encodingType === 'url' ? urlDecoded(key) : key;
}

/** A key as listed with `EncodingType=url`, decoded. */
export function urlDecoded(key: string): string {
  return decodeURIComponent(key.replace(/\+/g, ' '));
}
