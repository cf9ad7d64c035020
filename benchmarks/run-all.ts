/**
 * The whole benchmark suite (issue 6) in one process, one run: synth + templates, bundles, deploy
 * wait, handlers. Writes benchmarks/RESULTS.md and benchmarks/handlers.svg.
 *
 *   npx ts-node --project test/tsconfig.json benchmarks/run-all.ts [--quick] [--synth-reps 5]
 *
 * Needs the handler bundles (`npx projen bundle`) and .venv (`bash test/setup/python-venv.sh`).
 * `--quick` drops the 10,000-file handler size (the slow part: moto is a single-threaded Python
 * server) and uses fewer repeats; RESULTS.md says so when it was used.
 *
 * CPU-bound sections run first, before moto and the local Lambda endpoint exist, so they compete
 * only with the machine's other tenants. Each comparison interleaves its two sides.
 */
import { writeFileSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ComparisonRow, concurrencySweep, renderSweep, startLocalBench, SweepRow } from './bench-local';
import { BUNDLE_BUDGET_BYTES, runBundleBenchmark } from './bundles';
import { groupedBarChartSvg } from './chart';
import { QUERY_INTERVAL_MS, runDeployWait, TERRAFORM_FIXED_WAIT_MS } from './deploy-wait';
import {
  CFN_MAX_RESOURCES, CFN_MAX_TEMPLATE_BYTES, DependencyStats, MAX_FILE_SYSTEM_POLICY_CHARS, MAX_INBOUND_RULES, dependencyStats,
  handWiredStack, libraryFits, libraryStack, linearFit,
  runSynthBenchmark, SynthRow, templateBudget,
} from './synth';
import { DEFAULT_CONCURRENCY } from '../integ/handlers/processor-s3files/index';
import { round } from '../integ/handlers/shared/stats';

const quick = process.argv.includes('--quick');
function numArg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : NaN;
  return Number.isFinite(v) && v > 0 ? v : fallback;
}

const SYNTH_SIZES = [1, 10, 25, 50];
const SYNTH_RATIO_GOAL = 1.2;
/**
 * Handler sizes and runs per size. Several runs per size give the ratio's spread (each run measures
 * both processors back to back); 10,000 files through moto takes minutes, so one run.
 */
const HANDLER_SIZES: { files: number; runs: number }[] = quick
  ? [{ files: 20, runs: 3 }, { files: 1000, runs: 2 }]
  : [{ files: 20, runs: 5 }, { files: 1000, runs: 3 }, { files: 10_000, runs: 1 }];
const SWEEP_LEVELS = [1, 4, 16, 64];
const SWEEP_FILES = 1000;
const SWEEP_REPEATS = quick ? 2 : 3;

