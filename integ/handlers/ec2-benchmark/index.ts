/**
 * The EC2 benchmark's report (run on the instance by run.sh): reads fio's JSON per size and
 * direction, the `aws s3 cp` timings and the visibility delays from a results directory, and writes
 * results.json and results.md beside them. Usage: node index.js <results dir>
 */
import { readdirSync, readFileSync, writeFileSync } from 'fs';
import { join } from 'path';
import { FioResult, parseFio } from './fio';
import { renderTable } from '../shared/markdown';

/**
 * One `aws s3 cp` of a file of the benchmark's sizes: `ms` is the whole process (the CLI's start-up
 * included), `endMs` when it exited (epoch ms), `log` its debug log (relative to the results directory).
 */
export interface CopyTiming {
  readonly size: string;
  readonly bytes: number;
  readonly direction: 'upload' | 'download';
  readonly ms: number;
  readonly endMs?: number;
  readonly log?: string;
  /** From the CLI's first S3 request (its debug log) to its exit: the transfer without the CLI's start-up. */
  readonly transferMs?: number;
}
/** How long a change took to show on the other side. */
export interface VisibilityDelay { readonly direction: 'export' | 'import'; readonly ms: number; readonly timedOut: boolean }

/**
 * One size, side by side, in MiB/s: the mount (fio's bandwidth: its I/O only, without fio's
 * start-up) and the S3 API (`aws s3 cp` from its first S3 request to its exit, without the CLI's
 * start-up: `s3UploadMiBps`; and the whole process: `s3UploadProcessMiBps`). 0 where not measured.
 */
export interface SizeComparison {
  readonly size: string;
  readonly mountWriteMiBps: number;
  readonly s3UploadMiBps: number;
  readonly s3UploadProcessMiBps: number;
  readonly mountReadMiBps: number;
  readonly s3DownloadMiBps: number;
  readonly s3DownloadProcessMiBps: number;
}

export interface Ec2BenchmarkReport {
  readonly fio: FioResult[];
  readonly copies: CopyTiming[];
  readonly visibility: VisibilityDelay[];
  readonly sizes: SizeComparison[];
}

const MIB = 1024 * 1024;
const round = (n: number, digits = 1): number => Math.round(n * 10 ** digits) / 10 ** digits;

function jsonLines<T>(file: string): T[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  return text.split('\n').filter((l) => l.trim() !== '').map((l, i) => {
    try {
      return JSON.parse(l) as T;
    } catch {
      throw new Error(`${file}:${i + 1}: not a JSON line: ${l}`);
    }
  });
}

/** Builds the report from a results directory (fio/<rw>-<size>.json, s3cp.jsonl, visibility.jsonl). */
export function buildReport(dir: string): Ec2BenchmarkReport {
  const fioDir = join(dir, 'fio');
  const fio = readdirSync(fioDir).filter((f) => f.endsWith('.json')).sort()
    .flatMap((f) => parseFio(readFileSync(join(fioDir, f), 'utf8')));
  const copies = jsonLines<CopyTiming>(join(dir, 's3cp.jsonl')).map((c) => withTransferMs(dir, c));
  const visibility = jsonLines<VisibilityDelay>(join(dir, 'visibility.jsonl'));
  const sizes = [...new Set(copies.map((c) => c.size))].map((size): SizeComparison => {
    const mount = (direction: 'read' | 'write') => fio.find((r) => r.job === `${direction}-${size}` && r.direction === direction);
    const copy = (direction: 'upload' | 'download') => copies.find((c) => c.size === size && c.direction === direction);
    const mibps = (bytes: number | undefined, ms: number | undefined) => (bytes && ms ? round(bytes / MIB / (ms / 1000)) : 0);
    const up = copy('upload');
    const down = copy('download');
    return {
      size,
      mountWriteMiBps: round((mount('write')?.bandwidth ?? 0) / MIB),
      s3UploadMiBps: mibps(up?.bytes, up?.transferMs),
      s3UploadProcessMiBps: mibps(up?.bytes, up?.ms),
      mountReadMiBps: round((mount('read')?.bandwidth ?? 0) / MIB),
      s3DownloadMiBps: mibps(down?.bytes, down?.transferMs),
      s3DownloadProcessMiBps: mibps(down?.bytes, down?.ms),
    };
  });
  return { fio, copies, visibility, sizes };
}

