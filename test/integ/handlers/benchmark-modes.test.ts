/**
 * The benchmark's cold-start and direct-read modes end to end: the handler talks HTTP to moto (S3)
 * and to the local Lambda endpoint (Invoke with log tails, Get/UpdateFunctionConfiguration), and
 * the processors work on a real directory standing in for the mount. Locally every mode reads the
 * same disk and a cold start is an in-process init, so these tests check what is measured and how,
 * never the figures.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { captureStdout, list, localEndpointsEnv, startInboxImporter, tempMount } from './helpers';
import { NONCE_VARIABLE, parseReport } from '../../../integ/handlers/benchmark/cold-start';
import { directReadFunctions } from '../../../integ/handlers/benchmark/direct-read';
import { handler } from '../../../integ/handlers/benchmark/index';
import { handler as coldStartProbe } from '../../../integ/handlers/cold-start/index';
import { handler as s3filesHandler } from '../../../integ/handlers/processor-s3files/index';
import { LambdaEndpoint, startLambdaEndpoint } from '../../servers/lambda-invoke-endpoint';
import { MotoServer, startMotoServer } from '../../servers/moto-server';

const BUCKET = 'modes-bucket';
const PREFIX = 'lambda/';
let moto: MotoServer;
let lambda: LambdaEndpoint;
let mount: ReturnType<typeof tempMount>;
let s3: S3Client;
let inits: string[];
const savedEnv = { ...process.env };

beforeAll(async () => {
  moto = await startMotoServer();
  mount = tempMount();
  inits = [];
  const processor = { handler: s3filesHandler, env: { MOUNT_PATH: mount.path } };
  lambda = await startLambdaEndpoint({
    'twin-mounted': { handler: coldStartProbe, env: { MOUNT_PATH: mount.path, KEEP: 'me' }, init: async () => { inits.push('twin-mounted'); } },
    'twin-unmounted': { handler: coldStartProbe, env: { KEEP: 'me too' }, init: async () => { inits.push('twin-unmounted'); } },
    'twin-broken': { handler: async () => { throw new Error('init failed: no mount'); } },
    'processor-auto': processor,
    'processor-enabled': processor,
    'processor-disabled': processor,
  });
  Object.assign(process.env, {
    ...localEndpointsEnv(moto.url, lambda.url),
    BUCKET_NAME: BUCKET,
    MOUNT_PATH: mount.path,
    S3FILES_PREFIX: PREFIX,
    COLD_START_MOUNTED_FUNCTION: 'twin-mounted',
    COLD_START_UNMOUNTED_FUNCTION: 'twin-unmounted',
    DIRECT_READ_FUNCTIONS: JSON.stringify({ AUTO: 'processor-auto', ENABLED: 'processor-enabled', DISABLED: 'processor-disabled' }),
  });
  s3 = new S3Client({ forcePathStyle: true });
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
}, 60_000);
afterAll(async () => {
  s3?.destroy();
  await lambda?.stop();
  await moto?.stop();
  mount?.cleanup();
  process.env = savedEnv;
});

let out: ReturnType<typeof captureStdout>;
beforeEach(() => {
  out = captureStdout();
  lambda.invocations.length = 0;
  lambda.updates.length = 0;
  lambda.configurationReads.length = 0;
  inits.length = 0;
});
afterEach(() => out.restore());

describe('parseReport', () => {
  test('reads Duration and Init Duration from a cold REPORT line, and only Duration from a warm one', () => {
    const cold = 'START RequestId: 1 Version: $LATEST\nEND RequestId: 1\nREPORT RequestId: 1\tDuration: 12.34 ms\tBilled Duration: 13 ms\t'
      + 'Memory Size: 512 MB\tMax Memory Used: 80 MB\tInit Duration: 456.78 ms\t\n';
    expect(parseReport(cold)).toEqual({ durationMs: 12.34, initMs: 456.78 });
    expect(parseReport('REPORT RequestId: 2\tDuration: 3.5 ms\tBilled Duration: 4 ms\tMemory Size: 512 MB\tMax Memory Used: 80 MB\t\n'))
      .toEqual({ durationMs: 3.5 });
    expect(parseReport('START RequestId: 3\n')).toBeUndefined();
  });
});

describe('mode "coldStart"', () => {
  test('forces a cold start of each twin per sample, alternating, keeps their variables, and reports init and first invoke side by side', async () => {
    // WHEN
    const result = await handler({ mode: 'coldStart', samples: 3 });

    // THEN each sample updated, then invoked, each twin; who goes first alternates
    const order = [['twin-mounted', 'twin-unmounted'], ['twin-unmounted', 'twin-mounted'], ['twin-mounted', 'twin-unmounted']].flat();
    expect(lambda.updates).toEqual(order);
    expect(lambda.invocations).toEqual(order);
    // before each invoke: one read of the variables, then the waiter's reads until the update is done (the endpoint says InProgress once)
    expect(lambda.configurationReads).toEqual(order.flatMap((name) => [name, name, name]));
    // every invoke was a new execution environment (the endpoint ran init each time)
    expect(inits).toEqual(order);
    // the update kept the twins' own variables and changed only the nonce
    expect(lambda.environmentOf('twin-mounted')).toEqual({ MOUNT_PATH: mount.path, KEEP: 'me', [NONCE_VARIABLE]: expect.stringMatching(/-2$/) });
    expect(lambda.environmentOf('twin-unmounted')).toEqual({ KEEP: 'me too', [NONCE_VARIABLE]: expect.stringMatching(/-2$/) });

    // THEN three samples per twin, from the REPORT lines, summarized and compared
    expect(result.mode).toBe('coldStart');
    expect(result.warnings).toEqual([]);
    for (const twin of [result.mounted, result.unmounted]) {
      expect(twin.samples).toHaveLength(3);
      for (const s of twin.samples) {
        expect(s.initMs).toBeGreaterThanOrEqual(0);
        expect(s.durationMs).toBeGreaterThanOrEqual(0);
        expect(s.wallMs).toBeGreaterThanOrEqual(s.durationMs);
      }
      expect(twin.initMs.min).toBeLessThanOrEqual(twin.initMs.max);
    }
    expect(result.mounted.functionName).toBe('twin-mounted');
    expect(Object.keys(result.ratio).sort()).toEqual(['durationMs', 'initMs', 'wallMs']);
    expect(result.table).toMatch(/^\*\*Cold starts: 3 mounted, 3 unmounted\*\*/);
    expect(result.table).toContain('| Mounted ÷ unmounted |');
    for (const row of ['init duration', 'first invoke duration', 'wall-clock of the cold invoke']) expect(result.table).toContain(`| ${row} |`);
  });

  test('a failing twin fails the benchmark with its error', async () => {
    process.env.COLD_START_UNMOUNTED_FUNCTION = 'twin-broken';
    try {
      await expect(handler({ mode: 'coldStart', samples: 1 })).rejects.toThrow(/Invoking twin-broken failed \(Unhandled\): .*init failed: no mount/);
    } finally {
      process.env.COLD_START_UNMOUNTED_FUNCTION = 'twin-unmounted';
    }
  });

  test('an invalid sample count is refused before anything is updated', async () => {
    await expect(handler({ mode: 'coldStart', samples: 0 })).rejects.toThrow('Invalid samples: 0. Use an integer from 1 to 50.');
    expect(lambda.updates).toEqual([]);
  });
});

