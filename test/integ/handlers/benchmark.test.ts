import * as fs from 'node:fs';
import { join } from 'node:path';
import {
  CreateBucketCommand, DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, PutBucketVersioningCommand, PutObjectCommand, S3Client,
} from '@aws-sdk/client-s3';
import { captureStdout, list, localEndpointsEnv, startInboxImporter, tempMount } from './helpers';
import { handler } from '../../../integ/handlers/benchmark/index';
import { handler as s3apiHandler } from '../../../integ/handlers/processor-s3api/index';
import { handler as s3filesHandler } from '../../../integ/handlers/processor-s3files/index';
import { LambdaEndpoint, startLambdaEndpoint } from '../../servers/lambda-invoke-endpoint';
import { MotoServer, startMotoServer } from '../../servers/moto-server';

const BUCKET = 'bench-bucket';
const PREFIX = 'lambda/';
let moto: MotoServer;
let lambda: LambdaEndpoint;
let mount: ReturnType<typeof tempMount>;
let s3: S3Client;
const savedEnv = { ...process.env };

beforeAll(async () => {
  moto = await startMotoServer();
  mount = tempMount();
  lambda = await startLambdaEndpoint({
    's3api-processor': { handler: s3apiHandler, env: { BUCKET_NAME: BUCKET, POWERTOOLS_SERVICE_NAME: 'before' } },
    's3files-processor': { handler: s3filesHandler, env: { MOUNT_PATH: mount.path, POWERTOOLS_SERVICE_NAME: 'after' } },
    'broken': { handler: async () => { throw new Error('disk on fire'); } },
    'lazy': { handler: async () => ({ files: 0, errors: [], timings: { listMs: 1, claimMs: 1, readMs: 1, processMs: 1, writeMs: 1, renameMs: 1, totalMs: 5 } }) },
    'not-a-processor': { handler: async () => 'hello' },
  });
  Object.assign(process.env, localEndpointsEnv(moto.url, lambda.url));
  s3 = new S3Client({ forcePathStyle: true });
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
  await s3.send(new PutBucketVersioningCommand({ Bucket: BUCKET, VersioningConfiguration: { Status: 'Enabled' } }));
}, 60_000);
async function getBytes(Key: string): Promise<Buffer> {
  const res = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key }));
  return Buffer.from(await res.Body!.transformToByteArray());
}
afterAll(async () => {
  s3?.destroy();
  await lambda?.stop();
  await moto?.stop();
  mount?.cleanup();
  process.env = savedEnv;
});

