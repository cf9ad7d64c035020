/**
 * Read one file from an S3 Files mount: a handler to copy when a function only needs to read what
 * is there (no claims, no leases: see integ/handlers/ for processing an inbox with several
 * invocations at once). Give the function the mount with `S3FilesMountedFunction` or `mountOn`;
 * the library sets `MOUNT_PATH`. Invoke it with `{"path": "reports/2026-01.csv"}`.
 */
import { constants } from 'node:fs';
import { open, realpath } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';

/** Lambda answers at most 6 MB: larger files are refused with that reason, not truncated. */
const MAX_BYTES = 5 * 1024 * 1024;

export interface ReadEvent {
  /** The file, relative to the mount (a key under the access point's prefix). */
  readonly path: string;
}

export interface ReadResult {
  readonly path: string;
  readonly bytes: number;
  readonly lines: number;
  /** The file's modification time: when it was last written through the mount or uploaded to S3. */
  readonly modified: string;
  readonly text: string;
}

export async function handler(event: ReadEvent): Promise<ReadResult> {
  const root = await realpath(process.env.MOUNT_PATH ?? '/mnt/s3files');
  if (typeof event?.path !== 'string' || event.path === '' || isAbsolute(event.path)) {
    throw new Error(`"path" must be a path relative to the mount, such as "reports/2026-01.csv"; got ${JSON.stringify(event?.path)}.`);
  }
  // Resolve symlinks in the directories first: a path that leads out of the mount is refused.
  const full = await realpath(join(root, event.path));
  const inside = relative(root, full);
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) {
    throw new Error(`"path" ${JSON.stringify(event.path)} leads outside the mount (to ${full}); name a file under ${root}.`);
  }
  // O_NOFOLLOW: the file cannot be swapped for a symlink between the check and the open.
  // eslint-disable-next-line no-bitwise
  const file = await open(full, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const st = await file.stat();
    if (!st.isFile()) throw new Error(`"path" ${JSON.stringify(event.path)} is not a regular file.`);
    if (st.size > MAX_BYTES) {
      throw new Error(`"path" ${JSON.stringify(event.path)} has ${st.size} bytes, more than a Lambda response can carry (${MAX_BYTES}); `
        + 'read it in ranges, or write what you compute to the mount and return its path.');
    }
    // One read of the whole file: on S3 Files each read is a network round trip, so fewer, larger reads are faster.
    const text = await file.readFile('utf8');
    return { path: inside, bytes: st.size, lines: text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0), modified: st.mtime.toISOString(), text };
  } finally {
    await file.close();
  }
}
