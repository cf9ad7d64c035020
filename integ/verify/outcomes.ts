import { ASSERTIONS, AssertionSpec, constructIdOf } from './catalogue';
import type { BenchmarkResult } from '../handlers/benchmark';
import type { ColdStartResult } from '../handlers/benchmark/cold-start';
import type { DirectReadResult } from '../handlers/benchmark/direct-read';

export type Status = 'confirmed' | 'refuted' | 'not run';

export interface AssertionOutcome {
  readonly id: string;
  readonly status: Status;
  /** What was seen: the probe's evidence, the API responses, timings. */
  readonly evidence?: unknown;
  /** Why it is refuted or not run, when the evidence does not say. */
  readonly note?: string;
}

/** `cdk deploy --outputs-file`'s shape: stack name → output key → value. */
export type StackOutputs = Record<string, Record<string, string>>;

/** Decodes an `Evidence<Id>` output: `b64:` + base64 JSON from the probe, or a plain API value. */
export function decodeEvidence(value: string): unknown {
  if (!value.startsWith('b64:')) return value;
  try {
    return JSON.parse(Buffer.from(value.slice(4), 'base64').toString('utf8'));
  } catch {
    return value;
  }
}

/**
 * The deploy-assert outcomes as integ-runner reads them: output `AssertionResults<Id>` holds
 * `{"status":"success"}` or `{"status":"fail","message":…}`; `Evidence<Id>` what was seen. An
 * assertion of a suite that ran but whose output is missing is `not run`, with `missingNote`
 * (the assertion stack's failure, when the runner knows it).
 */
export function deployAssertOutcomes(
  outputs: StackOutputs, specs: readonly AssertionSpec[], missingNote: (spec: AssertionSpec) => string,
): AssertionOutcome[] {
  const all: Record<string, string> = Object.assign({}, ...Object.values(outputs));
  return specs.filter((s) => s.kind === 'deploy-assert').map((spec) => {
    const cid = constructIdOf(spec.id);
    const raw = all[`AssertionResults${cid}`];
    const evidence = all[`Evidence${cid}`] === undefined ? undefined : decodeEvidence(all[`Evidence${cid}`]);
    if (raw === undefined) return { id: spec.id, status: 'not run', evidence, note: missingNote(spec) };
    let parsed: { status?: string; message?: string };
    try {
      parsed = JSON.parse(raw);
    } catch {
      parsed = { status: 'fail', message: raw };
    }
    return parsed.status === 'success'
      ? { id: spec.id, status: 'confirmed', evidence }
      : { id: spec.id, status: 'refuted', evidence, note: parsed.message ?? raw };
  });
}

/** The benchmark assertions, judged from the benchmark function's answers (absent: not run). */
export interface Benchmarks {
  readonly processors?: BenchmarkResult;
  readonly coldStart?: ColdStartResult;
  readonly directRead?: DirectReadResult;
  /** Why a mode did not run (its invoke failed), by mode. */
  readonly errors?: Partial<Record<'processors' | 'coldStart' | 'directRead', string>>;
}

export function benchmarkOutcomes(b: Benchmarks): AssertionOutcome[] {
  const judge = (id: string, mode: keyof NonNullable<Benchmarks['errors']>, ok: () => [boolean, unknown]): AssertionOutcome => {
    if (!b[mode]) return { id, status: 'not run', note: b.errors?.[mode] ?? 'the benchmark did not run' };
    const [pass, evidence] = ok();
    return { id, status: pass ? 'confirmed' : 'refuted', evidence };
  };
  return [
    judge('bench.processors', 'processors', () => {
      const p = b.processors!;
      const [api, files] = [p.s3api.phases.totalMs.median, p.s3files.phases.totalMs.median];
      return [files < api, { s3apiTotalMedianMs: api, s3filesTotalMedianMs: files, speedUp: p.speedUp.totalMs, sync: p.sync, warnings: p.warnings }];
    }),
    judge('bench.cold-start', 'coldStart', () => {
      const c = b.coldStart!;
      const added = c.mounted.initMs.median - c.unmounted.initMs.median;
      const [mounted, unmounted] = [c.mounted.initMs.median, c.unmounted.initMs.median];
      const evidence = { mountedInitMedianMs: mounted, unmountedInitMedianMs: unmounted, addedMs: added, warnings: c.warnings };
      return [added < 2000, evidence];
    }),
    judge('bench.direct-read', 'directRead', () => {
      const large = b.directRead!.sizes.find((s) => s.size === 'large');
      const speedUp = large?.readSpeedUp.ENABLED ?? null;
      return [speedUp !== null && speedUp > 1, { largeReadSpeedUp: large?.readSpeedUp ?? null, bytesPerFile: large?.bytesPerFile ?? null }];
    }),
  ];
}

/** Every catalogue assertion exactly once, in catalogue order; what nobody reported is `not run`. */
export function complete(outcomes: readonly AssertionOutcome[], notRunNote: (spec: AssertionSpec) => string): AssertionOutcome[] {
  const byId = new Map(outcomes.map((o) => [o.id, o]));
  return ASSERTIONS.map((spec) => byId.get(spec.id) ?? { id: spec.id, status: 'not run', note: notRunNote(spec) });
}
