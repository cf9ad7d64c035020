/**
 * Benchmark: the S3-API processor vs the S3 Files processor on identical input, side by side.
 *
 * Env: BUCKET_NAME, MOUNT_PATH (this function mounts the same access point as the S3 Files
 * processor), S3API_FUNCTION_NAME, S3FILES_FUNCTION_NAME, and S3FILES_PREFIX: the S3 key prefix
 * under which the mount's root appears in the bucket (file-system prefix + access point root, e.g.
 * `lambda/`). The S3-API processor works on `inbox/` at the bucket root; with a non-empty prefix the
 * mount's `inbox/` is `<prefix>inbox/` in S3, so neither processor sees the other's files. The
 * prefix is also where the sync probes are looked for.
 */
import { randomUUID } from 'node:crypto';
import { lstat, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import {
  DeleteObjectsCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client,
} from '@aws-sdk/client-s3';
import { coldStart, ColdStartEvent, ColdStartResult } from './cold-start';
import { directRead, DirectReadEvent, DirectReadResult } from './direct-read';
import { PHASES, Phase, renderPhaseTable, TABLE_ROWS } from './phase-table';
import { awaitImported, checkMeta, invokeOnSeeded, NamedText, pollUntil, SEED_CONCURRENCY, verifyMount } from './steps';
import { s3Client } from '../shared/aws';
import { errorMessage, intSetting, requireEnv, Timings } from '../shared/common';
import { renderTable } from '../shared/markdown';
import { listedKey } from '../shared/names';
import { observability } from '../shared/observability';
import { mapPool } from '../shared/pool';
import { seededText } from '../shared/seed-text';
import { round, speedUp, summarize, Summary } from '../shared/stats';

export interface BenchmarkEvent extends ColdStartEvent, DirectReadEvent {
  /**
   * What to measure (default "processors"): "processors" runs the S3-API and the S3 Files processor
   * side by side; "coldStart" forces cold starts of a mounted and an unmounted twin function
   * (cold-start.ts); "directRead" runs the S3 Files processor with each DirectS3Read mode on small
   * and large files (direct-read.ts).
   */
  readonly mode?: string;
  /** Files per run (default 20). */
  readonly files?: number;
  /** Runs (default 3). */
  readonly runs?: number;
  /** Words per file, inclusive range (default 500-2000). */
  readonly minWords?: number;
  readonly maxWords?: number;
  /** Also measure export (mount -> S3) and import (S3 -> mount) delays. */
  readonly measureSync?: boolean;
  /** Give up measuring a sync delay after this many seconds (default 180). */
  readonly syncTimeoutSeconds?: number;
  /** Poll interval for sync measurement in ms (default 1000). */
  readonly syncPollMs?: number;
  /** Seed of the generated text (default 42): same seed, same bytes. */
  readonly seed?: number;
  /** Passed to both processors (default: theirs). */
  readonly concurrency?: number;
  /** Delete this benchmark's processed files afterwards (default true). */
  readonly cleanup?: boolean;
  /**
   * How the S3 Files inbox is seeded (default "s3"): "s3" uploads with PutObject under S3FILES_PREFIX,
   * as producers do, and waits until the mount shows every file whole before the timed run (the wait
   * is reported, not timed as processing); "mount" writes the files through the mount.
   */
  readonly seedVia?: string;
}

export const MODES = ['processors', 'coldStart', 'directRead'] as const;
export type Mode = typeof MODES[number];

export const SEED_VIA = ['s3', 'mount'] as const;
export type SeedVia = typeof SEED_VIA[number];

export { PHASES } from './phase-table';
export type { Phase } from './phase-table';

export interface SideResult {
  /** min/median/max per phase over the runs, inside the handler. */
  readonly phases: Record<Phase, Summary>;
  /** Wall-clock of the Invoke call, as the caller sees it. */
  readonly wallMs: Summary;
  readonly runs: Timings[];
}

export interface SyncResult {
  /** File written on the mount -> visible to HeadObject; or `timed out after N s`. */
  readonly exportDelayMs: number | string;
  /** PutObject -> visible on the mount; or `timed out after N s`. */
  readonly importDelayMs: number | string;
}

export interface BenchmarkResult {
  readonly files: number;
  readonly runs: number;
  readonly minWords: number;
  readonly maxWords: number;
  readonly seed: number;
  readonly s3api: SideResult;
  readonly s3files: SideResult;
  /** median(S3 API) / median(S3 Files) per phase and for the wall-clock; null when undefined. */
  readonly speedUp: Record<Phase | 'wallMs', number | null>;
  readonly sync?: SyncResult;
  readonly seedVia: SeedVia;
  /** With seedVia "s3": PutObject of the batch -> every file visible on the mount, per run. */
  readonly seedImportMs?: Summary;
  readonly warnings: string[];
  readonly table: string;
}

interface Env {
  readonly bucket: string;
  readonly mount: string;
  readonly s3apiFunction: string;
  readonly s3filesFunction: string;
  readonly prefix: string;
}

export function handler(event: BenchmarkEvent & { mode: 'coldStart' }): Promise<ColdStartResult>;
export function handler(event: BenchmarkEvent & { mode: 'directRead' }): Promise<DirectReadResult>;
export function handler(event?: (BenchmarkEvent & { mode?: 'processors' }) | null): Promise<BenchmarkResult>;
export function handler(event?: BenchmarkEvent | null): Promise<BenchmarkResult | ColdStartResult | DirectReadResult>;
export async function handler(event?: BenchmarkEvent | null): Promise<BenchmarkResult | ColdStartResult | DirectReadResult> {
  const e = event ?? {};
  const mode = (e.mode ?? 'processors') as Mode;
  if (!MODES.includes(mode)) {
    throw new Error(`Invalid mode: ${JSON.stringify(e.mode)}. Use "processors" (S3 API vs S3 Files, the default), "coldStart" `
      + '(mounted vs unmounted twin functions) or "directRead" (the S3 Files processor with AUTO, ENABLED and DISABLED direct reads).');
  }
  if (mode === 'coldStart') {
    const result = await coldStart(e);
    observability('benchmark').logger.info('cold starts done', { ratio: result.ratio, warnings: result.warnings });
    return result;
  }
  if (mode === 'directRead') {
    const result = await directRead(e);
    observability('benchmark').logger.info('direct reads done', { readSpeedUp: Object.fromEntries(result.sizes.map((x) => [x.size, x.readSpeedUp])) });
    return result;
  }
  return processors(e);
}

async function processors(e: BenchmarkEvent): Promise<BenchmarkResult> {
  const { logger, metrics } = observability('benchmark');
  const env: Env = {
    bucket: requireEnv('BUCKET_NAME'),
    mount: requireEnv('MOUNT_PATH'),
    s3apiFunction: requireEnv('S3API_FUNCTION_NAME'),
    s3filesFunction: requireEnv('S3FILES_FUNCTION_NAME'),
    prefix: process.env.S3FILES_PREFIX ?? '',
  };
  if (env.prefix !== '' && !env.prefix.endsWith('/')) {
    throw new Error(`Invalid S3FILES_PREFIX ${JSON.stringify(env.prefix)}: it must be empty or end with "/" (e.g. "lambda/").`);
  }
  const files = intSetting('files', e.files, undefined, 20, 1, 100_000);
  const runs = intSetting('runs', e.runs, undefined, 3, 1, 100);
  const minWords = intSetting('minWords', e.minWords, undefined, 500, 0, 1_000_000);
  const maxWords = intSetting('maxWords', e.maxWords, undefined, Math.max(2000, minWords), minWords, 1_000_000);
  const seed = intSetting('seed', e.seed, undefined, 42, 0, 2 ** 31 - 1);
  const syncTimeoutSeconds = intSetting('syncTimeoutSeconds', e.syncTimeoutSeconds, undefined, 180, 1, 900);
  const syncPollMs = intSetting('syncPollMs', e.syncPollMs, undefined, 1000, 50, 10_000);
  const concurrency = e.concurrency === undefined ? undefined : intSetting('concurrency', e.concurrency, undefined, 1, 1, 1024);
  const seedVia = (e.seedVia ?? 's3') as SeedVia;
  if (!SEED_VIA.includes(seedVia)) {
    throw new Error(`Invalid seedVia: ${JSON.stringify(e.seedVia)}. Use "s3" (upload through the S3 API, as producers do) or "mount".`);
  }

  const warnings: string[] = [];
  if (env.prefix === '') {
    warnings.push('S3FILES_PREFIX is empty: the S3-API inbox and the mount inbox are the same S3 prefix, so '
      + 'files synchronised between the two views can be picked up by the other processor. Scope the access point.');
  }
  const s3 = s3Client();
  const sides = { s3api: [] as { timings: Timings; wallMs: number }[], s3files: [] as { timings: Timings; wallMs: number }[] };
  const batch = `bench-${Date.now().toString(36)}-${randomUUID().slice(0, 8)}`;
  const importWaits: number[] = [];

  for (let run = 0; run < runs; run++) {
    const texts = Array.from({ length: files }, (_, i) => ({
      name: `${batch}-r${run}-${String(i).padStart(5, '0')}.txt`,
      ...seededText(seed + run, i, minWords, maxWords),
    }));
    await assertInboxesEmpty(s3, env);
    const importMs = await seedInboxes(s3, env, texts, seedVia, syncTimeoutSeconds, syncPollMs);
    if (importMs !== undefined) importWaits.push(importMs);
    // Alternate who goes first so neither side always gets the warmer caches.
    const order: ('s3api' | 's3files')[] = run % 2 === 0 ? ['s3api', 's3files'] : ['s3files', 's3api'];
    for (const which of order) {
      const fn = which === 's3api' ? env.s3apiFunction : env.s3filesFunction;
      const { result, wallMs } = await invokeOnSeeded(`Benchmark run ${run + 1}`, fn, concurrency === undefined ? {} : { concurrency }, files);
      sides[which].push({ timings: result.timings, wallMs });
    }
    const problems = [...await verifyS3(s3, env, texts), ...await verifyMount(env.mount, texts)];
    if (problems.length > 0) {
      throw new Error(`Benchmark run ${run + 1}: ${problems.length} file(s) not processed correctly, timings discarded: `
        + problems.slice(0, 10).join('; '));
    }
    if (e.cleanup !== false) await cleanup(s3, env, texts);
    logger.info('run done', { run: run + 1, files });
  }

  const sync = e.measureSync ? await measureSync(s3, env, syncTimeoutSeconds, syncPollMs) : undefined;
  const result = aggregate({ files, runs, minWords, maxWords, seed }, sides, sync, warnings, seedVia, importWaits);
  metrics.addMetric('BenchmarkRuns', MetricUnit.Count, runs);
  metrics.addMetric('SpeedUpTotal', MetricUnit.NoUnit, result.speedUp.totalMs ?? 0);
  metrics.publishStoredMetrics();
  logger.info('benchmark done', { speedUp: result.speedUp, sync });
  return result;
}

/**
 * Leftovers in either inbox would be processed inside the timed invocation (and reported as the
 * seeded count): refuse to start until both are empty.
 */
async function assertInboxesEmpty(s3: S3Client, env: Env): Promise<void> {
  const listed = await s3.send(new ListObjectsV2Command({ Bucket: env.bucket, Prefix: 'inbox/', MaxKeys: 6, EncodingType: 'url' }));
  const inS3 = (listed.Contents ?? []).map((o) => listedKey(o.Key!, listed.EncodingType)).filter((k) => k !== 'inbox/');
  const onMount = await readdir(join(env.mount, 'inbox')).catch(() => [] as string[]);
  if (inS3.length === 0 && onMount.length === 0) return;
  const show = (items: string[]) => `${items.length > 5 ? 'more than 5' : items.length} (${items.slice(0, 5).join(', ')})`;
  throw new Error(`The inboxes must be empty before a benchmark run: s3://${env.bucket}/inbox/ holds ${show(inS3)}, `
    + `the mount's inbox/ holds ${show(onMount)}. They would be processed inside the timed run. Let the processors drain them `
    + '(invoke each once) or delete them, then run the benchmark again.');
}

/**
 * Seed both inboxes with identical bytes: the S3-API inbox through PutObject; the S3 Files inbox
 * through PutObject under the mount's prefix (then wait until the mount shows every file whole),
 * or through the mount. Returns the import wait in ms for "s3".
 */
async function seedInboxes(
  s3: S3Client, env: Env, texts: NamedText[], via: SeedVia, timeoutSeconds: number, pollMs: number,
): Promise<number | undefined> {
  const inbox = join(env.mount, 'inbox');
  await mkdir(inbox, { recursive: true, mode: 0o755 });
  const t0 = performance.now();
  await mapPool(texts, SEED_CONCURRENCY, async (t) => {
    await s3.send(new PutObjectCommand({ Bucket: env.bucket, Key: `inbox/${t.name}`, Body: t.text, ContentType: 'text/plain; charset=utf-8' }));
    if (via === 's3') {
      await s3.send(new PutObjectCommand({ Bucket: env.bucket, Key: `${env.prefix}inbox/${t.name}`, Body: t.text, ContentType: 'text/plain; charset=utf-8' }));
    } else {
      await writeFile(join(inbox, t.name), t.text, { mode: 0o644 });
    }
  });
  if (via === 'mount') return undefined;
  return awaitImported(inbox, texts, env.prefix, timeoutSeconds, pollMs, t0, `${texts.length} file(s)`, ', or seed with seedVia "mount"');
}

async function verifyS3(s3: S3Client, env: Env, texts: NamedText[]): Promise<string[]> {
  const problems = await mapPool(texts, SEED_CONCURRENCY, async (t) => {
    try {
      const head = await s3.send(new HeadObjectCommand({ Bucket: env.bucket, Key: `processed/${t.name}/${t.name}` }));
      if (head.ContentLength !== t.bytes) return `S3 processed/${t.name}/${t.name} has ${head.ContentLength} bytes, expected ${t.bytes}`;
      const meta = await s3.send(new GetObjectCommand({ Bucket: env.bucket, Key: `processed/${t.name}/${t.name}.meta.json` }));
      return checkMeta(`S3 processed/${t.name}/`, t, await meta.Body!.transformToString());
    } catch (e) {
      return `S3 processed/${t.name}: ${errorMessage(e)}`;
    }
  });
  return problems.filter((p): p is string => p !== undefined);
}

async function cleanup(s3: S3Client, env: Env, texts: { name: string }[]): Promise<void> {
  const keys = texts.flatMap((t) => [`processed/${t.name}/${t.name}`, `processed/${t.name}/${t.name}.meta.json`]);
  for (let i = 0; i < keys.length; i += 1000) {
    await s3.send(new DeleteObjectsCommand({
      Bucket: env.bucket,
      Delete: { Objects: keys.slice(i, i + 1000).map((Key) => ({ Key })), Quiet: true },
    }));
  }
  await mapPool(texts, SEED_CONCURRENCY, (t) => rm(join(env.mount, 'processed', t.name), { recursive: true, force: true }));
}

export async function measureSync(s3: S3Client, env: Env, timeoutSeconds: number, pollMs: number): Promise<SyncResult> {
  const id = `${Date.now().toString(36)}-${randomUUID().slice(0, 8)}`;
  const dir = join(env.mount, 'sync-probe');
  await mkdir(dir, { recursive: true, mode: 0o755 });
  const exportName = `export-${id}.txt`;
  const importName = `import-${id}.txt`;

  const exportDelay = (async () => {
    await writeFile(join(dir, exportName), `export probe ${id}\n`, { mode: 0o644, flush: true });
    return pollUntil(async () => {
      await s3.send(new HeadObjectCommand({ Bucket: env.bucket, Key: `${env.prefix}sync-probe/${exportName}` }));
      return true;
    }, timeoutSeconds, pollMs);
  })();
  const importDelay = (async () => {
    await s3.send(new PutObjectCommand({ Bucket: env.bucket, Key: `${env.prefix}sync-probe/${importName}`, Body: `import probe ${id}\n` }));
    return pollUntil(async () => (await lstat(join(dir, importName))).isFile(), timeoutSeconds, pollMs);
  })();
  const [exportDelayMs, importDelayMs] = await Promise.all([exportDelay, importDelay]);

  // Best effort: remove the probes on both sides (each delete then syncs to the other view).
  await rm(join(dir, exportName), { force: true }).catch(() => undefined);
  await s3.send(new DeleteObjectsCommand({
    Bucket: env.bucket,
    Delete: { Objects: [{ Key: `${env.prefix}sync-probe/${importName}` }], Quiet: true },
  })).catch(() => undefined);
  return { exportDelayMs, importDelayMs };
}

type SideRuns = { timings: Timings; wallMs: number }[];

function side(runs: SideRuns): SideResult {
  const phases = {} as Record<Phase, Summary>;
  for (const p of PHASES) phases[p] = summarize(runs.map((r) => r.timings[p]));
  return { phases, wallMs: summarize(runs.map((r) => round(r.wallMs))), runs: runs.map((r) => r.timings) };
}

export function aggregate(
  params: { files: number; runs: number; minWords: number; maxWords: number; seed: number },
  runs: { s3api: SideRuns; s3files: SideRuns },
  sync: SyncResult | undefined,
  warnings: string[],
  seedVia: SeedVia = 'mount',
  importWaits: number[] = [],
): BenchmarkResult {
  const s3api = side(runs.s3api);
  const s3files = side(runs.s3files);
  const of = (s: SideResult, k: Phase | 'wallMs'): Summary => (k === 'wallMs' ? s.wallMs : s.phases[k]);
  const speed = {} as Record<Phase | 'wallMs', number | null>;
  for (const k of TABLE_ROWS) speed[k] = speedUp(of(s3api, k).median, of(s3files, k).median) ?? null;
  const seedImportMs = importWaits.length > 0 ? summarize(importWaits.map(round)) : undefined;
  const lines = [renderPhaseTable({ ...params, seedVia, seedImportMs },
    { ...s3api.phases, wallMs: s3api.wallMs }, { ...s3files.phases, wallMs: s3files.wallMs })];
  if (sync) {
    const show = (v: number | string): string => (typeof v === 'number' ? `${round(v / 1000)} s` : v);
    lines.push('', renderTable(['Sync', 'Delay'], [
      ['export (write on mount → visible to HeadObject)', show(sync.exportDelayMs)],
      ['import (PutObject → visible on mount)', show(sync.importDelayMs)],
    ]));
  }
  return { ...params, s3api, s3files, speedUp: speed, sync, seedVia, ...(seedImportMs ? { seedImportMs } : {}), warnings, table: lines.join('\n') };
}
