/**
 * The S3 Files processor with each direct-read mode (Lambda's `S3FilesConfig.DirectS3Read`: AUTO,
 * ENABLED, DISABLED) on small and on large files, so the mode can be picked from evidence.
 *
 * Three copies of the processor, identical but for the mode, share the access point. Each run
 * seeds fresh files through the S3 API under the access point's prefix (direct reads only serve
 * data that is in the bucket and not yet cached by the file system), waits until the mount shows
 * them whole, invokes one mode's processor, checks every result, and cleans up; modes take turns
 * going first. Small files (below the 128 KiB import threshold) are imported with their data on the
 * first directory access; large ones are read through the mount or, with direct reads, from S3.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { awaitImported, invokeOnSeeded, NamedText, SEED_CONCURRENCY, verifyMount } from './steps';
import { s3Client } from '../shared/aws';
import { intSetting, requireEnv } from '../shared/common';
import { renderTable } from '../shared/markdown';
import { mapPool } from '../shared/pool';
import { seededText } from '../shared/seed-text';
import { round, speedUp, summarize, Summary } from '../shared/stats';

export const DIRECT_READ_MODES = ['AUTO', 'ENABLED', 'DISABLED'] as const;
export type DirectReadMode = typeof DIRECT_READ_MODES[number];
export const FILE_SIZES = ['small', 'large'] as const;
export type FileSize = typeof FILE_SIZES[number];

export interface DirectReadEvent {
  /** Files per size and mode in each run (default 10). */
  readonly files?: number;
  /** Runs (default 3). */
  readonly runs?: number;
  /** Words per small file (default 1,000: about 6 KB). */
  readonly smallWords?: number;
  /** Words per large file (default 500,000: about 3 MB). */
  readonly largeWords?: number;
  /** Seed of the generated text (default 42). */
  readonly seed?: number;
  /** Give up waiting for the seeded files on the mount after this many seconds (default 180). */
  readonly syncTimeoutSeconds?: number;
  /** Poll interval in ms while waiting (default 1000). */
  readonly syncPollMs?: number;
}

export interface ModeResult {
  readonly functionName: string;
  /** Read phase inside the processor (streamed read incl. counting). */
  readonly readMs: Summary;
  readonly totalMs: Summary;
  readonly wallMs: Summary;
}

export interface SizeResult {
  readonly size: FileSize;
  readonly words: number;
  readonly bytesPerFile: number;
  readonly modes: Record<DirectReadMode, ModeResult>;
  /** median read of DISABLED ÷ median read of the mode: above 1 means faster than the mount path. */
  readonly readSpeedUp: Record<DirectReadMode, number | null>;
}

export interface DirectReadResult {
  readonly mode: 'directRead';
  readonly files: number;
  readonly runs: number;
  readonly seed: number;
  readonly sizes: SizeResult[];
  readonly table: string;
}

/** DIRECT_READ_FUNCTIONS: `{"AUTO": name, "ENABLED": name, "DISABLED": name}`. */
export function directReadFunctions(raw: string): Record<DirectReadMode, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    parsed = undefined;
  }
  const map = parsed as Record<string, unknown> | undefined;
  const missing = DIRECT_READ_MODES.filter((m) => typeof map?.[m] !== 'string' || map[m] === '');
  if (typeof map !== 'object' || map === null || missing.length > 0) {
    throw new Error(`Invalid DIRECT_READ_FUNCTIONS ${JSON.stringify(raw)}: it must be a JSON object naming the processor `
      + `function of each mode, {"AUTO": "...", "ENABLED": "...", "DISABLED": "..."}${missing.length > 0 ? ` (missing ${missing.join(', ')})` : ''}.`);
  }
  return { AUTO: map.AUTO as string, ENABLED: map.ENABLED as string, DISABLED: map.DISABLED as string };
}

