import { AwsApiCall, ExpectedResult, IntegTest } from '@aws-cdk/integ-tests-alpha';
import { App, Aspects, CfnOutput, Duration, RemovalPolicy, Tags } from 'aws-cdk-lib';
import * as cxapi from 'aws-cdk-lib/cx-api';
import { ComparisonStack } from './stacks/comparison-stack';
import { EC2_RESULT_KEY, VerifyCoreStack } from './stacks/verify/core-stack';
import { EKS_ACCESS_POINT_FILE, EKS_ROOT_FILE, VerifyAgentCoreStack, VerifyBatchStack, VerifyEksStack } from './stacks/verify/opt-in-stacks';
import { LIFECYCLE_STEPS, VerifyLifecycleStack, VerifyRetainStack } from './stacks/verify/retain-lifecycle-stacks';
import { StableAssertionSalt } from './util';
import { assertStack, Chain, inSequence, probeAssertion, taskAssertion } from './verify/assertions';
import { constructIdOf } from './verify/catalogue';
import { STACKS, VERIFY_TAG } from './verify/stacks';

// The verification app of `npx projen verify` (docs/verification.md): every assumption the docs
// list as unconfirmed, asserted with integ-tests-alpha. Context: `integ:salt` (a new value per run
// re-runs every assertion), `verify:lifecycle-step` (0-4, LIFECYCLE_STEPS), `verify:agentcore-image`.
const app = new App({
  context: { [cxapi.DISABLE_CREATION_STACK_TRACES]: true, [cxapi.DISABLE_METADATA_STACK_TRACE]: true },
});
const salt: string = app.node.tryGetContext('integ:salt') ?? 'snapshot';
const step = LIFECYCLE_STEPS[Number(app.node.tryGetContext('verify:lifecycle-step') ?? 0)];
if (!step) throw new Error(`verify:lifecycle-step must be 0-${LIFECYCLE_STEPS.length - 1}`);
// Tagged, so that the leftovers check can tell this app's resources from anything else.
Tags.of(app).add(VERIFY_TAG, 'true');

// ---- core: Lambda, Fargate, EC2; the RETAIN stack; the benchmark stack -----------------------
const core = new VerifyCoreStack(app, STACKS.core);
const retain = new VerifyRetainStack(app, STACKS.retain);
const bench = new ComparisonStack(app, STACKS.benchmark, { removalPolicy: RemovalPolicy.DESTROY });
const coreTest = new IntegTest(app, 'VerifyCore', { testCases: [core, retain, bench] });
const task = (taskDefinition: typeof core.tasks.root) => ({
  cluster: core.cluster, taskDefinition, subnets: core.taskSubnets, securityGroups: core.taskSecurityGroups,
});
const fsId = core.fileSystem.fileSystemId;
inSequence([
  probeAssertion(coreTest, 'lambda.access-point-mount', core.writer, { check: 'write-read' }, salt),
  probeAssertion(coreTest, 'lambda.read-only-write-fails', core.reader, { check: 'write-denied' }, salt),
  probeAssertion(coreTest, 'lambda.uid0-root-access-s3-born', core.rootProbes.withAccess, { check: 's3-born-mkdir', expect: 'allowed' }, salt),
  probeAssertion(coreTest, 'lambda.uid0-without-root-access', core.rootProbes.withoutAccess, { check: 's3-born-mkdir', expect: 'denied' }, salt),
  probeAssertion(coreTest, 'lambda.uid1000-root-access-unchanged', core.rootProbes.userWithAccess, { check: 's3-born-mkdir', expect: 'denied' }, salt),
  probeAssertion(coreTest, 'sync.import-visible', core.writer, { check: 'import-delay', withinSeconds: 60 }, salt),
  probeAssertion(coreTest, 'sync.export-visible', core.writer, { check: 'export-delay', minSeconds: 30, maxSeconds: 180 }, salt),
  probeAssertion(coreTest, 'policy.size-as-counted', core.writer, { check: 'policy-size', fileSystemId: fsId }, salt),
  probeAssertion(coreTest, 'kms.file-system-key', core.writer, { check: 'file-system-key', fileSystemId: fsId, keyArn: core.fileSystemKey.keyArn }, salt),
]);
inSequence([
  probeAssertion(coreTest, 'ec2.access-point-mount', core.writer, { check: 'read-result', key: EC2_RESULT_KEY, part: 'accessPointMount' }, salt, Duration.minutes(35)),
  probeAssertion(coreTest, 'ec2.root-mount-refused', core.writer, { check: 'read-result', key: EC2_RESULT_KEY, part: 'rootMount' }, salt),
  taskAssertion(coreTest, 'ecs.access-point-mount', task(core.tasks.accessPoint), 'ran'),
  taskAssertion(coreTest, 'ecs.root-mount-refused', task(core.tasks.root), 'refused'),
  taskAssertion(coreTest, 'ecs.without-read-actions', task(core.tasks.withoutReads), 'refused'),
]);

