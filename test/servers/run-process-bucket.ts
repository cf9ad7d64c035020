/**
 * Runs the S3 processor (processBucket, from source) in this process as Lambda would, for tests
 * that kill it at exact steps or time it out:
 *   node -r ts-node/register/transpile-only test/servers/run-process-bucket.ts '<options json>'
 * Options: `bucket`, `remainingMs` (the invocation's timeout: the deadlines are taken from it with
 * the handler's margins, or `chunkMarginMs`/`readMarginMs` for a run to scale, and at its end this
 * process is SIGKILLed, as Lambda kills a timed-out invocation), and any of processBucket's numeric options (`leaseMs`, `concurrency`,
 * `multipartCopyThresholdBytes`, `copyPartBytes`...). The client comes from the environment
 * (AWS_ENDPOINT_URL_S3, path style). Prints `RESULT:<json>`; exit code 1 on error.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { processBucket } from '../../integ/handlers/processor-s3api/index';
import { DEADLINE_MARGIN_MS, READ_MARGIN_MS } from '../../integ/handlers/shared/common';

async function main(): Promise<void> {
  const { bucket, remainingMs, chunkMarginMs = DEADLINE_MARGIN_MS, readMarginMs = READ_MARGIN_MS, ...rest } = JSON.parse(process.argv[2] ?? '{}');
  const start = Date.now();
  const timed = typeof remainingMs === 'number';
  if (timed) setTimeout(() => process.kill(process.pid, 'SIGKILL'), remainingMs).unref();
  const client = new S3Client({ forcePathStyle: true });
  const result = await processBucket({
    client,
    bucket,
    concurrency: 4,
    ...(timed ? {
      deadline: start + remainingMs - chunkMarginMs, readDeadline: start + remainingMs - readMarginMs, endsAt: start + remainingMs,
    } : {}),
    // PROCESSOR_LOG=1: the processor's log lines on stderr, to see why a run did what it did.
    ...(process.env.PROCESSOR_LOG === '1' ? { log: (message: string, extra: unknown) => process.stderr.write(`${message} ${JSON.stringify(extra)}\n`) } : {}),
    ...rest,
  });
  process.stdout.write(`RESULT:${JSON.stringify(result)}\n`);
  client.destroy();
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