describe('mode "directRead"', () => {
  test('seeds fresh files through S3 per size and mode, runs each mode\'s processor in turn, verifies, and reports read times per mode', async () => {
    // GIVEN S3 Files importing what is uploaded under the access point's prefix
    const importer = startInboxImporter(s3, BUCKET, PREFIX, mount.path);
    // WHEN
    let result;
    try {
      result = await handler({ mode: 'directRead', files: 2, runs: 2, smallWords: 50, largeWords: 30_000, syncPollMs: 50 });
    } finally {
      importer.stop();
    }

    // THEN per run: small then large, each mode once, the first mode rotating between runs
    expect(lambda.invocations).toEqual([
      'processor-auto', 'processor-enabled', 'processor-disabled', 'processor-auto', 'processor-enabled', 'processor-disabled',
      'processor-enabled', 'processor-disabled', 'processor-auto', 'processor-enabled', 'processor-disabled', 'processor-auto',
    ]);
    // every file came through the S3 API under the prefix: 2 files x 2 sizes x 3 modes x 2 runs, each name new
    expect(importer.imported).toHaveLength(24);
    expect(new Set(importer.imported).size).toBe(24);
    // and was processed, checked and cleaned up
    expect(list(join(mount.path, 'inbox'))).toEqual([]);
    expect(readdirSync(join(mount.path, 'processed'))).toEqual([]);

    expect(result).toMatchObject({ mode: 'directRead', files: 2, runs: 2, seed: 42 });
    expect(result.sizes.map((s) => [s.size, s.words])).toEqual([['small', 50], ['large', 30_000]]);
    expect(result.sizes[1].bytesPerFile).toBeGreaterThan(100 * 1024);
    expect(result.sizes[0].bytesPerFile).toBeLessThan(1024);
    for (const size of result.sizes) {
      expect(Object.keys(size.modes)).toEqual(['AUTO', 'ENABLED', 'DISABLED']);
      expect(size.modes.ENABLED.functionName).toBe('processor-enabled');
      for (const m of Object.values(size.modes)) expect(m.readMs.min).toBeLessThanOrEqual(m.readMs.max);
      expect(size.readSpeedUp.DISABLED === null || size.readSpeedUp.DISABLED === 1).toBe(true);
    }
    const lines = result.table.split('\n');
    expect(lines[0]).toBe('**Direct reads: 2 files per size and mode × 2 runs**, seeded through the S3 API; milliseconds inside the processor, median (min–max).');
    expect(lines[2]).toBe('| Files | DirectS3Read | read | total | Read speed-up (DISABLED ÷ mode) |');
    expect(lines.filter((l) => /^\| (small|large) \(/.test(l))).toHaveLength(6);
  });

  test('refuses to start while the mount\'s inbox holds files, which would be timed', async () => {
    mkdirSync(join(mount.path, 'inbox'), { recursive: true });
    writeFileSync(join(mount.path, 'inbox', 'leftover.txt'), 'x');
    try {
      await expect(handler({ mode: 'directRead', files: 1, runs: 1 })).rejects.toThrow(/inbox\/ must be empty before a direct-read run; it holds 1 file\(s\) \(leftover.txt\)/);
      expect(lambda.invocations).toEqual([]);
    } finally {
      rmSync(join(mount.path, 'inbox', 'leftover.txt'));
    }
  });

  test('DIRECT_READ_FUNCTIONS must name a function for each mode', () => {
    expect(directReadFunctions('{"AUTO":"a","ENABLED":"b","DISABLED":"c"}')).toEqual({ AUTO: 'a', ENABLED: 'b', DISABLED: 'c' });
    expect(() => directReadFunctions('{"AUTO":"a"}')).toThrow(/Invalid DIRECT_READ_FUNCTIONS "\{\\"AUTO\\":\\"a\\"\}".*\(missing ENABLED, DISABLED\)\./);
    expect(() => directReadFunctions('nope')).toThrow(/Invalid DIRECT_READ_FUNCTIONS "nope": it must be a JSON object/);
  });
});

test('an unknown mode is refused with the three choices', async () => {
  await expect(handler({ mode: 'warm' })).rejects.toThrow('Invalid mode: "warm". Use "processors" (S3 API vs S3 Files, the default), "coldStart" '
    + '(mounted vs unmounted twin functions) or "directRead" (the S3 Files processor with AUTO, ENABLED and DISABLED direct reads).');
});