export async function directRead(event: DirectReadEvent): Promise<DirectReadResult> {
  const bucket = requireEnv('BUCKET_NAME');
  const mount = requireEnv('MOUNT_PATH');
  const prefix = process.env.S3FILES_PREFIX ?? '';
  const functions = directReadFunctions(requireEnv('DIRECT_READ_FUNCTIONS'));
  const files = intSetting('files', event.files, undefined, 10, 1, 1000);
  const runs = intSetting('runs', event.runs, undefined, 3, 1, 20);
  const words: Record<FileSize, number> = {
    small: intSetting('smallWords', event.smallWords, undefined, 1_000, 1, 1_000_000),
    large: intSetting('largeWords', event.largeWords, undefined, 500_000, 1, 1_000_000),
  };
  const seed = intSetting('seed', event.seed, undefined, 42, 0, 2 ** 31 - 1);
  const syncTimeoutSeconds = intSetting('syncTimeoutSeconds', event.syncTimeoutSeconds, undefined, 180, 1, 900);
  const syncPollMs = intSetting('syncPollMs', event.syncPollMs, undefined, 1000, 50, 10_000);

  const inbox = join(mount, 'inbox');
  await mkdir(inbox, { recursive: true, mode: 0o755 });
  const leftovers = await readdir(inbox);
  if (leftovers.length > 0) {
    throw new Error(`The mount's inbox/ must be empty before a direct-read run; it holds ${leftovers.length} file(s) `
      + `(${leftovers.slice(0, 5).join(', ')}). They would be processed inside the timed run: invoke a processor once to drain them, or delete them.`);
  }
  const s3 = s3Client();
  const batch = `dr-${Date.now().toString(36)}-${randomUUID().slice(0, 8)}`;
  const measured = new Map<string, { readMs: number; totalMs: number; wallMs: number }[]>();
  const bytes: Record<FileSize, number[]> = { small: [], large: [] };

  for (let run = 0; run < runs; run++) {
    // Each mode goes first in turn: the file system's warm-up and S3's never favour one mode.
    const order = DIRECT_READ_MODES.map((_, i) => DIRECT_READ_MODES[(i + run) % DIRECT_READ_MODES.length]);
    for (const size of FILE_SIZES) {
      for (const mode of order) {
        // Fresh names per mode, same bytes: no mode reads data another mode brought into the cache.
        const texts: NamedText[] = Array.from({ length: files }, (_, i) => ({
          name: `${batch}-${size}-${mode.toLowerCase()}-r${run}-${String(i).padStart(4, '0')}.txt`,
          ...seededText(seed + run, i, words[size], words[size]),
        }));
        if (mode === order[0]) bytes[size].push(...texts.map((t) => t.bytes));
        const t0 = performance.now();
        await mapPool(texts, SEED_CONCURRENCY, (t) => s3.send(new PutObjectCommand({
          Bucket: bucket, Key: `${prefix}inbox/${t.name}`, Body: t.text, ContentType: 'text/plain; charset=utf-8',
        })));
        await awaitImported(inbox, texts, prefix, syncTimeoutSeconds, syncPollMs, t0, `${files} ${size} file(s)`);
        const { result, wallMs } = await invokeOnSeeded(`Direct-read run ${run + 1} (${size}, ${mode})`, functions[mode], {}, files);
        const problems = await verifyMount(mount, texts);
        if (problems.length > 0) {
          throw new Error(`Direct-read run ${run + 1} (${size}, ${mode}): ${problems.length} file(s) not processed correctly: ${problems.slice(0, 5).join('; ')}`);
        }
        const key = `${size}/${mode}`;
        measured.set(key, [...measured.get(key) ?? [], { readMs: result.timings.readMs, totalMs: result.timings.totalMs, wallMs: round(wallMs) }]);
        await mapPool(texts, SEED_CONCURRENCY, (t) => rm(join(mount, 'processed', t.name), { recursive: true, force: true }));
      }
    }
  }

  const sizes: SizeResult[] = FILE_SIZES.map((size) => {
    const modes = {} as Record<DirectReadMode, ModeResult>;
    for (const mode of DIRECT_READ_MODES) {
      const rows = measured.get(`${size}/${mode}`)!;
      modes[mode] = {
        functionName: functions[mode],
        readMs: summarize(rows.map((r) => r.readMs)),
        totalMs: summarize(rows.map((r) => r.totalMs)),
        wallMs: summarize(rows.map((r) => r.wallMs)),
      };
    }
    const readSpeedUp = {} as Record<DirectReadMode, number | null>;
    for (const mode of DIRECT_READ_MODES) readSpeedUp[mode] = speedUp(modes.DISABLED.readMs.median, modes[mode].readMs.median) ?? null;
    return { size, words: words[size], bytesPerFile: summarize(bytes[size]).median, modes, readSpeedUp };
  });

  const fmt = (s: Summary): string => `${round(s.median)} (${round(s.min)}–${round(s.max)})`;
  const rows = sizes.flatMap((s) => DIRECT_READ_MODES.map((mode) => [
    `${s.size} (${formatBytes(s.bytesPerFile)})`, mode, fmt(s.modes[mode].readMs), fmt(s.modes[mode].totalMs),
    s.readSpeedUp[mode] === null ? 'n/a' : `${s.readSpeedUp[mode]}×`,
  ]));
  const table = [
    `**Direct reads: ${files} files per size and mode × ${runs} runs**, seeded through the S3 API; milliseconds inside the processor, `
      + 'median (min–max).',
    '',
    renderTable(['Files', 'DirectS3Read', 'read', 'total', 'Read speed-up (DISABLED ÷ mode)'], rows),
  ].join('\n');
  return { mode: 'directRead', files, runs, seed, sizes, table };
}

function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${round(n / 1024 / 1024)} MiB`;
  if (n >= 1024) return `${round(n / 1024)} KiB`;
  return `${n} B`;
}
