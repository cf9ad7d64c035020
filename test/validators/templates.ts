import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, NestedStack, RemovalPolicy, Size, Stack, Validations } from 'aws-cdk-lib';
import * as autoscaling from 'aws-cdk-lib/aws-autoscaling';
import * as batch from 'aws-cdk-lib/aws-batch';
import * as agentcore from 'aws-cdk-lib/aws-bedrockagentcore';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as cxapi from 'aws-cdk-lib/cx-api';
import { ComparisonStack } from '../../integ/stacks/comparison-stack';
import { CrossComputeStack } from '../../integ/stacks/cross-compute-stack';
import { Ec2BenchmarkStack } from '../../integ/stacks/ec2-benchmark-stack';
import { SharedFileSystemStack } from '../../integ/stacks/shared-file-system-stack';
import { VerifyCoreStack } from '../../integ/stacks/verify/core-stack';
import { VerifyAgentCoreStack, VerifyBatchStack, VerifyEksStack } from '../../integ/stacks/verify/opt-in-stacks';
import { LIFECYCLE_STEPS, VerifyLifecycleStack, VerifyRetainStack } from '../../integ/stacks/verify/retain-lifecycle-stacks';
import { AgentCoreMount, BatchMount, Ec2Mount, EcsMount, EksMount, ImportTrigger, LambdaMount, MountTargetIpAddressType, S3FilesAccessPoint, S3FilesFileSystem, S3FilesMonitoring, S3FilesMountedFunction } from '../../src';
import { newCluster, newClusterV2 } from '../util/eks';
import { oncePerRun } from '../util/once-per-run';

