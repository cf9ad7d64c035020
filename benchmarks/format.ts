/**
 * benchmarks/RESULTS.md and benchmarks/handlers.svg from the measurements in benchmarks/results.json.
 * Pure: no clock, no file system, no machine facts beyond what results.json records. Every ratio,
 * rate and fit is computed here from the unrounded values and rounded only when printed.
 *
 *   npx ts-node --project test/tsconfig.json benchmarks/run-all.ts --format-only   # re-render
 */
import { groupedBarChartSvg } from './chart';
import { profileSection } from './profile';
import type {
  BenchResults, BundleResults, DeployWaitResults, Distribution, HandlerResults, HandlerSize, SweepResults, SynthResults,
  TemplateResults, TemplateSide,
} from './results';
import { renderPhaseTable } from '../integ/handlers/benchmark/phase-table';
import { renderTable } from '../integ/handlers/shared/markdown';
import { round } from '../integ/handlers/shared/stats';

/** The goals the suite was written against (issue 6). */
export const SYNTH_RATIO_GOAL = 1.2;
export const BUNDLE_BUDGET_BYTES = 250 * 1024;
export const CFN_MAX_RESOURCES = 500;
export const CFN_MAX_TEMPLATE_BYTES = 1_000_000;
/** S3 Files rejects a file-system policy over this many characters. */
export const MAX_FILE_SYSTEM_POLICY_CHARS = 20_000;
/** A security group holds this many inbound rules by default. */
export const MAX_INBOUND_RULES = 60;
/**
 * A third-party measurement in AWS (20 files, arm64, 512 MB; one published run): the S3 API
 * processor's and the S3 Files processor's time.
 */
export const PUBLISHED_20_FILES_MS = { s3api: 3394, s3files: 664 };