const OUT_DIR = __dirname;
const n0 = (x: number): string => Math.round(x).toLocaleString('en-US');
const kib = (b: number): string => (b / 1024).toFixed(1);
const table = (head: string[], align: string[], rows: (string | number)[][]): string =>
  [`| ${head.join(' | ')} |`, `|${align.join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');

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

/** Least-squares y = c0 + c1·x + c2·x² (template bytes grow faster than linearly, see the finding). */
function quadraticFit(xs: number[], ys: number[]): [number, number, number] {
  const m = [0, 1, 2].map((i) => [0, 1, 2].map((j) => xs.reduce((sum, x) => sum + x ** (i + j), 0)));
  const v = [0, 1, 2].map((i) => xs.reduce((sum, x, k) => sum + x ** i * ys[k], 0));
  // Gaussian elimination on the 3x3 normal equations.
  for (let c = 0; c < 3; c++) {
    for (let r = c + 1; r < 3; r++) {
      const f = m[r][c] / m[c][c];
      for (let k = c; k < 3; k++) m[r][k] -= f * m[c][k];
      v[r] -= f * v[c];
    }
  }
  const out = [0, 0, 0];
  for (let r = 2; r >= 0; r--) out[r] = (v[r] - m[r].slice(r + 1).reduce((sum, x, k) => sum + x * out[r + 1 + k], 0)) / m[r][r];
  return [out[0], out[1], out[2]];
}

function synthSection(rows: SynthRow[], reps: number, libDeps: DependencyStats): string {
  const last = rows[rows.length - 1];
  // Fit the per-size medians: single repeats on this machine carry GC and neighbour noise.
  const libFit = linearFit(rows.map((r) => r.n), rows.map((r) => r.library.ms));
  const handFit = linearFit(rows.map((r) => r.n), rows.map((r) => r.handWired.ms));
  const minRatio = Math.min(...last.librarySamples) / Math.min(...last.handWiredSamples);
  const met = last.ratio <= SYNTH_RATIO_GOAL;
  const lines = [
    '## Synth',
    '',
    `Wall time of \`new App()\` + building the stack + \`app.synth()\`, median of ${reps} interleaved repeats per size `
      + '(library and hand-wired alternate, first one swapped every repeat). *Library*: `S3FilesFileSystem` + one '
      + '`addAccessPoint` shared by N `S3FilesMountedFunction`s (includes the readiness waiter, file-system policy, '
      + 'scoped IAM). *Hand-wired*: the same bucket, service role, file system and mount targets from aws-cdk-lib L1s + '
      + '`lambda.FileSystem.fromS3FilesAccessPoint`, which needs one `CfnAccessPoint` per function because it cannot '
      + 'share one; no waiter, no policy. It is the floor, not an equivalent.',
    '',
    table(
      ['Functions', 'Library ms', 'Hand-wired ms', 'Ratio', 'Library build / synth ms', 'Hand-wired build / synth ms'],
      ['---:', '---:', '---:', '---:', '---:', '---:'],
      rows.map((r) => [
        r.n, n0(r.library.ms), n0(r.handWired.ms), `**${r.ratio.toFixed(2)}**`,
        `${n0(r.library.buildMs)} / ${n0(r.library.synthMs)}`, `${n0(r.handWired.buildMs)} / ${n0(r.handWired.synthMs)}`,
      ]),
    ),
    '',
    `Linear fit over the medians (ms = a + b·n): library a = ${n0(libFit.a)} ms, b = ${libFit.b.toFixed(1)} ms/function, `
      + `R² = ${libFit.r2.toFixed(3)}; hand-wired a = ${n0(handFit.a)} ms, b = ${handFit.b.toFixed(1)} ms/function, `
      + `R² = ${handFit.r2.toFixed(3)}. Per-function slope ratio ${(libFit.b / handFit.b).toFixed(2)}.`,
    '',
    `**Goal: ratio ≤ ${SYNTH_RATIO_GOAL} at ${last.n} functions — ${met ? 'met' : 'NOT met'} (${last.ratio.toFixed(2)} on medians, `
      + `${minRatio.toFixed(2)} on the fastest repeat of each side).** Growth is ${libFit.r2 >= 0.95 ? 'linear' : 'not clearly linear'} `
      + `(R² ${libFit.r2.toFixed(3)}).`,
    '',
    `Where the time goes at ${last.n} functions: building the construct tree ${n0(last.library.buildMs)} vs `
      + `${n0(last.handWired.buildMs)} ms (×${(last.library.buildMs / last.handWired.buildMs).toFixed(2)}), \`app.synth()\` `
      + `${n0(last.library.synthMs)} vs ${n0(last.handWired.synthMs)} ms (×${(last.library.synthMs / last.handWired.synthMs).toFixed(2)}). `
      + 'The synth phase (token resolution, dependency rendering, template validation, asset staging) scales with the '
      + `template, and the library's is ${kib(last.library.bytes)} KiB against ${kib(last.handWired.bytes)} KiB`
      + (libDeps.extraIngressDependsOn > 0
        ? `, ${((libDeps.extraIngressBytes / last.library.bytes) * 100).toFixed(0)} % of it redundant \`DependsOn\` entries (see the finding under Templates). `
        : '. ')
      + 'The fixed part (the waiter\'s provider, '
      + 'two bundled handlers staged as assets, the delete guard) explains the higher ratio at 1 function.',
  ];
  return lines.join('\n');
}