describe('benchmark end to end (moto + local Lambda Invoke endpoint + temp dir mount)', () => {
  let out: ReturnType<typeof captureStdout>;
  beforeEach(() => {
    out = captureStdout();
    Object.assign(process.env, {
      BUCKET_NAME: BUCKET,
      MOUNT_PATH: mount.path,
      S3FILES_PREFIX: PREFIX,
      S3API_FUNCTION_NAME: 's3api-processor',
      S3FILES_FUNCTION_NAME: 's3files-processor',
    });
    lambda.invocations.length = 0;
  });
  afterEach(() => out.restore());

  test('runs both processors over HTTP, verifies their output, returns stats and a two-sided table', async () => {
    // GIVEN the defaults except a smaller word range, and S3 Files importing uploads under the prefix
    const importer = startInboxImporter(s3, BUCKET, PREFIX, mount.path);
    // WHEN
    let result;
    try {
      result = await handler({ files: 6, runs: 3, minWords: 20, maxWords: 60 });
    } finally {
      importer.stop();
    }

    // THEN the S3 Files inbox was seeded through the S3 API (the path producers use), and the wait for the import is reported
    expect(importer.imported).toHaveLength(18);
    expect(result.seedVia).toBe('s3');
    expect(result.seedImportMs!.min).toBeGreaterThan(0);
    expect(result.table).toMatch(/S3 Files inbox seeded through the S3 API \(visible on the mount after [\d.]+ \([\d.]+–[\d.]+\) ms, not timed\)/);

    // THEN both functions were invoked through the endpoint, alternating who goes first
    expect(lambda.invocations).toEqual([
      's3api-processor', 's3files-processor', 's3files-processor', 's3api-processor', 's3api-processor', 's3files-processor',
    ]);
    expect(result).toMatchObject({ files: 6, runs: 3, minWords: 20, maxWords: 60, seed: 42, warnings: [] });
    for (const side of [result.s3api, result.s3files]) {
      expect(side.runs).toHaveLength(3);
      for (const phase of ['listMs', 'claimMs', 'readMs', 'processMs', 'writeMs', 'renameMs', 'totalMs'] as const) {
        const s = side.phases[phase];
        expect(s.min).toBeLessThanOrEqual(s.median);
        expect(s.median).toBeLessThanOrEqual(s.max);
      }
      expect(side.wallMs.min).toBeGreaterThan(0);
    }
    expect(Object.keys(result.speedUp).sort()).toEqual(['claimMs', 'listMs', 'processMs', 'readMs', 'renameMs', 'totalMs', 'wallMs', 'writeMs']);
    expect(result.sync).toBeUndefined();
    const lines = result.table.split('\n');
    expect(lines[0]).toMatch(/^\*\*6 files × 3 runs\*\*, 20–60 words/);
    expect(lines[2]).toBe('| Phase | S3 API | S3 Files | Speed-up (S3 API ÷ S3 Files) |');
    for (const label of ['list', 'claim (lease, one claim per file)', 'read', 'process', 'write metadata', 'rename', 'total (in handler)', 'wall-clock per invoke']) {
      expect(result.table).toContain(`| ${label}`);
    }
    expect(lines.filter((l) => /^\| [a-z]/.test(l) && !l.startsWith('| Phase'))).toHaveLength(8);
    // AND the claims are their own phase: on the S3 side one conditional PUT per file, not counted as listing
    expect(result.s3api.phases.claimMs.median).toBeGreaterThan(0);
    // AND the benchmark cleaned up after verifying: nothing left in either inbox or processed/
    const left = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'inbox/' }));
    expect(left.KeyCount).toBe(0);
    expect(list(join(mount.path, 'inbox'))).toEqual([]);
    expect(list(join(mount.path, 'processed'))).toEqual([]);
    const uploaded = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `${PREFIX}inbox/` }));
    for (const o of uploaded.Contents ?? []) await s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: o.Key! }));
  }, 120_000);

  test('seeded through S3 but never imported: fails before anything is timed, naming the prefix', async () => {
    // WHEN no S3 Files import happens (as here without S3 Files)
    await expect(handler({ files: 2, runs: 1, syncTimeoutSeconds: 1, syncPollMs: 100 })).rejects.toThrow(
      /Seeded 2 file\(s\) through S3 under lambda\/inbox\/, but the mount's inbox\/ did not show them all \(timed out after 1 s\)\. Check that S3FILES_PREFIX/);
    // THEN no processor was invoked
    expect(lambda.invocations).toEqual([]);
    await emptyInboxes();
    await expect(handler({ seedVia: 'ftp' })).rejects.toThrow('Invalid seedVia: "ftp". Use "s3" (upload through the S3 API, as producers do) or "mount".');
  });

  test('keeps processed files when cleanup is false; seeded content is identical on both sides', async () => {
    // WHEN
    const result = await handler({ files: 2, runs: 1, minWords: 5, maxWords: 9, cleanup: false, concurrency: 2, seed: 7, seedVia: 'mount' });
    // THEN
    expect(result.seedVia).toBe('mount');
    expect(result.table).toContain('S3 Files inbox seeded through the mount.');
    const mountFiles = list(join(mount.path, 'processed'));
    expect(mountFiles).toHaveLength(2);
    const res = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'processed/' }));
    expect((res.Contents ?? []).map((o) => o.Key!.slice('processed/'.length)).sort())
      .toEqual(mountFiles.flatMap((n) => [`${n}/${n}`, `${n}/${n}.meta.json`]).sort());
    for (const n of mountFiles) expect(fs.readFileSync(join(mount.path, 'processed', n, n))).toEqual(await getBytes(`processed/${n}/${n}`));
    fs.rmSync(join(mount.path, 'processed'), { recursive: true });
  });

  test('measures export and import delays when something syncs the two views', async () => {
    // GIVEN a stand-in for S3 Files' synchronisation between the mount and the bucket prefix
    const probeDir = join(mount.path, 'sync-probe');
    const copied = new Set<string>();
    const timer = setInterval(() => {
      void (async () => {
        for (const name of list(probeDir)) {
          if (copied.has(name)) continue;
          copied.add(name);
          await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${PREFIX}sync-probe/${name}`, Body: fs.readFileSync(join(probeDir, name)) }));
        }
        const objs = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `${PREFIX}sync-probe/` }));
        for (const o of objs.Contents ?? []) {
          const name = o.Key!.slice(`${PREFIX}sync-probe/`.length);
          if (!copied.has(name)) {
            copied.add(name);
            fs.writeFileSync(join(probeDir, name), 'imported');
          }
        }
      })().catch(() => undefined);
    }, 300);
    try {
      // WHEN
      const result = await handler({ files: 1, runs: 1, minWords: 1, maxWords: 2, measureSync: true, syncPollMs: 100, syncTimeoutSeconds: 20, seedVia: 'mount' });
      // THEN both delays are numbers, and the table has a sync section
      expect(typeof result.sync!.exportDelayMs).toBe('number');
      expect(typeof result.sync!.importDelayMs).toBe('number');
      expect(result.table).toMatch(/\| export \(write on mount → visible to HeadObject\) \| \d+(\.\d)? s \|/);
    } finally {
      clearInterval(timer);
    }
  }, 60_000);

  test('reports "timed out after N s" when the views never sync (as here without S3 Files)', async () => {
    // WHEN
    const result = await handler({ files: 1, runs: 1, minWords: 1, maxWords: 1, measureSync: true, syncPollMs: 100, syncTimeoutSeconds: 1, seedVia: 'mount' });
    // THEN
    expect(result.sync).toEqual({ exportDelayMs: 'timed out after 1 s', importDelayMs: 'timed out after 1 s' });
    expect(result.table).toContain('| import (PutObject → visible on mount) | timed out after 1 s |');
  });

  test('warns when S3FILES_PREFIX is empty and rejects a prefix without a trailing slash', async () => {
    // GIVEN an empty prefix
    process.env.S3FILES_PREFIX = '';
    // WHEN
    const result = await handler({ files: 1, runs: 1, minWords: 1, maxWords: 1, seedVia: 'mount' });
    // THEN
    expect(result.warnings[0]).toMatch(/S3FILES_PREFIX is empty/);
    // AND a malformed prefix is refused up front
    process.env.S3FILES_PREFIX = 'lambda';
    await expect(handler({})).rejects.toThrow('Invalid S3FILES_PREFIX "lambda": it must be empty or end with "/"');
  });

  /** Empties both inboxes and the S3 Files uploads (what a failed run leaves behind). */
  async function emptyInboxes(): Promise<void> {
    for (const Prefix of ['inbox/', `${PREFIX}inbox/`]) {
      const listed = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix }));
      for (const o of listed.Contents ?? []) await s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: o.Key! }));
    }
    fs.rmSync(join(mount.path, 'inbox'), { recursive: true, force: true });
  }

  test('refuses to start with leftovers in an inbox, which would be processed inside the timed run', async () => {
    // GIVEN a leftover in each inbox
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'inbox/leftover.txt', Body: 'x' }));
    fs.mkdirSync(join(mount.path, 'inbox'), { recursive: true });
    fs.writeFileSync(join(mount.path, 'inbox', 'old.txt'), 'y');
    try {
      // WHEN / THEN nothing is invoked
      await expect(handler({ files: 2, runs: 1 })).rejects.toThrow(
        /The inboxes must be empty before a benchmark run: s3:\/\/.*\/inbox\/ holds 1 \(inbox\/leftover.txt\), the mount's inbox\/ holds 1 \(old.txt\)\. They would be processed inside the timed run/);
      expect(lambda.invocations).toHaveLength(0);
    } finally {
      await emptyInboxes();
    }
  });

  test('fails loudly on a function error, on wrong output, and on a non-processor payload', async () => {
    // GIVEN a processor that throws
    process.env.S3FILES_FUNCTION_NAME = 'broken';
    await expect(handler({ files: 1, runs: 1, seedVia: 'mount' })).rejects.toThrow('Invoking broken failed (Unhandled): disk on fire');
    await emptyInboxes();
    // GIVEN a processor that claims success without doing the work
    process.env.S3FILES_FUNCTION_NAME = 'lazy';
    await expect(handler({ files: 2, runs: 1, seedVia: 'mount' })).rejects.toThrow(/Benchmark run 1: lazy processed 0 file\(s\) with 0 error\(s\), but 2 were seeded; timings discarded/);
    await emptyInboxes();
    // GIVEN a function that is not a processor
    process.env.S3FILES_FUNCTION_NAME = 'not-a-processor';
    await expect(handler({ files: 1, runs: 1, seedVia: 'mount' })).rejects.toThrow('not-a-processor returned "hello", not a processor result');
    await emptyInboxes();
    // GIVEN a missing function and a bad input
    process.env.S3FILES_FUNCTION_NAME = 'missing';
    await expect(handler({ files: 1, runs: 1, seedVia: 'mount' })).rejects.toThrow(/Function not found: missing/);
    await emptyInboxes();
    await expect(handler({ files: 0 })).rejects.toThrow('Invalid files: 0. Use an integer from 1 to 100000.');
    await expect(handler({ minWords: 10, maxWords: 5 })).rejects.toThrow('Invalid maxWords: 5. Use an integer from 10 to 1000000.');
  }, 60_000);
});