const n0 = (x: number): string => Math.round(x).toLocaleString('en-US');
const kib = (bytes: number): string => (bytes / 1024).toFixed(1);
/** A count that may be fractional: "4", "4.5". */
const count = (x: number): string => (Number.isInteger(x) ? String(x) : x.toFixed(1));
/** Milliseconds to three significant figures at least: "16.6", "568", "27,565". */
const totalMs = (x: number): string => (x < 100 ? x.toFixed(1) : n0(x));
const table = (head: string[], align: string[], rows: (string | number)[][]): string =>
  [`| ${head.join(' | ')} |`, `|${align.join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
const last = <T>(xs: readonly T[]): T => xs[xs.length - 1];
const WORDS = ['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
/** Small counts in words, as prose writes them: "four", "12". */
const word = (x: number): string => WORDS[x] ?? String(x);

/** Least-squares y = a + b·x and its R². */
export function linearFit(xs: number[], ys: number[]): { a: number; b: number; r2: number } {
  const n = xs.length;
  const mx = xs.reduce((p, x) => p + x, 0) / n;
  const my = ys.reduce((p, y) => p + y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (xs[i] - mx) * (ys[i] - my);
    sxx += (xs[i] - mx) ** 2;
    syy += (ys[i] - my) ** 2;
  }
  const b = sxx === 0 ? 0 : sxy / sxx;
  const a = my - b * mx;
  const ssRes = xs.reduce((p, x, i) => p + (ys[i] - (a + b * x)) ** 2, 0);
  return { a, b, r2: syy === 0 ? 1 : 1 - ssRes / syy };
}

/** Least-squares y = c0 + c1·x + c2·x². */
export function quadraticFit(xs: number[], ys: number[]): [number, number, number] {
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

/** "Measured apart from the run above: …", or nothing for a section measured in the run. */
const apart = (section: { measuredApart?: string }): string[] =>
  (section.measuredApart ? [`Measured apart from the run above: ${section.measuredApart}.`, ''] : []);

function header(r: BenchResults): string {
  const { run } = r;
  const m = run.machine;
  return [
    '# Benchmark results',
    '',
    'Rendered by `benchmarks/format.ts` from [results.json](results.json), the measurements that `npx projen bench` '
      + '(`benchmarks/run-all.ts`) takes in one process, one run, and writes there; a section measured apart says so. '
      + 'Not part of CI.',
    '',
    `**Machine:** ${m.cpus} shared, noisy cores (${m.cpuModel}), ${(m.memoryBytes / 2 ** 30).toFixed(1)} GiB, Node ${m.node}, `
      + `${m.platform} ${m.release}. Absolute milliseconds move by tens of percent between runs; the ratios (each measured `
      + 'side by side in this run, interleaved) are what to read.',
    '',
    `**Run:** ${run.date}, commit ${run.commit}, aws-cdk-lib ${run.awsCdkLib}; ${round(run.totalSeconds / 60)} min in total — `
      + Object.entries(run.partSeconds).map(([k, v]) => `${k} ${round(v)} s`).join(', ')
      + `${run.quick ? ' (--quick: no 10,000-file size, fewer repeats)' : ''}.`,
  ].join('\n');
}

function summary(r: BenchResults): string {
  const maxDelay = r.deployWait.delayMs.max;
  const synthAt = (n: number) => r.synth.rows.find((row) => row.n === n);
  const synthGoals = [50, last(r.synth.rows).n].filter((n, i, all) => all.indexOf(n) === i).map(synthAt)
    .filter((row): row is SynthResults['rows'][number] => row !== undefined);
  const tpl = r.templates.rows.find((t) => t.n === 50) ?? last(r.templates.rows);
  const fits = tpl.library.resources <= CFN_MAX_RESOURCES && tpl.library.bytes <= CFN_MAX_TEMPLATE_BYTES;
  const largestBundle = Math.max(...r.bundles.rows.map((b) => b.bytes));
  const yes = (ok: boolean): string => (ok ? 'yes' : '**no**');
  return [
    '## Summary',
    '',
    table(['Goal', 'Result', 'Met'], ['---', '---', ':---:'], [
      ['Deploy wait ≤ 1 poll interval after the last resource is available',
        `max ${(maxDelay / r.deployWait.queryIntervalMs).toFixed(2)} intervals over ${r.deployWait.deployments} deployments`,
        yes(maxDelay <= r.deployWait.queryIntervalMs)],
      ...synthGoals.map((row) => [`Synth CPU ratio ≤ ${SYNTH_RATIO_GOAL} at ${row.n} functions (against the floor)`, synthRatio(row).toFixed(2),
        yes(synthRatio(row) <= SYNTH_RATIO_GOAL)]),
      [`${tpl.n} functions fit one stack (< ${CFN_MAX_RESOURCES} resources, < 1 MB)`, `${tpl.library.resources} resources, ${kib(tpl.library.bytes)} KiB`, yes(fits)],
      [`Every bundle < ${BUNDLE_BUDGET_BYTES / 1024} KiB`, `largest ${kib(largestBundle)} KiB`, yes(largestBundle <= BUNDLE_BUDGET_BYTES)],
    ]),
  ].join('\n');
}

/** Milliseconds a side spent: CPU time where measured (what a busy machine changes least), else wall time. */
const cpuOf = (side: SynthResults['rows'][number]['library']): number => side.cpuMs ?? side.ms;
/** Library ÷ floor, on CPU medians. */
function synthRatio(row: SynthResults['rows'][number]): number {
  return cpuOf(row.library) / cpuOf(row.handWired);
}

function synthTable(rows: SynthResults['rows']): string {
  return table(
    ['Functions', 'Library CPU ms', 'Floor CPU ms', 'Ratio', 'Library wall ms', 'Floor wall ms', 'Library build / synth ms', 'Floor build / synth ms'],
    ['---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:'],
    rows.map((r) => [
      r.n, n0(cpuOf(r.library)), n0(cpuOf(r.handWired)), `**${synthRatio(r).toFixed(2)}**`, n0(r.library.ms), n0(r.handWired.ms),
      `${n0(r.library.buildMs)} / ${n0(r.library.synthMs)}`, `${n0(r.handWired.buildMs)} / ${n0(r.handWired.synthMs)}`,
    ]),
  );
}

function synthSection(s: SynthResults, earlier: BenchResults['earlierRuns']): string {
  const end = last(s.rows);
  // Fit the per-size medians: single repeats on this machine carry GC and neighbour noise.
  const xs = s.rows.map((r) => r.n);
  const lib = linearFit(xs, s.rows.map((r) => cpuOf(r.library)));
  const hand = linearFit(xs, s.rows.map((r) => cpuOf(r.handWired)));
  const goals = s.rows.filter((r) => r.n === 50 || r === end);
  const met = goals.every((r) => synthRatio(r) <= SYNTH_RATIO_GOAL);
  const others = earlier.filter((e) => e.synth.n === end.n && e.synth.cpu).map((e) => e.synth.libraryMs / e.synth.handWiredMs);
  const spread = others.length === 0
    ? 'There is no earlier run of this benchmark (its floor changed) to show how far the ratio moves between runs.'
    : `Earlier runs at ${end.n} functions gave ${others.map((o) => o.toFixed(2)).join(', ')}.`;
  const first = s.rows[0];
  return [
    '## Synth',
    '',
    ...apart(s),
    `\`new App()\` + building the stack + \`app.synth()\`, median of ${s.reps} interleaved repeats per size (library and `
      + 'floor alternate, first one swapped every repeat); CPU time of the process (user + system) beside wall time. '
      + '*Library*: `S3FilesFileSystem` + one `addAccessPoint` shared by N `S3FilesMountedFunction`s. *Floor*: the same '
      + 'resources per function written by hand with aws-cdk-lib (a `lambda.Function` with its role, policy and security '
      + 'group, joining one client security group, mounting one shared `CfnAccessPoint` through its L1 `FileSystemConfigs`, '
      + 'granted the client actions, the validation reads and the direct reads), and the same bucket, service role, file '
      + 'system, mount targets, security groups, access point and file-system policy, but no readiness waiter, delete guard, '
      + 'cleaner or checks. Past 114 functions one stack cannot hold either side: at 200 the 500-resource limit is lifted '
      + 'for both. aws-cdk-lib\'s own CloudFormation validation is off in this table (what the library\'s code costs) and '
      + 'on in the next (as users synthesize).',
    '',
    synthTable(s.rows),
    '',
    `Linear fit over the CPU medians (ms = a + b·n): library a = ${n0(lib.a)} ms, b = ${lib.b.toFixed(1)} ms/function, `
      + `R² = ${lib.r2.toFixed(3)}; floor a = ${n0(hand.a)} ms, b = ${hand.b.toFixed(1)} ms/function, `
      + `R² = ${hand.r2.toFixed(3)}. Per-function slope ratio ${(lib.b / hand.b).toFixed(2)}.`,
    '',
    `**Goal: CPU ratio ≤ ${SYNTH_RATIO_GOAL} at ${goals.map((r) => r.n).join(' and ')} functions — ${met ? 'met' : 'NOT met'} `
      + `(${goals.map((r) => `${synthRatio(r).toFixed(2)} at ${r.n}`).join(', ')} on medians).** ${spread}`,
    '',
    `The fixed cost (1 function): ${n0(cpuOf(first.library))} vs ${n0(cpuOf(first.handWired))} ms of CPU: the readiness waiter's `
      + 'provider (two functions whose bundled handlers are staged as assets, a state machine), the delete guard, the bucket '
      + `cleaner and the file system's checks. At ${end.n} functions: building the construct tree ${n0(end.library.buildMs)} vs `
      + `${n0(end.handWired.buildMs)} ms of wall time, \`app.synth()\` ${n0(end.library.synthMs)} vs ${n0(end.handWired.synthMs)} ms.`,
    ...(s.validated ? [
      '',
      `### With aws-cdk-lib's validation (as users synthesize; median of ${s.validated.reps} repeats)`,
      '',
      synthTable(s.validated.rows),
    ] : []),
  ].join('\n');
}

