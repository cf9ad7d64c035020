import { Size, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as batch from 'aws-cdk-lib/aws-batch';
import * as agentcore from 'aws-cdk-lib/aws-bedrockagentcore';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as efs from 'aws-cdk-lib/aws-efs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import {
  AgentCoreMount, BatchMount, Ec2Mount, EcsMount, EksMount, LambdaMount, S3FilesAccessPoint, S3FilesAccessPointGrants, S3FilesFileSystem,
  S3FilesFileSystemGrants, S3FilesMonitoring, S3FilesMountedFunction,
} from '../../src';
import { importedCluster } from '../util/eks';
import { FN, isolatedVpc, newStack, only, resourcesOfType } from '../util/template';

// Python, Java and Go (and JavaScript, or `as any`) pass any object where an aws-cdk-lib type is
// expected. Every public entry checks each such argument by what the library reads of it and says
// what it was given, in the library's message (path, prop, value, what it is, the fix); before, they
// failed as raw TypeErrors, as another check's wrong message, or as templates that do not deploy.
// Users' own implementations of the interfaces, imported resources, and a second copy of a class
// still pass.

/** A value of the wrong type, as an untyped caller passes it. */
const bad = (v: unknown) => v as any;

function world() {
  const stack = newStack();
  const vpc = isolatedVpc(stack);
  const fs = new S3FilesFileSystem(stack, 'Fs', { vpc });
  const ap = fs.addAccessPoint('Ap', { path: '/app' });
  const bucket = new s3.Bucket(stack, 'Bucket');
  const topic = new sns.Topic(stack, 'Topic');
  const fn = new lambda.Function(stack, 'Fn', { ...FN, vpc });
  const task = new ecs.FargateTaskDefinition(stack, 'Task');
  task.addContainer('App', { image: ecs.ContainerImage.fromRegistry('public.ecr.aws/docker/library/busybox:stable') });
  return { stack, vpc, fs, ap, bucket, topic, fn, task };
}
type World = ReturnType<typeof world>;

function fargateJob(stack: Stack): batch.EcsJobDefinition {
  return new batch.EcsJobDefinition(stack, 'Job', {
    container: new batch.EcsFargateContainerDefinition(stack, 'JobContainer', {
      image: ecs.ContainerImage.fromRegistry('public.ecr.aws/docker/library/busybox:stable'),
      cpu: 1,
      memory: Size.gibibytes(2),
      jobRole: new iam.Role(stack, 'JobRole', { assumedBy: new iam.ServicePrincipal('ecs-tasks.amazonaws.com') }),
    }),
  });
}

