/** Takes the CPU profiles profile.ts reads (run-all.ts's `profile` section). */
import { rmSync } from 'fs';
import { Session } from 'inspector';
import * as path from 'path';
import { App } from 'aws-cdk-lib';
import { attribute, CpuProfile, ProfileResults } from './profile';
import { handWiredStack, libraryStack } from './synth';

async function profileSide(build: (app: App, n: number) => unknown, n: number, reps: number): Promise<{ cpuMs: number; profile: CpuProfile }> {
  const once = () => {
    const app = new App();
    build(app, n);
    rmSync(app.synth().directory, { recursive: true, force: true });
  };
  for (let i = 0; i < 3; i++) once(); // warm: the table above has the cold-ish medians
  const session = new Session();
  session.connect();
  const post = (method: string, params: object = {}) => new Promise<any>((resolve, reject) =>
    session.post(method, params, (e, r) => (e ? reject(e) : resolve(r))));
  try {
    await post('Profiler.enable');
    await post('Profiler.setSamplingInterval', { interval: 200 });
    await post('Profiler.start');
    const cpu = process.cpuUsage();
    for (let i = 0; i < reps; i++) once();
    const used = process.cpuUsage(cpu);
    const { profile } = await post('Profiler.stop');
    return { cpuMs: (used.user + used.system) / 1000 / reps, profile };
  } finally {
    session.disconnect();
  }
}

/** Profiles `reps` warm synthesizes of each side at `n` functions. */
export async function runProfile(n: number, reps: number): Promise<ProfileResults> {
  const before = process.env.CDK_VALIDATION;
  process.env.CDK_VALIDATION = 'false';
  try {
    const srcRoot = path.resolve(__dirname, '..', 'src');
    const lib = await profileSide(libraryStack, n, reps);
    const hand = await profileSide(handWiredStack, n, reps);
    const l = attribute(lib.profile, srcRoot, reps);
    const h = attribute(hand.profile, srcRoot, reps);
    return {
      functions: n,
      reps,
      library: {
        cpuMs: lib.cpuMs,
        sampledMs: l.sampledMs,
        stackTraceMs: l.stackTraceMs,
        gcMs: l.gcMs,
        outsideMs: l.outsideMs,
        byLibraryFrame: l.byLibraryFrame.slice(0, 12),
      },
      handWired: { cpuMs: hand.cpuMs, sampledMs: h.sampledMs, stackTraceMs: h.stackTraceMs, gcMs: h.gcMs },
    };
  } finally {
    if (before === undefined) delete process.env.CDK_VALIDATION;
    else process.env.CDK_VALIDATION = before;
  }
}