/** Per added function between consecutive rows; `undefined` when that is not the same at every step. */
function perFunction(rows: TemplateResults['rows'], of: (side: TemplateSide) => number, side: 'library' | 'handWired'): number | undefined {
  const steps = rows.slice(1).map((r, i) => (of(r[side]) - of(rows[i][side])) / (r.n - rows[i].n));
  return steps.every((x) => x === steps[0]) ? steps[0] : undefined;
}

function templateSection(t: TemplateResults, awsCdkLib: string): string {
  const rows = t.rows;
  const first = rows[0];
  const end = last(rows);
  const fifty = rows.find((r) => r.n === 50) ?? end;
  const resourcesPerFn = (side: 'library' | 'handWired'): number => (end[side].resources - first[side].resources) / (end.n - first.n);
  const libPer = resourcesPerFn('library');
  const marginal = (i: number, side: 'library' | 'handWired'): string =>
    (i === 0 ? '–' : n0((rows[i][side].bytes - rows[i - 1][side].bytes) / (rows[i].n - rows[i - 1].n)));
  const bytesPerFn = rows.slice(1).map((r, i) => (r.library.bytes - rows[i].library.bytes) / (r.n - rows[i].n));
  const superLinear = last(bytesPerFn) > bytesPerFn[0] * 1.1;
  // Where the bytes reach 1 MB: a quadratic fit through every size, and a straight line through the ends.
  const [c0, c1, c2] = quadraticFit(rows.map((r) => r.n), rows.map((r) => r.library.bytes));
  let maxByBytes = end.n;
  while (c0 + c1 * (maxByBytes + 1) + c2 * (maxByBytes + 1) ** 2 <= CFN_MAX_TEMPLATE_BYTES && maxByBytes < 10_000) maxByBytes++;
  const linearPerFn = (end.library.bytes - first.library.bytes) / (end.n - first.n);
  const linearMax = Math.floor((CFN_MAX_TEMPLATE_BYTES - (first.library.bytes - linearPerFn * first.n)) / linearPerFn);
  const { fits, over } = t.largest;
  const policies = new Set([...rows.map((r) => r.library.policyChars), fits.policyChars]);
  const policy = policies.size === 1
    ? `the file-system policy is ${n0(fits.policyChars)} of ${n0(MAX_FILE_SYSTEM_POLICY_CHARS)} characters at any count`
    : `the file-system policy is ${n0(fits.policyChars)} of ${n0(MAX_FILE_SYSTEM_POLICY_CHARS)} characters at ${fits.n} functions `
      + `(${n0(first.library.policyChars)} at ${first.n})`;
  const ingress = fifty.library.functionIngressDependsOn;
  const libDeps = perFunction(rows, (s) => s.dependsOn, 'library');
  const handDeps = perFunction(rows, (s) => s.dependsOn, 'handWired');
  const atEverySize = (side: 'library' | 'handWired', per: number): boolean => rows.every((r) => r[side].dependsOn === per * r.n);
  const growth = (side: 'library' | 'handWired', per: number | undefined): string =>
    (per === undefined ? 'not the same per function at every size' : `${count(per)} per function${atEverySize(side, per) ? ' at every size' : ''}`);
  const depsGrowth = libDeps !== undefined && handDeps !== undefined ? 'Both grow linearly' : 'They do not both grow linearly';
  return [
    '## Templates',
    '',
    ...apart(t),
    'Resources and bytes of the synthesized template file (the indented JSON `cdk deploy` uploads; the 1 MB limit '
      + 'applies to it). "Bytes/fn" = bytes per function added since the previous row.',
    '',
    table(['Functions', 'Library resources', 'Library KiB', 'Library bytes/fn', 'Hand-wired resources', 'Hand-wired KiB', 'Hand-wired bytes/fn'],
      ['---:', '---:', '---:', '---:', '---:', '---:', '---:'],
      rows.map((r, i) => [r.n, r.library.resources, kib(r.library.bytes), marginal(i, 'library'),
        r.handWired.resources, kib(r.handWired.bytes), marginal(i, 'handWired')])),
    '',
    `Per added function: library ${count(libPer)} resources (fixed part ${count(first.library.resources - libPer * first.n)}), `
      + `hand-wired ${count(resourcesPerFn('handWired'))} (it needs an access point per function). Library bytes grow `
      + `${superLinear ? 'faster than linearly' : 'linearly'}: ${marginal(1, 'library')} bytes/function from ${first.n} to `
      + `${rows[1].n} functions, ${marginal(rows.length - 1, 'library')} from ${rows[rows.length - 2].n} to ${end.n} `
      + `(hand-wired stays at ~${marginal(rows.length - 1, 'handWired')}).`,
    '',
    `${fifty.n} functions on one file system: ${fifty.library.resources}/${CFN_MAX_RESOURCES} resources `
      + `(headroom ${CFN_MAX_RESOURCES - fifty.library.resources}), ${kib(fifty.library.bytes)} KiB of `
      + `${kib(CFN_MAX_TEMPLATE_BYTES)} KiB (headroom ${((1 - fifty.library.bytes / CFN_MAX_TEMPLATE_BYTES) * 100).toFixed(0)} %). `
      + `**Fits: ${fifty.library.resources <= CFN_MAX_RESOURCES && fifty.library.bytes <= CFN_MAX_TEMPLATE_BYTES ? 'yes' : 'NO'}.**`,
    '',
    `Largest count that fits one stack: **${fits.n}** functions, found by synthesis: ${fits.n} functions = ${fits.resources} `
      + `resources (fits); ${over.n} = ${over.resources} resources (over: ${over.binding.join(', ')}`
      + `${over.binding.includes('resources') ? '; aws-cdk-lib refuses to synthesize it' : ''}). At ${fits.n} functions the template `
      + `is ${kib(fits.bytes)} KiB; a quadratic fit of the bytes above puts the 1 MB limit at ~${maxByBytes} functions, `
      + `${maxByBytes < fits.n * 1.2 ? 'close behind' : 'well beyond'} (a straight line would have said ${linearMax}). `
      + `The other limits do not grow with the functions: ${policy} (compact JSON with a us-east-1 file-system ARN in place `
      + `of its \`Fn::GetAtt\` references), and the mount-target security group has ${fits.nfsInboundRules} of ${MAX_INBOUND_RULES} `
      + `inbound rules (hand-wired: ${fifty.handWired.nfsInboundRules} at ${fifty.n} functions, one per function). Past one stack, `
      + 'put the functions in more stacks: the first function in another stack adds exports to the file system\'s stack, '
      + 'further functions leave it as it is (test/lifecycle: the same storage template with 4 functions as with 200 in '
      + 'four compute stacks).',
    '',
    `**DependsOn:** at ${fifty.n} functions the library template has ${n0(fifty.library.dependsOn)} \`DependsOn\` entries `
      + `(hand-wired ${n0(fifty.handWired.dependsOn)}); `
      + (ingress === 0
        ? 'no function depends on an NFS rule (0 in all): the file system owns its one pair of rules (mount-target group '
          + '← client group), its waiter depends on them, and functions join the client group and depend on the waiter. '
        : `its functions depend on ${n0(ingress)} security-group ingress rules in all (${n0(Math.max(0, ingress - fifty.n))} beyond `
          + 'one per function). ')
      + `${depsGrowth} (library: ${growth('library', libDeps)}; hand-wired: ${growth('handWired', handDeps)}; `
      + `aws-cdk-lib ${awsCdkLib}).`,
  ].join('\n');
}

