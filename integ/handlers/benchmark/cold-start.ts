/**
 * Cold starts of two twin functions, the same code with and without the S3 Files mount, forced
 * and measured side by side.
 *
 * A cold start is forced the way a deploy causes one: a configuration update (one environment
 * variable, COLD_START_NONCE, changes; the others are kept), then the next invoke gets a fresh
 * execution environment. Its REPORT log line (Invoke with `LogType: Tail`) gives the init duration
 * and the first invoke's duration. The twins are updated outside CloudFormation: the nonce stays
 * in their environment (drift CloudFormation does not correct until a twin's definition changes),
 * which nothing reads.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import {
  GetFunctionConfigurationCommand, InvokeCommand, LambdaClient, UpdateFunctionConfigurationCommand, waitUntilFunctionUpdated,
} from '@aws-sdk/client-lambda';
import { lambdaClient } from '../shared/aws';
import { intSetting, requireEnv } from '../shared/common';
import { renderTable } from '../shared/markdown';
import { round, speedUp, summarize, Summary } from '../shared/stats';

export interface ColdStartEvent {
  /** Cold starts per twin (default 5). */
  readonly samples?: number;
  /** Give up waiting for a configuration update after this many seconds (default 300). */
  readonly updateTimeoutSeconds?: number;
}

/** One cold start, from the REPORT line and the caller's clock. */
export interface ColdStartSample {
  readonly initMs: number;
  /** The first invoke's own duration, after init. */
  readonly durationMs: number;
  /** The Invoke call as the caller sees it: init + duration + Lambda's own overhead. */
  readonly wallMs: number;
}

export interface TwinResult {
  readonly functionName: string;
  readonly initMs: Summary;
  readonly durationMs: Summary;
  readonly wallMs: Summary;
  readonly samples: ColdStartSample[];
}

export interface ColdStartResult {
  readonly mode: 'coldStart';
  readonly samples: number;
  readonly mounted: TwinResult;
  readonly unmounted: TwinResult;
  /** median(mounted) / median(unmounted); null when the unmounted median is 0. */
  readonly ratio: { initMs: number | null; durationMs: number | null; wallMs: number | null };
  readonly warnings: string[];
  readonly table: string;
}

/** The environment variable changed to force a new execution environment. */
export const NONCE_VARIABLE = 'COLD_START_NONCE';

/** Init and invoke durations from a Lambda REPORT line (`Init Duration` is absent on warm starts). */
export function parseReport(log: string): { initMs?: number; durationMs: number } | undefined {
  const line = log.split('\n').find((l) => l.startsWith('REPORT '));
  if (!line) return undefined;
  const duration = /(?:^|\t)Duration: ([\d.]+) ms/.exec(line.slice('REPORT '.length));
  if (!duration) return undefined;
  const init = /Init Duration: ([\d.]+) ms/.exec(line);
  return { durationMs: Number(duration[1]), ...(init ? { initMs: Number(init[1]) } : {}) };
}

async function forceColdStart(client: LambdaClient, functionName: string, nonce: string, timeoutSeconds: number): Promise<void> {
  const current = await client.send(new GetFunctionConfigurationCommand({ FunctionName: functionName }));
  await client.send(new UpdateFunctionConfigurationCommand({
    FunctionName: functionName,
    // The whole map is replaced: keep every variable but the nonce.
    Environment: { Variables: { ...current.Environment?.Variables, [NONCE_VARIABLE]: nonce } },
  }));
  await waitUntilFunctionUpdated({ client, maxWaitTime: timeoutSeconds, minDelay: 1, maxDelay: 5 }, { FunctionName: functionName });
}