/** Every stack the external validators look at: the integ app's, and library set-ups it doesn't show. */
export function buildValidatorApp(outdir: string): App {
  // aws-cdk-lib's own CloudFormation validation, strict: any finding fails the synthesis (see synthStrict).
  const app = new App({ outdir, context: { [cxapi.STRICT_CFN_VALIDATE_ERRORS]: true } });
  new ComparisonStack(app, 'S3FilesComparison');
  new SharedFileSystemStack(app, 'S3FilesSharedFileSystem');
  new ComparisonStack(app, 'S3FilesComparisonDestroy', { removalPolicy: RemovalPolicy.DESTROY });
  new CrossComputeStack(app, 'S3FilesCrossCompute');
  new Ec2BenchmarkStack(app, 'S3FilesEc2Benchmark');

  // The L3 on its own: it makes the VPC, bucket, file system and access point.
  const minimal = new Stack(app, 'MinimalMountedFunction');
  new S3FilesMountedFunction(minimal, 'Function', {
    runtime: lambda.Runtime.NODEJS_24_X,
    handler: 'index.handler',
    code: lambda.Code.fromInline('exports.handler = async () => ({})'),
  });

  // An imported bucket (versioning checked at deploy time) in a VPC with private-with-egress subnets.
  const imported = new Stack(app, 'ImportedBucket');
  const vpc = new ec2.Vpc(imported, 'Vpc', { maxAzs: 3, natGateways: 1 });
  // Test-only stack: its VPC stands for one the user brings.
  Validations.of(vpc).acknowledge({ id: 'AwsSolutions-VPC7', reason: 'Test-only stand-in for a user VPC; flow logs are the VPC owner\'s choice.' });
  const fileSystem = new S3FilesFileSystem(imported, 'FileSystem', {
    vpc,
    bucket: s3.Bucket.fromBucketName(imported, 'Bucket', 'an-existing-versioned-bucket'),
    prefix: 'data/',
  });
  new S3FilesMountedFunction(imported, 'Reader', {
    runtime: lambda.Runtime.NODEJS_24_X,
    handler: 'index.handler',
    code: lambda.Code.fromInline('exports.handler = async () => ({})'),
    s3FileSystem: fileSystem,
    readOnly: true,
    directS3Read: lambda.DirectS3Read.disabled(),
  });

  // Every optional CloudFormation property of the file system and mount targets: its own KMS key,
  // dual-stack mount targets, several import rules, acceptBucketWarning.
  const full = new Stack(app, 'FullSurface');
  const dualStack = new ec2.Vpc(full, 'Vpc', {
    maxAzs: 2,
    natGateways: 0,
    ipProtocol: ec2.IpProtocol.DUAL_STACK,
    subnetConfiguration: [{ name: 'Isolated', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }],
  });
  Validations.of(dualStack).acknowledge({ id: 'AwsSolutions-VPC7', reason: 'Test-only stand-in for a user VPC; flow logs are the VPC owner\'s choice.' });
  const fullSurface = new S3FilesFileSystem(full, 'Files', {
    vpc: dualStack,
    fileSystemEncryptionKey: new kms.Key(full, 'FileSystemKey', { enableKeyRotation: true }),
    mountTargetIpAddressType: MountTargetIpAddressType.DUAL_STACK,
    importDataRules: [{ prefix: '' }, { prefix: 'models/', sizeLessThan: Size.gibibytes(1), trigger: ImportTrigger.ON_FILE_ACCESS }],
    acceptBucketWarning: true,
  });
  new S3FilesMountedFunction(full, 'Function', {
    runtime: lambda.Runtime.NODEJS_24_X,
    handler: 'index.handler',
    code: lambda.Code.fromInline('exports.handler = async () => ({})'),
    s3FileSystem: fullSurface,
  });

  // Storage in one stack, compute in a sibling stack and in a nested stack (the common layout).
  const storage = new Stack(app, 'MultiStackStorage');
  const sharedVpc = new ec2.Vpc(storage, 'Vpc', {
    maxAzs: 2, natGateways: 0, subnetConfiguration: [{ name: 'Isolated', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }],
  });
  Validations.of(sharedVpc).acknowledge({ id: 'AwsSolutions-VPC7', reason: 'Test-only stand-in for a user VPC; flow logs are the VPC owner\'s choice.' });
  const shared = new S3FilesFileSystem(storage, 'Files', { vpc: sharedVpc, removalPolicy: RemovalPolicy.DESTROY });
  new S3FilesMonitoring(storage, 'Monitoring', { fileSystem: shared });
  const compute = new Stack(app, 'MultiStackCompute');
  const fn = { runtime: lambda.Runtime.NODEJS_24_X, handler: 'index.handler', code: lambda.Code.fromInline('exports.handler = async () => ({})') };
  new S3FilesMountedFunction(compute, 'Own', { ...fn, s3FileSystem: shared });
  const sharedAccessPoint = new S3FilesAccessPoint(compute, 'Shared', { fileSystem: shared, path: '/shared' });
  new S3FilesMountedFunction(compute, 'Writer', { ...fn, accessPoint: sharedAccessPoint });
  new S3FilesMountedFunction(compute, 'Reader', { ...fn, accessPoint: sharedAccessPoint, readOnly: true });
  new S3FilesMountedFunction(new NestedStack(storage, 'Workers'), 'Worker', { ...fn, s3FileSystem: shared });

  // A user's own function (not the L3) mounting the storage stack's file system through an access point.
  const usersOwn = new lambda.Function(compute, 'UsersOwn', { ...fn, vpc: sharedVpc });
  LambdaMount.onFunction(usersOwn, sharedAccessPoint, { directS3Read: lambda.DirectS3Read.disabled() });
  acknowledgeUserRole(usersOwn);

  // Every other compute mounting the storage stack's access point: a Fargate service, a Batch job
  // (with its compute environment), an EC2 instance, an Auto Scaling group and an AgentCore runtime.
  const others = new Stack(app, 'OtherCompute');
  const image = ecs.ContainerImage.fromRegistry('public.ecr.aws/docker/library/busybox:stable');
  const cluster = new ecs.Cluster(others, 'Cluster', { vpc: sharedVpc, containerInsightsV2: ecs.ContainerInsights.ENHANCED });
  const taskDefinition = new ecs.FargateTaskDefinition(others, 'Reader');
  taskDefinition.addContainer('app', { image });
  const service = new ecs.FargateService(others, 'Service', { cluster, taskDefinition, vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED } });
  EcsMount.onService(service, sharedAccessPoint, { readOnly: true });
  const jobRole = new iam.Role(others, 'JobRole', { assumedBy: new iam.ServicePrincipal('ecs-tasks.amazonaws.com') });
  const job = new batch.EcsJobDefinition(others, 'Job', {
    container: new batch.EcsFargateContainerDefinition(others, 'JobContainer', { image, cpu: 1, memory: Size.gibibytes(2), jobRole }),
  });
  const computeEnvironment = new batch.FargateComputeEnvironment(others, 'Env', { vpc: sharedVpc, vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED } });
  BatchMount.onJobDefinition(job, sharedAccessPoint, { computeEnvironment });
  const machineImage = ec2.MachineImage.latestAmazonLinux2023({ cpuType: ec2.AmazonLinuxCpuType.ARM_64 });
  const instanceType = ec2.InstanceType.of(ec2.InstanceClass.T4G, ec2.InstanceSize.MICRO);
  const blockDevices = [{ deviceName: '/dev/xvda', volume: ec2.BlockDeviceVolume.ebs(8, { encrypted: true }) }];
  const host = new ec2.Instance(others, 'Host', {
    vpc: sharedVpc,
    vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
    instanceType,
    machineImage,
    requireImdsv2: true,
    detailedMonitoring: true,
    blockDevices,
  });
  Ec2Mount.onInstance(host, sharedAccessPoint);
  const launchTemplate = new ec2.LaunchTemplate(others, 'FleetTemplate', {
    instanceType,
    machineImage,
    requireImdsv2: true,
    blockDevices,
    userData: ec2.UserData.forLinux(),
    role: new iam.Role(others, 'FleetRole', { assumedBy: new iam.ServicePrincipal('ec2.amazonaws.com') }),
    securityGroup: new ec2.SecurityGroup(others, 'FleetGroup', { vpc: sharedVpc, allowAllOutbound: false }),
  });
  Ec2Mount.onLaunchTemplate(launchTemplate, sharedAccessPoint, { readOnly: true });
  new autoscaling.AutoScalingGroup(others, 'Fleet', {
    vpc: sharedVpc, vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED }, launchTemplate,
  });
  const agent = new agentcore.Runtime(others, 'Agent', {
    runtimeName: 'agent',
    agentRuntimeArtifact: agentcore.AgentRuntimeArtifact.fromImageUri('123456789012.dkr.ecr.us-east-1.amazonaws.com/agent:latest'),
    networkConfiguration: agentcore.RuntimeNetworkConfiguration.usingVpc(others, {
      vpc: sharedVpc, vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
    }),
  });
  AgentCoreMount.onRuntime(agent, sharedAccessPoint);
  acknowledgeUserCompute(others);

  // A file system of another app, imported by attributes, mounted read-only on a user's function.
  const consumer = new Stack(app, 'ImportedFileSystem');
  const theirVpc = ec2.Vpc.fromVpcAttributes(consumer, 'Vpc', {
    vpcId: 'vpc-0123456789abcdef0', availabilityZones: ['us-east-1a', 'us-east-1b'], isolatedSubnetIds: ['subnet-0aaaaaaaaaaaaaaaa', 'subnet-0bbbbbbbbbbbbbbbb'],
  });
  const theirs = S3FilesFileSystem.fromFileSystemAttributes(consumer, 'Theirs', {
    fileSystemId: 'fs-0123456789abcdef0',
    vpc: theirVpc,
    mountTargetAvailabilityZones: ['us-east-1a', 'us-east-1b'],
    securityGroups: [ec2.SecurityGroup.fromSecurityGroupId(consumer, 'MountTargets', 'sg-0123456789abcdef0')],
    bucket: s3.Bucket.fromBucketName(consumer, 'Bucket', 'their-bucket'),
    prefix: 'shared/',
  });
  const reader = new lambda.Function(consumer, 'Reader', { ...fn, vpc: theirVpc });
  const team = S3FilesAccessPoint.fromAccessPointAttributes(consumer, 'Team', { fileSystem: theirs, accessPointId: 'fsap-0123456789abcdef0' });
  LambdaMount.onFunction(reader, team, { readOnly: true });
  acknowledgeUserRole(reader);
  // A new access point on that imported file system: it gets a waiter (and provider) of its own.
  const writer = new lambda.Function(consumer, 'Writer', { ...fn, vpc: theirVpc });
  LambdaMount.onFunction(writer, new S3FilesAccessPoint(consumer, 'Uploads', { fileSystem: theirs, path: '/uploads' }));
  acknowledgeUserRole(writer);

  // EKS: a cluster with a managed node group, the driver add-on with its Pod Identity roles, a
  // read-write and a read-only volume and a storage class on the storage stack's file system.
  const kubernetes = new Stack(app, 'Kubernetes');
  const eksVpc = new ec2.Vpc(kubernetes, 'Vpc', { maxAzs: 2, natGateways: 1 });
  Validations.of(eksVpc).acknowledge({ id: 'AwsSolutions-VPC7', reason: 'Test-only stand-in for a user VPC; flow logs are the VPC owner\'s choice.' });
  const data = new S3FilesFileSystem(kubernetes, 'Files', { vpc: eksVpc, vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS } });
  const eksCluster = newCluster(kubernetes, eksVpc);
  EksMount.installDriver(eksCluster, { addonVersion: 'v3.0.0-eksbuild.1' });
  EksMount.onCluster(eksCluster, data.addAccessPoint('Shared', { path: '/shared' }), { claimName: 'shared', namespace: 'app' });
  EksMount.onCluster(eksCluster, data.addAccessPoint('Models', { path: '/models' }), { claimName: 'models', namespace: 'app', readOnly: true });
  EksMount.addStorageClass(eksCluster, data, { storageClassName: 's3files' });
  acknowledgeUserCluster(kubernetes);

  // EKS on aws-eks-v2 (issue 40.7): an EKS Auto Mode cluster with its kubectl handler, the driver,
  // a read-write and a read-only volume and a storage class, nodes named by a security group of
  // their own (a NodeClass's, say).
  const kubernetesV2 = new Stack(app, 'KubernetesV2');
  const v2Vpc = new ec2.Vpc(kubernetesV2, 'Vpc', { maxAzs: 2, natGateways: 1 });
  Validations.of(v2Vpc).acknowledge({ id: 'AwsSolutions-VPC7', reason: 'Test-only stand-in for a user VPC; flow logs are the VPC owner\'s choice.' });
  const v2Data = new S3FilesFileSystem(kubernetesV2, 'Files', { vpc: v2Vpc, vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS } });
  const autoMode = newClusterV2(kubernetesV2, v2Vpc);
  const nodeClassGroup = new ec2.SecurityGroup(kubernetesV2, 'NodeClassNodes', { vpc: v2Vpc, description: 'Nodes of a custom NodeClass' });
  EksMount.installDriver(autoMode, { addonVersion: 'v3.0.0-eksbuild.1', nodeSecurityGroups: [nodeClassGroup] });
  EksMount.onCluster(autoMode, v2Data.addAccessPoint('Shared', { path: '/shared' }), { claimName: 'shared', namespace: 'app' });
  EksMount.onCluster(autoMode, v2Data.addAccessPoint('Models', { path: '/models' }), { claimName: 'models', namespace: 'app', readOnly: true });
  EksMount.addStorageClass(autoMode, v2Data, { storageClassName: 's3files' });
  acknowledgeUserClusterV2(kubernetesV2);

  // The verification app of `npx projen verify` (integ/verify.integ.ts): its test stacks, with the
  // lifecycle stack in the step that has every change at once (new prefix, read-only, extra client).
  const verifyCore = new VerifyCoreStack(app, 'S3FilesVerifyCore');
  new VerifyRetainStack(app, 'S3FilesVerifyRetain');
  new VerifyLifecycleStack(app, 'S3FilesVerifyLifecycle', { step: LIFECYCLE_STEPS.find((s) => s.name === 'client-added')! });
  new VerifyBatchStack(app, 'S3FilesVerifyBatch', { core: verifyCore });
  new VerifyAgentCoreStack(app, 'S3FilesVerifyAgentCore', { core: verifyCore, imageUri: '123456789012.dkr.ecr.us-east-1.amazonaws.com/agent:latest' });
  acknowledgeUserCluster(new VerifyEksStack(app, 'S3FilesVerifyEks', { core: verifyCore }));
  return app;
}