function bundleSection(b: BundleResults): string {
  const over = b.rows.filter((r) => r.bytes > BUNDLE_BUDGET_BYTES);
  return [
    '## Bundles',
    '',
    ...apart(b),
    'Every handler asset under `assets/lambda/` (shipped) and `assets/integ/handlers/` (the integ app), built by '
      + '`npx projen bundle`: esbuild, minified, `@aws-sdk/client-s3`, `@aws-sdk/client-lambda` and '
      + '`@aws-sdk/credential-provider-node` external because the Node.js 24 runtime provides them; everything else, incl. '
      + '`@aws-sdk/client-s3files` and Powertools, bundled. Cold `require` = a fresh `node` process timing '
      + `\`require(bundle)\`, median of ${b.reps}; external SDK clients resolve from node_modules, so their load time is `
      + 'included as it is in Lambda.',
    '',
    table(['Handler asset', 'Ships in npm package', 'KiB', 'Cold require ms', `≤ ${BUNDLE_BUDGET_BYTES / 1024} KiB`],
      ['---', ':---:', '---:', '---:', ':---:'],
      b.rows.map((r) => [`\`${r.name}/index.js\``, r.shipped ? 'yes' : 'no (integ app)', kib(r.bytes), r.requireMs.toFixed(1),
        r.bytes <= BUNDLE_BUDGET_BYTES ? 'yes' : '**NO**'])),
    '',
    `**Goal: every bundle < ${BUNDLE_BUDGET_BYTES / 1024} KiB — ${over.length === 0 ? 'met' : `NOT met (${over.map((r) => r.name).join(', ')})`}.**`,
  ].join('\n');
}