/** Each entry, the wrong value it is given, and what its message must say: path, prop, value, what it is, and the start of the fix. */
const REFUSED: Array<[string, (w: World) => unknown, string]> = [
  // S3FilesFileSystem
  ['new S3FilesFileSystem({ securityGroup: <ec2.Vpc> })', (w) => new S3FilesFileSystem(w.stack, 'F2', { vpc: w.vpc, securityGroup: bad(w.vpc) }),
    'TestStack/F2: invalid securityGroup "TestStack/Vpc": it is an AWS::EC2::VPC, not a security group. Fix: pass an `ec2.ISecurityGroup`'],
  ['new S3FilesFileSystem({ vpc: <s3.Bucket> })', (w) => new S3FilesFileSystem(w.stack, 'F2', { vpc: bad(w.bucket) }),
    'TestStack/F2: invalid vpc "TestStack/Bucket": it is an AWS::S3::Bucket, not a VPC. Fix: pass an `ec2.IVpc`'],
  ['new S3FilesFileSystem({ vpc: <an imported bucket> })', (w) => new S3FilesFileSystem(w.stack, 'F2', { vpc: bad(s3.Bucket.fromBucketName(w.stack, 'Theirs', 'theirs')) }),
    'TestStack/F2: invalid vpc "TestStack/Theirs": it is an S3 bucket, not a VPC.'],
  ['new S3FilesFileSystem({ vpc: "vpc-0123" })', (w) => new S3FilesFileSystem(w.stack, 'F2', { vpc: bad('vpc-0123') }),
    'TestStack/F2: invalid vpc "vpc-0123": it is a string, not a VPC. Fix: pass an `ec2.IVpc`: `new ec2.Vpc()`, `ec2.Vpc.fromLookup()`'],
  ['new S3FilesFileSystem({}) without a vpc', (w) => new S3FilesFileSystem(w.stack, 'F2', bad({})),
    'TestStack/F2: invalid vpc undefined: it is undefined, not a VPC.'],
  ['new S3FilesFileSystem({ bucket: <efs.FileSystem> })', (w) => new S3FilesFileSystem(w.stack, 'F2', { vpc: w.vpc, bucket: bad(new efs.FileSystem(w.stack, 'Efs', { vpc: w.vpc })) }),
    'TestStack/F2: invalid bucket "TestStack/Efs": it is an AWS::EFS::FileSystem, not an S3 bucket. Fix: pass an `s3.IBucket`'],
  ['new S3FilesFileSystem({ bucketEncryptionKey: <s3.Bucket> })', (w) => new S3FilesFileSystem(w.stack, 'F2', { vpc: w.vpc, bucketEncryptionKey: bad(w.bucket) }),
    'TestStack/F2: invalid bucketEncryptionKey "TestStack/Bucket": it is an AWS::S3::Bucket, not a KMS key. Fix: pass a `kms.IKey`'],
  ['new S3FilesFileSystem({ fileSystemEncryptionKey: <its ARN> })',
    (w) => new S3FilesFileSystem(w.stack, 'F2', { vpc: w.vpc, fileSystemEncryptionKey: bad('arn:aws:kms:us-east-1:111111111111:key/k') }),
    'TestStack/F2: invalid fileSystemEncryptionKey "arn:aws:kms:us-east-1:111111111111:key/k": it is a string, not a KMS key. Fix: pass a `kms.IKey`: `new kms.Key()`, '
      + '`kms.Key.fromKeyArn()`'],
  ['fileSystem.addToResourcePolicy(<a JSON statement>)', (w) => w.fs.addToResourcePolicy(bad({ Effect: 'Allow' })),
    'TestStack/Fs: invalid statement (object): it is an object with keys Effect, not an IAM policy statement. Fix: pass an `iam.PolicyStatement`'],
  // S3FilesFileSystem.fromFileSystemAttributes
  ['fromFileSystemAttributes({ securityGroups: [<sg>, <ec2.Vpc>] })', (w) => S3FilesFileSystem.fromFileSystemAttributes(w.stack, 'Imported', {
    fileSystemId: 'fs-0123456789abcdef0', securityGroups: [ec2.SecurityGroup.fromSecurityGroupId(w.stack, 'Sg', 'sg-0123456789abcdef0'), bad(w.vpc)],
  }), 'TestStack/Imported: invalid securityGroups[1] "TestStack/Vpc": it is an AWS::EC2::VPC, not a security group. Fix: pass an `ec2.ISecurityGroup`'],
  ['fromFileSystemAttributes({ securityGroups: <one group, not a list> })', (w) => S3FilesFileSystem.fromFileSystemAttributes(w.stack, 'Imported', {
    fileSystemId: 'fs-0123456789abcdef0', securityGroups: bad(ec2.SecurityGroup.fromSecurityGroupId(w.stack, 'Sg', 'sg-0123456789abcdef0')),
  }), 'TestStack/Imported: invalid securityGroups "TestStack/Sg": it is a security group, not a list. Fix: pass an `ec2.ISecurityGroup`'],
  ['fromFileSystemAttributes({ clientSecurityGroup: <s3.Bucket> })',
    (w) => S3FilesFileSystem.fromFileSystemAttributes(w.stack, 'Imported', { fileSystemId: 'fs-0123456789abcdef0', clientSecurityGroup: bad(w.bucket) }),
    'TestStack/Imported: invalid clientSecurityGroup "TestStack/Bucket": it is an AWS::S3::Bucket, not a security group.'],
  ['fromFileSystemAttributes({ vpc: "vpc-0123" })', (w) => S3FilesFileSystem.fromFileSystemAttributes(w.stack, 'Imported', { fileSystemId: 'fs-0123456789abcdef0', vpc: bad('vpc-0123') }),
    'TestStack/Imported: invalid vpc "vpc-0123": it is a string, not a VPC.'],
  ['fromFileSystemAttributes({ bucket: <efs.FileSystem> })', (w) => S3FilesFileSystem.fromFileSystemAttributes(w.stack, 'Imported', {
    fileSystemId: 'fs-0123456789abcdef0', bucket: bad(new efs.FileSystem(w.stack, 'Efs', { vpc: w.vpc })),
  }), 'TestStack/Imported: invalid bucket "TestStack/Efs": it is an AWS::EFS::FileSystem, not an S3 bucket.'],
  ['fromFileSystemAttributes({ bucketEncryptionKey: <sns.Topic> })',
    (w) => S3FilesFileSystem.fromFileSystemAttributes(w.stack, 'Imported', { fileSystemId: 'fs-0123456789abcdef0', bucketEncryptionKey: bad(w.topic) }),
    'TestStack/Imported: invalid bucketEncryptionKey "TestStack/Topic": it is an AWS::SNS::Topic, not a KMS key.'],
  // S3FilesMonitoring
  ['new S3FilesMonitoring({ alarmTopic: <s3.Bucket> })', (w) => new S3FilesMonitoring(w.stack, 'Monitoring', { fileSystem: w.fs, alarmTopic: bad(w.bucket) }),
    'TestStack/Monitoring: invalid alarmTopic "TestStack/Bucket": it is an AWS::S3::Bucket, not an SNS topic. Fix: pass an `sns.ITopic`'],
  ['new S3FilesMonitoring({ functions: [<fn>, <s3.Bucket>] })', (w) => new S3FilesMonitoring(w.stack, 'Monitoring', { fileSystem: w.fs, functions: [w.fn, bad(w.bucket)] }),
    'TestStack/Monitoring: invalid functions[1] "TestStack/Bucket": it is an AWS::S3::Bucket, not a Lambda function. Fix: pass a `lambda.IFunction`'],
  ['new S3FilesMonitoring({ fileSystem: <ec2.Vpc> })', (w) => new S3FilesMonitoring(w.stack, 'Monitoring', { fileSystem: bad(w.vpc) }),
    'TestStack/Monitoring: invalid fileSystem "TestStack/Vpc": it is an AWS::EC2::VPC, not an S3 Files file system.'],
  // S3FilesMountedFunction
  ['new S3FilesMountedFunction({ bucket: <efs.FileSystem> })', (w) => new S3FilesMountedFunction(w.stack, 'L3', { ...FN, bucket: bad(new efs.FileSystem(w.stack, 'Efs', { vpc: w.vpc })) }),
    'TestStack/L3: invalid bucket "TestStack/Efs": it is an AWS::EFS::FileSystem, not an S3 bucket. Fix: pass an `s3.IBucket`'],
  ['new S3FilesMountedFunction({ vpc: <s3.Bucket> })', (w) => new S3FilesMountedFunction(w.stack, 'L3', { ...FN, vpc: bad(w.bucket) }),
    'TestStack/L3: invalid vpc "TestStack/Bucket": it is an AWS::S3::Bucket, not a VPC.'],
  ['new S3FilesMountedFunction({ s3FileSystemOptions: { bucket: <sns.Topic> } })',
    (w) => new S3FilesMountedFunction(w.stack, 'L3', { ...FN, s3FileSystemOptions: { bucket: bad(w.topic) } }),
    'TestStack/L3: invalid s3FileSystemOptions.bucket "TestStack/Topic": it is an AWS::SNS::Topic, not an S3 bucket.'],
  ['new S3FilesMountedFunction({ s3FileSystemOptions: { bucketEncryptionKey: <s3.Bucket> } })',
    (w) => new S3FilesMountedFunction(w.stack, 'L3', { ...FN, s3FileSystemOptions: { bucketEncryptionKey: bad(w.bucket) } }),
    'invalid s3FileSystemOptions.bucketEncryptionKey "TestStack/Bucket": it is an AWS::S3::Bucket, not a KMS key.'],
  ['new S3FilesMountedFunction({ directS3Read: "ENABLED" })', (w) => new S3FilesMountedFunction(w.stack, 'L3', { ...FN, directS3Read: bad('ENABLED') }),
    'TestStack/L3: invalid directS3Read "ENABLED": it is a string, not a `lambda.DirectS3Read`. Fix: pass `lambda.DirectS3Read.enabled()` (with the bucket)'],
  // Grants (every grant* and grants.* takes an iam.IGrantable)
  ['fileSystem.grantRead(<s3.Bucket>)', (w) => w.fs.grantRead(bad(w.bucket)),
    'TestStack/Fs: invalid grantee "TestStack/Bucket": it is an AWS::S3::Bucket, not a principal. Fix: pass an `iam.IGrantable`'],
  ['fileSystem.grantReadWrite(<sns.Topic>)', (w) => w.fs.grantReadWrite(bad(w.topic)), 'TestStack/Fs: invalid grantee "TestStack/Topic": it is an AWS::SNS::Topic, not a principal.'],
  ['fileSystem.grantRootAccess(<an access point>)', (w) => w.fs.grantRootAccess(bad(w.ap)),
    'TestStack/Fs: invalid grantee "TestStack/Fs/Ap": it is an AWS::S3Files::AccessPoint, not a principal.'],
  ['fileSystem.grant(<a role ARN>, ...)', (w) => w.fs.grant(bad('arn:aws:iam::111111111111:role/r'), 's3files:ClientMount'),
    'TestStack/Fs: invalid grantee "arn:aws:iam::111111111111:role/r": it is a string, not a principal.'],
  ['accessPoint.grantRead(<s3.Bucket>)', (w) => w.ap.grantRead(bad(w.bucket)), 'TestStack/Fs/Ap: invalid grantee "TestStack/Bucket": it is an AWS::S3::Bucket, not a principal.'],
  ['accessPoint.grantMount(<sns.Topic>)', (w) => w.ap.grantMount(bad(w.topic)), 'TestStack/Fs/Ap: invalid grantee "TestStack/Topic": it is an AWS::SNS::Topic, not a principal.'],
  ['S3FilesFileSystemGrants.fromFileSystem(fs).read(<ec2.Vpc>)', (w) => S3FilesFileSystemGrants.fromFileSystem(w.fs).read(bad(w.vpc)),
    'TestStack/Fs: invalid grantee "TestStack/Vpc": it is an AWS::EC2::VPC, not a principal.'],
  ['S3FilesAccessPointGrants.fromAccessPoint(ap).mount(undefined)', (w) => S3FilesAccessPointGrants.fromAccessPoint(w.ap).mount(bad(undefined)),
    'TestStack/Fs/Ap: invalid grantee undefined: it is undefined, not a principal.'],
  // Mounts: the compute, and the aws-cdk-lib types among the options
  ['LambdaMount.onFunction(<ecs.TaskDefinition>)', (w) => LambdaMount.onFunction(bad(w.task), w.ap),
    'LambdaMount.onFunction(): invalid fn "TestStack/Task": it is an AWS::ECS::TaskDefinition, not a Lambda function defined in this app. Fix: pass a `lambda.Function`'],
  ['LambdaMount.onFunction(<an imported function>)',
    (w) => LambdaMount.onFunction(bad(lambda.Function.fromFunctionArn(w.stack, 'Theirs', 'arn:aws:lambda:us-east-1:111111111111:function:f')), w.ap),
    'LambdaMount.onFunction(): invalid fn "TestStack/Theirs": it is a Lambda function, not a Lambda function defined in this app. Fix: pass a `lambda.Function` (or '
      + '`NodejsFunction`, `PythonFunction`, `DockerImageFunction`) defined in this app: an imported function cannot be changed'],
  ['LambdaMount.onFunction(fn, ap, { directS3Read: "ENABLED" })', (w) => LambdaMount.onFunction(w.fn, w.ap, { directS3Read: bad('ENABLED') }),
    'TestStack/Fn: invalid directS3Read "ENABLED": it is a string, not a `lambda.DirectS3Read`. Fix: pass `lambda.DirectS3Read.enabled()` (with the bucket), '
      + '`lambda.DirectS3Read.enabledWithoutGrant()`, `lambda.DirectS3Read.auto()` or `lambda.DirectS3Read.disabled()`'],
  ['EcsMount.onTaskDefinition(<lambda.Function>)', (w) => EcsMount.onTaskDefinition(bad(w.fn), w.ap),
    'EcsMount.onTaskDefinition(): invalid taskDefinition "TestStack/Fn": it is an AWS::Lambda::Function, not an ECS task definition defined in this app.'],
  ['EcsMount.onTaskDefinition(task, ap, { containers: [<lambda.Function>] })', (w) => EcsMount.onTaskDefinition(w.task, w.ap, { containers: [bad(w.fn)] }),
    'TestStack/Task: invalid containers[0] "TestStack/Fn": it is an AWS::Lambda::Function, not an ECS container definition.'],
  ['EcsMount.onService(<ecs.TaskDefinition>)', (w) => EcsMount.onService(bad(w.task), w.ap),
    'EcsMount.onService(): invalid service "TestStack/Task": it is an AWS::ECS::TaskDefinition, not an ECS service defined in this app. Fix: pass an `ecs.FargateService`'],
  ['BatchMount.onJobDefinition(<ecs.TaskDefinition>)', (w) => BatchMount.onJobDefinition(bad(w.task), w.ap),
    'BatchMount.onJobDefinition(): invalid jobDefinition "TestStack/Task": it is an AWS::ECS::TaskDefinition, not a Batch job definition defined in this app.'],
  ['BatchMount.onJobDefinition(job, ap, { computeEnvironment: <ec2.Vpc> })', (w) => BatchMount.onJobDefinition(fargateJob(w.stack), w.ap, { computeEnvironment: bad(w.vpc) }),
    'TestStack/Job: invalid computeEnvironment "TestStack/Vpc": it is an AWS::EC2::VPC, not a Batch compute environment defined in this app.'],
  ['Ec2Mount.onInstance(<lambda.Function>)', (w) => Ec2Mount.onInstance(bad(w.fn), w.ap),
    'Ec2Mount.onInstance(): invalid instance "TestStack/Fn": it is an AWS::Lambda::Function, not an EC2 instance defined in this app. Fix: pass an `ec2.Instance`'],
  ['Ec2Mount.onAutoScalingGroup(<lambda.Function>)', (w) => Ec2Mount.onAutoScalingGroup(bad(w.fn), w.ap),
    'Ec2Mount.onAutoScalingGroup(): invalid group "TestStack/Fn": it is an AWS::Lambda::Function, not an Auto Scaling group defined in this app.'],
  ['Ec2Mount.onLaunchTemplate({})', (w) => Ec2Mount.onLaunchTemplate(bad({}), w.ap),
    'Ec2Mount.onLaunchTemplate(): invalid template (object): it is an empty object, not a launch template defined in this app. Fix: pass an `ec2.LaunchTemplate`'],
  ['AgentCoreMount.onRuntime(<lambda.Function>)', (w) => AgentCoreMount.onRuntime(bad(w.fn), w.ap),
    'AgentCoreMount.onRuntime(): invalid runtime "TestStack/Fn": it is an AWS::Lambda::Function, not a Bedrock AgentCore runtime defined in this app.'],
  ['EksMount.installDriver(cluster, { nodeSecurityGroups: [<ec2.Vpc>] })',
    (w) => EksMount.installDriver(importedCluster(w.stack, w.vpc), { existingDriverVersion: '3.4.1', nodeSecurityGroups: [bad(w.vpc)] }),
    'TestStack/Cluster: invalid nodeSecurityGroups[0] "TestStack/Vpc": it is an AWS::EC2::VPC, not a security group.'],
  ['EksMount.installDriver(cluster, { nodeRole: <s3.Bucket> })',
    (w) => EksMount.installDriver(importedCluster(w.stack, w.vpc), { existingDriverVersion: '3.4.1', nodeRole: bad(w.bucket) }),
    'TestStack/Cluster: invalid nodeRole "TestStack/Bucket": it is an AWS::S3::Bucket, not an IAM role. Fix: pass an `iam.IRole`'],
  ['EksMount.installDriver(cluster, { controllerRole: <a role ARN> })',
    (w) => EksMount.installDriver(importedCluster(w.stack, w.vpc), { existingDriverVersion: '3.4.1', controllerRole: bad('arn:aws:iam::111111111111:role/c') }),
    'TestStack/Cluster: invalid controllerRole "arn:aws:iam::111111111111:role/c": it is a string, not an IAM role.'],
];

