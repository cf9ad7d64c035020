import { Resource, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as efs from 'aws-cdk-lib/aws-efs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3files from 'aws-cdk-lib/aws-s3files';
import { Construct, DependencyGroup, IDependable } from 'constructs';
import {
  EcsMount, IS3FilesFileSystem, LambdaMount, S3FilesAccessPoint, S3FilesAccessPointBase, S3FilesAccessPointGrants, S3FilesFileSystemBase,
  S3FilesFileSystemGrants, S3FilesFileSystemMetrics, S3FilesMountedFunction,
} from '../src';
import { byPrefix, FN, isolatedVpc, newStack, only } from './util/template';

// The contracts are implementable by a user's own classes: a file system and an access point the
// library neither creates nor imports (here wired from L1s by hand) work with every adapter.

/** A file system a user wires from L1s, described to the library through the base class. */
class HandWiredFileSystem extends S3FilesFileSystemBase {
  public readonly fileSystemId: string;
  public readonly fileSystemArn: string;
  public readonly mountTargetsAvailable: IDependable;
  public readonly connections: ec2.Connections;
  public readonly vpc: ec2.IVpc;
  public readonly bucket: s3.IBucket;
  public readonly mountTargetAvailabilityZones: string[];

  constructor(scope: Construct, id: string, vpc: ec2.IVpc) {
    super(scope, id);
    this.vpc = vpc;
    this.bucket = new s3.Bucket(this, 'Bucket', { versioned: true });
    const fs = new s3files.CfnFileSystem(this, 'Resource', { bucket: this.bucket.bucketArn, roleArn: 'arn:aws:iam::111111111111:role/s3files' });
    const sg = new ec2.SecurityGroup(this, 'MountTargets', { vpc, allowAllOutbound: false });
    const subnet = vpc.isolatedSubnets[0];
    const mt = new s3files.CfnMountTarget(this, 'MountTarget', { fileSystemId: fs.attrFileSystemId, subnetId: subnet.subnetId, securityGroups: [sg.securityGroupId] });
    this.fileSystemId = fs.attrFileSystemId;
    this.fileSystemArn = fs.attrFileSystemArn;
    this.mountTargetsAvailable = mt;
    this.connections = new ec2.Connections({ securityGroups: [sg], defaultPort: ec2.Port.tcp(2049) });
    this.mountTargetAvailabilityZones = [subnet.availabilityZone];
  }
}

/** An access point made from an L1, described through the base class. */
class HandWiredAccessPoint extends S3FilesAccessPointBase {
  public readonly accessPointId: string;
  public readonly accessPointArn: string;
  public readonly fileSystem: IS3FilesFileSystem;
  public readonly available: IDependable;

  constructor(scope: Construct, id: string, fileSystem: IS3FilesFileSystem) {
    super(scope, id);
    const ap = new s3files.CfnAccessPoint(this, 'Resource', { fileSystemId: fileSystem.fileSystemId, rootDirectory: { path: '/by-hand' } });
    this.accessPointId = ap.attrAccessPointId;
    this.accessPointArn = ap.attrAccessPointArn;
    this.fileSystem = fileSystem;
    this.available = ap;
  }
}

function setup() {
  const stack = newStack();
  const vpc = isolatedVpc(stack);
  const files = new HandWiredFileSystem(stack, 'Files', vpc);
  return { stack, vpc, files };
}

describe('a user\'s own file system class', () => {
  test('takes a library access point (with a waiter of its own) and a function mounts it: grants, NFS rule, waits', () => {
    // GIVEN
    const { stack, vpc, files } = setup();
    const ap = new S3FilesAccessPoint(stack, 'Ap', { fileSystem: files, path: '/app' });
    const fn = new lambda.Function(stack, 'Fn', { ...FN, vpc, vpcSubnets: { subnets: [vpc.isolatedSubnets[0]] } });
    // WHEN
    LambdaMount.onFunction(fn, ap);
    // THEN
    const t = Template.fromStack(stack);
    const [waiterId] = Object.keys(t.toJSON().Resources).filter((id) => id.startsWith('ApAvailable'));
    expect(waiterId).toBeDefined();
    const [, fnResource] = byPrefix(t, 'AWS::Lambda::Function', 'Fn');
    expect(fnResource.DependsOn).toEqual(expect.arrayContaining([waiterId, expect.stringMatching(/^FilesMountTarget/)]));
    const [, ingress] = only(t, 'AWS::EC2::SecurityGroupIngress');
    expect(ingress.Properties).toMatchObject({ FromPort: 2049, ToPort: 2049, GroupId: { 'Fn::GetAtt': [expect.stringMatching(/^FilesMountTargets/), 'GroupId'] } });
    const [, policy] = byPrefix(t, 'AWS::IAM::Policy', 'FnServiceRoleDefaultPolicy');
    const actions = policy.Properties.PolicyDocument.Statement.flatMap((s: { Action: string | string[] }) => [s.Action].flat());
    expect(actions).toEqual(expect.arrayContaining(['s3files:ClientMount', 's3files:ClientWrite', 's3files:GetAccessPoint', 's3:GetObject']));
  });

  test('an AZ without a mount target is refused from the AZs it declares', () => {
    const { stack, vpc, files } = setup();
    const ap = new S3FilesAccessPoint(stack, 'Ap', { fileSystem: files, path: '/app' });
    const fn = new lambda.Function(stack, 'Fn', { ...FN, vpc });
    expect(() => LambdaMount.onFunction(fn, ap)).toThrow(/invalid vpcSubnets .*TestStack\/Files has mount targets only in/);
  });
});

describe('a user\'s own access point class', () => {
  test('mounts on a Fargate task: the volume names it, the task role is granted through it, the service waits for it', () => {
    // GIVEN
    const { stack, vpc, files } = setup();
    const ap = new HandWiredAccessPoint(stack, 'ByHand', files);
    const task = new ecs.FargateTaskDefinition(stack, 'Task');
    task.addContainer('app', { image: ecs.ContainerImage.fromRegistry('public.ecr.aws/docker/library/busybox:latest') });
    // WHEN
    EcsMount.onTaskDefinition(task, ap, { containerPath: '/data' });
    const service = new ecs.FargateService(stack, 'Service', {
      cluster: new ecs.Cluster(stack, 'Cluster', { vpc }), taskDefinition: task, vpcSubnets: { subnets: [vpc.isolatedSubnets[0]] },
    });
    EcsMount.onService(service, ap);
    // THEN
    const t = Template.fromStack(stack);
    const [, taskDef] = only(t, 'AWS::ECS::TaskDefinition');
    expect(taskDef.Properties.Volumes[0].S3FilesVolumeConfiguration.AccessPointArn).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^ByHand/), 'AccessPointArn'] });
    const [, svc] = only(t, 'AWS::ECS::Service');
    expect(svc.DependsOn).toEqual(expect.arrayContaining([expect.stringMatching(/^ByHand/)]));
  });

  test('grantMount() gives a compute the library does not cover everything a mount needs; the file system\'s bucket and groups are public', () => {
    const { stack, files } = setup();
    const ap = new HandWiredAccessPoint(stack, 'ByHand', files);
    const role = new iam.Role(stack, 'NodeRole', { assumedBy: new iam.ServicePrincipal('ec2.amazonaws.com') });
    ap.grantMount(role, { amazonEfsUtils: true, readOnly: true });
    const t = Template.fromStack(stack);
    const [, policy] = byPrefix(t, 'AWS::IAM::Policy', 'NodeRoleDefaultPolicy');
    const actions = policy.Properties.PolicyDocument.Statement.flatMap((s: { Action: string | string[] }) => [s.Action].flat());
    expect(actions).toEqual(expect.arrayContaining(['s3files:ClientMount', 's3:ListBucket', 'cloudwatch:PutMetricData']));
    expect(actions).not.toContain('s3files:ClientWrite');
    expect(files.bucket).toBeDefined();
    expect(files.connections.securityGroups).toHaveLength(1);
    expect(Stack.of(files)).toBe(stack);
  });
});

