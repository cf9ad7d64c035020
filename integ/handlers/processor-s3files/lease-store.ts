/**
 * The heartbeat of a claim directory on the mount: `processing/<claim>/.lease`. The NFS server
 * stamps its mtime on every write, so the record carries the server's time (../shared/lease.ts).
 */
import { lstat, open, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { CREATE_FLAGS, isErrno, nsToMs, READ_FLAGS, RENEW_FLAGS } from './file-io';
import { FILE_MODE, LEASE_FILE } from './layout';
import { errorMessage } from '../shared/common';
import { LeaseLost, LeaseStore, parseLeaseRecord } from '../shared/lease';

type Log = (message: string, extra: Record<string, unknown>) => void;

/** Renewing opens the existing file without O_CREAT: once another invocation took the directory over, the path is gone. */
export class MountLeaseStore implements LeaseStore {
  constructor(private readonly path: string) {}

  public async write(body: string, create: boolean): Promise<number> {
    let fh;
    try {
      fh = await open(this.path, create ? CREATE_FLAGS : RENEW_FLAGS, FILE_MODE);
    } catch (e) {
      if (!create && isErrno(e, 'ENOENT')) throw new LeaseLost(`${this.path} is gone: another invocation took this claim over`);
      throw e;
    }
    try {
      const data = Buffer.from(body, 'utf8');
      await fh.write(data, 0, data.length, 0);
      await fh.truncate(data.length);
      await fh.sync();
      return nsToMs((await fh.stat({ bigint: true })).mtimeNs);
    } finally {
      await fh.close();
    }
  }

  public async remove(): Promise<void> {
    await unlink(this.path);
  }
}

/** What a claim directory's heartbeat says: when it last showed life (server time), and the lease its holder promised. */
export interface Heartbeat {
  readonly at: number;
  readonly ttlMs?: number;
  readonly released?: boolean;
}

/**
 * When another invocation's claim directory last showed life, in server time: its `.lease`
 * mtime (opening the file revalidates NFS's attribute cache), or the directory's own mtime if it
 * has no lease (killed between mkdir and the first heartbeat) or an unreadable one (logged, never
 * a reason to leave the claims stranded). Undefined if it is gone.
 */
export async function lastHeartbeat(dir: string, log: Log): Promise<Heartbeat | undefined> {
  const claim = dir.slice(dir.lastIndexOf('/') + 1);
  try {
    const fh = await open(join(dir, LEASE_FILE), READ_FLAGS);
    try {
      const st = await fh.stat({ bigint: true });
      if (!st.isFile()) throw Object.assign(new Error(`${LEASE_FILE} is not a regular file`), { code: 'EISDIR' });
      const record = parseLeaseRecord(await fh.readFile('utf8'));
      if (!record) log('unreadable lease record: judged by its modification time and this invocation\'s lease length', { claim });
      return { at: nsToMs(st.mtimeNs), ttlMs: record?.ttlMs, released: record?.released === true };
    } finally {
      await fh.close();
    }
  } catch (e) {
    if (!isErrno(e, 'ENOENT')) {
      log('unreadable lease: judged by the claim directory\'s modification time and this invocation\'s lease length', { claim, error: errorMessage(e) });
    }
  }
  const st = await lstat(dir, { bigint: true }).catch(() => undefined);
  return st ? { at: nsToMs(st.mtimeNs) } : undefined;
}
