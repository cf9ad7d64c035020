import * as fs from 'fs';
import * as path from 'path';
import { formatChart, formatResults } from '../benchmarks/format';
import { attribute, CpuProfile } from '../benchmarks/profile';
import type { BenchResults, HandlerSize, TemplateRow } from '../benchmarks/results';

// benchmarks/RESULTS.md and handlers.svg are rendered from benchmarks/results.json by the formatter
// and never edited by hand: what `npm run bench` writes is what is committed, and what
// test/docs.test.ts checks in RESULTS.md is what the formatter makes of the measurements.

const dir = path.join(__dirname, '..', 'benchmarks');
const read = (name: string): string => fs.readFileSync(path.join(dir, name), 'utf8');
const recorded = (): BenchResults => JSON.parse(read('results.json'));

/** The recorded results with the handler sizes and template rows replaced. */
function variant(change: { sizes?: HandlerSize[]; templateRows?: TemplateRow[]; about?: string[] }): BenchResults {
  const r = recorded();
  return {
    ...r,
    about: change.about ?? r.about,
    handlers: { ...r.handlers, sizes: change.sizes ?? r.handlers.sizes },
    templates: { ...r.templates, rows: change.templateRows ?? r.templates.rows },
  };
}

describe('benchmarks/RESULTS.md is the formatter\'s rendering of benchmarks/results.json', () => {
  test('RESULTS.md, byte for byte', () => {
    expect(formatResults(recorded())).toBe(read('RESULTS.md'));
  });

  test('handlers.svg, byte for byte', () => {
    expect(formatChart(recorded())).toBe(read('handlers.svg'));
  });

  test('results.json says where values were reconstructed rather than measured: this run was measured (no notes), earlier runs say what they were read from', () => {
    const r = recorded();
    expect(r.about).toBeUndefined();
    for (const e of r.earlierRuns) expect(e.note).toMatch(/printed/);
  });
});