/** The smallest implementation of the interface, without the base class: only what a mount reads. */
class Minimal extends Resource implements IS3FilesFileSystem {
  public readonly fileSystemId = 'fs-0123456789abcdef0';
  public readonly fileSystemArn = 'arn:aws:s3files:us-east-1:111111111111:file-system/fs-0123456789abcdef0';
  public readonly mountTargetsAvailable: IDependable = new DependencyGroup();
  public readonly connections: ec2.Connections;
  constructor(scope: Construct, id: string, vpc: ec2.IVpc) {
    super(scope, id);
    this.connections = new ec2.Connections({ securityGroups: [new ec2.SecurityGroup(this, 'MountTargets', { vpc })] });
  }
}

describe('an implementation of the interface alone (no base class) gets grants and metrics from the helper classes', () => {
  test('S3FilesFileSystemGrants, S3FilesAccessPointGrants and S3FilesFileSystemMetrics take it', () => {
    const { stack, vpc } = setup();
    const fs = new Minimal(stack, 'Mine', vpc);
    const role = new iam.Role(stack, 'Worker', { assumedBy: new iam.ServicePrincipal('ecs-tasks.amazonaws.com') });
    S3FilesFileSystemGrants.fromFileSystem(fs).read(role);
    const ap = S3FilesAccessPoint.fromAccessPointAttributes(stack, 'Ap', { fileSystem: fs, accessPointId: 'fsap-0123456789abcdef0' });
    S3FilesAccessPointGrants.fromAccessPoint(ap).mount(role, { grantDirectReads: false });
    expect(stack.resolve(S3FilesFileSystemMetrics.fromFileSystem(fs).pendingExports().dimensions)).toEqual({ FileSystemId: 'fs-0123456789abcdef0' });
    const [, policy] = byPrefix(Template.fromStack(stack), 'AWS::IAM::Policy', 'WorkerDefaultPolicy');
    const actions = policy.Properties.PolicyDocument.Statement.flatMap((s: { Action: string | string[] }) => [s.Action].flat());
    expect(actions).toEqual(expect.arrayContaining(['s3files:ClientMount', 's3files:GetAccessPoint', 's3files:ListMountTargets']));
  });
});