// ---- lifecycle: one state per step; the runner deploys the steps in order --------------------
const lifecycle = new VerifyLifecycleStack(app, STACKS.lifecycle, { step });
const lifecycleTest = new IntegTest(app, 'VerifyLifecycle', { testCases: [lifecycle] });
// Only the current step's assertions exist in a synthesis (functions: built on demand).
const lifecycleChecks: Record<typeof step.name, () => Chain[]> = {
  'initial': () => [probeAssertion(lifecycleTest, 'lifecycle.initial', lifecycle.writer, { check: 'write-read' }, salt)],
  // The new prefix is in use: a file written through the new file system reaches S3 under it.
  'prefix-changed': () => [probeAssertion(lifecycleTest, 'lifecycle.prefix-changed', lifecycle.writer, { check: 'export-delay', minSeconds: 0, maxSeconds: 600 }, salt)],
  'read-only-toggled': () => [probeAssertion(lifecycleTest, 'lifecycle.read-only-toggled', lifecycle.writer, { check: 'write-denied' }, salt)],
  'client-added': () => [probeAssertion(lifecycleTest, 'lifecycle.client-added', lifecycle.extra!, { check: 'write-read' }, salt)],
  // Checked by the runner (the function must be gone, which an assertion cannot call).
  'client-removed': () => [],
};
const stepChecks = lifecycleChecks[step.name]();
if (stepChecks.length > 1) inSequence(stepChecks);

// ---- opt-in: Batch, AgentCore, EKS (each its own test, deployed only when asked) -------------
const batchStack = new VerifyBatchStack(app, STACKS.batch, { core });
const batchTest = new IntegTest(app, 'VerifyBatch', { testCases: [batchStack] });
for (const [id, job, expect] of [
  ['batch.access-point-mount', batchStack.accessPointJob, 'SUCCEEDED'],
  ['batch.root-mount-refused', batchStack.rootJob, 'FAILED'],
] as const) {
  const scope = assertStack(batchTest);
  const cid = constructIdOf(id);
  const submit = new AwsApiCall(scope, `${cid}Submit`, {
    service: 'Batch', api: 'submitJob', parameters: { jobName: `${cid}-${salt}`.slice(0, 128), jobQueue: batchStack.queue.jobQueueArn, jobDefinition: job.jobDefinitionArn },
  });
  const done = new AwsApiCall(scope, cid, { service: 'Batch', api: 'describeJobs', parameters: { jobs: [submit.getAttString('jobId')] } });
  done.assertAtPath('jobs.0.status', ExpectedResult.stringLikeRegexp(expect === 'SUCCEEDED' ? '^SUCCEEDED$' : '^FAILED$'))
    .waitForAssertions({ totalTimeout: Duration.minutes(30), interval: Duration.seconds(30) });
  new CfnOutput(scope, `Evidence${cid}`, { value: done.getAttString('jobs.0.statusReason') });
  submit.next(done);
}

const agentStack = new VerifyAgentCoreStack(app, STACKS.agentcore, {
  core, imageUri: app.node.tryGetContext('verify:agentcore-image') ?? '123456789012.dkr.ecr.us-east-1.amazonaws.com/your-agent:latest',
});
const agentTest = new IntegTest(app, 'VerifyAgentCore', { testCases: [agentStack] });
const ready = new AwsApiCall(assertStack(agentTest), constructIdOf('agentcore.runtime-ready'), {
  service: 'bedrock-agentcore-control', api: 'getAgentRuntime', parameters: { agentRuntimeId: agentStack.runtime.agentRuntimeId },
});
ready.assertAtPath('status', ExpectedResult.exact('READY'));
new CfnOutput(assertStack(agentTest), `Evidence${constructIdOf('agentcore.runtime-ready')}`, { value: ready.getAttString('status') });

const eksStack = new VerifyEksStack(app, STACKS.eks, { core });
const eksTest = new IntegTest(app, 'VerifyEks', { testCases: [eksStack] });
inSequence([
  probeAssertion(eksTest, 'eks.access-point-mount', core.writer, { check: 'file-appears', relativePath: EKS_ACCESS_POINT_FILE, waitSeconds: 900 }, salt),
  // A root mount would write at the file system's root, which S3 gets about a minute later.
  probeAssertion(eksTest, 'eks.root-mount-refused', core.writer, { check: 'object-absent', key: EKS_ROOT_FILE, waitSeconds: 300 }, salt),
]);

Aspects.of(app).add(new StableAssertionSalt(salt));
app.synth();
