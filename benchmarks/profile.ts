/**
 * Where the library's synthesis time goes: a V8 CPU profile of the synth benchmark's two stacks at
 * one size (warm, aws-cdk-lib's validation off, as the first synth table), each sample attributed
 * to the innermost frame of the library's own code (`src/`) above it, so a row is what one library
 * step costs with the aws-cdk-lib work it asks for. Samples with no library frame are aws-cdk-lib's
 * (mostly `app.synth()`: resolving tokens, rendering, staging assets) and are what the floor pays too.
 * Measured by profile-run.ts; this file only reads a profile and renders the section.
 */
import * as path from 'path';
import { fileURLToPath } from 'url';
import type { Apart } from './results';
import { renderTable } from '../integ/handlers/shared/markdown';

/** The parts of a V8 `.cpuprofile` this reads. */
export interface CpuProfile {
  readonly nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  readonly samples: number[];
  readonly timeDeltas: number[];
}

export interface ProfileSide {
  /** CPU time of the process per synthesis without the profiler (user + system, all threads). */
  readonly cpuMs: number;
  /** Sampled time on the main thread per synthesis. */
  readonly sampledMs: number;
  /** Of that, capturing and formatting stack traces (aws-cdk-lib's metadata traces, source-map-support under ts-node). */
  readonly stackTraceMs: number;
  /** Of that, garbage collection. */
  readonly gcMs: number;
}

export interface ProfileResults extends Apart {
  readonly functions: number;
  readonly reps: number;
  readonly library: ProfileSide & {
    /** Per library function (name, file relative to src/), the time under it; largest first. */
    readonly byLibraryFrame: { readonly where: string; readonly ms: number }[];
    /** Sampled time with no library frame above it, garbage collection apart. */
    readonly outsideMs: number;
  };
  readonly handWired: ProfileSide;
}

const isStackTrace = (f: CpuProfile['nodes'][number]['callFrame']): boolean =>
  /^(captureCallStack|captureStackTrace|enhancedStackTrace|prepareStackTrace)$/.test(f.functionName) || f.url.includes('source-map-support');

/** A frame's file as a path (V8 gives `file://` URLs for ES modules and percent-encodes them). */
const fileOf = (url: string): string => (url.startsWith('file:') ? fileURLToPath(url) : url);

/**
 * Splits a profile's samples (ms per synthesis over `reps`) by library frame, stack traces and GC.
 * A sample stands for the interval after it (`timeDeltas[i + 1]`, as Chrome's DevTools count), so
 * the gap from `Profiler.start` to the first sample counts for nothing.
 */
export function attribute(profile: CpuProfile, srcRoot: string, reps: number) {
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? 0) / 1000 / reps));
  const parent = new Map<number, number>();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const byFrame = new Map<string, number>();
  let sampledMs = 0, stackTraceMs = 0, gcMs = 0, outsideMs = 0;
  for (const [id, ms] of self) {
    sampledMs += ms;
    if (byId.get(id)!.callFrame.functionName === '(garbage collector)') {
      gcMs += ms;
      continue;
    }
    let libraryFrame: string | undefined;
    let traced = false;
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const f = byId.get(at)!.callFrame;
      traced ||= isStackTrace(f);
      const file = fileOf(f.url);
      if (!libraryFrame && file.startsWith(srcRoot + path.sep)) libraryFrame = `${f.functionName || '(anonymous)'} (${path.relative(srcRoot, file)})`;
    }
    if (traced) stackTraceMs += ms;
    if (libraryFrame) byFrame.set(libraryFrame, (byFrame.get(libraryFrame) ?? 0) + ms);
    else outsideMs += ms;
  }
  const byLibraryFrame = [...byFrame].map(([where, ms]) => ({ where, ms })).sort((a, b) => b.ms - a.ms);
  return { sampledMs, stackTraceMs, gcMs, outsideMs, byLibraryFrame };
}

const ms1 = (x: number): string => x.toFixed(1);
const pct = (x: number, of: number): string => `${Math.round((100 * x) / of)} %`;

/** The RESULTS.md section. */
export function profileSection(p: ProfileResults): string {
  const { library: l, handWired: h } = p;
  const listed = l.byLibraryFrame.reduce((s, r) => s + r.ms, 0);
  const otherLibrary = l.sampledMs - l.outsideMs - l.gcMs - listed;
  const row = (what: string, ms: number): string[] => [what, ms1(ms), pct(ms, l.sampledMs)];
  return [
    `### Where the library's time goes (CPU profile, ${p.functions} functions)`,
    '',
    ...(p.measuredApart ? [`Measured apart from the run above: ${p.measuredApart}.`, ''] : []),
    `\`benchmarks/profile.ts\`: the two stacks of the first synth table at ${p.functions} functions, aws-cdk-lib's validation off, `
      + 'under ts-node as `cdk synth` runs a TypeScript app, in one process: 3 warm-up synthesizes of each, '
      + `then ${p.reps} of each alternating without the profiler (the CPU column below), then ${p.reps} of each under V8's `
      + 'sampling profiler. Each sample goes to the innermost frame of the library\'s own code above it, so a row is one '
      + 'library step with the aws-cdk-lib work it asks for; per synthesis, in ms of sampled main-thread time.',
    '',
    renderTable(['Library frame (file under `src/`)', 'ms', 'Share of the library side\'s sampled time'], [
      ...l.byLibraryFrame.map((r) => row(`\`${r.where}\``, r.ms)),
      row('other library frames', otherLibrary),
      row('garbage collection', l.gcMs),
      row('no library frame (aws-cdk-lib: `app.synth()`, resolving, rendering, assets; the stack\'s VPC)', l.outsideMs),
    ]),
    '',
    renderTable(['Side', 'CPU ms, unprofiled (all threads)', 'Sampled ms (main thread, wall)', 'Stack traces', 'Garbage collection'],
      ([['Library', l], ['Floor', h]] as const).map(([name, s]) => [name, ms1(s.cpuMs), ms1(s.sampledMs),
        `${ms1(s.stackTraceMs)} (${pct(s.stackTraceMs, s.sampledMs)})`, `${ms1(s.gcMs)} (${pct(s.gcMs, s.sampledMs)})`])),
    '',
    'Stack traces: aws-cdk-lib captures one for each construct it creates and each metadata entry it records with a trace, '
      + 'and source-map-support maps each under ts-node (the library\'s cdk-nag acknowledgments gather none: src/private/nag.ts). '
      + `Warm and unprofiled, the library's synthesis took ${(l.cpuMs / h.cpuMs).toFixed(2)}× the floor's CPU time here; the first `
      + 'synth table\'s ratios are medians of single synthesizes taken in turn across sizes, each after a full garbage collection.',
  ].join('\n');
}