function templateSection(rows: SynthRow[], libDeps: DependencyStats, handDeps: DependencyStats): string {
  const b = templateBudget(rows);
  const fifty = rows.find((r) => r.n === 50) ?? rows[rows.length - 1];
  // Confirm the limit by synthesis: walk from the linear estimate to the real boundary.
  let atMax = libraryFits(b.maxFunctions);
  let overMax = libraryFits(b.maxFunctions + 1);
  while (overMax.fits) [atMax, overMax] = [overMax, libraryFits(overMax.n + 1)];
  while (!atMax.fits && atMax.n > 1) [overMax, atMax] = [atMax, libraryFits(atMax.n - 1)];
  const [c0, c1, c2] = quadraticFit(rows.map((r) => r.n), rows.map((r) => r.library.bytes));
  const bytesAt = (n: number): number => c0 + c1 * n + c2 * n * n;
  let maxByBytes = fifty.n;
  while (bytesAt(maxByBytes + 1) <= CFN_MAX_TEMPLATE_BYTES && maxByBytes < 10_000) maxByBytes++;
  const first = rows[0];
  const last = rows[rows.length - 1];
  const handPerFnResources = (last.handWired.resources - first.handWired.resources) / (last.n - first.n);
  const perFn = rows.slice(1).map((r, i) => (r.library.bytes - rows[i].library.bytes) / (r.n - rows[i].n));
  const superLinear = perFn[perFn.length - 1] > perFn[0] * 1.1;
  const marginal = (i: number, side: 'library' | 'handWired'): string =>
    i === 0 ? '–' : n0((rows[i][side].bytes - rows[i - 1][side].bytes) / (rows[i].n - rows[i - 1].n));
  const lines = [
    '## Templates',
    '',
    'Resources and bytes of the synthesized template file (the indented JSON `cdk deploy` uploads; the 1 MB limit '
      + 'applies to it). "Bytes/fn" = bytes per function added since the previous row.',
    '',
    table(['Functions', 'Library resources', 'Library KiB', 'Library bytes/fn', 'Hand-wired resources', 'Hand-wired KiB', 'Hand-wired bytes/fn'],
      ['---:', '---:', '---:', '---:', '---:', '---:', '---:'],
      rows.map((r, i) => [r.n, r.library.resources, kib(r.library.bytes), marginal(i, 'library'),
        r.handWired.resources, kib(r.handWired.bytes), marginal(i, 'handWired')])),
    '',
    `Per added function: library ${b.perFnResources.toFixed(1)} resources (fixed part ${n0(b.baseResources)}), hand-wired `
      + `${handPerFnResources.toFixed(1)} (it needs an access point per function). Library bytes grow ${superLinear ? 'faster than linearly' : 'linearly'}: `
      + `${marginal(1, 'library')} bytes/function from 1 to ${rows[1].n} functions, ${marginal(rows.length - 1, 'library')} `
      + `from ${rows[rows.length - 2].n} to ${last.n} (hand-wired stays at ~${marginal(rows.length - 1, 'handWired')})`
      + `${superLinear ? '; see the finding below' : ''}.`,
    '',
    `${fifty.n} functions on one file system: ${fifty.library.resources}/${CFN_MAX_RESOURCES} resources `
      + `(headroom ${CFN_MAX_RESOURCES - fifty.library.resources}), ${kib(fifty.library.bytes)} KiB of `
      + `${kib(CFN_MAX_TEMPLATE_BYTES)} KiB (headroom ${((1 - fifty.library.bytes / CFN_MAX_TEMPLATE_BYTES) * 100).toFixed(0)} %). `
      + `**Fits: ${fifty.library.resources <= CFN_MAX_RESOURCES && fifty.library.bytes <= CFN_MAX_TEMPLATE_BYTES ? 'yes' : 'NO'}.**`,
    '',
    `Largest count that fits one stack: **${atMax.n}** functions, found by synthesis: ${atMax.n} functions = `
      + `${atMax.resources} resources, ${atMax.bytes === undefined ? '?' : kib(atMax.bytes)} KiB (fits); ${overMax.n} = `
      + `${overMax.resources} resources (over: ${overMax.binding.join(', ')}${overMax.binding.includes('resources') ? '; aws-cdk-lib refuses to synthesize it' : ''}). `
      + `A quadratic fit of the bytes puts the 1 MB limit at ~${maxByBytes} functions, ${maxByBytes < atMax.n * 1.2 ? 'close behind' : 'well beyond'} `
      + `(a linear model would have said ${b.maxByBytes}). The other limits do not grow with the functions: at ${atMax.n} functions the file system `
      + `policy is ${atMax.policyChars ?? '?'} of ${MAX_FILE_SYSTEM_POLICY_CHARS} characters (${first.library.policyChars} at ${first.n}), and the mount-target `
      + `security group has ${atMax.nfsInboundRules ?? '?'} of ${MAX_INBOUND_RULES} inbound rules (hand-wired: ${last.handWired.nfsInboundRules} at ${last.n} functions, `
      + 'one per function). Past one stack, put the functions in more stacks: the file system\'s stack does not change when they are added '
      + '(test/lifecycle: 200 functions in four compute stacks).',
    '',
    libDeps.extraIngressDependsOn === 0
      ? `**DependsOn:** at ${fifty.n} functions the library template has ${n0(libDeps.dependsOn)} \`DependsOn\` entries `
        + `(hand-wired ${n0(handDeps.dependsOn)}); no function depends on an NFS rule (${libDeps.ingressDependsOn} in all): `
        + 'the file system owns its one pair of rules (mount-target group ← client group), its waiter depends on them, and '
        + 'functions join the client group and depend on the waiter. aws-cdk-lib\'s own mount makes function k depend on '
        + 'every rule of the shared mount-target group, so the hand-wired template grows as n².'
      : `**Finding (library):** at ${fifty.n} functions the library template has ${n0(libDeps.dependsOn)} \`DependsOn\` entries `
      + `(hand-wired ${n0(handDeps.dependsOn)}). Function k depends on the ingress rules of functions 0..k (the last one on `
      + `${libDeps.lastFunctionIngressDependsOn} rules; hand-wired: ${handDeps.lastFunctionIngressDependsOn}): `
      + `${n0(libDeps.extraIngressDependsOn)} redundant entries, ~${kib(libDeps.extraIngressBytes)} KiB `
      + `(${((libDeps.extraIngressBytes / fifty.library.bytes) * 100).toFixed(0)} % of the template), growing as n². `
      + 'Cause: aws-cdk-lib\'s `lambda.Function` makes its CfnFunction depend on every `SecurityGroupIngress` that exists at '
      + 'that moment under the security groups of the mount\'s `connections`; the library passes the file system\'s one '
      + 'shared security group, so each new function also picks up all earlier functions\' rules. The hand-wired stack does '
      + 'not grow because `fromS3FilesAccessPoint` imports the mount-target security group under each access point '
      + '(`MountTargetSG0`), so each rule sits in its own construct. Possible fix: give each function\'s mount a '
      + '`connections` on a per-function import of the security group (`ec2.SecurityGroup.fromSecurityGroupId` under a '
      + 'per-function scope), so the rule and the dependency stay one per function.',
  ];
  return lines.join('\n');
}

