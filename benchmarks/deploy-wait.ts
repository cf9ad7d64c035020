/**
 * Deploy-wait simulation (issue 6): drives the s3files-provider handlers with the real
 * @aws-sdk/client-s3files client against the local scripted S3 Files endpoint over many
 * simulated deployments, on a virtual clock, and reports
 *  - the delay between the last mount target / access point turning available and the waiter
 *    completing, in seconds and in poll intervals;
 *  - API calls per deployment and the peak call rate per file system.
 *
 * Run: npx ts-node --project test/tsconfig.json benchmarks/deploy-wait.ts [--deployments 100] [--seed 42]
 *
 * Assumptions (explicit): the Provider calls isComplete once right after onEvent, then every
 * queryInterval = 10 s (the construct's setting; the Provider's retry backoffRate is 1). Mount
 * targets become available 180-300 s after the waiter starts (3-5 min, as measured in the seeds);
 * access points 5-30 s. Time is virtual: no real sleeping, so 100 deployments take seconds.
 */
import { S3FilesClient } from '@aws-sdk/client-s3files';
import { handleIsComplete, handleOnEvent } from '../lambda/s3files-provider/dispatch';
import type { IsCompleteRequest, OnEventRequest, WaitLogger } from '../lambda/s3files-provider/resource-handler';
import { atTimes, S3FilesEndpoint } from '../test/servers/s3files-endpoint';

export const QUERY_INTERVAL_MS = 10_000;
const MT_AVAILABLE_RANGE_MS: [number, number] = [180_000, 300_000];
const AP_AVAILABLE_RANGE_MS: [number, number] = [5_000, 30_000];
export const TERRAFORM_FIXED_WAIT_MS = 90_000;

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] ? Number(process.argv[i + 1]) : fallback;
}

/** Seeded Park-Miller generator (no bitwise ops) so runs are reproducible. */
function prng(seed: number): () => number {
  let state = (Math.abs(Math.floor(seed)) % 2147483646) + 1;
  return () => {
    state = (state * 48271) % 2147483647;
    return (state - 1) / 2147483646;
  };
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[idx];
}

const silent: WaitLogger = { info: () => undefined, warn: () => undefined };

export interface DeploymentResult {
  readonly readyAtMs: number;
  readonly completedAtMs: number;
  readonly polls: number;
  readonly apiCalls: number;
  readonly peakCallsPerMinute: number;
  readonly wallMsPerPoll: number;
}

export interface DeployWaitOptions {
  readonly deployments?: number;
  readonly seed?: number;
}

export interface DeployWaitResult {
  readonly deployments: DeploymentResult[];
  /** last-available -> waiter complete, ms, sorted ascending. */
  readonly delaysMs: number[];
  /** Deployments that completed within one poll interval of readiness. */
  readonly withinOneInterval: number;
  /** Deployments whose resources were not all available yet when a fixed 90 s wait would have ended. */
  readonly fixedWaitRaces: number;
  /** Markdown section (tables + notes). */
  readonly markdown: string;
}

