/** Takes the measurements profile.ts reads and renders (run-all.ts's `profile` section). */
import { rmSync } from 'fs';
import { Session } from 'inspector';
import * as path from 'path';
import { App, Stack } from 'aws-cdk-lib';
import { attribute, CpuProfile, ProfileResults } from './profile';
import { handWiredStack, libraryStack } from './synth';

type Build = (app: App, n: number) => Stack;

/** One synthesis; returns the cloud assembly's directory, deleted by the caller outside what it measures. */
function synthesize(build: Build, n: number): string {
  const app = new App();
  build(app, n);
  return app.synth().directory;
}

const remove = (dirs: string[]): void => dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));

/** `reps` synthesizes under V8's sampling profiler (200 µs). */
async function profiled(build: Build, n: number, reps: number): Promise<CpuProfile> {
  const session = new Session();
  session.connect();
  const post = (method: string, params: object = {}) => new Promise<any>((resolve, reject) =>
    session.post(method, params, (e, r) => (e ? reject(e) : resolve(r))));
  const dirs: string[] = [];
  try {
    await post('Profiler.enable');
    await post('Profiler.setSamplingInterval', { interval: 200 });
    await post('Profiler.start');
    for (let i = 0; i < reps; i++) dirs.push(synthesize(build, n));
    return (await post('Profiler.stop')).profile;
  } finally {
    session.disconnect();
    remove(dirs);
  }
}

/**
 * At `n` functions, validation off: 3 warm-up synthesizes of each side, then `reps` of each
 * alternating (the first one swapped every repeat) for CPU time without the profiler, then `reps`
 * of each under the profiler for where the time goes.
 */
export async function runProfile(n: number, reps: number): Promise<ProfileResults> {
  const before = process.env.CDK_VALIDATION;
  process.env.CDK_VALIDATION = 'false';
  try {
    const sides = [libraryStack, handWiredStack];
    for (let i = 0; i < 3; i++) sides.forEach((build) => remove([synthesize(build, n)]));
    const cpuMs = new Map<Build, number>(sides.map((b) => [b, 0]));
    for (let i = 0; i < reps; i++) {
      for (const build of i % 2 ? [...sides].reverse() : sides) {
        const cpu = process.cpuUsage();
        const dir = synthesize(build, n);
        const used = process.cpuUsage(cpu);
        cpuMs.set(build, cpuMs.get(build)! + (used.user + used.system) / 1000 / reps);
        remove([dir]);
      }
    }
    const srcRoot = path.resolve(__dirname, '..', 'src');
    const l = attribute(await profiled(libraryStack, n, reps), srcRoot, reps);
    const h = attribute(await profiled(handWiredStack, n, reps), srcRoot, reps);
    if (l.byLibraryFrame.length === 0) throw new Error(`no profile sample fell under ${srcRoot}: the attribution cannot find the library's frames`);
    return {
      functions: n,
      reps,
      library: {
        cpuMs: cpuMs.get(libraryStack)!,
        sampledMs: l.sampledMs,
        stackTraceMs: l.stackTraceMs,
        gcMs: l.gcMs,
        outsideMs: l.outsideMs,
        byLibraryFrame: l.byLibraryFrame.slice(0, 12),
      },
      handWired: { cpuMs: cpuMs.get(handWiredStack)!, sampledMs: h.sampledMs, stackTraceMs: h.stackTraceMs, gcMs: h.gcMs },
    };
  } finally {
    if (before === undefined) delete process.env.CDK_VALIDATION;
    else process.env.CDK_VALIDATION = before;
  }
}