/**
 * The EKS cluster in Kubernetes is the user's, built with aws-eks's defaults: its findings (its
 * roles' managed policies, endpoint and logging, aws-eks's provider functions) are not about what
 * the library adds (the S3FilesCsiDriver construct), which has none.
 */
function acknowledgeUserCluster(stack: Stack): void {
  const user = 'Test-only stand-in for a user\'s EKS cluster, built with aws-eks\'s defaults';
  const lambdaPolicies = ['service-role/AWSLambdaBasicExecutionRole', 'service-role/AWSLambdaVPCAccessExecutionRole']
    .map((p) => `AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/${p}]`);
  const findings: Array<[string, string[], string]> = [
    ['Cluster', [
      ...lambdaPolicies,
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/AmazonEC2ContainerRegistryPullOnly]',
      'AwsSolutions-IAM4[Policy::{"Fn::If":["ClusterHasEcrPublic8EE1114E",{"Fn::Join":["",["arn:",{"Ref":"AWS::Partition"},'
        + '":iam::aws:policy/AmazonElasticContainerRegistryPublicReadOnly"]]},{"Ref":"AWS::NoValue"}]}]',
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/AmazonEKSClusterPolicy]',
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/AmazonEKSWorkerNodePolicy]',
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/AmazonEKS_CNI_Policy]',
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly]',
      'AwsSolutions-IAM5[Resource::*]',
      'AwsSolutions-EKS1',
      ...['api', 'audit', 'authenticator', 'controllerManager', 'scheduler'].map((l) => `AwsSolutions-EKS2[LogExport::${l}]`),
    ], `${user}: its roles, endpoint access and control-plane logging are the user's choice.`],
    ['@aws-cdk--aws-eks.ClusterResourceProvider', [
      ...lambdaPolicies,
      ...['OnEventHandler42BEBAE0', 'IsCompleteHandler7073F4DA', 'ProviderframeworkisComplete26D7B0CB', 'ProviderframeworkonTimeout0B47CA38']
        .map((f) => `AwsSolutions-IAM5[Resource::<${f}.Arn>:*]`),
      'AwsSolutions-SF1',
      'AwsSolutions-SF2',
    ], `${user}: aws-eks's cluster resource provider.`],
    ['@aws-cdk--aws-eks.KubectlProvider', [...lambdaPolicies, 'AwsSolutions-L1', 'AwsSolutions-IAM5[Resource::<Handler886CB40B.Arn>:*]'],
      `${user}: aws-eks's kubectl provider.`],
  ];
  for (const [id, ids, reason] of findings) {
    for (const finding of ids) Validations.of(stack.node.findChild(id)).acknowledge({ id: finding, reason });
  }
}

