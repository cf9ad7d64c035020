import type { Suite } from './catalogue';

/** The verification app's stack names (fixed: the runner, the leftovers check and the snapshot use them). */
export const STACKS = {
  core: 'S3FilesVerifyCore',
  retain: 'S3FilesVerifyRetain',
  benchmark: 'S3FilesVerifyBenchmark',
  lifecycle: 'S3FilesVerifyLifecycle',
  batch: 'S3FilesVerifyBatch',
  agentcore: 'S3FilesVerifyAgentCore',
  eks: 'S3FilesVerifyEks',
} as const;

/** The IntegTest of each suite; its DeployAssert stack is `<test>DefaultTestDeployAssert<hash>`. */
export const INTEG_TESTS: Record<Suite, string> = {
  core: 'VerifyCore',
  lifecycle: 'VerifyLifecycle',
  batch: 'VerifyBatch',
  agentcore: 'VerifyAgentCore',
  eks: 'VerifyEks',
};

/** The test stacks of each suite. */
export const SUITE_STACKS: Record<Suite, readonly string[]> = {
  core: [STACKS.core, STACKS.retain, STACKS.benchmark],
  lifecycle: [STACKS.lifecycle],
  batch: [STACKS.batch],
  agentcore: [STACKS.agentcore],
  eks: [STACKS.eks],
};

/** Every resource of the app carries this tag (value "true"). */
export const VERIFY_TAG = 'cdk-s3files-lambda:verify';

/** The common start of the stack names: the leftovers check looks for names that begin with it. */
export const STACK_PREFIX = 'S3FilesVerify';
