/**
 * The whole benchmark suite (issue 6) in one process, one run: synth and its CPU profile, templates, bundles, deploy
 * wait, handlers, concurrency sweep. Writes the measurements to benchmarks/results.json, then
 * renders benchmarks/RESULTS.md and benchmarks/handlers.svg from that file (format.ts): the
 * rendered files are never edited by hand, and test/benchmarks.test.ts checks that they are what
 * the formatter makes of results.json.
 *
 *   npx ts-node --project test/tsconfig.json benchmarks/run-all.ts [--quick] [--synth-reps 5]
 *   ... run-all.ts --only templates,bundles   # measure these sections again, keep the rest
 *   ... run-all.ts --format-only              # render results.json again, measure nothing
 *
 * Needs the handler bundles (`npx projen bundle`) and .venv (`bash test/setup/python-venv.sh`).
 * `--quick` drops the 10,000-file handler size (the slow part: moto is a single-threaded Python
 * server) and uses fewer repeats; RESULTS.md says so when it was used. A section measured with
 * `--only` is marked in RESULTS.md as measured apart from the run.
 *
 * CPU-bound sections run first, before moto and the local Lambda endpoint exist, so they compete
 * only with the machine's other tenants. Each comparison interleaves its two sides.
 */
import { execFileSync } from 'child_process';
import { existsSync, readFileSync, writeFileSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ComparisonRow, concurrencySweep, startLocalBench } from './bench-local';
import { BUNDLE_REPS, runBundleBenchmark } from './bundles';
import { runDeployWait } from './deploy-wait';
import { formatChart, formatResults } from './format';
import { runProfile } from './profile-run';
import type { BenchResults, EarlierRun, HandlerResults, HandlerSize, SweepResults, SynthResults, TemplateResults } from './results';
import { largestThatFits, measureTemplates, runSynthBenchmark, SynthRow } from './synth';
import { DEFAULT_CONCURRENCY } from '../integ/handlers/processor-s3files/index';
import { round } from '../integ/handlers/shared/stats';

export const RESULTS_JSON = path.join(__dirname, 'results.json');
export const RESULTS_MD = path.join(__dirname, 'RESULTS.md');
export const HANDLERS_SVG = path.join(__dirname, 'handlers.svg');

const SECTIONS = ['synth', 'profile', 'templates', 'bundles', 'deployWait', 'handlers', 'sweep'] as const;
type Section = typeof SECTIONS[number];

function args() {
  const argv = process.argv.slice(2);
  const value = (name: string): string | undefined => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const synthReps = Number(value('synth-reps'));
  const only = value('only')?.split(',').map((s) => s.trim());
  for (const s of only ?? []) {
    if (!(SECTIONS as readonly string[]).includes(s)) throw new Error(`--only ${s}: not a section (${SECTIONS.join(', ')})`);
  }
  const quick = argv.includes('--quick');
  return {
    quick,
    synthReps: Number.isFinite(synthReps) && synthReps > 0 ? synthReps : quick ? 3 : 5,
    only: only as Section[] | undefined,
    formatOnly: argv.includes('--format-only'),
  };
}

const SYNTH_SIZES = [1, 10, 25, 50];
/** The size the CPU profile is taken at (issue 38: where the library's time goes at 50 functions). */
const PROFILE_FUNCTIONS = 50;
/** The synth timings also at 200 functions (past one stack's 500 resources: the limit is lifted for it). */
const SYNTH_TIMING_SIZES = [1, 10, 50, 200];
const SWEEP_LEVELS = [1, 4, 16, 64];
const SWEEP_FILES = 1000;
const WORDS = { minWords: 500, maxWords: 2000, seed: 42 };

async function timed<T>(label: string, durations: Record<string, number>, fn: () => Promise<T> | T): Promise<T> {
  const t = Date.now();
  process.stderr.write(`[bench] ${label}...\n`);
  try {
    return await fn();
  } finally {
    durations[label] = (Date.now() - t) / 1000;
    process.stderr.write(`[bench] ${label} done in ${durations[label].toFixed(1)} s\n`);
  }
}

/** The commit measured, "+" when the work tree differs from it. */
function commit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim() !== '';
    return dirty ? `${head}+` : head;
  } catch {
    return 'unknown';
  }
}

