/**
 * What `npx projen verify` settles in an AWS account: the assumptions listed in
 * docs/verification.md ("Assumed, and only an account can confirm"), each with the assertions that
 * settle it. Plain data (no CDK imports): the verification app builds its assertions from these
 * ids, the runner plans and reports with them, and test/verify/mapping.test.ts holds the docs,
 * this file, the app's snapshot and the runner's checks to each other.
 */

/** The suites the command can run; the first is always run, the others only when asked (they cost more). */
export const SUITES = ['core', 'lifecycle', 'batch', 'agentcore', 'eks'] as const;
export type Suite = typeof SUITES[number];
export const OPT_IN_SUITES: readonly Suite[] = ['batch', 'agentcore', 'eks'];

/** Where an assertion runs. */
export type AssertionKind =
  /** an integ-tests-alpha assertion in a DeployAssert stack (its outcome is a stack output) */
  | 'deploy-assert'
  /** a check the runner makes with the AWS SDK around deploy and destroy */
  | 'runner'
  /** a benchmark the runner invokes; its expectation is a documented figure */
  | 'benchmark';

export interface Assumption {
  /** Stable id, written in docs/verification.md as `(id)`. */
  readonly id: string;
  readonly title: string;
}

export interface AssertionSpec {
  /** Stable id, `<subject>.<what>`; named in docs/verification.md under its assumption. */
  readonly id: string;
  /** The assumption it settles (exactly one). */
  readonly assumption: string;
  readonly suite: Suite;
  readonly kind: AssertionKind;
  /** What is done. */
  readonly does: string;
  /** The outcome that confirms the assumption; anything else refutes it. */
  readonly confirmedWhen: string;
  /** Where the expectation comes from (an AWS page, the project's docs, a field report). */
  readonly source: string;
}

export const ASSUMPTIONS: readonly Assumption[] = [
  { id: 'root-mount-denied', title: 'The file-system policy denies mounts of the root and nothing else' },
  { id: 'client-roles', title: 'Every compute mounts with the role the library grants' },
  { id: 'read-only', title: 'A client granted only ClientMount cannot write' },
  { id: 'root-access', title: 'What uid 0 with ClientRootAccess may do on S3-born entries' },
  { id: 'service-states', title: 'The service\'s states and errors, and the custom resources\' time' },
  { id: 'removal', title: 'Stack deletion with DESTROY and RETAIN' },
  { id: 'lifecycle', title: 'Updates that docs/lifecycle.md models as one deployment' },
  { id: 'policy-size', title: 'How S3 Files counts the file-system policy\'s 20,000 characters' },
  { id: 'kms-deployer', title: 'The KMS rights a fileSystemEncryptionKey needs' },
  { id: 'performance', title: 'Sync delays, cold starts, direct reads and the processors\' speed-up' },
];

const S3F_IAM = 'https://docs.aws.amazon.com/AmazonS3/latest/userguide/s3-files-security-iam.html';
const EFS_IAM = 'https://docs.aws.amazon.com/efs/latest/ug/iam-access-control-nfs-efs.html';
const FIELD_REPORT = 'a third-party field report (docs/computes.md): ECS and AgentCore check these reads';
const LIFECYCLE = 'docs/lifecycle.md, "Lifecycle"';

function mountPair(compute: string, suite: Suite, how: string): AssertionSpec[] {
  return [
    {
      id: `${compute}.access-point-mount`,
      assumption: 'client-roles',
      suite,
      kind: 'deploy-assert',
      does: `${how} through an access point, with only the grants the library's mount makes, and writes and reads a file`,
      confirmedWhen: 'the mount succeeds and the file reads back',
      source: S3F_IAM,
    },
    {
      id: `${compute}.root-mount-refused`,
      assumption: 'root-mount-denied',
      suite,
      kind: 'deploy-assert',
      does: `${how} without an access point, with a role allowed every client action on the file system (no access-point condition)`,
      confirmedWhen: 'the mount is refused (only the file-system policy\'s Deny can refuse it)',
      source: `${S3F_IAM} (condition key s3files:AccessPointArn); IAM: a negated condition on an absent key is true`,
    },
  ];
}