/** The aws-eks-v2 cluster in KubernetesV2 is the user's, built with aws-eks-v2's defaults: its findings are not about what the library adds. */
function acknowledgeUserClusterV2(stack: Stack): void {
  const user = 'Test-only stand-in for a user\'s EKS Auto Mode cluster, built with aws-eks-v2\'s defaults';
  const managed = (p: string) => `AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/${p}]`;
  const ids = [
    ...['AmazonEKSClusterPolicy', 'AmazonEKSComputePolicy', 'AmazonEKSBlockStoragePolicy', 'AmazonEKSLoadBalancingPolicy', 'AmazonEKSNetworkingPolicy',
      'AmazonEKSWorkerNodePolicy', 'AmazonEC2ContainerRegistryReadOnly', 'service-role/AWSLambdaBasicExecutionRole', 'service-role/AWSLambdaVPCAccessExecutionRole'].map(managed),
    'AwsSolutions-IAM4[Policy::{"Fn::If":["ClusterKubectlProviderHandlerHasEcrPublic69E09706",{"Fn::Join":["",["arn:",{"Ref":"AWS::Partition"},'
      + '":iam::aws:policy/AmazonElasticContainerRegistryPublicReadOnly"]]},{"Ref":"AWS::NoValue"}]}]',
    'AwsSolutions-L1',
    'AwsSolutions-IAM5[Resource::<ClusterKubectlProviderHandler2E05C68A.Arn>:*]',
  ];
  for (const finding of ids) {
    Validations.of(stack.node.findChild('Cluster')).acknowledge({ id: finding, reason: `${user}: its roles (Auto Mode's managed policies) and its kubectl handler are the user's choice.` });
  }
}

