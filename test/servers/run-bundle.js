/**
 * Runs a bundled handler (what deploys) in this process, as Lambda would:
 *   node [-r test/servers/fs-latency.js] [-r test/servers/skew-clock.js] test/servers/run-bundle.js <bundle.js> [event-json] [remaining-ms]
 * (remaining-ms may also come from REMAINING_MS).
 * Prints the result as one line `RESULT:<json>` on stdout; exit code 1 on error (message on stderr).
 */
const [bundle, eventJson, remainingMs] = process.argv.slice(2);
// The remaining time Lambda would report (argument or REMAINING_MS; default 15 minutes).
const deadline = Date.now() + Number(remainingMs || process.env.REMAINING_MS || 900000);
// eslint-disable-next-line @typescript-eslint/no-require-imports
require(require('node:path').resolve(bundle))
  .handler(eventJson ? JSON.parse(eventJson) : {}, { getRemainingTimeInMillis: () => deadline - Date.now() })
  .then((r) => {
    // Peak resident memory of the whole run, for memory tests (kilobytes, as getrusage reports it).
    process.stdout.write(`MAXRSS:${process.resourceUsage().maxRSS}\n`);
    process.stdout.write(`RESULT:${JSON.stringify(r)}\n`);
  }, (e) => {
    process.stderr.write(`ERROR:${e && e.stack ? e.stack : String(e)}\n`);
    process.exit(1);
  });