describe('every public entry refuses what is not an S3 Files file system or access point, naming what it is (Python passes anything)', () => {
  const efsSetup = () => {
    const { stack, vpc, files } = setup();
    const efsFs = new efs.FileSystem(stack, 'Efs', { vpc });
    const efsAp = efsFs.addAccessPoint('EfsAp');
    const fn = new lambda.Function(stack, 'Fn', { ...FN, vpc });
    return { stack, vpc, files, efsFs, efsAp, fn };
  };
  const EFS_FS = /it is an Amazon EFS file system \(AWS::EFS::FileSystem\), not an S3 Files file system\. Fix: pass an `S3FilesFileSystem`/;
  const EFS_AP = /it is an Amazon EFS access point \(AWS::EFS::AccessPoint\), not an S3 Files access point\. Fix: pass an `S3FilesAccessPoint`/;

  test.each<[string, (s: ReturnType<typeof efsSetup>) => unknown, RegExp]>([
    ['new S3FilesAccessPoint({ fileSystem: <efs.FileSystem> })', (s) => new S3FilesAccessPoint(s.stack, 'Ap', { fileSystem: s.efsFs as any, path: '/a' }), EFS_FS],
    ['S3FilesAccessPoint.fromAccessPointAttributes({ fileSystem: <efs.FileSystem> })',
      (s) => S3FilesAccessPoint.fromAccessPointAttributes(s.stack, 'Ap', { fileSystem: s.efsFs as any, accessPointId: 'fsap-0123456789abcdef0' }), EFS_FS],
    ['LambdaMount.onFunction(fn, <efs.AccessPoint>)', (s) => LambdaMount.onFunction(s.fn, s.efsAp as any), EFS_AP],
    ['EcsMount.onTaskDefinition(task, <efs.AccessPoint>)', (s) => EcsMount.onTaskDefinition(new ecs.FargateTaskDefinition(s.stack, 'Task'), s.efsAp as any), EFS_AP],
    ['new S3FilesMountedFunction({ s3FileSystem: <efs.FileSystem> })', (s) => new S3FilesMountedFunction(s.stack, 'L3', { ...FN, s3FileSystem: s.efsFs as any }), EFS_FS],
    ['new S3FilesMountedFunction({ accessPoint: <efs.AccessPoint> })', (s) => new S3FilesMountedFunction(s.stack, 'L3', { ...FN, accessPoint: s.efsAp as any }), EFS_AP],
    ['S3FilesFileSystemGrants.fromFileSystem(<efs.FileSystem>)', (s) => S3FilesFileSystemGrants.fromFileSystem(s.efsFs as any), EFS_FS],
    ['an imported EFS file system, told by its ARN', (s) => new S3FilesAccessPoint(s.stack, 'Ap', {
      fileSystem: efs.FileSystem.fromFileSystemAttributes(s.stack, 'Theirs', { fileSystemId: 'fs-0123abcd', securityGroup: ec2.SecurityGroup.fromSecurityGroupId(s.stack, 'Sg', 'sg-1') }) as any,
      path: '/a',
    }), /it is an Amazon EFS resource \(its ARN is an elasticfilesystem one\), not an S3 Files file system/],
    ['LambdaMount.onFunction(fn, <an S3 Files file system>)', (s) => LambdaMount.onFunction(s.fn, s.files as any),
      /it is an S3 Files file system, and clients mount through an access point of it\. Fix: pass an access point of it/],
  ])('%s', (_what, act, message) => {
    expect(() => act(efsSetup())).toThrow(message);
  });
});