const today = (): string => new Date().toISOString().slice(0, 10);
// eslint-disable-next-line @typescript-eslint/no-require-imports
const awsCdkLib = (): string => require('aws-cdk-lib/package.json').version;

function synthRows(rows: SynthRow[]): SynthResults['rows'] {
  const side = (s: SynthRow['library']) => ({ ms: s.ms, cpuMs: s.cpuMs, buildMs: s.buildMs, synthMs: s.synthMs, bytes: s.bytes });
  return rows.map((r) => ({
    n: r.n,
    library: side(r.library),
    handWired: side(r.handWired),
    fastestRatio: Math.min(...r.librarySamples) / Math.min(...r.handWiredSamples),
  }));
}

function synthResults(rows: SynthRow[], reps: number, validated: SynthRow[], validatedReps: number): SynthResults {
  return { reps, rows: synthRows(rows), validated: { reps: validatedReps, rows: synthRows(validated) } };
}

function templateResults(rows: TemplateResults['rows']): TemplateResults {
  return { rows, largest: largestThatFits(rows) };
}

function handlerSize(c: ComparisonRow): HandlerSize {
  const { s3api, s3files } = c.result;
  const perRun = s3api.runs.map((run, i) => run.totalMs / s3files.runs[i].totalMs);
  return {
    files: c.files,
    runs: c.runs,
    wallSeconds: c.wallSeconds,
    totalMs: { s3files: s3files.phases.totalMs.median, s3api: s3api.phases.totalMs.median },
    runRatio: { min: Math.min(...perRun), max: Math.max(...perRun) },
    phases: { s3api: { ...s3api.phases, wallMs: s3api.wallMs }, s3files: { ...s3files.phases, wallMs: s3files.wallMs } },
  };
}

/** What later runs compare with: this run's synth medians at the largest size and its handler totals. */
function asEarlierRun(r: BenchResults): EarlierRun {
  const end = r.synth.rows[r.synth.rows.length - 1];
  return {
    commit: r.run.commit,
    date: r.run.date,
    synth: end.library.cpuMs !== undefined && end.handWired.cpuMs !== undefined
      ? { n: end.n, libraryMs: end.library.cpuMs, handWiredMs: end.handWired.cpuMs, cpu: true }
      : { n: end.n, libraryMs: end.library.ms, handWiredMs: end.handWired.ms },
    handlers: r.handlers.sizes.map((h) => ({ files: h.files, s3filesMs: h.totalMs.s3files, s3apiMs: h.totalMs.s3api })),
    ...(r.about ? { note: `As in that run's results.json, whose notes said: ${r.about.join(' ')}` } : {}),
  };
}

