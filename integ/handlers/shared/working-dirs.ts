/**
 * The processor's working directories under an S3 Files mount, created and checked so that a
 * permission problem is named once, plainly, with its fix, instead of failing every file.
 */
import { constants as fsc } from 'node:fs';
import { access, lstat, mkdir } from 'node:fs/promises';
import { join } from 'node:path';

/** The directories the S3 Files processor works in, relative to MOUNT_PATH. */
export const WORKING_DIRECTORIES = ['inbox', 'processed', 'processing', 'failed'] as const;
const DIR_MODE = 0o755;

/**
 * MOUNT_PATH without trailing slashes (ECS and Batch `containerPath` and AgentCore `mountPath` accept
 * one): paths shown in reports are cut from it by length, so `/mnt/data/` would name `ailed/...`.
 */
export function mountRoot(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed === '' && path !== '' ? '/' : trimmed;
}

/** Permission bits of a mode, in octal as `ls -l` users know them. */
function modeBits(mode: number): string {
  return (mode % 0o10000).toString(8);
}

/** Who this process is, for messages about permissions. */
function whoAmI(): string {
  return typeof process.getuid === 'function' ? `uid ${process.getuid()} gid ${process.getgid!()}` : 'this user';
}

const S3_BORN_HINT = 'Directories created through the S3 API appear as root:root 0755, so a non-root access point user cannot '
  + 'write in them: create the working directories through the mount as the access point\'s user (before the first upload), '
  + 'or fix their owner with a uid-0 access point that has s3files:ClientRootAccess.';

/** Why `path` could not be created or written, in words that name the fix. */
async function explainWriteError(path: string, root: string, e: unknown): Promise<string> {
  const code = (e as NodeJS.ErrnoException)?.code ?? 'error';
  if (code === 'EROFS') {
    return `${path}: the file system is mounted read-only (EROFS): this function cannot write. Grant it s3files:ClientWrite (drop readOnly) to process files.`;
  }
  const rootWritable = await access(root, fsc.W_OK).then(() => true, () => false);
  if (!rootWritable && (code === 'ENOENT' || code === 'EACCES' || code === 'EPERM')) {
    return `${path}: MOUNT_PATH ${root} is not writable for ${whoAmI()} (${code}): the mount is read-only (no s3files:ClientWrite) `
      + 'or the access point\'s root directory belongs to another user. Grant ClientWrite, or use an access point whose user owns its root directory.';
  }
  const parent = await lstat(join(path, '..')).catch(() => undefined);
  const owner = parent ? ` (the parent is owned by ${parent.uid}:${parent.gid}, mode ${modeBits(parent.mode)})` : '';
  return `${path}: cannot create or use it as ${whoAmI()} (${code})${owner}. ${S3_BORN_HINT}`;
}

/**
 * A directory we own under the mount: create it if missing, refuse it if it is a symlink, and say
 * plainly when this user cannot write in it (rather than failing every file with EACCES).
 */
export async function ensureDir(path: string, root: string): Promise<void> {
  try {
    await mkdir(path, { recursive: true, mode: DIR_MODE });
  } catch (e) {
    throw new Error(await explainWriteError(path, root, e));
  }
  const st = await lstat(path);
  if (!st.isDirectory()) {
    throw new Error(`${path} must be a real directory under MOUNT_PATH, found a ${st.isSymbolicLink() ? 'symlink' : 'non-directory'}; remove it.`);
  }
  try {
    // eslint-disable-next-line no-bitwise
    await access(path, fsc.W_OK | fsc.X_OK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException)?.code ?? 'error';
    if (code === 'EROFS') throw new Error(await explainWriteError(path, root, e));
    throw new Error(`${path} is not writable for ${whoAmI()} (owner ${st.uid}:${st.gid}, mode ${modeBits(st.mode)}). ${S3_BORN_HINT}`);
  }
}

