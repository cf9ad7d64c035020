/**
 * Preload for child processes: SIGKILL this process at an exact step, as Lambda kills a timed-out
 * invocation (nothing after the step runs: no finally, no handler, no flush).
 *   CRASH_AT="<fs/promises function>:<regex>"  the call to die at: its arguments joined with " -> "
 *                                             (paths as strings) must match the regex;
 *   CRASH_AFTER=1                              die once that call has completed (default: before it starts);
 *   CRASH_NTH=<n>                              die at the n-th matching call (default 1);
 *   GROW_ON_READ=<regex>                       a file opened under a matching path grows by a line after its
 *                                             first read, as one a producer is still writing.
 */
const fs = require('node:fs');
const fsp = require('node:fs/promises');
const grow = process.env.GROW_ON_READ ? new RegExp(process.env.GROW_ON_READ) : undefined;
if (grow) {
  const realOpen = fsp.open;
  fsp.open = async (path, ...rest) => {
    const fh = await realOpen(path, ...rest);
    if (grow.test(String(path))) {
      const realRead = fh.read.bind(fh);
      let grown = false;
      fh.read = async (...args) => {
        const r = await realRead(...args);
        if (!grown) fs.appendFileSync(String(path), 'more\n');
        grown = true;
        return r;
      };
    }
    return fh;
  };
}
const spec = process.env.CRASH_AT || '';
const at = spec.indexOf(':');
if (at > 0) {
  const name = spec.slice(0, at);
  const pattern = new RegExp(spec.slice(at + 1));
  const after = process.env.CRASH_AFTER === '1';
  let left = Number(process.env.CRASH_NTH || 1);
  const real = fsp[name];
  if (typeof real !== 'function') throw new Error(`crash-at: fs/promises has no function ${name}`);
  const die = () => {
    process.kill(process.pid, 'SIGKILL');
    return new Promise(() => undefined); // never settles: the process is gone
  };
  fsp[name] = async (...args) => {
    const matches = pattern.test(args.filter((a) => typeof a === 'string' || Buffer.isBuffer(a)).map(String).join(' -> ')) && --left === 0;
    if (matches && !after) return die();
    const result = await real(...args);
    if (matches) return die();
    return result;
  };
}
