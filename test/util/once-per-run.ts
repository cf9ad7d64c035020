import * as fs from 'fs';
import * as path from 'path';
import { alive as isAlive } from '../setup/run-id';

// Work done once per jest run and shared by the suites (workers) that need it: the first to ask
// does it, the others wait. The lock is a directory holding its holder's pid (it appears with the
// pid in it), so a waiter takes over from a holder that died (a killed worker) instead of waiting.

/** Takes the lock: true when this process now holds it. The lock appears with its pid in it (a rename), never empty. */
export function takeLock(lock: string): boolean {
  const staged = fs.mkdtempSync(`${lock}.new-`);
  fs.writeFileSync(path.join(staged, 'pid'), String(process.pid));
  try {
    fs.renameSync(staged, lock);
    return true;
  } catch (e) {
    fs.rmSync(staged, { recursive: true, force: true });
    if (['ENOTEMPTY', 'EEXIST'].includes((e as NodeJS.ErrnoException).code ?? '')) return false;
    throw e;
  }
}

/** Who holds the lock: its pid, and the lock directory's inode (which tells one lock from a later one of the same pid). */
export interface Holder {
  readonly pid: number;
  readonly ino: number;
}

/** The lock's holder, or undefined when there is no lock. */
export function holderOf(lock: string): Holder | undefined {
  try {
    const ino = fs.statSync(lock).ino;
    const pid = Number(fs.readFileSync(path.join(lock, 'pid'), 'utf8'));
    return Number.isInteger(pid) && pid > 0 ? { pid, ino } : undefined;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/**
 * Moves aside the lock `holder` held, as read earlier: true when this process moved it. Two
 * waiters can both see the same dead holder; each renames the lock to a name made from that
 * holder, and a rename onto that (non-empty, never removed before the run ends) directory fails,
 * so the second can never move away a lock the first has taken since.
 */
export function moveAsideDeadLock(lock: string, holder: Holder): boolean {
  try {
    fs.renameSync(lock, `${lock}.dead-${holder.pid}-${holder.ino}`);
    return true;
  } catch (e) {
    if (['ENOENT', 'ENOTEMPTY', 'EEXIST'].includes((e as NodeJS.ErrnoException).code ?? '')) return false;
    throw e;
  }
}

/**
 * Runs `work` once for `name` in `shared`: it gets a fresh directory and returns nothing; its
 * result is moved to `<shared>/<name>`, which every caller gets back once it is there.
 */
export function oncePerRun(shared: string, name: string, work: (dir: string) => void, timeoutMs = 300_000): string {
  fs.mkdirSync(shared, { recursive: true });
  const outdir = path.join(shared, name);
  const done = path.join(shared, `${name}.done`);
  const lock = path.join(shared, `${name}.lock`);
  let mine = takeLock(lock);
  const deadline = Date.now() + timeoutMs;
  while (!mine && !fs.existsSync(done)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for another suite to make ${outdir}`);
    const holder = holderOf(lock);
    mine = holder !== undefined && !isAlive(holder.pid) && moveAsideDeadLock(lock, holder) && takeLock(lock);
    if (!mine) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
  }
  if (mine && fs.existsSync(outdir)) {
    // A holder that died after its result was in place but before it said so: the work is done.
    fs.writeFileSync(done, 'ok');
  } else if (mine) {
    try {
      const dir = fs.mkdtempSync(path.join(shared, `${name}-`));
      work(dir);
      fs.renameSync(dir, outdir);
      fs.writeFileSync(done, 'ok');
    } catch (e) {
      fs.writeFileSync(done, `failed: ${(e as Error).stack}`);
      throw e;
    }
  } else {
    const state = fs.readFileSync(done, 'utf8');
    if (state !== 'ok') throw new Error(`${outdir} failed in another suite: ${state}`);
  }
  return outdir;
}