export function deployWaitSection(d: DeployWaitResults): string {
  const s = (ms: number): string => (ms / 1000).toFixed(1);
  const iv = (ms: number): string => (ms / d.queryIntervalMs).toFixed(2);
  const row = (label: string, x: Distribution, f: (v: number) => string, mean: (v: number) => string = f): string =>
    `| ${label} | ${f(x.min)} | ${f(x.p50)} | ${f(x.p90)} | ${f(x.p99)} | ${f(x.max)} | ${mean(x.mean)} |`;
  const int = (v: number): string => String(v);
  const one = (v: number): string => v.toFixed(1);
  const [mtLo, mtHi] = d.mountTargetAvailableMs.map((ms) => ms / 1000);
  const [apLo, apHi] = d.accessPointAvailableMs.map((ms) => ms / 1000);
  const minutes = `${mtLo / 60}–${mtHi / 60} min`;
  const interval = d.queryIntervalMs / 1000;
  return [
    `## Deploy wait: ${d.deployments} simulated deployments (queryInterval ${interval} s, virtual clock)`,
    '',
    ...apart(d),
    `Mount targets (${d.mountTargetsPerFileSystem.join('-')} per file system) available ${mtLo}-${mtHi} s after the waiter `
      + `starts, access point ${apLo}-${apHi} s; real @aws-sdk/client-s3files against the local endpoint. The mount-target `
      + `times are scripted: ${minutes} is the range two third-party write-ups report (one measured about 3 min 40 s, the `
      + 'other gives about 5 min).',
    '',
    '| Metric | min | p50 | p90 | p99 | max | mean |',
    '|---|---:|---:|---:|---:|---:|---:|',
    row('Delay after last resource available (s)', d.delayMs, s),
    row('Delay (poll intervals)', d.delayMs, iv),
    row('Total wait (s)', d.totalWaitMs, s),
    row('isComplete polls per deployment', d.polls, int, one),
    row('API calls per deployment', d.apiCalls, int, one),
    row('Peak API calls per minute (per file system)', d.peakCallsPerMinute, int, one),
    row('Handler time per poll, loopback (ms, real)', d.handlerMsPerPoll, one),
    '',
    `Completed within one poll interval of readiness: ${d.withinOneInterval}/${d.deployments}. A fixed ${d.fixedWaitMs / 1000} s `
      + `wait from the same start would have ended before the resources were available in ${d.fixedWaitRaces}/${d.deployments} `
      + `of these deployments: that follows from the scripted availability times (${mtLo}–${mtHi} s), it is not a measurement.`,
    '',
    `**Goal: waiter completes within one poll interval (${interval} s) of the last resource turning available — `
      + `${d.delayMs.max <= d.queryIntervalMs ? 'met' : 'NOT met'}** (max ${iv(d.delayMs.max)} intervals). `
      + `The fixed-${d.fixedWaitMs / 1000} s comparison counts from the same start (mount-target creation returning); with `
      + `mount targets scripted to take ${minutes} (the write-ups' figures), a fixed ${d.fixedWaitMs / 1000} s sleep races in `
      + `every deployment, and a sleep long enough to be safe would idle up to ${word((mtHi - mtLo) / 60)} minutes in most.`,
    '',
    'Method: the real on-event and is-complete handler code with the real `@aws-sdk/client-s3files` client against '
      + `\`test/servers/s3files-endpoint.ts\` on loopback; a virtual clock advances ${interval} s between polls (the Provider's `
      + `\`queryInterval\`), so ${d.deployments} deployments take seconds. API calls include \`ListMountTargets\` pages and \`GetAccessPoint\`.`,
  ].join('\n');
}