/** Measures `sections` (all of them when undefined); the others come from `previous`. */
async function measure(sections: readonly Section[], quick: boolean, synthReps: number, previous: BenchResults | undefined): Promise<BenchResults> {
  const started = Date.now();
  const durations: Record<string, number> = {};
  const wanted = (s: Section): boolean => sections.includes(s);
  const handlerSizes = quick
    ? [{ files: 20, runs: 3 }, { files: 1000, runs: 2 }]
    : [{ files: 20, runs: 5 }, { files: 1000, runs: 3 }, { files: 10_000, runs: 1 }];
  const sweepRepeats = quick ? 2 : 3;

  let synth: SynthResults | undefined;
  let templates: TemplateResults | undefined;
  if (wanted('synth')) {
    const rows = await timed('synth', durations, () => runSynthBenchmark(SYNTH_TIMING_SIZES, synthReps));
    // As users synthesize: aws-cdk-lib's validation on (its start-up paid once, in the warm-up).
    const validatedReps = Math.max(3, Math.ceil(synthReps / 2));
    const validated = await timed('synth, validated', durations, () => runSynthBenchmark(SYNTH_TIMING_SIZES, validatedReps, true));
    synth = synthResults(rows, synthReps, validated, validatedReps);
  }
  const profile = wanted('profile')
    ? await timed('profile', durations, () => runProfile(PROFILE_FUNCTIONS, quick ? 10 : 20))
    : undefined;
  if (wanted('templates')) {
    // The sizes one stack holds (the timings also go past it).
    templates = await timed('templates', durations, () => templateResults(measureTemplates(SYNTH_SIZES)));
  }
  const bundles = wanted('bundles')
    ? { reps: BUNDLE_REPS, rows: await timed('bundles', durations, () => runBundleBenchmark(BUNDLE_REPS)) }
    : undefined;
  const deployWait = wanted('deployWait')
    ? await timed('deploy wait', durations, () => runDeployWait({ deployments: 100, seed: 42 }))
    : undefined;

  let handlers: HandlerResults | undefined;
  let sweep: SweepResults | undefined;
  if (wanted('handlers') || wanted('sweep')) {
    const bench = await startLocalBench();
    try {
      if (wanted('handlers')) {
        const sizes: HandlerSize[] = [];
        for (const { files, runs } of handlerSizes) {
          sizes.push(handlerSize(await timed(`handlers ${files} files`, durations, () => bench.compare(files, runs))));
        }
        handlers = { ...WORDS, seedVia: 'mount', sizes };
      }
      if (wanted('sweep')) {
        const levels = await timed('concurrency sweep', durations, () => concurrencySweep(SWEEP_LEVELS, SWEEP_FILES, sweepRepeats));
        sweep = { files: SWEEP_FILES, repeats: sweepRepeats, defaultConcurrency: DEFAULT_CONCURRENCY, levels };
      }
    } finally {
      await bench.stop();
    }
  }

  const cpus = os.cpus();
  const run = {
    date: today(),
    commit: commit(),
    quick,
    machine: {
      cpus: cpus.length,
      cpuModel: cpus[0]?.model.trim() ?? 'unknown CPU',
      memoryBytes: os.totalmem(),
      node: process.version,
      platform: os.platform(),
      release: os.release(),
    },
    awsCdkLib: awsCdkLib(),
    partSeconds: durations,
    totalSeconds: (Date.now() - started) / 1000,
  };
  if (sections.length === SECTIONS.length) {
    return {
      run,
      synth: synth!,
      templates: templates!,
      bundles: bundles!,
      deployWait: deployWait!,
      handlers: handlers!,
      sweep: sweep!,
      profile: profile!,
      earlierRuns: previous ? [...previous.earlierRuns, asEarlierRun(previous)] : [],
    };
  }
  if (!previous) throw new Error(`--only needs ${path.relative(process.cwd(), RESULTS_JSON)} from a full run`);
  const apart = `alone, on ${run.date} (commit ${run.commit}, Node ${run.machine.node}, aws-cdk-lib ${run.awsCdkLib}, `
    + `${Object.entries(durations).map(([k, v]) => `${k} ${round(v)} s`).join(', ')})`;
  const mark = <T extends object>(section: T | undefined, old: T): T => (section ? { ...section, measuredApart: apart } : old);
  return {
    ...previous,
    synth: mark(synth, previous.synth),
    templates: mark(templates, previous.templates),
    bundles: mark(bundles, previous.bundles),
    deployWait: mark(deployWait, previous.deployWait),
    handlers: mark(handlers, previous.handlers),
    sweep: mark(sweep, previous.sweep),
    profile: profile ? { ...profile, measuredApart: apart } : previous.profile,
  };
}

/** Writes RESULTS.md and handlers.svg from `results`. */
export function render(results: BenchResults): void {
  writeFileSync(RESULTS_MD, formatResults(results));
  writeFileSync(HANDLERS_SVG, formatChart(results));
}

async function main(): Promise<void> {
  const { quick, synthReps, only, formatOnly } = args();
  const previous: BenchResults | undefined = existsSync(RESULTS_JSON) ? JSON.parse(readFileSync(RESULTS_JSON, 'utf8')) : undefined;
  let results: BenchResults;
  if (formatOnly) {
    if (!previous) throw new Error(`--format-only needs ${RESULTS_JSON}`);
    results = previous;
  } else {
    results = await measure(only ?? SECTIONS, quick, synthReps, previous);
    writeFileSync(RESULTS_JSON, JSON.stringify(results, null, 2) + '\n');
  }
  render(results);
  process.stderr.write('[bench] wrote benchmarks/results.json, RESULTS.md and handlers.svg\n');
}

if (require.main === module) {
  main().then(() => process.exit(0), (e) => {
    console.error(e);
    process.exit(1);
  });
}
