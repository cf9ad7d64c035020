/**
 * Local end-to-end benchmark: the benchmark handler against moto (S3 API on loopback), a local
 * Lambda Invoke endpoint running both processors, and a temp directory standing in for the mount.
 *
 *   npx ts-node --project test/tsconfig.json benchmarks/bench-local.ts [--files 20,1000] [--runs 3]
 *       [--sweep 1,4,16,64] [--sweep-files 1000] [--no-sweep]
 *
 * Prints the same markdown table the handler returns in AWS, both processors side by side, then a
 * concurrency sweep of processor-s3files. Caveat: a local disk is not NFS. Here a rename or read is
 * a microsecond syscall, on S3 Files each is a network round trip (~1 ms or more), and moto is a
 * single-threaded Python server, so the ratios are not the AWS ratios; they show both code paths
 * doing the full job end to end, and the relative cost of the phases.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CreateBucketCommand, PutBucketVersioningCommand, S3Client } from '@aws-sdk/client-s3';
import { handler as benchmark } from '../lambda/benchmark/index';
import { handler as s3apiHandler } from '../lambda/processor-s3api/index';
import { handler as s3filesHandler, processMount } from '../lambda/processor-s3files/index';
import { renderTable } from '../lambda/shared/markdown';
import { round, summarize } from '../lambda/shared/stats';
import { tempMount } from '../test/lambda/helpers';
import { startLambdaEndpoint } from '../test/servers/lambda-invoke-endpoint';
import { startMotoServer } from '../test/servers/moto-server';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}
const ints = (s: string): number[] => s.split(',').map((x) => Number(x.trim())).filter((n) => Number.isInteger(n) && n > 0);

async function sweep(levels: number[], files: number, repeats: number): Promise<string> {
  const rows: string[][] = [];
  for (const c of levels) {
    const totals: number[] = [];
    for (let r = 0; r < repeats; r++) {
      const mount = tempMount();
      try {
        mkdirSync(join(mount.path, 'inbox'));
        for (let i = 0; i < files; i++) writeFileSync(join(mount.path, 'inbox', `f${i}.txt`), `sweep file ${i}\n`.repeat(50));
        const res = await processMount({ mountPath: mount.path, concurrency: c, claimStaleMs: 1_200_000 });
        if (res.files !== files || res.errors.length) throw new Error(`sweep c=${c}: ${res.files} files, ${res.errors.length} errors`);
        totals.push(res.timings.totalMs);
      } finally {
        mount.cleanup();
      }
    }
    const s = summarize(totals);
    rows.push([String(c), `${round(s.median)} (${round(s.min)}–${round(s.max)})`, String(Math.round(files / (s.median / 1000)))]);
  }
  return renderTable(['Concurrency', 'Total ms, median (min–max)', 'Files/s'], rows);
}

async function main(): Promise<void> {
  const fileCounts = ints(arg('files', '20,1000'));
  const runs = Number(arg('runs', '3'));
  // Keep the handlers quiet: only the tables go to stdout.
  Object.assign(process.env, { POWERTOOLS_METRICS_DISABLED: 'true', POWERTOOLS_LOG_LEVEL: 'ERROR' });

  const moto = await startMotoServer();
  const mount = tempMount();
  const bucket = 'bench-local';
  const lambda = await startLambdaEndpoint({
    's3api-processor': { handler: s3apiHandler, env: { BUCKET_NAME: bucket } },
    's3files-processor': { handler: s3filesHandler, env: { MOUNT_PATH: mount.path } },
  });
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_S3: moto.url,
    AWS_ENDPOINT_URL_LAMBDA: lambda.url,
    S3_FORCE_PATH_STYLE: 'true',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    BUCKET_NAME: bucket,
    MOUNT_PATH: mount.path,
    S3FILES_PREFIX: 'lambda/',
    S3API_FUNCTION_NAME: 's3api-processor',
    S3FILES_FUNCTION_NAME: 's3files-processor',
  });
  const s3 = new S3Client({ forcePathStyle: true });
  try {
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    await s3.send(new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: 'Enabled' } }));
    console.log(`# bench-local (moto ${moto.url}, mount ${mount.path}, node ${process.version})\n`);
    console.log('Local disk is not NFS and moto is not S3: compare phases, not absolute AWS numbers.\n');
    for (const files of fileCounts) {
      const t0 = Date.now();
      const result = await benchmark({ files, runs });
      console.log(result.table);
      const fps = (ms: number): number => Math.round(files / (ms / 1000));
      console.log(`\nfiles/s in handler (median total): S3 API ${fps(result.s3api.phases.totalMs.median)}, `
        + `S3 Files ${fps(result.s3files.phases.totalMs.median)}; benchmark wall ${round((Date.now() - t0) / 1000)} s\n`);
    }
    if (!process.argv.includes('--no-sweep')) {
      const sweepFiles = Number(arg('sweep-files', '1000'));
      console.log(`## processor-s3files concurrency sweep, ${sweepFiles} files, 3 repeats (local disk)\n`);
      console.log(await sweep(ints(arg('sweep', '1,4,16,64')), sweepFiles, 3));
    }
  } finally {
    s3.destroy();
    await lambda.stop();
    await moto.stop();
    mount.cleanup();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
