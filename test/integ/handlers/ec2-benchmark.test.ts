import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseFio } from '../../../integ/handlers/ec2-benchmark/fio';
import { buildReport, renderReport } from '../../../integ/handlers/ec2-benchmark/index';
import { round } from '../../../integ/handlers/shared/stats';
import { venvBin } from '../../validators/templates';

// fio runs for real where it is installed (CI installs Debian's fio package), with the job
// parameters run.sh uses, on a temporary directory; without it (no root to install it), the
// parser is checked on output recorded from a real fio run (test/fixtures/fio/README.md says how),
// and run.sh runs against a replay of that output.
const ROOT = path.join(__dirname, '..', '..', '..');
const RUN_SH = path.join(ROOT, 'integ', 'handlers', 'ec2-benchmark', 'run.sh');
const REPORT_JS = path.join(ROOT, 'assets', 'integ', 'handlers', 'ec2-benchmark', 'index', 'index.js');
const RECORDED = path.join(ROOT, 'test', 'fixtures', 'fio');
const HAVE_FIO = spawnSync('fio', ['--version'], { encoding: 'utf8' }).status === 0;

function fio(dir: string, rw: 'read' | 'write', size: string): string {
  if (!HAVE_FIO) return fs.readFileSync(path.join(RECORDED, `${rw}-${size}.json`), 'utf8');
  const r = spawnSync('fio', [`--name=${rw}-${size}`, `--directory=${dir}`, `--filename=file-${size}`, `--size=${size}`, '--bs=1M', `--rw=${rw}`,
    '--ioengine=psync', '--end_fsync=1', '--output-format=json'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`fio failed: ${r.stderr}`);
  return r.stdout;
}

describe('parseFio on output recorded from a real fio run', () => {
  test.each(['write-1M', 'read-1M', 'write-4M', 'read-4M', 'write-8M', 'read-8M'])('%s', (job) => {
    const [row] = parseFio(fs.readFileSync(path.join(RECORDED, `${job}.json`), 'utf8'));
    expect(row).toMatchObject({ job, direction: job.split('-')[0], bytes: Number.parseInt(job.split('-')[1], 10) * 1024 * 1024 });
    expect(row.iops).toBeCloseTo(row.bandwidth / (1024 * 1024), 0);
  });
});

describe(`parseFio on ${HAVE_FIO ? 'a real fio run' : 'recorded fio output (fio is not installed here)'}`, () => {
  let dir: string;
  beforeAll(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 's3files-fio-')); });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('a sequential write and read of 8 MiB: bytes, bandwidth, IOPS and latencies that agree with each other', () => {
    // GIVEN fio's JSON for the job run.sh runs
    const [write] = parseFio(fio(dir, 'write', '8M'));
    const [read] = parseFio(fio(dir, 'read', '8M'));
    // THEN one row each, for the right job and direction
    expect(write).toMatchObject({ job: 'write-8M', direction: 'write', bytes: 8 * 1024 * 1024 });
    expect(read).toMatchObject({ job: 'read-8M', direction: 'read', bytes: 8 * 1024 * 1024 });
    for (const r of [write, read]) {
      expect(r.bandwidth).toBeGreaterThan(0);
      expect(r.iops).toBeGreaterThan(0);
      expect(r.latencyMeanMs).toBeGreaterThan(0);
      expect(r.latencyP99Ms).toBeGreaterThanOrEqual(0);
      // 1 MiB blocks: IOPS is bandwidth in MiB/s (fio computes both from the same run)
      expect(r.iops).toBeCloseTo(r.bandwidth / (1024 * 1024), 0);
    }
  });

  test('refuses what is not fio output, and a job fio reports as failed', () => {
    expect(() => parseFio('fio: command not found')).toThrow(/not fio JSON output/);
    expect(() => parseFio('{"jobs": [{"jobname": "write-1M", "error": 5}]}')).toThrow(/fio job write-1M failed with error 5/);
    expect(() => parseFio('{"fio version": "fio-3.33"}')).toThrow(/no "jobs" array/);
  });

  test('notes fio prints before the JSON are skipped', () => {
    const text = `note: both iodepth >= 1 and synchronous I/O engine are selected\n${fio(dir, 'write', '1M')}`;
    expect(parseFio(text)).toHaveLength(1);
  });
});

