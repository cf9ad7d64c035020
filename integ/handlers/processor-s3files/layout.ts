/**
 * Where the mount processor works, under MOUNT_PATH:
 * - `inbox/<name>`: new files;
 * - `processing/<claim>/`: one directory per invocation, holding its heartbeat (`.lease`) and one
 *   item directory per claimed file (`<n>/<name>`, or `<n>-<attempts>/<name>` once handed back);
 * - `processed/<name>/`: the result, `<name>` and `<name>.meta.json`;
 * - `failed/<claim>/<name>`: what could not be processed, reported once.
 */
import { randomUUID } from 'node:crypto';
import { lstat, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage } from '../shared/common';
import { ensureDir, mountRoot } from '../shared/working-dirs';

export const LEASE_FILE = '.lease';
/** A claim directory taken over from a dead invocation, inside the taker's. */
export const ADOPTED_PREFIX = 'adopted-';
/** A result moved away to publish a newer one, inside the publisher's claim directory. */
export const REPLACED_PREFIX = 'replaced-';
/** `<13-digit ms>-<uuid>`: the time only sorts claims for humans; liveness comes from the lease. */
export const CLAIM_NAME = /^\d{13}-[0-9a-f-]{36}$/;
export const DIR_MODE = 0o755;
export const CLAIM_DIR_MODE = 0o700;
export const FILE_MODE = 0o644;
/** `<n>` or `<n>-<attempts>`: a claimed file's item directory. */
const ITEM_DIR = /^\d+(?:-(\d+))?$/;

/** An item directory's name: `<n>`, or `<n>-<attempts>` once the file was handed back. */
export const itemDirName = (n: number, attempts: number): string => (attempts > 0 ? `${n}-${attempts}` : String(n));
export const attemptsOf = (dirName: string): number => Number(ITEM_DIR.exec(dirName)?.[1] ?? 0);

export interface Layout {
  readonly root: string;
  readonly inbox: string;
  readonly processed: string;
  readonly processing: string;
  readonly failed: string;
  /** This invocation's claim: `processing/<claimName>/`. */
  readonly claimName: string;
  readonly claimDir: string;
}

export function layoutOf(mountPath: string): Layout {
  const root = mountRoot(mountPath);
  const claimName = `${Date.now()}-${randomUUID()}`;
  return {
    root,
    inbox: join(root, 'inbox'),
    processed: join(root, 'processed'),
    processing: join(root, 'processing'),
    failed: join(root, 'failed'),
    claimName,
    claimDir: join(root, 'processing', claimName),
  };
}

/** A path as messages show it: relative to MOUNT_PATH. */
export const shown = (layout: Layout, path: string): string => path.slice(layout.root.length + 1);

/**
 * Checks MOUNT_PATH and every directory this processor writes in, up front: a permission problem
 * is named once, instead of every run reporting (or stranding) the same file again.
 */
export async function prepareLayout(layout: Layout): Promise<void> {
  const rootStat = await lstat(layout.root).catch((e) => {
    throw new Error(`MOUNT_PATH ${layout.root} is not accessible (${errorMessage(e)}); check the function's file system configuration.`);
  });
  if (!rootStat.isDirectory() && !rootStat.isSymbolicLink()) {
    throw new Error(`MOUNT_PATH ${layout.root} is not a directory; check the function's file system configuration.`);
  }
  for (const dir of [layout.inbox, layout.processed, layout.processing, layout.failed]) await ensureDir(dir, layout.root);
}

/** Creates this invocation's claim directory (not recursive: `processing/` exists by now). */
export async function createClaimDir(layout: Layout): Promise<void> {
  await mkdir(layout.claimDir, { mode: CLAIM_DIR_MODE });
}
