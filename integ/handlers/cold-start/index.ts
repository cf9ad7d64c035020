/**
 * The twin functions of the cold-start benchmark run this: the same code with and without an S3
 * Files mount, so the difference in init and first-invoke durations is the mount's. With
 * MOUNT_PATH it lists the mount's root (the first file-system round trip a real handler makes);
 * without, it does nothing else.
 */
import { readdir } from 'node:fs/promises';

export interface ColdStartProbeResult {
  readonly mounted: boolean;
  /** Entries in the mount's root; 0 without a mount. */
  readonly entries: number;
}

export async function handler(): Promise<ColdStartProbeResult> {
  const mount = process.env.MOUNT_PATH;
  if (!mount) return { mounted: false, entries: 0 };
  return { mounted: true, entries: (await readdir(mount)).length };
}
