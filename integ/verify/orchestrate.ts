import { spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { EC2Client } from '@aws-sdk/client-ec2';
import { EKSClient } from '@aws-sdk/client-eks';
import { GetFunctionCommand, InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { GetFileSystemCommand, S3FilesClient } from '@aws-sdk/client-s3files';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { customResourceDurations, deleteRetained, eventsOf, fileSystemIdOf, firstFailure, MountTargetMonitor, objectCount, resourcesOf, waiterOutcomes } from './account-checks';
import { ASSERTIONS, Suite } from './catalogue';
import { findLeftovers, Leftover } from './leftovers';
import { AssertionOutcome, benchmarkOutcomes, Benchmarks, complete, deployAssertOutcomes, StackOutputs } from './outcomes';
import { reportJson, reportMarkdown, RunRecord } from './report';
import type { RunOptions } from './run';
import { INTEG_TESTS, STACKS, SUITE_STACKS } from './stacks';

// The run itself: the CDK CLI deploys the verification app and its integ-tests-alpha assertion
// stacks (as integ-runner would, which cannot read this aws-cdk-lib's assembly), the runner adds
// its own checks and the benchmarks, and everything is destroyed whatever happened before.

const ROOT = path.resolve(__dirname, '..', '..');
const APP = 'ts-node --transpile-only -P test/tsconfig.json integ/verify.integ.ts';
const LIFECYCLE_STEP_IDS = ['lifecycle.initial', 'lifecycle.prefix-changed', 'lifecycle.read-only-toggled', 'lifecycle.client-added', 'lifecycle.client-removed'];

export async function verify(o: RunOptions): Promise<number> {
  const region = o.region!;
  if (o.profile) process.env.AWS_PROFILE = o.profile;
  process.env.AWS_REGION = region;
  const started = new Date();
  const out = path.resolve(ROOT, o.out, started.toISOString().replace(/[:.]/g, '-'));
  fs.mkdirSync(out, { recursive: true });
  const logFile = path.join(out, 'run.log');
  const log = (m: string) => {
    const line = `[verify ${new Date().toISOString()}] ${m}`;
    console.log(line);
    fs.appendFileSync(logFile, line + '\n');
  };
  const cfn = new CloudFormationClient({ region });
  const s3 = new S3Client({ region });
  const s3files = new S3FilesClient({ region });
  const lambda = new LambdaClient({ region, requestHandler: { requestTimeout: 16 * 60_000 } });

  let account: string | undefined;
  try {
    account = (await new STSClient({ region }).send(new GetCallerIdentityCommand({}))).Account;
  } catch (e) {
    log(`no usable AWS credentials (${(e as Error).name}: ${(e as Error).message}); nothing was deployed`);
    return 1;
  }
  log(`account ${account}, region ${region}, report in ${out}`);

  const phases: Array<{ phase: string; seconds: number; ok: boolean }> = [];
  const errors: string[] = [];
  const phase = async <T>(name: string, fn: () => Promise<T>): Promise<T | undefined> => {
    const t0 = Date.now();
    log(`${name}...`);
    try {
      const result = await fn();
      phases.push({ phase: name, seconds: Math.round((Date.now() - t0) / 1000), ok: true });
      return result;
    } catch (e) {
      errors.push(`${name}: ${(e as Error).message}`);
      phases.push({ phase: name, seconds: Math.round((Date.now() - t0) / 1000), ok: false });
      log(`${name} FAILED: ${(e as Error).message}`);
      return undefined;
    }
  };
  const cdk = (args: string[], label: string) => new Promise<void>((resolve, reject) => {
    const child = spawn(path.join(ROOT, 'node_modules', '.bin', 'cdk'), [...args, '--no-notices', '--no-version-reporting'], {
      cwd: ROOT, env: { ...process.env, CDK_DEFAULT_REGION: region, CDK_DEFAULT_ACCOUNT: account }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    const sink = fs.createWriteStream(path.join(out, `${label}.log`));
    child.stdout.pipe(sink);
    child.stderr.pipe(sink);
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`cdk ${args[0]} exited ${code} (see ${label}.log)`))));
  });
  const salt = `run-${started.getTime()}`;
  const synth = async (step: number) => {
    const dir = path.join(out, `cdk.out.${step}`);
    const context = ['-c', `integ:salt=${salt}`, '-c', `verify:lifecycle-step=${step}`, ...(o.agentcoreImage ? ['-c', `verify:agentcore-image=${o.agentcoreImage}`] : [])];
    await cdk(['synth', '--quiet', '--app', APP, ...context, '-o', dir], `synth-${step}`);
    return dir;
  };
  // An assertion stack is selected by its construct path (the CLI's stack id) and found in
  // CloudFormation by its stack name; integ.json gives both, as integ-runner reads them.
  const assertionStackNames = new Map<string, string>();
  const assertStacks = (dir: string, suites: readonly Suite[]) => {
    type Case = { assertionStack: string; assertionStackName: string };
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'integ.json'), 'utf8')) as { testCases: Record<string, Case> };
    return suites.map((s) => {
      const c = manifest.testCases[`${INTEG_TESTS[s]}/DefaultTest`];
      assertionStackNames.set(c.assertionStack, c.assertionStackName);
      return c.assertionStack;
    });
  };
  const stackName = (id: string) => assertionStackNames.get(id) ?? id;
  const outputs: StackOutputs = {};
  const deploy = async (dir: string, stacks: string[], label: string) => {
    const file = path.join(out, `${label}.outputs.json`);
    try {
      await cdk(['deploy', '--app', dir, ...stacks, '--require-approval', 'never', '--concurrency', '4', '--outputs-file', file], label);
    } finally {
      if (fs.existsSync(file)) Object.assign(outputs, JSON.parse(fs.readFileSync(file, 'utf8')));
    }
  };

  const testSuites = o.suites.filter((s) => s !== 'lifecycle');
  const testStacks = testSuites.flatMap((s) => SUITE_STACKS[s]);
  const deployed = new Set<string>();
  const runner: AssertionOutcome[] = [];
  const notes = new Map<string, string>();
  let benchmarks: Benchmarks = {};
  const stackIds = new Map<string, string>();
  const rememberStacks = async (names: readonly string[]) => {
    for (const name of names) {
      const found = await cfn.send(new DescribeStacksCommand({ StackName: name })).catch(() => undefined);
      const id = found?.Stacks?.[0]?.StackId;
      if (id) stackIds.set(name, id);
    }
  };

  // 1. The app must be the one whose snapshot is committed (what reviewers saw).
  const snapshotOk = await phase('snapshot matches the committed one (integ:verify:assert)', () => new Promise<void>((resolve, reject) => {
    const child = spawn('npx', ['projen', 'integ:verify:assert'], { cwd: ROOT, stdio: ['ignore', fs.openSync(path.join(out, 'snapshot.log'), 'a'), fs.openSync(path.join(out, 'snapshot.log'), 'a')] });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error('the verification app differs from integ/verify.integ.snapshot (see snapshot.log); run npx projen integ:verify:snapshot and review the diff'))));
  }).then(() => true));
  const dir0 = snapshotOk ? await phase('synthesize', () => synth(0)) : undefined;

  try {
    if (dir0) {
      // 2. Deploy the test stacks and their assertion stacks, watching the mount targets meanwhile.
      const monitor = new MountTargetMonitor(cfn, s3files, STACKS.core, 2);
      const watching = monitor.run();
      const allStacks = [...testStacks, STACKS.lifecycle, ...assertStacks(dir0, testSuites), ...assertStacks(dir0, ['lifecycle'])];
      allStacks.forEach((s) => deployed.add(s));
      await phase('deploy and assert', () => deploy(dir0, allStacks, 'deploy-0'));
      monitor.stop();
      await watching;
      await rememberStacks([...deployed].map(stackName));
      runner.push(...waiterOutcomes(monitor, await eventsOf(cfn, stackIds.get(STACKS.core) ?? STACKS.core)));

      // 3. Lifecycle: each step deployed over the previous one, then its assertion.
      let extra: string | undefined;
      for (let step = 1; step < LIFECYCLE_STEP_IDS.length; step++) {
        const id = LIFECYCLE_STEP_IDS[step];
        const ok = await phase(`lifecycle step ${step} (${id})`, async () => {
          const dir = await synth(step);
          await deploy(dir, [STACKS.lifecycle, ...assertStacks(dir, ['lifecycle'])], `deploy-${step}`);
          extra = outputs[STACKS.lifecycle]?.ExtraFunctionName ?? extra;
          return true;
        });
        if (!ok) {
          for (const later of LIFECYCLE_STEP_IDS.slice(step)) notes.set(later, `not reached: ${errors[errors.length - 1]}`);
          break;
        }
        if (id === 'lifecycle.client-removed') {
          const gone = extra ? await lambda.send(new GetFunctionCommand({ FunctionName: extra })).then(() => false, (e) => (e as Error).name === 'ResourceNotFoundException') : undefined;
          runner.push(gone === undefined ? { id, status: 'not run', note: 'step 3 did not report the added function' } : { id, status: gone ? 'confirmed' : 'refuted', evidence: { function: extra, gone } });
        }
      }

      // 4. Benchmarks, on the benchmark stack.
      benchmarks = await phase('benchmarks', () => runBenchmarks(lambda, outputs[STACKS.benchmark]?.BenchmarkFunctionName, log)) ?? {};

      // 5. A file on the RETAIN file system, for `removal.retain-keeps` (exported long before destroy ends).
      const retainWriter = outputs[STACKS.retain]?.WriterFunctionName;
      if (retainWriter) await phase('write a file on the RETAIN file system', () => invoke(lambda, retainWriter, { check: 'write-read', salt }));
    }
  } finally {
    // 6. Destroy, whatever happened; then what only an account shows about deletion.
    const recorded = await recordResources(cfn, [...[...deployed].map(stackName), ...testStacks]);
    await rememberStacks([...deployed].map(stackName));
    if (deployed.size) await phase('destroy', () => cdk(['destroy', '--app', dir0 ?? APP, ...deployed, '--force'], 'destroy'));
    runner.push(...await afterDestroy(cfn, s3, s3files, outputs, stackIds, log, errors));
    const leftovers = await phase('leftovers check', () => findLeftovers(
      {
        cloudformation: cfn,
        s3,
        s3files,
        ec2: new EC2Client({ region }),
        logs: new CloudWatchLogsClient({ region }),
        eks: new EKSClient({ region }),
      },
      { region, stackNames: [...deployed].map(stackName), ...recorded },
    )) ?? [];
    leftovers.push(...recorded.retainedRoles.map((r): Leftover => ({ kind: 'IAM role', id: r, detail: 'kept by RETAIN by design; not checked', removeWith: `aws iam list-role-policies --role-name ${r}; delete each with aws iam delete-role-policy, then aws iam delete-role --role-name ${r}` })));

    // 7. The report.
    const assertFailures = new Map<string, string>();
    for (const [name, id] of stackIds) if (/DeployAssert/.test(name)) assertFailures.set(name, firstFailure(await eventsOf(cfn, id)) ?? '');
    const failureNote = [...assertFailures.values()].filter(Boolean).join('; ');
    const outcomes = complete([
      ...deployAssertOutcomes(outputs, ASSERTIONS.filter((a) => o.suites.includes(a.suite)), (spec) => notes.get(spec.id) ?? (failureNote ? `the assertion stack failed: ${failureNote}` : 'the assertion stack reported no result')),
      ...runner,
      ...benchmarkOutcomes(benchmarks),
    ], (spec) => (o.suites.includes(spec.suite) ? notes.get(spec.id) ?? 'not reached (see Errors)' : `suite ${spec.suite} not asked for (--with ${spec.suite})`));
    const record: RunRecord = {
      startedAt: started.toISOString(),
      finishedAt: new Date().toISOString(),
      region,
      account,
      suites: o.suites,
      versions: versions(),
      outcomes,
      benchmarks,
      phases,
      leftovers,
      errors,
    };
    fs.writeFileSync(path.join(out, 'report.json'), JSON.stringify(reportJson(record), null, 2) + '\n');
    fs.writeFileSync(path.join(out, 'report.md'), reportMarkdown(record));
    log(`report: ${path.join(out, 'report.md')} and report.json`);
    const refuted = outcomes.filter((x) => x.status === 'refuted').length;
    process.exitCode = errors.length || leftovers.length ? 1 : refuted ? 3 : 0;
  }
  return Number(process.exitCode ?? 0);
}

