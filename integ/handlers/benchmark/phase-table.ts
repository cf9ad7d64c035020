/**
 * The benchmark's per-phase table, from min/median/max per phase of both processors. Pure, so the
 * handler and benchmarks/format.ts (which renders recorded results) print the same table.
 */
import { renderTable } from '../shared/markdown';
import { round, speedUp, Summary } from '../shared/stats';

export const PHASES = ['listMs', 'claimMs', 'readMs', 'processMs', 'writeMs', 'renameMs', 'totalMs'] as const;
export type Phase = typeof PHASES[number];
/** The phases in table order, then the Invoke's wall clock as the caller sees it. */
export const TABLE_ROWS = [...PHASES, 'wallMs'] as const;
export type TableRow = typeof TABLE_ROWS[number];

export const LABELS: Record<TableRow, string> = {
  listMs: 'list',
  // Apart from listing: the lease start and one claim per file (a rename on the mount, a conditional PUT in the bucket).
  claimMs: 'claim (lease, one claim per file)',
  readMs: 'read (streamed, incl. counting)',
  processMs: 'process (counting CPU)',
  writeMs: 'write metadata',
  renameMs: 'rename / copy+delete',
  totalMs: 'total (in handler)',
  wallMs: 'wall-clock per invoke',
};

export interface PhaseTableParams {
  readonly files: number;
  readonly runs: number;
  readonly minWords: number;
  readonly maxWords: number;
  readonly seed: number;
  /** How the S3 Files inbox was seeded: "s3" (PutObject, then waited for) or "mount". */
  readonly seedVia: string;
  /** With seedVia "s3": PutObject of the batch -> every file visible on the mount. */
  readonly seedImportMs?: Summary;
}

/** A summary as the table prints it: median (min–max), to 0.1 ms. */
export const formatSummary = (s: Summary): string => `${round(s.median)} (${round(s.min)}–${round(s.max)})`;

/**
 * The heading line and the table. A row is printed for each phase both sides have (a phase that a
 * recorded result lacks is left out); the speed-up is the quotient of the two medians as given.
 */
export function renderPhaseTable(
  params: PhaseTableParams,
  s3api: Partial<Record<TableRow, Summary>>,
  s3files: Partial<Record<TableRow, Summary>>,
): string {
  const rows = TABLE_ROWS.filter((k) => s3api[k] && s3files[k]).map((k) => {
    const ratio = speedUp(s3api[k]!.median, s3files[k]!.median);
    return [LABELS[k], formatSummary(s3api[k]!), formatSummary(s3files[k]!), ratio === undefined ? 'n/a' : `${ratio}×`];
  });
  const seeded = params.seedVia === 's3'
    ? `S3 Files inbox seeded through the S3 API${params.seedImportMs ? ` (visible on the mount after ${formatSummary(params.seedImportMs)} ms, not timed)` : ''}`
    : 'S3 Files inbox seeded through the mount';
  return [
    `**${params.files} files × ${params.runs} runs**, ${params.minWords}–${params.maxWords} words per file, seed ${params.seed}; milliseconds, median (min–max). ${seeded}.`,
    '',
    renderTable(['Phase', 'S3 API', 'S3 Files', 'Speed-up (S3 API ÷ S3 Files)'], rows),
  ].join('\n');
}