describe('every public entry refuses a value of another aws-cdk-lib type, naming the prop and what the value is', () => {
  test.each(REFUSED)('%s', (_entry, act, message) => {
    // GIVEN an app with one of everything WHEN the entry is given the wrong value THEN the message says so
    expect(() => act(world())).toThrow(message);
  });

  test('the message spells the prop and the fix for each binding', () => {
    const w = world();
    expect(() => new S3FilesFileSystem(w.stack, 'F2', { vpc: w.vpc, securityGroup: bad(w.vpc) }))
      .toThrow(/\(Python: security_group, ec2\.SecurityGroup\.from_security_group_id\(\); Java: securityGroup\(…\), .*; Go: SecurityGroup, .*\.\)$/);
    expect(() => LambdaMount.onFunction(w.fn, w.ap, { directS3Read: bad('ENABLED') }))
      .toThrow(/Python: direct_s3_read, lambda_\.DirectS3Read, lambda_\.DirectS3Read\.enabled\(\), lambda_\.DirectS3Read\.enabled_without_grant\(\)/);
  });

  test('a refused security group leaves no template behind that would fail to deploy (before: MountTarget.SecurityGroups [] and rules without GroupId)', () => {
    const w = world();
    expect(() => new S3FilesFileSystem(w.stack, 'F2', { vpc: w.vpc, securityGroup: bad(w.vpc) })).toThrow(/invalid securityGroup/);
    expect(() => new S3FilesMonitoring(w.stack, 'Monitoring', { fileSystem: w.fs, alarmTopic: bad(w.bucket) })).toThrow(/invalid alarmTopic/);
  });
});

