/**
 * Runs one handler in a child process, for multi-process tests:
 *   node -r ts-node/register/transpile-only test/servers/run-handler.ts <module> [event-json]
 * The handler's environment is the child's environment. If WAIT_FOR_FILE is set, the child waits
 * until that file exists before invoking (a start barrier, so several children really race), after
 * creating `<WAIT_FOR_FILE>.ready.<pid>`.
 * Prints the handler's result as one JSON line prefixed with RESULT: on stdout; exit code 1 on error.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

async function main(): Promise<void> {
  const [modulePath, eventJson] = process.argv.slice(2);
  // require, not import(): under module=node16 import() stays a native ESM import that cannot load .ts.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require(resolve(modulePath));
  const barrier = process.env.WAIT_FOR_FILE;
  // Announce readiness (`<barrier>.ready.<pid>`) so the parent can release everyone at once.
  if (barrier) writeFileSync(`${barrier}.ready.${process.pid}`, '');
  const deadline = Date.now() + 60_000;
  while (barrier && !existsSync(barrier)) {
    if (Date.now() > deadline) throw new Error(`start barrier ${barrier} never appeared`);
    await new Promise((r) => setTimeout(r, 5));
  }
  // The barrier file holds a start time in epoch ms; spinning to it aligns the children to ~1 ms.
  const startAt = barrier ? Number(readFileSync(barrier, 'utf8')) || 0 : 0;
  while (Date.now() < startAt) { /* spin */ }
  const result = await mod.handler(eventJson ? JSON.parse(eventJson) : {}, {});
  process.stdout.write(`RESULT:${JSON.stringify(result)}\n`);
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