async function invoke(lambda: LambdaClient, name: string, payload: unknown): Promise<unknown> {
  const res = await lambda.send(new InvokeCommand({ FunctionName: name, Payload: Buffer.from(JSON.stringify(payload)) }));
  const body = res.Payload ? Buffer.from(res.Payload).toString('utf8') : '';
  if (res.FunctionError) throw new Error(`${name} failed: ${body.slice(0, 500)}`);
  return JSON.parse(body || 'null');
}

async function runBenchmarks(lambda: LambdaClient, fn: string | undefined, log: (m: string) => void): Promise<Benchmarks> {
  if (!fn) throw new Error('the benchmark stack reported no BenchmarkFunctionName');
  const errors: NonNullable<Benchmarks['errors']> = {};
  const run = async <T>(mode: keyof typeof errors, payload: object): Promise<T | undefined> => {
    try {
      log(`benchmark ${mode}...`);
      return await invoke(lambda, fn, payload) as T;
    } catch (e) {
      errors[mode] = (e as Error).message;
      return undefined;
    }
  };
  const processors = await run<Benchmarks['processors']>('processors', { files: 20, runs: 3, measureSync: true });
  const coldStart = await run<Benchmarks['coldStart']>('coldStart', { mode: 'coldStart', samples: 5 });
  const directRead = await run<Benchmarks['directRead']>('directRead', { mode: 'directRead', files: 10, runs: 3 });
  return { processors, coldStart, directRead, errors };
}

