import * as fs from 'fs';
import * as path from 'path';
import { ASSERTIONS } from '../../integ/verify/catalogue';
import { AssertionOutcome, benchmarkOutcomes, Benchmarks, complete, decodeEvidence, deployAssertOutcomes, StackOutputs } from '../../integ/verify/outcomes';
import { reportJson, reportMarkdown, RunRecord, verdicts } from '../../integ/verify/report';

// The report writer, fed what a run collects: the outputs file `cdk deploy --outputs-file` writes
// (integ-tests-alpha's AssertionResults/Evidence outputs, in the formats its handler and the probe
// write), the runner's outcomes and the benchmark function's answers (typed as the handler's own).
const outputs: StackOutputs = JSON.parse(fs.readFileSync(path.join(__dirname, 'fixtures', 'deploy-0.outputs.json'), 'utf8'));
const summary = (median: number) => ({ min: median - 10, median, max: median + 10 });
const phasesOf = (total: number) => ({
  listMs: summary(10),
  claimMs: summary(10),
  readMs: summary(10),
  processMs: summary(10),
  writeMs: summary(10),
  renameMs: summary(10),
  totalMs: summary(total),
});
const benchmarks: Benchmarks = {
  processors: {
    files: 20,
    runs: 3,
    minWords: 500,
    maxWords: 2000,
    seed: 1,
    seedVia: 's3',
    warnings: [],
    table: '| phase | S3 API | S3 Files |',
    s3api: { phases: phasesOf(3394), wallMs: summary(3500), runs: [] },
    s3files: { phases: phasesOf(664), wallMs: summary(800), runs: [] },
    speedUp: { listMs: 1, claimMs: 1, readMs: 1, processMs: 1, writeMs: 1, renameMs: 1, totalMs: 5.11, wallMs: 4.38 },
    sync: { exportDelayMs: 64_500, importDelayMs: 1_500 },
  },
  coldStart: {
    mode: 'coldStart',
    samples: 5,
    warnings: [],
    table: '| twin | init |',
    mounted: { functionName: 'm', initMs: summary(900), durationMs: summary(50), wallMs: summary(1200), samples: [] },
    unmounted: { functionName: 'u', initMs: summary(600), durationMs: summary(20), wallMs: summary(900), samples: [] },
    ratio: { initMs: 1.5, durationMs: 2.5, wallMs: 1.33 },
  },
  errors: { directRead: 'S3FilesVerifyBenchmark-Benchmark failed: {"errorMessage":"inbox/ holds files"}' },
};

function record(outcomes: AssertionOutcome[]): RunRecord {
  return {
    startedAt: '2026-11-28T10:00:00.000Z',
    finishedAt: '2026-11-28T12:12:00.000Z',
    region: 'eu-west-1',
    account: '111122223333',
    suites: ['core', 'lifecycle'],
    versions: { 'cdk-s3files-lambda': '0.0.0' },
    outcomes,
    benchmarks,
    phases: [{ phase: 'deploy and assert', seconds: 1500, ok: true }],
    leftovers: [{ kind: 'log group', id: '/aws/lambda/S3FilesVerifyCore-Writer', removeWith: 'aws logs delete-log-group --log-group-name /aws/lambda/S3FilesVerifyCore-Writer --region eu-west-1' }],
    errors: [],
  };
}