/** Files per second from a median total. */
const rate = (files: number, ms: number): number => files / (ms / 1000);
const ratioOf = (h: HandlerSize): number => h.totalMs.s3api / h.totalMs.s3files;

function perRunSpread(h: HandlerSize): string {
  return h.runs === 1
    ? `${h.runRatio.min.toFixed(1)}× (one run)`
    : `${h.runRatio.min.toFixed(1)}–${h.runRatio.max.toFixed(1)}×`;
}

function handlerSection(h: HandlerResults, earlier: BenchResults['earlierRuns']): string {
  const largest = last(h.sizes);
  // How far the ratio moves between runs: at each size, over this and the earlier runs.
  const earlierRatios = earlier.flatMap((e) => e.handlers.map((x) => ({ files: x.files, ratio: x.s3apiMs / x.s3filesMs })));
  const factors = h.sizes.map((size) => {
    const ratios = [ratioOf(size), ...earlierRatios.filter((e) => e.files === size.files).map((e) => e.ratio)];
    return Math.max(...ratios) / Math.min(...ratios);
  });
  const moves = earlierRatios.length === 0
    ? 'no earlier run is recorded to show how far the ratios move between separate `npm run bench` runs, so read the ratios as '
      + '"tens of times", not to the unit.'
    : 'between separate `npm run bench` runs on this machine the ratio at one size has moved by up to a factor of '
      + `${Math.max(...factors).toFixed(1)} (${word(earlier.length)} earlier run${earlier.length === 1 ? '' : 's'}: `
      + `${Math.min(...earlierRatios.map((e) => e.ratio)).toFixed(0)}–${Math.max(...earlierRatios.map((e) => e.ratio)).toFixed(0)}× `
      + 'over all sizes), so read the ratios as "tens of times", not to the unit.';
  const phases = largest.phases;
  const published = PUBLISHED_20_FILES_MS.s3api / PUBLISHED_20_FILES_MS.s3files;
  return [
    '## Handlers',
    '',
    ...apart(h),
    '`processor-s3files` on a local temp directory (standing in for the mount) vs `processor-s3api` on moto (local S3 '
      + 'API server), both invoked through a local Lambda Invoke endpoint by the `benchmark` handler, which seeds identical '
      + `files (${n0(h.minWords)}–${n0(h.maxWords)} words each, seed ${h.seed}), runs both side by side (alternating who goes `
      + 'first), verifies every output on both sides and discards the timings if any file is wrong. Files/s = files / '
      + 'median in-handler total; Ratio = S3 API total ÷ S3 Files total.',
    '',
    table(['Files', 'Runs', 'S3 Files files/s', 'S3 API files/s', 'Ratio', 'Ratio per run, min–max', 'S3 Files total ms', 'S3 API total ms',
      'Wall s (seed+both+verify)'],
    ['---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:'],
    h.sizes.map((r) => [
      n0(r.files), r.runs, n0(rate(r.files, r.totalMs.s3files)), n0(rate(r.files, r.totalMs.s3api)),
      `**${ratioOf(r).toFixed(1)}×**`, perRunSpread(r), totalMs(r.totalMs.s3files), totalMs(r.totalMs.s3api), round(r.wallSeconds),
    ])),
    '',
    `How much the ratio moves: "Ratio per run" pairs each run's two totals (measured back to back); ${moves}`,
    '',
    '![files/s per processor](handlers.svg)',
    ...(phases
      ? [
        '',
        'Phases at the largest size (ms, median):',
        '',
        renderPhaseTable({ files: largest.files, runs: largest.runs, minWords: h.minWords, maxWords: h.maxWords, seed: h.seed, seedVia: h.seedVia },
          phases.s3api, phases.s3files),
        ...(phases.s3api.claimMs
          ? []
          : ['', 'Measured before claiming had a row of its own: in this table "list" also holds the lease start and every claim '
            + `(on the S3 API side, one conditional \`PutObject\` per file: ${n0(largest.files)} here; on the mount, one rename per `
            + 'file). The benchmark now reports them apart, as "claim (lease, one claim per file)"; the totals are unaffected.']),
      ]
      : []),
    '',
    'Caveat: a local disk is not NFS (a rename here is a syscall, on S3 Files a network round trip) and moto is a '
      + 'single-threaded Python server, not S3. The ratio shows both code paths doing the full job and where each '
      + 'spends its time; it is not the ratio in AWS (a third-party measurement in AWS, one published run, gave '
      + `${published.toFixed(1)}× for 20 files).`,
  ].join('\n');
}