/** Runs the simulation and returns the raw per-deployment results plus the rendered section. */
export async function runDeployWait(options: DeployWaitOptions = {}): Promise<DeployWaitResult> {
  const deployments = options.deployments ?? 100;
  const random = prng(options.seed ?? 42);
  let virtualNow = 1_700_000_000_000;
  const endpoint = await S3FilesEndpoint.start({ clock: () => virtualNow });
  // Default-config client, pointed by the same env vars the Lambda handler relies on.
  Object.assign(process.env, {
    AWS_REGION: process.env.AWS_REGION ?? 'us-east-1',
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
    AWS_ENDPOINT_URL_S3FILES: endpoint.url,
  });
  delete process.env.AWS_SESSION_TOKEN;
  delete process.env.AWS_PROFILE;
  const client = new S3FilesClient({});
  const results: DeploymentResult[] = [];

  try {
    for (let d = 0; d < deployments; d++) {
      endpoint.reset();
      const fs = `fs-${(0x1000 + d).toString(16).padStart(17, '0')}`;
      const mtCount = 2 + Math.floor(random() * 2); // 2 or 3 AZs
      const between = ([lo, hi]: [number, number]) => Math.round(lo + random() * (hi - lo));
      const mtTimes = Array.from({ length: mtCount }, () => between(MT_AVAILABLE_RANGE_MS));
      const apTime = between(AP_AVAILABLE_RANGE_MS);
      const start = virtualNow;
      endpoint.setMountTargets(fs, mtTimes.map((t, i) => ({
        id: `fsmt-${d}-${i}`,
        timeline: atTimes([0, 'creating'], [t, 'available']),
      })));
      endpoint.setAccessPoint(`fsap-${d}`, atTimes([0, 'creating'], [apTime, 'available']), fs);

      const request: OnEventRequest = {
        RequestType: 'Create',
        ResourceProperties: {
          FileSystemId: fs,
          ExpectedMountTargetCount: String(mtCount),
          AccessPointIds: [`fsap-${d}`],
          TimeoutSeconds: '1200',
        },
      };
      // The waiter never touches S3 (only the delete guard does).
      const deps = { client, s3: undefined as never, now: () => virtualNow, log: silent };
      const onEventResult = await handleOnEvent(request, { s3: undefined as never, now: () => virtualNow, log: silent });
      const event: IsCompleteRequest = { ...request, ...onEventResult };

      let polls = 0;
      let wallMs = 0;
      for (;;) {
        polls++;
        const t = Date.now();
        const r = await handleIsComplete(event, deps);
        wallMs += Date.now() - t;
        if (r.IsComplete) break;
        virtualNow += QUERY_INTERVAL_MS;
      }
      const times = endpoint.requests.map((r) => r.at);
      let peak = 0;
      for (const t of times) peak = Math.max(peak, times.filter((u) => u >= t && u < t + 60_000).length);
      results.push({
        readyAtMs: Math.max(...mtTimes, apTime),
        completedAtMs: virtualNow - start,
        polls,
        apiCalls: endpoint.count(),
        peakCallsPerMinute: peak,
        wallMsPerPoll: wallMs / polls,
      });
      // Next deployment starts later on the same clock.
      virtualNow += 3_600_000;
    }
  } finally {
    client.destroy();
    await endpoint.stop();
  }

  const delays = results.map((r) => r.completedAtMs - r.readyAtMs).sort((a, b) => a - b);
  const calls = results.map((r) => r.apiCalls).sort((a, b) => a - b);
  const polls = results.map((r) => r.polls).sort((a, b) => a - b);
  const peaks = results.map((r) => r.peakCallsPerMinute).sort((a, b) => a - b);
  const wall = results.map((r) => r.wallMsPerPoll).sort((a, b) => a - b);
  const waitTotal = results.map((r) => r.completedAtMs).sort((a, b) => a - b);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const within1 = delays.filter((x) => x <= QUERY_INTERVAL_MS).length;
  const tfRaces = results.filter((r) => r.readyAtMs > TERRAFORM_FIXED_WAIT_MS).length;
  const s = (ms: number) => (ms / 1000).toFixed(1);
  const iv = (ms: number) => (ms / QUERY_INTERVAL_MS).toFixed(2);

  const lines = [
    `## Deploy wait: ${results.length} simulated deployments (queryInterval ${QUERY_INTERVAL_MS / 1000} s, virtual clock)`,
    '',
    `Mount targets (2-3 per file system) available ${MT_AVAILABLE_RANGE_MS[0] / 1000}-${MT_AVAILABLE_RANGE_MS[1] / 1000} s `
      + `after the waiter starts, access point ${AP_AVAILABLE_RANGE_MS[0] / 1000}-${AP_AVAILABLE_RANGE_MS[1] / 1000} s; `
      + 'real @aws-sdk/client-s3files against the local endpoint.',
    '',
    '| Metric | min | p50 | p90 | p99 | max | mean |',
    '|---|---:|---:|---:|---:|---:|---:|',
    `| Delay after last resource available (s) | ${s(delays[0])} | ${s(quantile(delays, 0.5))} | ${s(quantile(delays, 0.9))} | ${s(quantile(delays, 0.99))} | ${s(delays[delays.length - 1])} | ${s(mean(delays))} |`,
    `| Delay (poll intervals) | ${iv(delays[0])} | ${iv(quantile(delays, 0.5))} | ${iv(quantile(delays, 0.9))} | ${iv(quantile(delays, 0.99))} | ${iv(delays[delays.length - 1])} | ${iv(mean(delays))} |`,
    `| Total wait (s) | ${s(waitTotal[0])} | ${s(quantile(waitTotal, 0.5))} | ${s(quantile(waitTotal, 0.9))} | ${s(quantile(waitTotal, 0.99))} | ${s(waitTotal[waitTotal.length - 1])} | ${s(mean(waitTotal))} |`,
    `| isComplete polls per deployment | ${polls[0]} | ${quantile(polls, 0.5)} | ${quantile(polls, 0.9)} | ${quantile(polls, 0.99)} | ${polls[polls.length - 1]} | ${mean(polls).toFixed(1)} |`,
    `| API calls per deployment | ${calls[0]} | ${quantile(calls, 0.5)} | ${quantile(calls, 0.9)} | ${quantile(calls, 0.99)} | ${calls[calls.length - 1]} | ${mean(calls).toFixed(1)} |`,
    `| Peak API calls per minute (per file system) | ${peaks[0]} | ${quantile(peaks, 0.5)} | ${quantile(peaks, 0.9)} | ${quantile(peaks, 0.99)} | ${peaks[peaks.length - 1]} | ${mean(peaks).toFixed(1)} |`,
    `| Handler time per poll, loopback (ms, real) | ${wall[0].toFixed(1)} | ${quantile(wall, 0.5).toFixed(1)} | ${quantile(wall, 0.9).toFixed(1)} | ${quantile(wall, 0.99).toFixed(1)} | ${wall[wall.length - 1].toFixed(1)} | ${mean(wall).toFixed(1)} |`,
    '',
    `Completed within one poll interval of readiness: ${within1}/${results.length}. `
      + `A fixed ${TERRAFORM_FIXED_WAIT_MS / 1000} s wait from the same start would have ended before the resources were available in `
      + `${tfRaces}/${results.length} of these deployments.`,
  ];
  return { deployments: results, delaysMs: delays, withinOneInterval: within1, fixedWaitRaces: tfRaces, markdown: lines.join('\n') };
}

if (require.main === module) {
  runDeployWait({ deployments: arg('deployments', 100), seed: arg('seed', 42) }).then((r) => {
    console.log(r.markdown);
    process.exit(0);
  }, (error) => {
    console.error(error);
    process.exit(1);
  });
}