function bundleSection(rows: ReturnType<typeof runBundleBenchmark>): string {
  const over = rows.filter((r) => r.bytes > BUNDLE_BUDGET_BYTES);
  return [
    '## Bundles',
    '',
    'Every handler asset under `assets/lambda/` (shipped) and `assets/integ/handlers/` (the integ app) (built by `npx projen bundle`: esbuild, minified, '
      + '`@aws-sdk/client-s3` and `@aws-sdk/client-lambda` external because the Node.js 24 runtime provides them; '
      + 'everything else, incl. `@aws-sdk/client-s3files` and Powertools, bundled). Cold `require` = a fresh `node` '
      + 'process timing `require(bundle)`, median of 7; external SDK clients resolve from node_modules, so their load '
      + 'time is included as it is in Lambda.',
    '',
    table(['Handler asset', 'Ships in npm package', 'KiB', 'Cold require ms', `≤ ${BUNDLE_BUDGET_BYTES / 1024} KiB`],
      ['---', ':---:', '---:', '---:', ':---:'],
      rows.map((r) => [`\`${r.name}/index.js\``, r.shipped ? 'yes' : 'no (integ app)', kib(r.bytes), r.requireMs.toFixed(1), r.bytes <= BUNDLE_BUDGET_BYTES ? 'yes' : '**NO**'])),
    '',
    `**Goal: every bundle < ${BUNDLE_BUDGET_BYTES / 1024} KiB — ${over.length === 0 ? 'met' : `NOT met (${over.map((r) => r.name).join(', ')})`}.**`,
  ].join('\n');
}

