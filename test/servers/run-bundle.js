/**
 * Runs a bundled handler (what deploys) in this process, as Lambda would:
 *   node [-r test/servers/fs-latency.js] [-r test/servers/skew-clock.js] test/servers/run-bundle.js <bundle.js> [event-json] [remaining-ms]
 * Prints the result as one line `RESULT:<json>` on stdout; exit code 1 on error (message on stderr).
 */
const [bundle, eventJson, remainingMs] = process.argv.slice(2);
const deadline = Date.now() + Number(remainingMs || 900000);
// eslint-disable-next-line @typescript-eslint/no-require-imports
require(require('node:path').resolve(bundle))
  .handler(eventJson ? JSON.parse(eventJson) : {}, { getRemainingTimeInMillis: () => deadline - Date.now() })
  .then((r) => process.stdout.write(`RESULT:${JSON.stringify(r)}\n`), (e) => {
    process.stderr.write(`ERROR:${e && e.stack ? e.stack : String(e)}\n`);
    process.exit(1);
  });