/**
 * The compute in OtherCompute is the user's, built with aws-cdk-lib's defaults: findings about it
 * (not about what the library adds) are the user's choices.
 */
function acknowledgeUserCompute(stack: Stack): void {
  const user = 'Test-only stand-in for a user\'s compute, built with aws-cdk-lib\'s defaults';
  const findings: Array<[string, string[], string]> = [
    ['Reader', ['AwsSolutions-ECS7'], `${user}: container logging is the user's choice.`],
    ['Host', ['AwsSolutions-EC26', 'AwsSolutions-EC29'], `${user}: disk encryption settings and termination protection are the user's choice.`],
    ['Fleet', ['AwsSolutions-AS3'], `${user}: scaling notifications are the user's choice.`],
    ['JobContainer', ['AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:/aws/batch/job:*]'],
      `${user}: aws-cdk-lib's Batch execution role writes to any Batch job log stream.`],
    ['Agent', [
      'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:/aws/bedrock-agentcore/runtimes/*]',
      'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:*]',
      'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:/aws/bedrock-agentcore/runtimes/*:log-stream:*]',
      'AwsSolutions-IAM5[Resource::*]',
      'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:bedrock-agentcore:<AWS::Region>:<AWS::AccountId>:workload-identity-directory/default/workload-identity/*]',
    ], `${user}: aws-cdk-lib's AgentCore Runtime grants its execution role logs, X-Ray, metrics and workload identity.`],
  ];
  for (const [id, ids, reason] of findings) {
    for (const finding of ids) Validations.of(stack.node.findChild(id)).acknowledge({ id: finding, reason });
  }
}

