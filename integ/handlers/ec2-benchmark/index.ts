/**
 * The EC2 benchmark's report (run on the instance by run.sh): reads fio's JSON per size and
 * direction, the `aws s3 cp` timings and the visibility delays from a results directory, and writes
 * results.json and results.md beside them. Usage: node index.js <results dir>
 */
import { readdirSync, readFileSync, writeFileSync } from 'fs';
import { join } from 'path';
import { FioResult, parseFio } from './fio';
import { renderTable } from '../shared/markdown';

/** One `aws s3 cp` of a file of the benchmark's sizes. */
export interface CopyTiming { readonly size: string; readonly bytes: number; readonly direction: 'upload' | 'download'; readonly ms: number }
/** How long a change took to show on the other side. */
export interface VisibilityDelay { readonly direction: 'export' | 'import'; readonly ms: number; readonly timedOut: boolean }

/** One size, side by side: the mount (fio) and the S3 API (aws s3 cp), in MiB/s. */
export interface SizeComparison {
  readonly size: string;
  readonly mountWriteMiBps: number;
  readonly s3UploadMiBps: number;
  readonly mountReadMiBps: number;
  readonly s3DownloadMiBps: number;
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
  const copies = jsonLines<CopyTiming>(join(dir, 's3cp.jsonl'));
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
      s3UploadMiBps: mibps(up?.bytes, up?.ms),
      mountReadMiBps: round((mount('read')?.bandwidth ?? 0) / MIB),
      s3DownloadMiBps: mibps(down?.bytes, down?.ms),
    };
  });
  return { fio, copies, visibility, sizes };
}

/** The markdown the benchmark uploads beside results.json. */
export function renderReport(report: Ec2BenchmarkReport): string {
  const throughput = renderTable(
    ['File size', 'Mount write MiB/s (fio)', 'aws s3 cp upload MiB/s', 'Mount read MiB/s (fio)', 'aws s3 cp download MiB/s'],
    report.sizes.map((s) => [s.size, String(s.mountWriteMiBps), String(s.s3UploadMiBps), String(s.mountReadMiBps), String(s.s3DownloadMiBps)]),
  );
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
  return ['# S3 Files on EC2', '', '## Throughput', '', throughput, '', '## fio latency', '', latency, '', '## Visibility', '', visibility, ''].join('\n');
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
