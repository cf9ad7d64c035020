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
import { renderSweep } from './format';
import type { SweepResults } from './results';
import { BenchmarkResult, handler as benchmark } from '../integ/handlers/benchmark/index';
import { handler as s3apiHandler } from '../integ/handlers/processor-s3api/index';
import { handler as s3filesHandler, processMount } from '../integ/handlers/processor-s3files/index';
import { round, summarize } from '../integ/handlers/shared/stats';
import { tempMount } from '../test/integ/handlers/helpers';
import { startLambdaEndpoint } from '../test/servers/lambda-invoke-endpoint';
import { startMotoServer } from '../test/servers/moto-server';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}
const ints = (s: string): number[] => s.split(',').map((x) => Number(x.trim())).filter((n) => Number.isInteger(n) && n > 0);

/** One concurrency level: min/median/max of processor-s3files' total over the repeats. */
export type SweepRow = SweepResults['levels'][number];

/**
 * processor-s3files on a fresh temp directory per repeat, at each concurrency level. Levels are
 * interleaved within each repeat so drifting machine load hits every level alike.
 */
export async function concurrencySweep(levels: number[], files: number, repeats: number): Promise<SweepRow[]> {
  const totals = new Map<number, number[]>(levels.map((c) => [c, []]));
  for (let r = 0; r < repeats; r++) {
    for (const c of levels) {
      const mount = tempMount();
      try {
        mkdirSync(join(mount.path, 'inbox'));
        for (let i = 0; i < files; i++) writeFileSync(join(mount.path, 'inbox', `f${i}.txt`), `sweep file ${i}\n`.repeat(50));
        const res = await processMount({ mountPath: mount.path, concurrency: c });
        if (res.files !== files || res.errors.length) throw new Error(`sweep c=${c}: ${res.files} files, ${res.errors.length} errors`);
        totals.get(c)!.push(res.timings.totalMs);
      } finally {
        mount.cleanup();
      }
    }
  }
  return levels.map((c) => ({ concurrency: c, totalMs: summarize(totals.get(c)!) }));
}

/** moto + a local Lambda Invoke endpoint running both processors + a temp dir as the mount. */
export interface LocalBench {
  readonly motoUrl: string;
  readonly mountPath: string;
  /** Runs the benchmark handler (both processors, verified, side by side) at one size. */
  compare(files: number, runs: number): Promise<ComparisonRow>;
  stop(): Promise<void>;
}

export interface ComparisonRow {
  readonly files: number;
  readonly runs: number;
  readonly result: BenchmarkResult;
  /** Files per second from the median in-handler total (unrounded). */
  readonly s3apiFilesPerSecond: number;
  readonly s3filesFilesPerSecond: number;
  /** Wall-clock of the whole benchmark call (seeding, both processors, verification, cleanup), s. */
  readonly wallSeconds: number;
}

export async function startLocalBench(): Promise<LocalBench> {
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
  const stop = async (): Promise<void> => {
    s3.destroy();
    await lambda.stop();
    await moto.stop();
    mount.cleanup();
  };
  try {
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    await s3.send(new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: 'Enabled' } }));
  } catch (e) {
    await stop();
    throw e;
  }
  return {
    motoUrl: moto.url,
    mountPath: mount.path,
    async compare(files, runs) {
      const t0 = Date.now();
      // No S3 Files here to import uploads into the temp directory: seed its inbox directly.
      const result = await benchmark({ files, runs, seedVia: 'mount' });
      const fps = (ms: number): number => files / (ms / 1000);
      return {
        files,
        runs,
        result,
        s3apiFilesPerSecond: fps(result.s3api.phases.totalMs.median),
        s3filesFilesPerSecond: fps(result.s3files.phases.totalMs.median),
        wallSeconds: (Date.now() - t0) / 1000,
      };
    },
    stop,
  };
}

async function main(): Promise<void> {
  const fileCounts = ints(arg('files', '20,1000'));
  const runs = Number(arg('runs', '3'));
  const bench = await startLocalBench();
  try {
    console.log(`# bench-local (moto ${bench.motoUrl}, mount ${bench.mountPath}, node ${process.version})\n`);
    console.log('Local disk is not NFS and moto is not S3: compare phases, not absolute AWS numbers.\n');
    for (const files of fileCounts) {
      const row = await bench.compare(files, runs);
      console.log(row.result.table);
      console.log(`\nfiles/s in handler (median total): S3 API ${Math.round(row.s3apiFilesPerSecond)}, `
        + `S3 Files ${Math.round(row.s3filesFilesPerSecond)}; benchmark wall ${round(row.wallSeconds)} s\n`);
    }
    if (!process.argv.includes('--no-sweep')) {
      const sweepFiles = Number(arg('sweep-files', '1000'));
      console.log(`## processor-s3files concurrency sweep, ${sweepFiles} files, 3 repeats (local disk)\n`);
      console.log(renderSweep({ files: sweepFiles, levels: await concurrencySweep(ints(arg('sweep', '1,4,16,64')), sweepFiles, 3) }));
    }
  } finally {
    await bench.stop();
  }
}

if (require.main === module) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