describe('the report of a run', () => {
  const deployAsserts = deployAssertOutcomes(outputs, ASSERTIONS.filter((a) => a.suite === 'core'), () => 'the assertion stack reported no result');
  const outcomes = complete([
    ...deployAsserts,
    { id: 'waiter.within-one-poll', status: 'confirmed', evidence: { lagSeconds: 6.2, limitSeconds: 15 } },
    ...benchmarkOutcomes(benchmarks),
  ], (spec) => `suite ${spec.suite} not asked for`);

  test('integ-tests-alpha outputs become outcomes: success → confirmed, fail → refuted with its message, absent → not run', () => {
    const by = (id: string) => outcomes.find((o) => o.id === id)!;
    expect(by('lambda.read-only-write-fails')).toEqual({ id: 'lambda.read-only-write-fails', status: 'confirmed', evidence: { writeError: 'EROFS' } });
    expect(by('ecs.root-mount-refused')).toEqual({
      id: 'ecs.root-mount-refused', status: 'refuted', evidence: 'Essential container in task exited', note: 'Expected TaskFailedToStart but received EssentialContainerExited',
    });
    expect(by('ec2.root-mount-refused')).toMatchObject({ status: 'not run', note: 'the assertion stack reported no result' });
    expect(by('batch.root-mount-refused')).toMatchObject({ status: 'not run', note: 'suite batch not asked for' });
    expect(outcomes.map((o) => o.id)).toEqual(ASSERTIONS.map((a) => a.id));
  });

  test('benchmarks are judged against the documented figures; a failed mode is not run, with the error', () => {
    expect(benchmarkOutcomes(benchmarks)).toEqual([
      expect.objectContaining({ id: 'bench.processors', status: 'confirmed', evidence: expect.objectContaining({ s3apiTotalMedianMs: 3394, s3filesTotalMedianMs: 664 }) }),
      expect.objectContaining({ id: 'bench.cold-start', status: 'confirmed', evidence: expect.objectContaining({ addedMs: 300 }) }),
      { id: 'bench.direct-read', status: 'not run', note: expect.stringContaining('inbox/ holds files') },
    ]);
  });

  test('an assumption is refuted by one refuted assertion, confirmed when all that ran confirm, not run when none ran', () => {
    const v = Object.fromEntries(verdicts(outcomes).map((a) => [a.id, a.status]));
    expect(v).toMatchObject({ 'root-mount-denied': 'refuted', 'read-only': 'confirmed', 'policy-size': 'confirmed', 'kms-deployer': 'not run', 'lifecycle': 'not run' });
  });

  test('report.json carries every assumption with its assertions, evidence and a summary', () => {
    const json = JSON.parse(JSON.stringify(reportJson(record(outcomes))));
    expect(json.schema).toBe('cdk-s3files-lambda/verify-report@1');
    expect(json.summary).toEqual({ 'confirmed': 6, 'refuted': 1, 'not run': ASSERTIONS.length - 7 });
    const policy = json.assumptions.find((a: { id: string }) => a.id === 'policy-size');
    expect(policy.assertions[0]).toMatchObject({ id: 'policy.size-as-counted', status: 'confirmed', evidence: { readBackLength: 631, compactJsonLength: 631 } });
  });

  test('report.md has the verdicts, the evidence, benchmark rows shaped like docs/performance.md, the leftovers and how to send it', () => {
    const md = reportMarkdown(record(outcomes));
    expect(md).toContain('**6 confirmed, 1 refuted, ' + (ASSERTIONS.length - 7) + ' not run.**');
    expect(md).toContain('| The file-system policy denies mounts of the root and nothing else (`root-mount-denied`) | **refuted** |');
    expect(md).toContain('| `ecs.root-mount-refused` | refuted |');
    expect(md).toContain('| What | Result |\n|---|---|\n| Processor in AWS, S3 API vs S3 Files (20 files × 3 runs, median total inside the handler) | 3,394 ms vs 664 ms (5.11×; wall clock 4.38×) |');
    expect(md).toContain('| Sync in AWS: write on the mount → HeadObject finds it; PutObject → the mount shows it | 64,500 ms; 1,500 ms |');
    expect(md).toContain('| Cold start in AWS, mounted vs unmounted twin (5 samples, median init) | 900 ms vs 600 ms (ratio 1.50×; first invoke 2.50×) |');
    expect(md).toContain('| Deploy wait in AWS: last mount target `available` → waiter done | {"lagSeconds":6.2,"limitSeconds":15} |');
    expect(md).toContain('| log group | /aws/lambda/S3FilesVerifyCore-Writer | `aws logs delete-log-group --log-group-name /aws/lambda/S3FilesVerifyCore-Writer --region eu-west-1` |');
    expect(md).toContain('"Verification report" template');
  });

  test('evidence that is not the probe\'s base64 JSON is kept as it is', () => {
    expect(decodeEvidence('READY')).toBe('READY');
    expect(decodeEvidence('b64:not base64 json')).toBe('b64:not base64 json');
  });
});

test('the issue template the report points to exists, takes report.json and the assumptions table', () => {
  // GIVEN the template the report names
  const yaml = jest.requireActual<typeof import('yaml')>('yaml');
  const form = yaml.parse(fs.readFileSync(path.join(__dirname, '..', '..', '.github', 'ISSUE_TEMPLATE', 'verification-report.yml'), 'utf8'));
  // THEN its name is the one report.md gives, and report.json and the table are required fields
  expect(form.name).toBe('Verification report');
  const required = form.body.filter((f: { validations?: { required?: boolean } }) => f.validations?.required).map((f: { id: string }) => f.id);
  expect(required).toEqual(expect.arrayContaining(['report', 'summary', 'versions']));
});
