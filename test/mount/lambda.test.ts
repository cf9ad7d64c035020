import * as path from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { LambdaMount, S3FilesAccessPoint, S3FilesFileSystem, S3FilesFileSystemGrants } from '../../src';
import { isolatedVpc, newStack, warnings } from '../util/template';

const ENTRY = path.join(__dirname, '..', 'fixtures', 'user-handler.ts');
const DOCKER_DIR = path.join(__dirname, '..', 'fixtures', 'docker-function');

function userNodejsFunction(scope: Stack, id: string, vpc: ec2.IVpc, extra: Partial<nodejs.NodejsFunctionProps> = {}): nodejs.NodejsFunction {
  return new nodejs.NodejsFunction(scope, id, {
    entry: ENTRY,
    runtime: lambda.Runtime.NODEJS_24_X,
    vpc,
    vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
    bundling: { minify: true, logLevel: nodejs.LogLevel.ERROR },
    ...extra,
  });
}

/** The function's own policy statements (its DefaultPolicy). */
function statements(t: Template, fnId: string): any[] {
  return Object.values(t.findResources('AWS::IAM::Policy'))
    .filter((p: any) => p.Properties.Roles.some((r: any) => JSON.stringify(r).includes(`${fnId}ServiceRole`)))
    .flatMap((p: any) => p.Properties.PolicyDocument.Statement);
}