function deployWaitSection(r: Awaited<ReturnType<typeof runDeployWait>>): string {
  const maxDelay = r.delaysMs[r.delaysMs.length - 1];
  return [
    r.markdown.replace(/^## Deploy wait:/, '## Deploy wait:'),
    '',
    `**Goal: waiter completes within one poll interval (${QUERY_INTERVAL_MS / 1000} s) of the last resource turning available — `
      + `${maxDelay <= QUERY_INTERVAL_MS ? 'met' : 'NOT met'}** (max ${(maxDelay / QUERY_INTERVAL_MS).toFixed(2)} intervals). `
      + `The fixed-${TERRAFORM_FIXED_WAIT_MS / 1000} s comparison counts from the same start (mount-target creation returning); `
      + 'with mount targets taking 3–5 min, a fixed 90 s sleep races in every deployment, and a sleep long enough to be safe '
      + 'would idle up to two minutes in most.',
    '',
    'Method: the real on-event and is-complete handler code with the real `@aws-sdk/client-s3files` client against '
      + '`test/servers/s3files-endpoint.ts` on loopback; a virtual clock advances 10 s between polls (the Provider\'s '
      + '`queryInterval`), so 100 deployments take seconds. API calls include `ListMountTargets` pages and `GetAccessPoint`.',
  ].join('\n');
}

function sweepVerdict(atDefault: SweepRow | undefined, best: SweepRow, within: number): string {
  if (!atDefault) return `Default concurrency ${DEFAULT_CONCURRENCY} is not in the sweep.`;
  const where = `Default concurrency ${DEFAULT_CONCURRENCY}: ${n0(atDefault.filesPerSecond)} files/s, `
    + `${(within * 100).toFixed(0)} % of the best level (${best.concurrency}: ${n0(best.filesPerSecond)} files/s).`;
  const why = 'On a local disk each operation takes microseconds, so concurrency mostly adds scheduling overhead; on '
    + 'NFS each operation is a network round trip and overlapping them is what hides the latency, which is why the '
    + 'default is not 1. Note that `fs/promises` calls run on libuv\'s thread pool (4 threads unless UV_THREADPOOL_SIZE is '
    + 'set, in Lambda too), so more than 4 file operations in flight queue there; the sweep that settles the default is one '
    + 'in AWS, through the benchmark handler\'s `concurrency` event field.';
  const verdict = within >= 0.8
    ? `The sweep supports keeping ${DEFAULT_CONCURRENCY}: within 20 % of the best level here.`
    : `The sweep does not support ${DEFAULT_CONCURRENCY} locally (more than 20 % below the best level).`;
  return `${where} ${why} ${verdict}`;
}

/** S3 API total ÷ S3 Files total of each run, as "min–max" (one value for one run). */
export function perRunSpread(r: ComparisonRow): string {
  const ratios = r.result.s3api.runs.map((run, i) => run.totalMs / r.result.s3files.runs[i].totalMs);
  const [min, max] = [Math.min(...ratios), Math.max(...ratios)];
  return ratios.length === 1 ? `${min.toFixed(1)}× (one run)` : `${min.toFixed(1)}–${max.toFixed(1)}×`;
}

function handlerSection(rows: ComparisonRow[], sweep: SweepRow[]): string {
  const best = [...sweep].sort((a, b) => b.filesPerSecond - a.filesPerSecond)[0];
  const atDefault = sweep.find((s) => s.concurrency === DEFAULT_CONCURRENCY);
  const within = atDefault ? atDefault.filesPerSecond / best.filesPerSecond : NaN;
  return [
    '## Handlers',
    '',
    '`processor-s3files` on a local temp directory (standing in for the mount) vs `processor-s3api` on moto (local S3 '
      + 'API server), both invoked through a local Lambda Invoke endpoint by the `benchmark` handler, which seeds identical '
      + 'files (500–2,000 words each, seed 42), runs both side by side (alternating who goes first), verifies every '
      + 'output on both sides and discards the timings if any file is wrong. Files/s = files / median in-handler total.',
    '',
    table(['Files', 'Runs', 'S3 Files files/s', 'S3 API files/s', 'Ratio', 'Ratio per run, min–max', 'S3 Files total ms', 'S3 API total ms',
      'Wall s (seed+both+verify)'],
    ['---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:'],
    rows.map((r) => [
      n0(r.files), r.runs, n0(r.s3filesFilesPerSecond), n0(r.s3apiFilesPerSecond),
      `**${(r.s3filesFilesPerSecond / r.s3apiFilesPerSecond).toFixed(1)}×**`, perRunSpread(r),
      n0(r.result.s3files.phases.totalMs.median), n0(r.result.s3api.phases.totalMs.median), round(r.wallSeconds),
    ])),
    '',
    'How much the ratio moves: "Ratio per run" pairs each run\'s two totals (measured back to back); between separate '
      + '`npm run bench` runs on this machine the ratios have moved by up to a factor of two (earlier runs: 28–64×), '
      + 'so read them as "tens of times", not to the unit.',
    '',
    '![files/s per processor](handlers.svg)',
    '',
    'Phases at the largest size (ms, median):',
    '',
    rows[rows.length - 1].result.table,
    '',
    'Caveat: a local disk is not NFS (a rename here is a syscall, on S3 Files a network round trip) and moto is a '
      + 'single-threaded Python server, not S3. The ratio shows both code paths doing the full job and where each '
      + 'spends its time; it is not the ratio in AWS (a published measurement in AWS gave 5.1× for 20 files).',
    '',
    `### processor-s3files concurrency sweep (${n0(SWEEP_FILES)} files, ${SWEEP_REPEATS} repeats each, local disk)`,
    '',
    renderSweep(sweep),
    '',
    sweepVerdict(atDefault, best, within),
  ].join('\n');
}

async function main(): Promise<void> {
  const started = Date.now();
  const durations: Record<string, number> = {};
  const synthReps = numArg('synth-reps', quick ? 3 : 5);

  const synthRows = await timed('synth', durations, () => runSynthBenchmark(SYNTH_SIZES, synthReps));
  const largest = synthRows[synthRows.length - 1].n;
  const libDeps = dependencyStats(libraryStack, largest);
  const handDeps = dependencyStats(handWiredStack, largest);
  const templates = await timed('templates', durations, () => templateSection(synthRows, libDeps, handDeps));
  const bundles = await timed('bundles', durations, () => runBundleBenchmark());
  const deployWait = await timed('deploy wait', durations, () => runDeployWait({ deployments: 100, seed: 42 }));

  const bench = await startLocalBench();
  const comparisons: ComparisonRow[] = [];
  let sweep: SweepRow[] = [];
  try {
    for (const { files, runs } of HANDLER_SIZES) {
      comparisons.push(await timed(`handlers ${files} files`, durations, () => bench.compare(files, runs)));
    }
    sweep = await timed('concurrency sweep', durations, () => concurrencySweep(SWEEP_LEVELS, SWEEP_FILES, SWEEP_REPEATS));
  } finally {
    await bench.stop();
  }

  const chart = groupedBarChartSvg('Files per second, in handler (local run)', 'files/s',
    comparisons.map((c) => ({
      // The log axis compresses the gap: put the ratio in the label.
      label: `${n0(c.files)} files: ${(c.s3filesFilesPerSecond / c.s3apiFilesPerSecond).toFixed(1)}×`,
      values: { 'processor-s3files (local dir)': c.s3filesFilesPerSecond, 'processor-s3api (moto)': c.s3apiFilesPerSecond },
    })), { scale: 'log' });
  writeFileSync(path.join(OUT_DIR, 'handlers.svg'), chart + '\n');

  const totalSeconds = (Date.now() - started) / 1000;
  const cpus = os.cpus();
  const md = [
    '# Benchmark results',
    '',
    `Generated by \`npx ts-node --project test/tsconfig.json benchmarks/run-all.ts${quick ? ' --quick' : ''}\` `
      + '(`npx projen bench`) in one process, one run. Not part of CI.',
    '',
    `**Machine:** ${cpus.length} shared, noisy cores (${cpus[0]?.model.trim() ?? 'unknown CPU'}), `
      + `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}, ${os.platform()} ${os.release()}. `
      + 'Absolute milliseconds move by tens of percent between runs; the ratios (each measured side by side in this run, '
      + 'interleaved) are what to read.',
    '',
    `**Run time:** ${round(totalSeconds / 60)} min in total — `
      + Object.entries(durations).map(([k, v]) => `${k} ${round(v)} s`).join(', ')
      + `${quick ? ' (--quick: no 10,000-file size, fewer repeats)' : ''}.`,
    '',
    '## Summary',
    '',
    table(['Goal', 'Result', 'Met'], ['---', '---', ':---:'], [
      ['Deploy wait ≤ 1 poll interval after the last resource is available',
        `max ${(deployWait.delaysMs[deployWait.delaysMs.length - 1] / QUERY_INTERVAL_MS).toFixed(2)} intervals over 100 deployments`,
        deployWait.delaysMs[deployWait.delaysMs.length - 1] <= QUERY_INTERVAL_MS ? 'yes' : '**no**'],
      [`Synth ratio ≤ ${SYNTH_RATIO_GOAL} at 50 functions`, `${synthRows[synthRows.length - 1].ratio.toFixed(2)}`,
        synthRows[synthRows.length - 1].ratio <= SYNTH_RATIO_GOAL ? 'yes' : '**no**'],
      ['50 functions fit one stack (< 500 resources, < 1 MB)',
        `${synthRows[synthRows.length - 1].library.resources} resources, ${kib(synthRows[synthRows.length - 1].library.bytes)} KiB`,
        synthRows[synthRows.length - 1].library.resources <= CFN_MAX_RESOURCES ? 'yes' : '**no**'],
      [`Every bundle < ${BUNDLE_BUDGET_BYTES / 1024} KiB`, `largest ${kib(Math.max(...bundles.map((b) => b.bytes)))} KiB`,
        bundles.every((b) => b.bytes <= BUNDLE_BUDGET_BYTES) ? 'yes' : '**no**'],
    ]),
    '',
    synthSection(synthRows, synthReps, libDeps),
    '',
    templates,
    '',
    bundleSection(bundles),
    '',
    deployWaitSection(deployWait),
    '',
    handlerSection(comparisons, sweep),
    '',
  ].join('\n');
  writeFileSync(path.join(OUT_DIR, 'RESULTS.md'), md);
  process.stderr.write(`[bench] wrote benchmarks/RESULTS.md and benchmarks/handlers.svg in ${round(totalSeconds)} s\n`);
}

main().then(() => process.exit(0), (e) => {
  console.error(e);
  process.exit(1);
});