describe('run.sh: the EC2 benchmark end to end, against real fio and a stub aws CLI', () => {
  // The stub maps s3://<bucket>/<key> to $S3ROOT/<key>, and the "mount" is $S3ROOT/bench: a file
  // system whose export and import are instant, so visibility delays are ~0 and never time out.
  const AWS_STUB = path.join(ROOT, 'test', 'servers', 'aws-cli-stub.sh');

  test('passes shellcheck', () => {
    const lint = spawnSync(venvBin('shellcheck'), ['--shell=bash', '--severity=style', RUN_SH], { encoding: 'utf8' });
    expect(lint.stdout + lint.stderr).toBe('');
    expect(lint.status).toBe(0);
  });

  test('measures every size both ways and the two visibility delays, uploads results.json and results.md, and cleans up', () => {
    // GIVEN
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's3files-ec2bench-'));
    const s3root = path.join(dir, 'bucket');
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(path.join(s3root, 'bench'), { recursive: true });
    fs.mkdirSync(bin);
    fs.copyFileSync(AWS_STUB, path.join(bin, 'aws'));
    fs.chmodSync(path.join(bin, 'aws'), 0o755);
    if (!HAVE_FIO) {
      fs.writeFileSync(path.join(bin, 'fio'), `#!/bin/bash\nexec bash ${JSON.stringify(path.join(ROOT, 'test', 'servers', 'fio-replay.sh'))} "$@"\n`, { mode: 0o755 });
    }
    try {
      // WHEN
      const run = spawnSync('bash', [RUN_SH], {
        encoding: 'utf8',
        env: {
          ...process.env,
          PATH: `${bin}:${process.env.PATH}`,
          S3ROOT: s3root,
          MOUNT_DIR: path.join(s3root, 'bench'),
          BUCKET: 'bench-bucket',
          PREFIX: 'bench/',
          OUT: path.join(dir, 'out'),
          REPORT: REPORT_JS,
          SIZES: '1M 4M',
          VISIBILITY_TIMEOUT: '5',
        },
      });
      // THEN
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      expect(run.stdout).toMatch(/EC2 benchmark \d{8}T\d{6}Z: s3:\/\/bench-bucket\/benchmarks\/ec2\/\d{8}T\d{6}Z\/results\.md/);
      const [runId] = fs.readdirSync(path.join(s3root, 'benchmarks', 'ec2'));
      const uploaded = path.join(s3root, 'benchmarks', 'ec2', runId);
      const report = JSON.parse(fs.readFileSync(path.join(uploaded, 'results.json'), 'utf8'));
      expect(report.fio.map((r: any) => `${r.job}/${r.direction}`).sort()).toEqual(['read-1M/read', 'read-4M/read', 'write-1M/write', 'write-4M/write']);
      expect(report.copies.map((c: any) => `${c.size}/${c.direction}`)).toEqual(['1M/upload', '1M/download', '4M/upload', '4M/download']);
      expect(report.sizes.map((s: any) => s.size)).toEqual(['1M', '4M']);
      for (const s of report.sizes) expect(Math.min(s.mountWriteMiBps, s.mountReadMiBps, s.s3UploadMiBps, s.s3DownloadMiBps)).toBeGreaterThan(0);
      expect(report.visibility.map((v: any) => [v.direction, v.timedOut])).toEqual([['export', false], ['import', false]]);
      const markdown = fs.readFileSync(path.join(uploaded, 'results.md'), 'utf8');
      expect(markdown).toMatch(/\| 4M \| [\d.]+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \|/);
      expect(markdown).toContain('put through S3, seen on the mount (import)');
      // AND nothing large is left behind, on the "mount" or under the S3-API copies
      expect(fs.readdirSync(path.join(s3root, 'bench'))).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  test('the S3 column times the transfer without the CLI\'s start-up, as fio\'s bandwidth leaves out fio\'s, and says what each column includes (issue 41.8)', () => {
    // GIVEN a CLI that spends 1.5 s starting up and 0.3 s on each transfer of 1 MiB
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's3files-ec2bench-'));
    const s3root = path.join(dir, 'bucket');
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(path.join(s3root, 'bench'), { recursive: true });
    fs.mkdirSync(bin);
    fs.copyFileSync(AWS_STUB, path.join(bin, 'aws'));
    fs.chmodSync(path.join(bin, 'aws'), 0o755);
    fs.writeFileSync(path.join(bin, 'fio'), `#!/bin/bash\nexec bash ${JSON.stringify(path.join(ROOT, 'test', 'servers', 'fio-replay.sh'))} "$@"\n`, { mode: 0o755 });
    try {
      // WHEN the benchmark runs
      const run = spawnSync('bash', [RUN_SH], {
        encoding: 'utf8',
        env: {
          ...process.env,
          PATH: `${bin}:${process.env.PATH}`,
          S3ROOT: s3root,
          MOUNT_DIR: path.join(s3root, 'bench'),
          BUCKET: 'bench-bucket',
          PREFIX: 'bench/',
          OUT: path.join(dir, 'out'),
          REPORT: REPORT_JS,
          SIZES: '1M',
          VISIBILITY_TIMEOUT: '5',
          STUB_STARTUP_MS: '1500',
          STUB_TRANSFER_MS: '300',
        },
      });
      expect(run.stderr).toBe('');
      const [runId] = fs.readdirSync(path.join(s3root, 'benchmarks', 'ec2'));
      const uploaded = path.join(s3root, 'benchmarks', 'ec2', runId);
      const report = JSON.parse(fs.readFileSync(path.join(uploaded, 'results.json'), 'utf8'));
      // THEN each copy's transfer leaves the start-up out; the process time keeps it
      for (const c of report.copies) {
        expect(c.ms).toBeGreaterThanOrEqual(1800);
        expect(c.transferMs).toBeGreaterThanOrEqual(300);
        expect(c.transferMs).toBeLessThan(1200);
      }
      const [s] = report.sizes;
      expect(s.s3UploadMiBps).toBeGreaterThan(1 / 1.2);
      // (rates are rounded to 0.1 MiB/s: 1 MiB in 1.8–1.82 s reads 0.6, so the bound is on the copy's own time)
      const up = report.copies.find((c: { direction: string }) => c.direction === 'upload');
      expect(up.ms).toBeGreaterThanOrEqual(1800);
      expect(s.s3UploadProcessMiBps).toBe(round(up.bytes / 2 ** 20 / (up.ms / 1000)));
      expect(s.s3UploadProcessMiBps).toBeLessThanOrEqual(round(1 / 1.8));
      // AND the table says what each column includes
      const markdown = fs.readFileSync(path.join(uploaded, 'results.md'), 'utf8');
      expect(markdown).toContain('| File size | Mount write (fio) | S3 upload (transfer) | S3 upload (whole CLI process) | Mount read (fio) | S3 download (transfer) |');
      expect(markdown).toContain('fio\'s own start-up excluded');
      expect(markdown).toContain('the CLI\'s start-up (Python, configuration, credentials) excluded');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  test('a change that never shows is reported as timed out, not hung', () => {
    // GIVEN visibility results with a timeout, WHEN rendered
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's3files-ec2report-'));
    fs.mkdirSync(path.join(dir, 'fio'));
    fs.writeFileSync(path.join(dir, 'visibility.jsonl'), '{"direction":"export","ms":300000,"timedOut":true}\n');
    const markdown = renderReport(buildReport(dir));
    fs.rmSync(dir, { recursive: true, force: true });
    // THEN
    expect(markdown).toContain('| written on the mount, seen in S3 (export) | not within 300 |');
  });
});