/** A user's own lambda.Function: its role's AWS managed policies are the user's choice, not the library's. */
function acknowledgeUserRole(fn: lambda.Function): void {
  for (const policy of ['service-role/AWSLambdaBasicExecutionRole', 'service-role/AWSLambdaVPCAccessExecutionRole']) {
    Validations.of(fn).acknowledge({
      id: `AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/${policy}]`,
      reason: 'Test-only stand-in for a user\'s own function: lambda.Function attaches this managed policy to the role it creates.',
    });
  }
}

/**
 * The validator app's templates (nested stacks included). Synthesized once per jest run and shared
 * by the suites that only read them (test/util/once-per-run.ts). Outside jest's run id (a
 * script), a fresh temp dir each call.
 */
export function synthesizeTemplates(): { outdir: string; templates: string[] } {
  const run = process.env.S3FILES_JEST_RUN;
  if (!run) return synthesizeInto(fs.mkdtempSync(path.join(os.tmpdir(), 's3files-validate-')));
  const outdir = oncePerRun(path.join(os.tmpdir(), `s3files-jest-${run}`), 'validator-app', (dir) => {
    synthStrict(buildValidatorApp(dir));
  });
  return { outdir, templates: templatesIn(outdir) };
}

function synthesizeInto(outdir: string): { outdir: string; templates: string[] } {
  synthStrict(buildValidatorApp(outdir));
  return { outdir, templates: templatesIn(outdir) };
}

/**
 * Synthesizes with aws-cdk-lib's CloudFormation validation plugin on (the test setup switches it
 * off elsewhere: test/setup/cdk-validation.ts). With the app's strict context a finding of any
 * severity throws, report included.
 */
export function synthStrict(app: App): void {
  const before = process.env.CDK_VALIDATION;
  process.env.CDK_VALIDATION = 'true';
  try {
    app.synth();
  } finally {
    if (before === undefined) delete process.env.CDK_VALIDATION;
    else process.env.CDK_VALIDATION = before;
  }
}

function templatesIn(outdir: string): string[] {
  return fs.readdirSync(outdir).filter((f) => f.endsWith('.template.json')).sort().map((f) => path.join(outdir, f));
}

/**
 * The verification app's stacks (`npx projen verify`): they grant, on purpose, what the library
 * never does (a role IAM allows the root, a task without the validation reads) to see the service
 * refuse it. The IAM audits of what the library writes leave them out; cfn-lint, cdk-nag, checkov
 * and the IAM lint check them like every other stack.
 */
export function isVerificationHarness(templateFileOrStack: string): boolean {
  return /^S3FilesVerify/.test(path.basename(templateFileOrStack));
}

/** The project's Python tool venv (test/setup/python-venv.sh makes it). */
export function venvBin(tool: string): string {
  const bin = path.join(__dirname, '..', '..', '.venv', 'bin', tool);
  if (!fs.existsSync(bin)) {
    throw new Error(`${bin} is missing: run 'npx projen setup:python' (bash test/setup/python-venv.sh) first`);
  }
  return bin;
}
