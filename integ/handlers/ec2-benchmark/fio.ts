/**
 * fio's JSON output (`--output-format=json`), reduced to what the EC2 benchmark reports: one row
 * per job and direction with bandwidth, IOPS and completion latency.
 */

/** One direction (read or write) of one fio job. */
export interface FioResult {
  readonly job: string;
  readonly direction: 'read' | 'write';
  /** Bytes moved. */
  readonly bytes: number;
  /** Bytes per second. */
  readonly bandwidth: number;
  readonly iops: number;
  /** Mean and 99th-percentile completion latency, in milliseconds. */
  readonly latencyMeanMs: number;
  readonly latencyP99Ms: number;
  /** Time the job ran, in milliseconds. */
  readonly runtimeMs: number;
}

interface FioDirection {
  io_bytes: number;
  bw_bytes: number;
  iops: number;
  runtime: number;
  clat_ns?: { mean?: number; percentile?: Record<string, number> };
  lat_ns?: { mean?: number };
}

/** Parses fio's JSON; throws on anything that is not fio output or on a job fio reports as failed. */
export function parseFio(text: string): FioResult[] {
  let doc: { jobs?: Array<Record<string, unknown>> };
  try {
    // fio may print notes before the JSON document (e.g. "note: both iodepth >= 1 and synchronous I/O engine").
    doc = JSON.parse(text.slice(text.indexOf('{')));
  } catch (e) {
    throw new Error(`not fio JSON output: ${(e as Error).message}`);
  }
  if (!Array.isArray(doc.jobs)) throw new Error('not fio JSON output: no "jobs" array');
  const results: FioResult[] = [];
  for (const job of doc.jobs) {
    const name = String(job.jobname);
    if (job.error !== 0) throw new Error(`fio job ${name} failed with error ${String(job.error)}`);
    for (const direction of ['read', 'write'] as const) {
      const d = job[direction] as FioDirection | undefined;
      if (!d || d.io_bytes === 0) continue;
      const clat = d.clat_ns ?? {};
      const p99 = clat.percentile?.['99.000000'];
      results.push({
        job: name,
        direction,
        bytes: d.io_bytes,
        bandwidth: d.bw_bytes,
        iops: d.iops,
        latencyMeanMs: (clat.mean ?? d.lat_ns?.mean ?? 0) / 1e6,
        latencyP99Ms: (p99 ?? 0) / 1e6,
        runtimeMs: d.runtime,
      });
    }
  }
  return results;
}