export const ASSERTIONS: readonly AssertionSpec[] = [
  // Lambda and AgentCore take only an access point ARN: a root mount cannot be asked for.
  ...mountPair('lambda', 'core', 'A Lambda function mounts').filter((a) => a.id !== 'lambda.root-mount-refused'),
  ...mountPair('ecs', 'core', 'A Fargate task mounts'),
  ...mountPair('ec2', 'core', 'An EC2 instance (amazon-efs-utils) mounts'),
  ...mountPair('batch', 'batch', 'A Batch job on Fargate mounts'),
  ...mountPair('eks', 'eks', 'A pod (EFS CSI driver) mounts'),
  {
    id: 'ecs.without-read-actions',
    assumption: 'client-roles',
    suite: 'core',
    kind: 'deploy-assert',
    does: 'A Fargate task mounts through the access point with ClientMount+ClientWrite only (no s3files:GetAccessPoint, no s3files:ListMountTargets)',
    confirmedWhen: 'the task fails to start (ECS validates with those reads, as the field report says)',
    source: FIELD_REPORT,
  },
  {
    id: 'agentcore.runtime-ready',
    assumption: 'client-roles',
    suite: 'agentcore',
    kind: 'deploy-assert',
    does: 'An AgentCore runtime is created with the access point mounted (AgentCoreMount.onRuntime) from the image you pass',
    confirmedWhen: 'the runtime is READY (the service accepted the mount with the library\'s grants)',
    source: FIELD_REPORT,
  },
  {
    id: 'lambda.read-only-write-fails',
    assumption: 'read-only',
    suite: 'core',
    kind: 'deploy-assert',
    does: 'A function mounted with readOnly (ClientMount only) writes a file',
    confirmedWhen: 'the write fails with EROFS (EFS documents ClientMount as read-only access)',
    source: EFS_IAM,
  },
  {
    id: 'lambda.uid0-root-access-s3-born',
    assumption: 'root-access',
    suite: 'core',
    kind: 'deploy-assert',
    does: 'Through an access point with uid 0 and ClientRootAccess, creates a directory inside a directory that an S3 PutObject made',
    confirmedWhen: 'the directory is created',
    source: `${S3F_IAM} ("accessing files as the root user")`,
  },
  {
    id: 'lambda.uid0-without-root-access',
    assumption: 'root-access',
    suite: 'core',
    kind: 'deploy-assert',
    does: 'The same through an access point with uid 0 without ClientRootAccess',
    confirmedWhen: 'it fails with EACCES or EPERM (root squashed, as in EFS)',
    source: EFS_IAM,
  },
  {
    id: 'lambda.uid1000-root-access-unchanged',
    assumption: 'root-access',
    suite: 'core',
    kind: 'deploy-assert',
    does: 'The same through an access point with uid 1000 and ClientRootAccess',
    confirmedWhen: 'it fails with EACCES or EPERM (the access point\'s user replaces the client\'s identity)',
    source: EFS_IAM,
  },
  {
    id: 'waiter.within-one-poll',
    assumption: 'service-states',
    suite: 'core',
    kind: 'runner',
    does: 'Polls ListMountTargets every 5 s during the deploy and compares the last mount target\'s `available` with the waiter\'s CREATE_COMPLETE',
    confirmedWhen: 'the waiter completes at most one poll interval (10 s) plus the runner\'s 5 s resolution later',
    source: 'docs/performance.md ("Deploy wait")',
  },
  {
    id: 'service.states-in-model',
    assumption: 'service-states',
    suite: 'core',
    kind: 'runner',
    does: 'Records every mount-target and access-point status seen while polling',
    confirmedWhen: 'each is one of the API model\'s values (creating, available, updating, deleting, deleted, error)',
    source: 'the S3 Files API model (2025-05-05)',
  },
  {
    id: 'service.errors-as-modelled',
    assumption: 'service-states',
    suite: 'core',
    kind: 'runner',
    does: 'Deletes the RETAIN stack\'s file system and bucket, as docs/lifecycle.md tells users to, and records each error code',
    confirmedWhen: 'every error seen is one the handlers expect (ConflictException for pending exports, BucketHasS3FileSystemAttached while detaching); not run when none occurs',
    source: 'S3 user guide, deleting S3 file systems (docs/lifecycle.md)',
  },
  {
    id: 'cfn.custom-resources-within-hour',
    assumption: 'service-states',
    suite: 'core',
    kind: 'runner',
    does: 'Reads the stack events of the waiter, delete guard and bucket cleaner on deploy and destroy',
    confirmedWhen: 'each finished, in under 3,600 s',
    source: 'CloudFormation custom resources time out after one hour',
  },
  {
    id: 'removal.destroy-empties-bucket',
    assumption: 'removal',
    suite: 'core',
    kind: 'runner',
    does: '`cdk destroy` of the DESTROY stack (which holds files), then HeadBucket and GetFileSystem',
    confirmedWhen: 'the bucket and the file system are gone',
    source: 'docs/lifecycle.md ("Stack deletion", DESTROY)',
  },
  {
    id: 'removal.retain-keeps',
    assumption: 'removal',
    suite: 'core',
    kind: 'runner',
    does: '`cdk destroy` of the RETAIN stack, then GetFileSystem and ListObjectsV2',
    confirmedWhen: 'the file system is still `available` and the bucket keeps its objects',
    source: 'docs/lifecycle.md ("Stack deletion", RETAIN)',
  },
  ...(['initial', 'prefix-changed', 'read-only-toggled', 'client-added', 'client-removed'] as const).map((step): AssertionSpec => ({
    // A removed function can only be looked for from outside (an assertion cannot expect an error).
    id: `lifecycle.${step}`,
    assumption: 'lifecycle',
    suite: 'lifecycle',
    kind: step === 'client-removed' ? 'runner' : 'deploy-assert',
    does: step === 'initial' ? 'Deploys the lifecycle stack and checks its clients'
      : `Deploys the update (${step.replace(/-/g, ' ')}) over the previous step and checks the clients`,
    confirmedWhen: 'the update deploys and every client of the step mounts as the step says (writes where it may, is refused where it may not, is gone when removed)',
    source: LIFECYCLE,
  })),
  {
    id: 'policy.size-as-counted',
    assumption: 'policy-size',
    suite: 'core',
    kind: 'deploy-assert',
    does: 'Reads the file-system policy back with GetFileSystemPolicy',
    confirmedWhen: 'its length equals the compact JSON length of the same document (what the library\'s 20,000-character check counts)',
    source: 'S3 user guide, S3 Files quotas: a file-system policy of at most 20,000 characters',
  },
  {
    id: 'kms.file-system-key',
    assumption: 'kms-deployer',
    suite: 'core',
    kind: 'deploy-assert',
    does: 'Deploys a file system with fileSystemEncryptionKey through the CDK deploy roles and reads it back (GetFileSystem)',
    confirmedWhen: 'the file system is `available` with that key (which narrower deployer rights would do stays open)',
    source: 'https://docs.aws.amazon.com/AmazonS3/latest/userguide/s3-files-encryption.html',
  },
  {
    id: 'sync.import-visible',
    assumption: 'performance',
    suite: 'core',
    kind: 'deploy-assert',
    does: 'PutObject under the access point\'s prefix, then polls the mount until the file is there whole',
    confirmedWhen: 'it appears within 60 s (the slowest third-party report: 30–60 s)',
    source: 'third-party measurements (README, "Things to know about S3 Files")',
  },
  {
    id: 'sync.export-visible',
    assumption: 'performance',
    suite: 'core',
    kind: 'deploy-assert',
    does: 'Writes a file on the mount, then polls HeadObject until S3 has it',
    confirmedWhen: 'it appears within 30–180 s ("about a minute"; measured 64–70 s by third parties)',
    source: 'third-party measurements (README, "Things to know about S3 Files")',
  },
  {
    id: 'bench.processors',
    assumption: 'performance',
    suite: 'core',
    kind: 'benchmark',
    does: 'Runs the comparison benchmark (20 files × 3 runs, measureSync) on the S3 API and S3 Files processors',
    confirmedWhen: 'the S3 Files processor\'s median total is lower than the S3 API processor\'s (third party: 664 vs 3,394 ms)',
    source: 'docs/performance.md',
  },
  {
    id: 'bench.cold-start',
    assumption: 'performance',
    suite: 'core',
    kind: 'benchmark',
    does: 'Runs the benchmark\'s coldStart mode (5 samples of a mounted and an unmounted twin)',
    confirmedWhen: 'the mount adds less than 2 s to the median init duration (no documented figure; 2 s is the top of the third-party figure for a VPC)',
    source: 'README, "Things to know about S3 Files"',
  },
  {
    id: 'bench.direct-read',
    assumption: 'performance',
    suite: 'core',
    kind: 'benchmark',
    does: 'Runs the benchmark\'s directRead mode (10 files × 3 runs per size and mode)',
    confirmedWhen: 'ENABLED reads the large files faster than DISABLED (direct reads: "highest throughput")',
    source: 'docs/reference.md (direct reads: the S3 Files docs call them "highest throughput")',
  },
];

/** The construct id (and so the stack output names) of a deploy-assert assertion: `lambda.access-point-mount` → `VerifyLambdaAccessPointMount`. */
export function constructIdOf(assertionId: string): string {
  return 'Verify' + assertionId.split(/[.-]/).map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
}

export function assertionById(id: string): AssertionSpec {
  const found = ASSERTIONS.find((a) => a.id === id);
  if (!found) throw new Error(`no assertion ${id} in integ/verify/catalogue.ts`);
  return found;
}