/**
 * A line of the CLI's debug log that starts an S3 request (botocore's "Making request for
 * OperationModel(name=...)", stamped `YYYY-MM-DD HH:MM:SS,mmm` in local time).
 */
const FIRST_REQUEST = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d),(\d{3}) - .* - botocore\.endpoint - DEBUG - Making request for OperationModel\(name=/m;

/** The copy with `transferMs` from its debug log, when the log names its first request. */
function withTransferMs(dir: string, copy: CopyTiming): CopyTiming {
  if (copy.log === undefined || copy.endMs === undefined) return copy;
  let text: string;
  try {
    text = readFileSync(join(dir, copy.log), 'utf8');
  } catch {
    return copy;
  }
  const m = FIRST_REQUEST.exec(text);
  if (!m) return copy;
  const [year, month, day, h, min, s, ms] = m.slice(1).map(Number);
  const first = new Date(year, month - 1, day, h, min, s, ms).getTime();
  return { ...copy, transferMs: Math.max(1, copy.endMs - first) };
}

const shownMiBps = (v: number): string => (v > 0 ? String(v) : 'n/a');

/** The markdown the benchmark uploads beside results.json. */
export function renderReport(report: Ec2BenchmarkReport): string {
  const throughput = renderTable(
    ['File size', 'Mount write (fio)', 'S3 upload (transfer)', 'S3 upload (whole CLI process)',
      'Mount read (fio)', 'S3 download (transfer)', 'S3 download (whole CLI process)'],
    report.sizes.map((s) => [s.size, String(s.mountWriteMiBps), shownMiBps(s.s3UploadMiBps), String(s.s3UploadProcessMiBps),
      String(s.mountReadMiBps), shownMiBps(s.s3DownloadMiBps), String(s.s3DownloadProcessMiBps)]),
  );
  const columns = [
    'MiB/s. **Mount (fio)**: fio\'s bandwidth over its I/O alone (sequential 1 MiB blocks; fio\'s own start-up excluded); writes end with an fsync '
      + 'to the file system, whose export to S3 follows about a minute later (Visibility), and reads follow a page-cache drop.',
    '**S3 (transfer)**: `aws s3 cp` from its first S3 request (its debug log) to its exit: the CLI\'s start-up (Python, configuration, '
      + 'credentials) excluded, opening its connection included; n/a when the log named no request.',
    '**S3 (whole CLI process)**: the same copy timed from the start of the `aws` process to its exit, start-up included: not comparable '
      + 'with fio\'s figure, kept to show what the start-up costs at each size.',
  ].join(' ');
  const latency = renderTable(
    ['fio job', 'Direction', 'IOPS', 'Mean latency ms', 'p99 latency ms'],
    report.fio.map((r) => [r.job, r.direction, String(round(r.iops)), String(round(r.latencyMeanMs, 2)), String(round(r.latencyP99Ms, 2))]),
  );
  const visibility = renderTable(
    ['Change', 'Visible after s'],
    report.visibility.map((v) => [
      v.direction === 'export' ? 'written on the mount, seen in S3 (export)' : 'put through S3, seen on the mount (import)',
      v.timedOut ? `not within ${round(v.ms / 1000)}` : String(round(v.ms / 1000)),
    ]),
  );
  return ['# S3 Files on EC2', '', '## Throughput', '', throughput, '', columns, '', '## fio latency', '', latency, '', '## Visibility', '', visibility, '']
    .join('\n');
}

if (require.main === module) {
  const dir = process.argv[2];
  if (!dir) {
    process.stderr.write('usage: node index.js <results dir>\n');
    process.exit(2);
  }
  const report = buildReport(dir);
  writeFileSync(join(dir, 'results.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(dir, 'results.md'), renderReport(report));
}