async function invokeCold(client: LambdaClient, functionName: string): Promise<{ sample?: ColdStartSample; log: string }> {
  const t0 = performance.now();
  const res = await client.send(new InvokeCommand({ FunctionName: functionName, InvocationType: 'RequestResponse', LogType: 'Tail' }));
  const wallMs = performance.now() - t0;
  const log = res.LogResult ? Buffer.from(res.LogResult, 'base64').toString('utf8') : '';
  if (res.FunctionError) {
    const payload = res.Payload ? Buffer.from(res.Payload).toString('utf8') : '';
    throw new Error(`Invoking ${functionName} failed (${res.FunctionError}): ${payload.slice(0, 500)}`);
  }
  const report = parseReport(log);
  if (!report) throw new Error(`Invoking ${functionName} with LogType Tail returned no REPORT line: ${JSON.stringify(log.slice(-300))}`);
  if (report.initMs === undefined) return { log };
  return { sample: { initMs: report.initMs, durationMs: report.durationMs, wallMs: round(wallMs) }, log };
}

function twin(functionName: string, samples: ColdStartSample[]): TwinResult {
  if (samples.length === 0) {
    throw new Error(`No cold start of ${functionName} was measured: every invoke after a configuration update reported no Init Duration. `
      + 'Lambda may have initialized the environment ahead of the invoke; run the benchmark again.');
  }
  return {
    functionName,
    initMs: summarize(samples.map((s) => s.initMs)),
    durationMs: summarize(samples.map((s) => s.durationMs)),
    wallMs: summarize(samples.map((s) => s.wallMs)),
    samples,
  };
}

export async function coldStart(event: ColdStartEvent): Promise<ColdStartResult> {
  const mountedFn = requireEnv('COLD_START_MOUNTED_FUNCTION');
  const unmountedFn = requireEnv('COLD_START_UNMOUNTED_FUNCTION');
  const samples = intSetting('samples', event.samples, undefined, 5, 1, 50);
  const updateTimeoutSeconds = intSetting('updateTimeoutSeconds', event.updateTimeoutSeconds, undefined, 300, 10, 840);
  const client = lambdaClient();
  const batch = `${Date.now().toString(36)}-${randomUUID().slice(0, 8)}`;
  const measured = { mounted: [] as ColdStartSample[], unmounted: [] as ColdStartSample[] };
  const warnings: string[] = [];

  for (let i = 0; i < samples; i++) {
    // Alternate who goes first, so slow minutes of the control plane hit both twins alike.
    const order: ('mounted' | 'unmounted')[] = i % 2 === 0 ? ['mounted', 'unmounted'] : ['unmounted', 'mounted'];
    for (const which of order) {
      const fn = which === 'mounted' ? mountedFn : unmountedFn;
      await forceColdStart(client, fn, `${batch}-${i}`, updateTimeoutSeconds);
      const { sample } = await invokeCold(client, fn);
      if (sample) measured[which].push(sample);
      else warnings.push(`sample ${i + 1} of ${fn} was warm (no Init Duration): not counted`);
    }
  }

  const mounted = twin(mountedFn, measured.mounted);
  const unmounted = twin(unmountedFn, measured.unmounted);
  const ratio = {
    initMs: speedUp(mounted.initMs.median, unmounted.initMs.median) ?? null,
    durationMs: speedUp(mounted.durationMs.median, unmounted.durationMs.median) ?? null,
    wallMs: speedUp(mounted.wallMs.median, unmounted.wallMs.median) ?? null,
  };
  const fmt = (s: Summary): string => `${round(s.median)} (${round(s.min)}–${round(s.max)})`;
  const show = (r: number | null): string => (r === null ? 'n/a' : `${r}×`);
  const table = [
    `**Cold starts: ${mounted.samples.length} mounted, ${unmounted.samples.length} unmounted**; milliseconds, median (min–max). `
      + 'Each forced by a configuration update; both twins run the same code in the same VPC.',
    '',
    renderTable(['', 'With S3 Files mount', 'Without', 'Mounted ÷ unmounted'], [
      ['init duration', fmt(mounted.initMs), fmt(unmounted.initMs), show(ratio.initMs)],
      ['first invoke duration', fmt(mounted.durationMs), fmt(unmounted.durationMs), show(ratio.durationMs)],
      ['wall-clock of the cold invoke', fmt(mounted.wallMs), fmt(unmounted.wallMs), show(ratio.wallMs)],
    ]),
  ].join('\n');
  return { mode: 'coldStart', samples, mounted, unmounted, ratio, warnings, table };
}
