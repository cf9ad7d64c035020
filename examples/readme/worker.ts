import { readdir } from 'fs/promises';

export async function handler(): Promise<string[]> {
  return readdir(process.env.MOUNT_PATH!);
}
