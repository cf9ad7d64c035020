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
 * targets become available 180-300 s after the waiter starts: 3-5 min is the range two
 * third-party write-ups report (one measured about 3 min 40 s, the other gives about 5 min).
 * Access points 5-30 s. Time is virtual: no real sleeping, so 100 deployments take seconds.
 */
import { S3FilesClient } from '@aws-sdk/client-s3files';
import { deployWaitSection } from './format';
import type { DeployWaitResults, Distribution } from './results';
import { handleIsComplete, handleOnEvent } from '../lambda/s3files-provider/dispatch';
import type { IsCompleteRequest, OnEventRequest, WaitLogger } from '../lambda/s3files-provider/resource-handler';
import { WAITER_RESOURCE_TYPE } from '../src/private/provider/custom-resource-contract';
import { atTimes, S3FilesEndpoint } from '../test/servers/s3files-endpoint';

export const QUERY_INTERVAL_MS = 10_000;
/** The third-party write-ups' 3-5 min (see above). */
const MT_AVAILABLE_RANGE_MS: [number, number] = [180_000, 300_000];
const MT_PER_FILE_SYSTEM: [number, number] = [2, 3];
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

/** Runs the simulation; returns the distribution of each metric over the deployments. */
export async function runDeployWait(options: DeployWaitOptions = {}): Promise<DeployWaitResults> {
  const deployments = options.deployments ?? 100;
  const seed = options.seed ?? 42;
  const random = prng(seed);
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
      const mtCount = MT_PER_FILE_SYSTEM[0] + Math.floor(random() * (MT_PER_FILE_SYSTEM[1] - MT_PER_FILE_SYSTEM[0] + 1)); // 2 or 3 AZs
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
        ResourceType: WAITER_RESOURCE_TYPE,
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

  const distribution = (xs: number[]): Distribution => {
    const sorted = [...xs].sort((x, y) => x - y);
    return {
      min: sorted[0],
      p50: quantile(sorted, 0.5),
      p90: quantile(sorted, 0.9),
      p99: quantile(sorted, 0.99),
      max: sorted[sorted.length - 1],
      mean: sorted.reduce((x, y) => x + y, 0) / sorted.length,
    };
  };
  const delays = results.map((r) => r.completedAtMs - r.readyAtMs);
  return {
    deployments: results.length,
    seed,
    queryIntervalMs: QUERY_INTERVAL_MS,
    mountTargetAvailableMs: MT_AVAILABLE_RANGE_MS,
    accessPointAvailableMs: AP_AVAILABLE_RANGE_MS,
    mountTargetsPerFileSystem: MT_PER_FILE_SYSTEM,
    fixedWaitMs: TERRAFORM_FIXED_WAIT_MS,
    delayMs: distribution(delays),
    totalWaitMs: distribution(results.map((r) => r.completedAtMs)),
    polls: distribution(results.map((r) => r.polls)),
    apiCalls: distribution(results.map((r) => r.apiCalls)),
    peakCallsPerMinute: distribution(results.map((r) => r.peakCallsPerMinute)),
    handlerMsPerPoll: distribution(results.map((r) => r.wallMsPerPoll)),
    withinOneInterval: delays.filter((x) => x <= QUERY_INTERVAL_MS).length,
    fixedWaitRaces: results.filter((r) => r.readyAtMs > TERRAFORM_FIXED_WAIT_MS).length,
  };
}

if (require.main === module) {
  runDeployWait({ deployments: arg('deployments', 100), seed: arg('seed', 42) }).then((r) => {
    console.log(deployWaitSection(r));
    process.exit(0);
  }, (error) => {
    console.error(error);
    process.exit(1);
  });
}
