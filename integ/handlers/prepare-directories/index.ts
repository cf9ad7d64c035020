/**
 * Creates the S3 Files processor's working directories through the mount, as the access point's
 * user, when the integ app is deployed (a Trigger runs it on create and whenever it changes).
 *
 * Why at deploy time: directories that first appear because an object was uploaded through the
 * S3 API show up on the mount as root:root 0755, and a uid-1000 access point user can never create
 * entries in them (ClientRootAccess does not make a uid-1000 access point root). Created here
 * first, they belong to the access point's user whichever side writes first afterwards.
 */
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { requireEnv } from '../shared/common';
import { ensureDir, WORKING_DIRECTORIES } from '../shared/working-dirs';

export interface PreparedDirectory {
  readonly path: string;
  readonly owner: string;
  readonly mode: string;
}

export async function handler(): Promise<{ directories: PreparedDirectory[] }> {
  const root = requireEnv('MOUNT_PATH');
  const directories: PreparedDirectory[] = [];
  for (const name of WORKING_DIRECTORIES) {
    // Creates it if missing; throws with the owner, the mode and the fix if this user cannot write in it.
    await ensureDir(join(root, name), root);
    const st = await lstat(join(root, name));
    directories.push({ path: name, owner: `${st.uid}:${st.gid}`, mode: (st.mode % 0o10000).toString(8) });
  }
  return { directories };
}
