import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { EcsMount, LambdaMount, S3FilesAccessPoint, S3FilesAccessPointGrants, S3FilesFileSystem, S3FilesFileSystemGrants } from '../../src';
import { FN } from '../util/template';

// Findings of the adversarial review of issue 28, each held by a test.

const ENV = { account: '111111111111', region: 'us-east-1' };
const warningsOf = (stack: Stack) => stack.node.findAll().flatMap((c) => c.node.metadata).filter((m) => m.type === 'aws:cdk:warning').map((m) => String(m.data));

describe('grants on another account\'s file system warn like mounts do', () => {
  const theirs = (stack: Stack) => S3FilesFileSystem.fromFileSystemAttributes(stack, 'Theirs', {
    fileSystemArn: 'arn:aws:s3files:us-east-1:222222222222:file-system/fs-0123456789abcdef0',
  });

  test('fileSystem.grantReadWrite(role) gives the statement the owner\'s file-system policy needs', () => {
    const stack = new Stack(new App(), 'Client', { env: ENV });
    const role = new iam.Role(stack, 'Worker', { assumedBy: new iam.ServicePrincipal('ecs-tasks.amazonaws.com') });
    S3FilesFileSystemGrants.fromFileSystem(theirs(stack)).readWrite(role);
    const [warning] = warningsOf(stack).filter((w) => w.includes('crossAccountFileSystem'));
    expect(warning).toMatch(/Client\/Theirs is in account 222222222222 \(its ARN\) and the role Client\/Worker in 111111111111: mounting fails unless the owner's file-system policy allows this role/);
    expect(warning).toMatch(/"Action":\["s3files:ClientMount","s3files:ClientWrite"\]/);
  });

  test('accessPoint.grantRead(role) names the access point in the statement; the same account warns nothing', () => {
    const stack = new Stack(new App(), 'Client', { env: ENV });
    const role = new iam.Role(stack, 'Worker', { assumedBy: new iam.ServicePrincipal('ecs-tasks.amazonaws.com') });
    S3FilesAccessPointGrants.fromAccessPoint(S3FilesAccessPoint.fromAccessPointAttributes(stack, 'Ap', { fileSystem: theirs(stack), accessPointId: 'fsap-0123456789abcdef0' })).read(role);
    expect(warningsOf(stack).filter((w) => w.includes('crossAccountFileSystem'))[0]).toMatch(/"s3files:AccessPointArn":"arn:aws:s3files:us-east-1:222222222222:file-system\/fs-0123456789abcdef0\/access-point\/fsap-0123456789abcdef0"/);
    const own = new Stack(new App(), 'Own', { env: ENV });
    const mine = S3FilesFileSystem.fromFileSystemAttributes(own, 'Mine', { fileSystemArn: 'arn:aws:s3files:us-east-1:111111111111:file-system/fs-0123456789abcdef0' });
    S3FilesFileSystemGrants.fromFileSystem(mine).readWrite(new iam.Role(own, 'Worker', { assumedBy: new iam.ServicePrincipal('ecs-tasks.amazonaws.com') }));
    expect(warningsOf(own).filter((w) => /crossAccountFileSystem|fileSystemAccountUnchecked/.test(w))).toEqual([]);
  });

  test('a named role of another account granted on this app\'s file system: the grant adds the owner\'s Allow, so no warning asks the owner for it', () => {
    const app = new App();
    const storage = new Stack(app, 'Storage', { env: ENV });
    const vpc = new ec2.Vpc(storage, 'Vpc', { natGateways: 0, subnetConfiguration: [{ name: 'I', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }] });
    const ap = new S3FilesFileSystem(storage, 'Files', { vpc }).addAccessPoint('Ap', { path: '/x' });
    const client = new Stack(app, 'Client', { env: { account: '222222222222', region: 'us-east-1' } });
    ap.grantRead(new iam.Role(client, 'R', { roleName: 'my-role', assumedBy: new iam.ServicePrincipal('ecs-tasks.amazonaws.com') }));
    app.synth();
    const [policy] = Object.values(Template.fromStack(storage).findResources('AWS::S3Files::FileSystemPolicy')) as any[];
    expect(JSON.stringify(policy.Properties.Policy.Statement.filter((x: any) => x.Effect === 'Allow'))).toContain('222222222222');
    expect(warningsOf(client).filter((w) => w.includes('crossAccountFileSystem'))).toEqual([]);
  });

  test('an API action (GetAccessPoint) gets no owner statement with the client condition key (it would not match); a client action beside it does', () => {
    const stack = new Stack(new App(), 'Client', { env: ENV });
    const role = new iam.Role(stack, 'Worker', { assumedBy: new iam.ServicePrincipal('ecs-tasks.amazonaws.com') });
    const ap = S3FilesAccessPoint.fromAccessPointAttributes(stack, 'Ap', { fileSystem: theirs(stack), accessPointId: 'fsap-0123456789abcdef0' });
    S3FilesAccessPointGrants.fromAccessPoint(ap).actions(role, 's3files:GetAccessPoint');
    const [apiOnly] = warningsOf(stack).filter((w) => w.includes('crossAccountFileSystem'));
    expect(apiOnly).toMatch(/s3files:GetAccessPoint is an API action on resources of account 222222222222/);
    expect(apiOnly).not.toMatch(/"Action"/);
    const both = new Stack(new App(), 'Both', { env: ENV });
    const apBoth = S3FilesAccessPoint.fromAccessPointAttributes(both, 'Ap', { fileSystem: theirs(both), accessPointId: 'fsap-0123456789abcdef0' });
    S3FilesAccessPointGrants.fromAccessPoint(apBoth).actions(new iam.Role(both, 'Worker', { assumedBy: new iam.ServicePrincipal('ecs-tasks.amazonaws.com') }), 's3files:ClientMount', 's3files:GetAccessPoint');
    const [mixed] = warningsOf(both).filter((w) => w.includes('crossAccountFileSystem'));
    expect(mixed).toMatch(/"Action":"s3files:ClientMount","Condition"/);
    expect(mixed).not.toMatch(/"Action":\["s3files:ClientMount","s3files:GetAccessPoint"\]/);
    expect(mixed).toMatch(/s3files:GetAccessPoint is an API action/);
  });
});

describe('readOnly and one role imported in two stacks', () => {
  test('a read-write mount of the same access point with the same role ARN, imported in another stack, draws the warning', () => {
    // GIVEN one role, imported by ARN in a stack of readers and in a stack of workers
    const app = new App();
    const storage = new Stack(app, 'Storage', { env: ENV });
    const vpc = new ec2.Vpc(storage, 'Vpc', { natGateways: 0, subnetConfiguration: [{ name: 'I', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }] });
    const fs = new S3FilesFileSystem(storage, 'Files', { vpc });
    const ap = fs.addAccessPoint('Shared', { path: '/shared' });
    const arn = 'arn:aws:iam::111111111111:role/shared';
    const readers = new Stack(app, 'Readers', { env: ENV });
    const reader = new lambda.Function(readers, 'Reader', { ...FN, vpc, role: iam.Role.fromRoleArn(readers, 'Role', arn) });
    LambdaMount.onFunction(reader, ap, { readOnly: true });
    const workers = new Stack(app, 'Workers', { env: ENV });
    const task = new ecs.FargateTaskDefinition(workers, 'Task', { taskRole: iam.Role.fromRoleArn(workers, 'Role', arn) });
    task.addContainer('app', { image: ecs.ContainerImage.fromRegistry('public.ecr.aws/docker/library/busybox:latest') });
    // WHEN the workers mount it read-write
    EcsMount.onTaskDefinition(task, ap);
    // THEN the read-only function is told its role may write
    Template.fromStack(readers);
    expect(warningsOf(readers).filter((w) => w.includes('readOnlySharedRole'))).toEqual([
      expect.stringMatching(/^`readOnly` is set, but the role arn:aws:iam::111111111111:role\/shared is also granted s3files:ClientWrite on this file system through the same access point/),
    ]);
  });
});