/** A security group of the user's own: a construct with what the library reads of one, no aws-cdk-lib class. */
class OwnSecurityGroup extends Construct {
  public readonly securityGroupId = 'sg-0000000000000000a';
  public readonly allowAllOutbound = false;
  public readonly canInlineRule = false;
  public readonly uniqueId = 'OwnSecurityGroup';
  public readonly stack: Stack;
  public readonly env: { account: string; region: string };
  public readonly connections: ec2.Connections;
  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.stack = Stack.of(this);
    this.env = { account: this.stack.account, region: this.stack.region };
    this.connections = new ec2.Connections({ securityGroups: [this as unknown as ec2.ISecurityGroup] });
  }
  public addIngressRule(): void {}
  public addEgressRule(): void {}
  public toIngressRuleConfig(): unknown { return { sourceSecurityGroupId: this.securityGroupId }; }
  public toEgressRuleConfig(): unknown { return { destinationSecurityGroupId: this.securityGroupId }; }
  public applyRemovalPolicy(): void {}
}

describe('what is of the right shape passes: imported resources, users\' own implementations, another copy of a class', () => {
  test('a file system on an imported VPC, security group, bucket and key', () => {
    // GIVEN resources made elsewhere
    const stack = newStack();
    const vpc = ec2.Vpc.fromVpcAttributes(stack, 'Vpc', { vpcId: 'vpc-0123', availabilityZones: ['us-east-1a', 'us-east-1b'], isolatedSubnetIds: ['subnet-a', 'subnet-b'] });
    const securityGroup = ec2.SecurityGroup.fromSecurityGroupId(stack, 'Sg', 'sg-0123456789abcdef0', { allowAllOutbound: false });
    const bucket = s3.Bucket.fromBucketName(stack, 'Bucket', 'my-bucket');
    const bucketEncryptionKey = kms.Key.fromKeyArn(stack, 'Key', 'arn:aws:kms:us-east-1:111111111111:key/1234abcd-12ab-34cd-56ef-1234567890ab');
    // WHEN
    new S3FilesFileSystem(stack, 'Fs', { vpc, securityGroup, bucket, bucketEncryptionKey });
    // THEN every mount target is in the given group
    const mountTargets = resourcesOfType(Template.fromStack(stack), 'AWS::S3Files::MountTarget');
    expect(mountTargets.map(([, mt]) => mt.Properties.SecurityGroups)).toEqual([['sg-0123456789abcdef0'], ['sg-0123456789abcdef0']]);
  });

  test('a security group of the user\'s own class', () => {
    const stack = newStack();
    new S3FilesFileSystem(stack, 'Fs', { vpc: isolatedVpc(stack), securityGroup: new OwnSecurityGroup(stack, 'Own') as unknown as ec2.ISecurityGroup });
    const mountTargets = resourcesOfType(Template.fromStack(stack), 'AWS::S3Files::MountTarget');
    expect(mountTargets.map(([, mt]) => mt.Properties.SecurityGroups)).toEqual([['sg-0000000000000000a'], ['sg-0000000000000000a']]);
  });

  test('an imported file system with imported groups: a function mounts with an NFS rule on the group', () => {
    const stack = newStack();
    const vpc = isolatedVpc(stack);
    const fs = S3FilesFileSystem.fromFileSystemAttributes(stack, 'Theirs', {
      fileSystemId: 'fs-0123456789abcdef0',
      vpc,
      securityGroups: [ec2.SecurityGroup.fromSecurityGroupId(stack, 'Sg', 'sg-0123456789abcdef0')],
      bucket: s3.Bucket.fromBucketName(stack, 'Bucket', 'my-bucket'),
    });
    const fn = new lambda.Function(stack, 'Fn', { ...FN, vpc });
    LambdaMount.onFunction(fn, new S3FilesAccessPoint(stack, 'Ap', { fileSystem: fs, path: '/a' }));
    const [, rule] = only(Template.fromStack(stack), 'AWS::EC2::SecurityGroupIngress');
    expect(rule.Properties.GroupId).toBe('sg-0123456789abcdef0');
  });

  test('grants to an imported role, an account principal, and a grantable of the user\'s own', () => {
    const w = world();
    const role = iam.Role.fromRoleArn(w.stack, 'Role', 'arn:aws:iam::111111111111:role/worker');
    const own: iam.IGrantable = { grantPrincipal: new iam.Role(w.stack, 'Inner', { assumedBy: new iam.AccountRootPrincipal() }) };
    expect(() => {
      w.fs.grantRead(role);
      w.fs.grantReadWrite(new iam.AccountPrincipal('111111111111'));
      w.ap.grantMount(own);
      S3FilesAccessPointGrants.fromAccessPoint(w.ap).read(w.fn);
      w.fs.addToResourcePolicy(new iam.PolicyStatement({ actions: ['s3files:ClientMount'], principals: [new iam.AccountPrincipal('111111111111')], resources: ['*'] }));
    }).not.toThrow();
  });

  test('monitoring with an imported topic and function: every alarm notifies the topic', () => {
    const w = world();
    const topic = sns.Topic.fromTopicArn(w.stack, 'Alarms', 'arn:aws:sns:us-east-1:111111111111:alarms');
    const fn = lambda.Function.fromFunctionArn(w.stack, 'Theirs', 'arn:aws:lambda:us-east-1:111111111111:function:f');
    new S3FilesMonitoring(w.stack, 'Monitoring', { fileSystem: w.fs, alarmTopic: topic, functions: [fn] });
    const alarms = resourcesOfType(Template.fromStack(w.stack), 'AWS::CloudWatch::Alarm');
    expect(alarms.map(([, a]) => a.Properties.AlarmActions)).toEqual(alarms.map(() => ['arn:aws:sns:us-east-1:111111111111:alarms']));
  });

  test('every DirectS3Read, and one of a second copy of aws-cdk-lib (a different class with the same jsii name)', () => {
    const stack = newStack();
    const vpc = isolatedVpc(stack);
    const fs = new S3FilesFileSystem(stack, 'Fs', { vpc });
    class SecondCopyDirectS3Read {
      public readonly _mode = 'DISABLED';
    }
    Object.defineProperty(SecondCopyDirectS3Read, Symbol.for('jsii.rtti'), { value: { fqn: 'aws-cdk-lib.aws_lambda.DirectS3Read', version: '2.999.0' } });
    const values = [lambda.DirectS3Read.auto(), lambda.DirectS3Read.disabled(), lambda.DirectS3Read.enabledWithoutGrant(),
      lambda.DirectS3Read.enabled(s3.Bucket.fromBucketName(stack, 'B', 'my-bucket')), new SecondCopyDirectS3Read() as unknown as lambda.DirectS3Read];
    values.forEach((directS3Read, i) => {
      const fn = new lambda.Function(stack, `Fn${i}`, { ...FN, vpc });
      LambdaMount.onFunction(fn, fs.addAccessPoint(`Ap${i}`, { path: `/a${i}` }), { directS3Read });
    });
    const modes = resourcesOfType(Template.fromStack(stack), 'AWS::Lambda::Function')
      .filter(([id]) => /^Fn\d/.test(id)).map(([, f]) => f.Properties.FileSystemConfigs[0].S3FilesConfig.DirectS3Read);
    expect(modes).toEqual(['AUTO', 'DISABLED', 'ENABLED', 'ENABLED', 'DISABLED']);
  });

  test('a real DirectS3Read without its mode is aws-cdk-lib\'s change, and says so (not the user\'s error)', () => {
    const w = world();
    const changed = lambda.DirectS3Read.auto();
    delete (changed as unknown as { _mode?: string })._mode;
    expect(() => LambdaMount.onFunction(w.fn, w.ap, { directS3Read: changed })).toThrow(/aws-cdk-lib's DirectS3Read no longer carries its mode in _mode/);
  });

  test('the computes of this app pass their own checks (Batch, AgentCore)', () => {
    const w = world();
    const runtime = new agentcore.Runtime(w.stack, 'Agent', {
      runtimeName: 'agent',
      agentRuntimeArtifact: agentcore.AgentRuntimeArtifact.fromImageUri('123456789012.dkr.ecr.us-east-1.amazonaws.com/agent:latest'),
      networkConfiguration: agentcore.RuntimeNetworkConfiguration.usingVpc(w.stack, {
        vpc: w.vpc,
        vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
      }),
    });
    expect(() => {
      AgentCoreMount.onRuntime(runtime, w.ap);
      BatchMount.onJobDefinition(fargateJob(w.stack), w.ap, { computeEnvironment: new batch.FargateComputeEnvironment(w.stack, 'Ce', { vpc: w.vpc }) });
      EcsMount.onTaskDefinition(w.task, w.ap, { containers: [w.task.defaultContainer!] });
    }).not.toThrow();
  });
});