describe('LambdaMount.onFunction: a user\'s own function gets everything the L3 gets', () => {
  test('a NodejsFunction in a compute stack mounts an access point of a storage stack with one call', () => {
    // GIVEN storage (file system + access point) in one stack and the user's NodejsFunction in another
    const app = new App();
    const storage = new Stack(app, 'Storage');
    const vpc = isolatedVpc(storage);
    const fileSystem = new S3FilesFileSystem(storage, 'Files', { vpc });
    const accessPoint = fileSystem.addAccessPoint('Data', { path: '/data' });
    const compute = new Stack(app, 'Compute');
    const fn = userNodejsFunction(compute, 'Worker', vpc, { memorySize: 1024 });

    // WHEN
    LambdaMount.onFunction(fn, accessPoint, { mountPath: '/mnt/data' });

    // THEN the mount, MOUNT_PATH and the client security group are on the function
    const t = Template.fromStack(compute);
    t.hasResourceProperties('AWS::Lambda::Function', {
      FileSystemConfigs: [{ Arn: { 'Fn::ImportValue': Match.stringLikeRegexp('AccessPointArn') }, LocalMountPath: '/mnt/data', S3FilesConfig: { DirectS3Read: 'AUTO' } }],
      Environment: { Variables: Match.objectLike({ MOUNT_PATH: '/mnt/data' }) },
      VpcConfig: { SecurityGroupIds: Match.arrayWith([{ 'Fn::ImportValue': Match.stringLikeRegexp('ClientSecurityGroup') }]) },
    });
    // AND the client grants are scoped to the access point
    const st = statements(t, 'Worker');
    expect(st).toEqual(expect.arrayContaining([expect.objectContaining({
      Action: ['s3files:ClientMount', 's3files:ClientWrite'],
      Condition: { ArnEquals: { 's3files:AccessPointArn': { 'Fn::ImportValue': expect.stringMatching(/AccessPointArn/) } } },
    })]));
    // AND direct reads are granted on the file system's objects (the whole bucket here: no prefix)
    expect(st).toEqual(expect.arrayContaining([expect.objectContaining({
      Action: ['s3:GetObject', 's3:GetObjectVersion'],
      Resource: { 'Fn::Join': ['', [{ 'Fn::ImportValue': expect.stringMatching(/Bucket/) }, '/*']] },
    })]));
    // AND the two reads every other compute gets, scoped: GetAccessPoint on the access point (no
    // condition: the key does not exist for it), ListMountTargets on the file system
    expect(st).toEqual(expect.arrayContaining([
      { Effect: 'Allow', Action: 's3files:GetAccessPoint', Resource: { 'Fn::ImportValue': expect.stringMatching(/AccessPointArn/) } },
      { Effect: 'Allow', Action: 's3files:ListMountTargets', Resource: { 'Fn::ImportValue': expect.stringMatching(/FileSystemArn/) } },
    ]));
    // AND no listing of the bucket nor client metrics (Lambda does not mount with amazon-efs-utils)
    expect(JSON.stringify(st)).not.toContain('s3:ListBucket');
    expect(JSON.stringify(st)).not.toContain('cloudwatch:PutMetricData');
    // AND the compute stack waits for storage (the waiter is there); storage never references compute
    expect(compute.dependencies).toContain(storage);
    expect(JSON.stringify(Template.fromStack(storage).toJSON())).not.toContain('Worker');
  });

  test('in the same stack the function\'s L1 depends on the waiter and the file system policy, like the L3', () => {
    // GIVEN
    const stack = newStack();
    const vpc = isolatedVpc(stack);
    const fileSystem = new S3FilesFileSystem(stack, 'Files', { vpc });
    const fn = userNodejsFunction(stack, 'Worker', vpc);
    // WHEN
    LambdaMount.onFunction(fn, fileSystem.addAccessPoint('Ap', { path: '/lambda' }), { readOnly: true, directS3Read: lambda.DirectS3Read.disabled() });
    // THEN
    const t = Template.fromStack(stack);
    const [, cfn] = Object.entries(t.findResources('AWS::Lambda::Function')).find(([id]) => id.startsWith('Worker'))!;
    expect(cfn.DependsOn).toEqual(expect.arrayContaining([expect.stringMatching(/^FilesMountTargetsAvailable/), expect.stringMatching(/^FilesFileSystemPolicy/)]));
    expect(cfn.Properties.FileSystemConfigs[0].S3FilesConfig).toEqual({ DirectS3Read: 'DISABLED' });
    const st = statements(t, 'Worker');
    expect(st.filter((s: any) => JSON.stringify(s.Action).includes('s3files:Client'))).toEqual([expect.objectContaining({ Action: 's3files:ClientMount' })]);
    expect(st.some((s: any) => JSON.stringify(s.Action) === '["s3:GetObject","s3:GetObjectVersion"]')).toBe(false);
  });

  test('a DockerImageFunction from a local directory mounts the same way', () => {
    // GIVEN
    const stack = newStack();
    const vpc = isolatedVpc(stack);
    const fileSystem = new S3FilesFileSystem(stack, 'Files', { vpc });
    const fn = new lambda.DockerImageFunction(stack, 'Container', { code: lambda.DockerImageCode.fromImageAsset(DOCKER_DIR), vpc, memorySize: 2048 });
    // WHEN
    LambdaMount.onFunction(fn, fileSystem.addAccessPoint('Ap', { path: '/lambda' }));
    // THEN
    Template.fromStack(stack).hasResourceProperties('AWS::Lambda::Function', {
      PackageType: 'Image',
      FileSystemConfigs: [{ Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^FilesAp'), 'AccessPointArn'] }, LocalMountPath: '/mnt/s3files', S3FilesConfig: { DirectS3Read: 'AUTO' } }],
      Environment: { Variables: { MOUNT_PATH: '/mnt/s3files' } },
    });
  });

  test('an imported file system and access point (another app) mount onto a user function with identity grants and the NFS rule', () => {
    // GIVEN a file system of another app, known by attributes
    const stack = newStack();
    const vpc = isolatedVpc(stack);
    const mountTargets = ec2.SecurityGroup.fromSecurityGroupId(stack, 'MtSg', 'sg-0123456789abcdef0');
    const bucket = s3.Bucket.fromBucketName(stack, 'Bucket', 'their-bucket');
    const fileSystem = S3FilesFileSystem.fromFileSystemAttributes(stack, 'Theirs', {
      fileSystemId: 'fs-0123456789abcdef0', vpc, securityGroups: [mountTargets], bucket, prefix: 'shared/',
    });
    const accessPoint = S3FilesAccessPoint.fromAccessPointAttributes(stack, 'TheirAp', { fileSystem, accessPointId: 'fsap-0123456789abcdef0' });
    const fn = userNodejsFunction(stack, 'Worker', vpc);
    // WHEN
    LambdaMount.onFunction(fn, accessPoint);
    // THEN the ARNs are built from the ids
    const t = Template.fromStack(stack);
    const fsArn = { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':s3files:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':file-system/fs-0123456789abcdef0']] };
    t.hasResourceProperties('AWS::Lambda::Function', {
      FileSystemConfigs: [{ Arn: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':s3files:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':file-system/fs-0123456789abcdef0/access-point/fsap-0123456789abcdef0']] }, LocalMountPath: '/mnt/s3files', S3FilesConfig: { DirectS3Read: 'AUTO' } }],
    });
    // AND the mount targets' group admits the function on 2049 (a rule in this stack)
    t.hasResourceProperties('AWS::EC2::SecurityGroupIngress', {
      GroupId: 'sg-0123456789abcdef0',
      IpProtocol: 'tcp',
      FromPort: 2049,
      ToPort: 2049,
      SourceSecurityGroupId: { 'Fn::GetAtt': [Match.stringLikeRegexp('^WorkerSecurityGroup'), 'GroupId'] },
    });
    // AND identity grants on the file system ARN, scoped to the access point; direct reads under the file system's shared/
    const st = statements(t, 'Worker');
    expect(st).toEqual(expect.arrayContaining([
      expect.objectContaining({ Action: ['s3files:ClientMount', 's3files:ClientWrite'], Resource: fsArn }),
      expect.objectContaining({ Action: ['s3:GetObject', 's3:GetObjectVersion'], Resource: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':s3:::their-bucket/shared/*']] } }),
    ]));
    // AND nothing waits (it exists): no DependsOn beyond the function's own role and its VPC's routes
    const [, cfn] = Object.entries(t.findResources('AWS::Lambda::Function')).find(([id]) => id.startsWith('Worker'))!;
    expect((cfn.DependsOn ?? []).filter((d: string) => !/^(WorkerServiceRole|VpcIsolatedSubnet)/.test(d))).toEqual([]);
  });

  test('an imported file system with a client security group: functions join it, no rule is added', () => {
    // GIVEN
    const stack = newStack();
    const vpc = isolatedVpc(stack);
    const client = ec2.SecurityGroup.fromSecurityGroupId(stack, 'Client', 'sg-0aaaaaaaaaaaaaaaa');
    const fs2 = S3FilesFileSystem.fromFileSystemAttributes(stack, 'Theirs', {
      fileSystemArn: 'arn:aws:s3files:us-east-1:111111111111:file-system/fs-0123456789abcdef0', clientSecurityGroup: client, vpc,
    });
    const ap = S3FilesAccessPoint.fromAccessPointAttributes(stack, 'Ap', {
      fileSystem: fs2, accessPointArn: 'arn:aws:s3files:us-east-1:111111111111:file-system/fs-0123456789abcdef0/access-point/fsap-0123456789abcdef0',
    });
    const fn = userNodejsFunction(stack, 'Worker', vpc);
    // WHEN
    LambdaMount.onFunction(fn, ap, { directS3Read: lambda.DirectS3Read.disabled() });
    // THEN
    const t = Template.fromStack(stack);
    expect(ap.accessPointId).toBe('fsap-0123456789abcdef0');
    expect(fs2.fileSystemId).toBe('fs-0123456789abcdef0');
    t.resourceCountIs('AWS::EC2::SecurityGroupIngress', 0);
    t.hasResourceProperties('AWS::Lambda::Function', { VpcConfig: { SecurityGroupIds: Match.arrayWith(['sg-0aaaaaaaaaaaaaaaa']) } });
  });
});

describe('LambdaMount.onFunction and imports: clear errors', () => {
  function owned() {
    const stack = newStack();
    const vpc = isolatedVpc(stack);
    const fileSystem = new S3FilesFileSystem(stack, 'Files', { vpc });
    return { stack, vpc, fileSystem, accessPoint: fileSystem.addAccessPoint('Ap', { path: '/lambda' }) };
  }

  test('a function without a VPC', () => {
    const { stack, accessPoint } = owned();
    const fn = new nodejs.NodejsFunction(stack, 'NoVpc', { entry: ENTRY, runtime: lambda.Runtime.NODEJS_24_X, bundling: { logLevel: nodejs.LogLevel.ERROR } });
    expect(() => LambdaMount.onFunction(fn, accessPoint)).toThrow(/TestStack\/NoVpc: invalid vpc "none": a function mounts S3 Files only from inside the VPC of the mount targets\. Fix: create the function with the file system's VPC/);
  });

  test('a second mount on one function', () => {
    const { stack, vpc, fileSystem, accessPoint } = owned();
    const fn = userNodejsFunction(stack, 'Worker', vpc);
    LambdaMount.onFunction(fn, accessPoint);
    expect(() => LambdaMount.onFunction(fn, fileSystem.addAccessPoint('Other', { path: '/other' }))).toThrow(/invalid filesystem "already set": Lambda allows one file system mount per function/);
  });

  test('a function in another VPC than the mount targets', () => {
    const { stack, accessPoint } = owned();
    const fn = userNodejsFunction(stack, 'Elsewhere', isolatedVpc(stack, 'OtherVpc'));
    expect(() => LambdaMount.onFunction(fn, accessPoint)).toThrow(/invalid vpc "TestStack\/Elsewhere\/SecurityGroup": the function's security group is in another VPC than the mount targets \(TestStack\/Vpc\)/);
  });

  test('an imported file system without a security group, or without a bucket for the default direct reads', () => {
    const stack = newStack();
    const vpc = isolatedVpc(stack);
    const fileSystem = S3FilesFileSystem.fromFileSystemAttributes(stack, 'Theirs', { fileSystemId: 'fs-0123456789abcdef0', vpc });
    const ap = S3FilesAccessPoint.fromAccessPointAttributes(stack, 'Ap', { fileSystem, accessPointId: 'fsap-0123456789abcdef0' });
    expect(() => LambdaMount.onFunction(userNodejsFunction(stack, 'A', vpc), ap)).toThrow(/invalid fileSystem "TestStack\/Theirs": mounting it needs what it was imported without: `clientSecurityGroup` .* or `securityGroups` .*, to let the function in over NFS; `bucket` \(and `prefix`\), for the grant of the default `directS3Read` .*Fix: give them to `S3FilesFileSystem\.fromFileSystemAttributes\(\)`, or pass `directS3Read`: `lambda\.DirectS3Read\.enabledWithoutGrant\(\)`/);
    const withSg = S3FilesFileSystem.fromFileSystemAttributes(stack, 'WithSg', {
      fileSystemId: 'fs-0123456789abcdef1', vpc, clientSecurityGroup: ec2.SecurityGroup.fromSecurityGroupId(stack, 'C', 'sg-0aaaaaaaaaaaaaaaa'),
    });
    const ap2 = S3FilesAccessPoint.fromAccessPointAttributes(stack, 'Ap2', { fileSystem: withSg, accessPointId: 'fsap-0123456789abcdef1' });
    expect(() => LambdaMount.onFunction(userNodejsFunction(stack, 'B', vpc), ap2)).toThrow(/invalid fileSystem "TestStack\/WithSg": mounting it needs what it was imported without: `bucket` \(and `prefix`\), for the grant of the default `directS3Read` \(AUTO: Lambda reads large files straight from the bucket\)\. Fix: give it to `S3FilesFileSystem\.fromFileSystemAttributes\(\)`, or pass `directS3Read`/);
  });

  test('an imported file system\'s AZs are checked against the function\'s subnets', () => {
    const stack = new Stack(new App(), 'Env', { env: { account: '111111111111', region: 'us-east-1' } });
    const vpc = isolatedVpc(stack);
    const fileSystem = S3FilesFileSystem.fromFileSystemAttributes(stack, 'Theirs', {
      fileSystemId: 'fs-0123456789abcdef0',
      vpc,
      mountTargetAvailabilityZones: [vpc.isolatedSubnets[0].availabilityZone],
      clientSecurityGroup: ec2.SecurityGroup.fromSecurityGroupId(stack, 'C', 'sg-0aaaaaaaaaaaaaaaa'),
    });
    const ap = S3FilesAccessPoint.fromAccessPointAttributes(stack, 'Ap', { fileSystem, accessPointId: 'fsap-0123456789abcdef0' });
    const fn = userNodejsFunction(stack, 'Worker', vpc);
    const az1 = vpc.isolatedSubnets[1].availabilityZone;
    expect(() => LambdaMount.onFunction(fn, ap, { directS3Read: lambda.DirectS3Read.disabled() }))
      .toThrow(new RegExp(`invalid vpcSubnets "${az1}": Env/Theirs has mount targets only in ${vpc.isolatedSubnets[0].availabilityZone}`));
  });

  test('attributes: an id or an ARN, well formed', () => {
    const stack = newStack();
    expect(() => S3FilesFileSystem.fromFileSystemAttributes(stack, 'None', {})).toThrow(/TestStack\/None: invalid fileSystemId undefined: an imported file system needs its id or its ARN/);
    expect(() => S3FilesFileSystem.fromFileSystemAttributes(stack, 'Bad', { fileSystemId: 'vol-123' })).toThrow(/invalid fileSystemId "vol-123": an S3 Files file system id looks like fs-0123456789abcdef0/);
    expect(() => S3FilesFileSystem.fromFileSystemAttributes(stack, 'BadPrefix', { fileSystemId: 'fs-0123456789abcdef0', prefix: 'no-slash' })).toThrow(/prefix/);
    const imported = S3FilesFileSystem.fromFileSystemAttributes(stack, 'Ok', { fileSystemId: 'fs-0123456789abcdef0' });
    expect(() => S3FilesAccessPoint.fromAccessPointAttributes(stack, 'NoId', { fileSystem: imported })).toThrow(/an imported access point needs its id or its ARN/);
    expect(() => S3FilesAccessPoint.fromAccessPointAttributes(stack, 'BadId', { fileSystem: imported, accessPointId: 'ap-1' })).toThrow(/invalid accessPointId "ap-1"/);
  });

  test('grants on an imported file system are identity statements; no role is tagged', () => {
    const stack = newStack();
    const fileSystem = S3FilesFileSystem.fromFileSystemAttributes(stack, 'Theirs', { fileSystemId: 'fs-0123456789abcdef0' });
    const role = new iam.Role(stack, 'Reader', { assumedBy: new iam.ServicePrincipal('ecs-tasks.amazonaws.com') });
    S3FilesFileSystemGrants.fromFileSystem(fileSystem).read(role);
    const t = Template.fromStack(stack);
    t.hasResourceProperties('AWS::IAM::Policy', { PolicyDocument: { Statement: [Match.objectLike({ Action: 's3files:ClientMount' })] } });
    expect(Object.values(t.findResources('AWS::IAM::Role'))[0].Properties.Tags).toBeUndefined();
    expect(warnings(stack)).toEqual([]);
  });
});