describe('the formatter', () => {
  const size = (files: number, s3files: number, s3api: number): HandlerSize =>
    ({ files, runs: 1, wallSeconds: 1, totalMs: { s3files, s3api }, runRatio: { min: s3api / s3files, max: s3api / s3files } });

  test('a ratio is the quotient of the unrounded totals, not of the rounded files/s', () => {
    // GIVEN totals whose files/s round to 1,205 and 35 (1,205 ÷ 35 = 34.4)
    const r = variant({ sizes: [size(20, 16.6, 568)] });
    // WHEN rendered
    const md = formatResults(r);
    // THEN the row and the chart give 568 ÷ 16.6
    expect(md).toContain('| 20 | 1 | 1,205 | 35 | **34.2×** | 34.2× (one run) | 16.6 | 568 |');
    expect(formatChart(r)).toContain('20 files: 34.2×');
    expect(formatChart(r)).not.toContain('34.4×');
  });

  test('no wording the audit found false: no n², no linearity verdict on synth, no hand corrections, no bare 3–5 min', () => {
    const md = formatResults(recorded());
    expect(md).not.toMatch(/n²|quadratically|not clearly linear|Growth is linear|[Cc]orrected by hand|530 characters/);
    // each mention of the 3–5 min mount-target time is the scripted one, and says whose figure it is
    const mentions = md.split('\n').filter((l) => /3–5 min/.test(l));
    expect(mentions.length).toBeGreaterThan(0);
    for (const line of mentions) expect(line).toMatch(/third-party write-ups|the write-ups' figures/);
  });

  test('DependsOn growth is stated from the counts: linear only when every step adds the same per function', () => {
    // GIVEN the recorded rows with the hand-wired count growing faster at each size
    const rows = recorded().templates.rows.map((t) => ({ ...t, handWired: { ...t.handWired, dependsOn: t.n * t.n } }));
    // WHEN rendered THEN it says so
    expect(formatResults(variant({ templateRows: rows }))).toMatch(/They do not both grow linearly \(library: 12 per function; hand-wired: not the same per function at every size/);
    expect(formatResults(recorded())).toMatch(/Both grow linearly \(library: 12 per function; hand-wired: 10 per function at every size/);
  });

  test('a fresh run\'s results need no notes: no "measured apart", no note on claiming when claims have their row', () => {
    // GIVEN results shaped as run-all writes them: every section from one run, phases with a claim row
    const r = recorded();
    const phases = r.handlers.sizes[r.handlers.sizes.length - 1].phases!;
    const claims = { claimMs: { min: 1, median: 1, max: 1 } };
    const withClaims = { s3api: { ...phases.s3api, ...claims }, s3files: { ...phases.s3files, ...claims } };
    const fresh: BenchResults = {
      ...r,
      about: undefined,
      synth: { ...r.synth, measuredApart: undefined },
      templates: { ...r.templates, measuredApart: undefined },
      bundles: { ...r.bundles, measuredApart: undefined },
      profile: { ...r.profile!, measuredApart: undefined },
      handlers: {
        ...r.handlers,
        sizes: r.handlers.sizes.map((s) => (s.phases ? { ...s, phases: withClaims } : s)),
      },
    };
    // WHEN rendered
    const md = formatResults(fresh);
    // THEN
    expect(md).not.toContain('Measured apart');
    expect(md).not.toContain('Measured before claiming');
    expect(md).toContain('| claim (lease, one claim per file) | 1 (1–1) | 1 (1–1) | 1× |');
  });
});

test('docs/performance.md\'s bundle row is what results.json recorded, and the bundles built now are within 1 KiB of the recording', () => {
  const rows = recorded().bundles.rows;
  const kib = (bytes: number) => (bytes / 1024).toFixed(1);
  const size = (name: string) => kib(rows.find((r) => r.name === `s3files-provider/${name}.lambda`)!.bytes);
  const integ = rows.filter((r) => !r.shipped).map((r) => r.bytes);
  const performance = fs.readFileSync(path.join(dir, '..', 'docs/performance.md'), 'utf8');
  const row = /\| Handler bundles \(minified\) \| shipped: is-complete ([\d.]+) KiB, on-event ([\d.]+) KiB [^|]*; integ handlers ([\d.]+)–([\d.]+) KiB/.exec(performance);
  expect(row).not.toBeNull();
  expect(row!.slice(1)).toEqual([size('is-complete'), size('on-event'), kib(Math.min(...integ)), kib(Math.max(...integ))]);
  // not stale: what `npx projen bundle` built last differs by at most 1 KiB (else `npm run bench -- --only bundles`)
  for (const r of rows) {
    const built = path.join(dir, '..', r.shipped ? 'assets/lambda' : 'assets/integ/handlers', r.name, 'index.js');
    if (!fs.existsSync(built)) continue;
    expect({ name: r.name, offBy1KiB: Math.abs(fs.statSync(built).size - r.bytes) > 1024 }).toEqual({ name: r.name, offBy1KiB: false });
  }
});

describe('benchmarks/profile.ts attributes each sample to the innermost library frame above it', () => {
  // A checkout whose path has a space: V8 percent-encodes it in file:// URLs.
  const src = path.join(path.sep, 're po', 'src');
  const url = (file: string) => `file://${path.join(path.sep, 're%20po', file)}`;
  const frame = (functionName: string, u: string) => ({ functionName, url: u, lineNumber: 0 });
  const profile: CpuProfile = {
    nodes: [
      { id: 1, callFrame: frame('(root)', ''), children: [2, 6, 7, 8, 9, 10] },
      { id: 2, callFrame: frame('S3FilesMountedFunction', url('src/s3files-mounted-function.ts')), children: [3] },
      { id: 3, callFrame: frame('acknowledge', url('src/private/nag.ts')), children: [4] },
      { id: 4, callFrame: frame('recordAcknowledgment', url('node_modules/aws-cdk-lib/core/lib/validation/validations.js')), children: [5] },
      { id: 5, callFrame: frame('captureCallStack', url('node_modules/aws-cdk-lib/core/lib/private/stack-trace.js')), children: [11] },
      { id: 11, callFrame: frame('parseErrorStack', url('node_modules/aws-cdk-lib/core/lib/private/stack-trace.js')) },
      { id: 6, callFrame: frame('synth', url('node_modules/aws-cdk-lib/core/lib/stage.js')) },
      { id: 7, callFrame: frame('(garbage collector)', '') },
      { id: 8, callFrame: frame('fromADependency', url('node_modules/x/src/index.js')) },
      { id: 9, callFrame: frame('generated', url('src-gen/x.js')) },
      { id: 10, callFrame: frame('wrapCallSite', url('node_modules/@cspotcode/source-map-support/source-map-support.js')) },
    ],
    // the last sample closes the interval of the one before; the first delta is the profiler's start-up
    samples: [2, 4, 11, 5, 6, 6, 7, 8, 9, 10, 1],
    timeDeltas: [900_000, ...Array(10).fill(1000)],
  };

  test('per synthesis: the innermost library frame takes the aws-cdk-lib work under it; GC, stack traces and the start-up gap apart', () => {
    // WHEN the 10 intervals of 1 ms over 2 synthesizes are attributed
    const a = attribute(profile, src, 2);
    // THEN only src/ itself is the library (not a dependency's src/, not src-gen/), a trace is seen at any depth
    expect(a.byLibraryFrame).toEqual([
      { where: 'acknowledge (private/nag.ts)', ms: 1.5 },
      { where: 'S3FilesMountedFunction (s3files-mounted-function.ts)', ms: 0.5 },
    ]);
    expect(a).toMatchObject({ sampledMs: 5, outsideMs: 2.5, stackTraceMs: 1.5, gcMs: 0.5 });
  });

  test('the recorded profile renders, its rows and the aws-cdk-lib remainder within what was sampled', () => {
    const p = recorded().profile!;
    const md = formatResults(recorded());
    expect(md).toContain(`### Where the library's time goes (CPU profile, ${p.functions} functions)`);
    const listed = p.library.byLibraryFrame.reduce((s, r) => s + r.ms, 0);
    expect(listed + p.library.outsideMs + p.library.gcMs).toBeLessThanOrEqual(p.library.sampledMs + 1e-9);
    expect(p.library.byLibraryFrame.every((r, i, all) => i === 0 || all[i - 1].ms >= r.ms)).toBe(true);
  });
});
