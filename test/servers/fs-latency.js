/**
 * Preload for child processes: every file-system call the processor makes through fs/promises
 * waits FS_LATENCY_MS first, like an NFS round trip, so a test can stop or kill it mid-batch.
 */
const fsp = require('node:fs/promises');
const ms = Number(process.env.FS_LATENCY_MS || 0);
if (ms > 0) {
  for (const name of ['rename', 'open', 'mkdir', 'rmdir', 'unlink', 'lstat', 'readdir']) {
    const real = fsp[name];
    fsp[name] = (...args) => new Promise((r) => setTimeout(r, ms)).then(() => real(...args));
  }
}