/** Files per second at each concurrency level, from the median total. */
export function renderSweep(s: Pick<SweepResults, 'files' | 'levels'>): string {
  return renderTable(['Concurrency', 'Total ms, median (min–max)', 'Files/s'], s.levels.map((l) => [
    String(l.concurrency), `${round(l.totalMs.median)} (${round(l.totalMs.min)}–${round(l.totalMs.max)})`, n0(rate(s.files, l.totalMs.median)),
  ]));
}

function sweepSection(s: SweepResults): string {
  const fps = (l: SweepResults['levels'][number]): number => rate(s.files, l.totalMs.median);
  const best = [...s.levels].sort((a, b) => fps(b) - fps(a))[0];
  const atDefault = s.levels.find((l) => l.concurrency === s.defaultConcurrency);
  let verdict: string;
  if (!atDefault) {
    verdict = `Default concurrency ${s.defaultConcurrency} is not in the sweep.`;
  } else {
    const within = fps(atDefault) / fps(best);
    verdict = `Default concurrency ${s.defaultConcurrency}: ${n0(fps(atDefault))} files/s, ${(within * 100).toFixed(0)} % of the best `
      + `level (${best.concurrency}: ${n0(fps(best))} files/s). On a local disk each operation takes microseconds, so `
      + 'concurrency mostly adds scheduling overhead; on NFS each operation is a network round trip and overlapping them is '
      + 'what hides the latency, which is why the default is not 1. Note that `fs/promises` calls run on libuv\'s thread '
      + 'pool (4 threads unless UV_THREADPOOL_SIZE is set, in Lambda too), so more than 4 file operations in flight queue '
      + 'there; the sweep that settles the default is one in AWS, through the benchmark handler\'s `concurrency` event field. '
      + (within >= 0.8
        ? `The sweep supports keeping ${s.defaultConcurrency}: within 20 % of the best level here.`
        : `The sweep does not support ${s.defaultConcurrency} locally (more than 20 % below the best level).`);
  }
  return [
    `### processor-s3files concurrency sweep (${n0(s.files)} files, ${s.repeats} repeats each, local disk)`,
    '',
    ...apart(s),
    renderSweep(s),
    '',
    verdict,
  ].join('\n');
}

/** benchmarks/RESULTS.md. */
export function formatResults(r: BenchResults): string {
  return [
    header(r),
    summary(r),
    synthSection(r.synth, r.earlierRuns),
    ...(r.profile ? [profileSection(r.profile)] : []),
    templateSection(r.templates, r.run.awsCdkLib),
    bundleSection(r.bundles),
    deployWaitSection(r.deployWait),
    handlerSection(r.handlers, r.earlierRuns),
    sweepSection(r.sweep),
  ].join('\n\n') + '\n';
}

/** benchmarks/handlers.svg: files/s of both processors per size, the ratio of the totals in the label. */
export function formatChart(r: BenchResults): string {
  return groupedBarChartSvg('Files per second, in handler (local run)', 'files/s',
    r.handlers.sizes.map((h) => ({
      // The log axis compresses the gap: put the ratio in the label.
      label: `${n0(h.files)} files: ${ratioOf(h).toFixed(1)}×`,
      values: { 'processor-s3files (local dir)': rate(h.files, h.totalMs.s3files), 'processor-s3api (moto)': rate(h.files, h.totalMs.s3api) },
    })), { scale: 'log' }) + '\n';
}