/** What the run must know before destroying, to look for leftovers after it. */
async function recordResources(cfn: CloudFormationClient, stacks: readonly string[]) {
  const byStack = await Promise.all([...new Set(stacks)].map(async (s) => ({ stack: s, resources: await resourcesOf(cfn, s) })));
  const all = byStack.flatMap((x) => x.resources);
  const retained = byStack.filter((x) => x.stack === STACKS.retain).flatMap((x) => x.resources);
  const of = (type: string) => all.filter((r) => r.type === type && r.physicalId).map((r) => r.physicalId);
  return {
    bucketNames: of('AWS::S3::Bucket'),
    fileSystemIds: of('AWS::S3Files::FileSystem').map(fileSystemIdOf),
    vpcIds: of('AWS::EC2::VPC'),
    clusterNames: of('Custom::AWSCDK-EKS-Cluster'),
    retainedRoles: retained.filter((r) => r.type === 'AWS::IAM::Role' && /ServiceRole/.test(r.logicalId) && /FileSystem/.test(r.logicalId) && r.physicalId).map((r) => r.physicalId),
  };
}

/** `removal.*`, `cfn.custom-resources-within-hour`, and the RETAIN cleanup's `service.errors-as-modelled` (a bucket it had to keep goes to `errors`). */
async function afterDestroy(cfn: CloudFormationClient, s3: S3Client, s3files: S3FilesClient, outputs: StackOutputs,
  stackIds: Map<string, string>, log: (m: string) => void, errors: string[]): Promise<AssertionOutcome[]> {
  const result: AssertionOutcome[] = [];
  const core = outputs[STACKS.core];
  if (core?.BucketName) {
    const bucketGone = await s3.send(new HeadBucketCommand({ Bucket: core.BucketName })).then(() => false, () => true);
    const fsGone = await s3files.send(new GetFileSystemCommand({ fileSystemId: core.FileSystemId })).then((f) => f.status === 'deleted', () => true);
    result.push({ id: 'removal.destroy-empties-bucket', status: bucketGone && fsGone ? 'confirmed' : 'refuted', evidence: { bucket: core.BucketName, bucketGone, fileSystem: core.FileSystemId, fileSystemGone: fsGone } });
  }
  const retain = outputs[STACKS.retain];
  if (retain?.BucketName) {
    const fsys = await s3files.send(new GetFileSystemCommand({ fileSystemId: retain.FileSystemId })).catch(() => undefined);
    const objects = await objectCount(s3, retain.BucketName, 'retain/').catch(() => 0);
    result.push({ id: 'removal.retain-keeps', status: fsys?.status === 'available' && objects > 0 ? 'confirmed' : 'refuted', evidence: { fileSystemStatus: fsys?.status ?? 'gone', objectsUnderRetain: objects } });
    const cleanup = await deleteRetained(s3, s3files, retain.FileSystemId, retain.BucketName, log);
    result.push(cleanup.outcome);
    // The bucket is left in place; the leftovers check lists it, and this names what it holds.
    if (cleanup.kept) errors.push(`retained cleanup: ${cleanup.kept}`);
  }
  const durations = [];
  for (const name of [STACKS.core, STACKS.retain, STACKS.lifecycle]) {
    if (stackIds.has(name)) durations.push(...customResourceDurations(await eventsOf(cfn, stackIds.get(name)!), /MountTargetsAvailable|DeleteGuard|BucketCleaner/).map((d) => ({ stack: name, ...d })));
  }
  if (durations.length) {
    const ok = durations.every((d) => d.ok && d.seconds < 3600);
    result.push({ id: 'cfn.custom-resources-within-hour', status: ok ? 'confirmed' : 'refuted', evidence: { longestSeconds: Math.max(...durations.map((d) => d.seconds)), failed: durations.filter((d) => !d.ok), count: durations.length } });
  }
  return result;
}

function versions(): Record<string, string> {
  const v = (p: string) => JSON.parse(fs.readFileSync(path.join(ROOT, p), 'utf8')).version as string;
  return { 'cdk-s3files-lambda': v('package.json'), 'aws-cdk-lib': v('node_modules/aws-cdk-lib/package.json'), 'aws-cdk (CLI)': v('node_modules/aws-cdk/package.json') };
}
