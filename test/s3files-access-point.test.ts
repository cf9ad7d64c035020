import { App, Lazy, Stack, Token } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { LambdaMount, S3FilesAccessPoint, S3FilesAccessPointOptions, S3FilesFileSystem } from '../src';
import { byPrefix, FN, isolatedVpc, newStack, only, warnings } from './util/template';

function withFileSystem() {
  const stack = newStack();
  const fs = new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack) });
  return { stack, fs };
}

function accessPoint(options: Partial<S3FilesAccessPointOptions> = {}) {
  const { stack, fs } = withFileSystem();
  const ap = new S3FilesAccessPoint(stack, 'AccessPoint', { path: '/lambda', ...options, fileSystem: fs });
  return { stack, fs, ap };
}

describe('S3FilesAccessPoint', () => {
  test('defaults to /lambda, POSIX user 1000:1000 and 755 owned by that user', () => {
    // GIVEN / WHEN
    const { stack, ap } = accessPoint();
    // THEN
    const [, resource] = only(Template.fromStack(stack), 'AWS::S3Files::AccessPoint');
    expect(resource.Properties).toEqual({
      FileSystemId: { 'Fn::GetAtt': [expect.stringMatching(/^Files/), 'FileSystemId'] },
      PosixUser: { Uid: '1000', Gid: '1000' },
      RootDirectory: { Path: '/lambda', CreationPermissions: { OwnerUid: '1000', OwnerGid: '1000', Permissions: '755' } },
    });
    expect(ap.path).toBe('/lambda');
    expect(ap.posixUser).toEqual({ uid: 1000, gid: 1000 });
    expect(stack.resolve(ap.accessPointId)).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^AccessPoint/), 'AccessPointId'] });
    expect(stack.resolve(ap.accessPointArn)).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^AccessPoint/), 'AccessPointArn'] });
  });

  test('renders a custom POSIX user with secondary groups, path and permissions', () => {
    // GIVEN / WHEN
    const { stack } = accessPoint({ path: '/team/data', posixUser: { uid: 2000, gid: 3000, secondaryGids: [4000, 4001] }, createPermissions: '0750' });
    // THEN
    Template.fromStack(stack).hasResourceProperties('AWS::S3Files::AccessPoint', {
      PosixUser: { Uid: '2000', Gid: '3000', SecondaryGids: ['4000', '4001'] },
      RootDirectory: { Path: '/team/data', CreationPermissions: { OwnerUid: '2000', OwnerGid: '3000', Permissions: '0750' } },
    });
  });

  test('addAccessPoint creates a child of the file system and the waiter includes it', () => {
    // GIVEN
    const { stack, fs } = withFileSystem();
    // WHEN
    const ap = fs.addAccessPoint('Shared', { path: '/shared' });
    // THEN
    expect(ap.fileSystem).toBe(fs);
    expect(ap.node.scope).toBe(fs);
    const t = Template.fromStack(stack);
    const [apId] = only(t, 'AWS::S3Files::AccessPoint');
    expect(apId).toMatch(/^FilesShared/);
    const [, waiter] = only(t, 'Custom::S3FilesMountTargetsAvailable');
    expect(waiter.Properties.AccessPointIds).toEqual([{ 'Fn::GetAtt': [apId, 'AccessPointId'] }]);
    // ordered by that reference; and the access point is deleted before the delete guard runs
    const [guardId] = only(t, 'Custom::S3FilesDeleteGuard');
    expect(t.toJSON().Resources[apId].DependsOn).toContain(guardId);
  });

  test('grant methods follow aws-efs (read = mount, read/write, root = all three) and are scoped with the s3files:AccessPointArn condition', () => {
    // GIVEN
    const { stack, ap } = accessPoint();
    const client = (id: string) => new iam.Role(stack, id, { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
    // WHEN
    ap.grantRead(client('Reader'));
    ap.grantReadWrite(client('Writer'));
    ap.grantRootAccess(client('Admin'));
    ap.grant(client('Custom'), 's3files:ClientMount');
    // THEN
    const t = Template.fromStack(stack);
    const condition = { ArnEquals: { 's3files:AccessPointArn': { 'Fn::GetAtt': [Match.stringLikeRegexp('^AccessPoint'), 'AccessPointArn'] } } };
    const resource = { 'Fn::GetAtt': [Match.stringLikeRegexp('^Files'), 'FileSystemArn'] };
    const granted = (role: string, actions: string | string[]) => t.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: Match.stringLikeRegexp(`^${role}`) }],
      PolicyDocument: { Statement: [{ Action: actions, Effect: 'Allow', Resource: resource, Condition: condition }] },
    });
    granted('Reader', 's3files:ClientMount');
    granted('Writer', ['s3files:ClientMount', 's3files:ClientWrite']);
    granted('Admin', ['s3files:ClientMount', 's3files:ClientWrite', 's3files:ClientRootAccess']);
    granted('Custom', 's3files:ClientMount');
    expect(JSON.stringify(t.toJSON())).not.toMatch(/s3files-client-|PrincipalTag/);
    expect(() => ap.grant(client('Bad'), 'ec2:DescribeInstances')).toThrow(/invalid actions "ec2:DescribeInstances": only s3files: actions/);
  });

  test('the same principal on two access points gets two separately conditioned identity statements', () => {
    // GIVEN
    const { stack, fs } = withFileSystem();
    const role = new iam.Role(stack, 'Client', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
    // WHEN
    fs.addAccessPoint('One', { path: '/lambda' }).grantRead(role);
    fs.addAccessPoint('Two', { path: '/two' }).grantRead(role);
    // THEN
    const [, policy] = byPrefix(Template.fromStack(stack), 'AWS::IAM::Policy', 'ClientDefaultPolicy');
    const conditions = policy.Properties.PolicyDocument.Statement.map((st: any) => st.Condition.ArnEquals['s3files:AccessPointArn']['Fn::GetAtt'][0]);
    expect(conditions).toEqual([expect.stringMatching(/^FilesOne/), expect.stringMatching(/^FilesTwo/)]);
  });

  test('in another stack it gets a waiter of its own there, and the file system\'s stack never references it', () => {
    // GIVEN a file system in one stack
    const { stack, fs } = withFileSystem();
    const other = new Stack(stack.node.root as App, 'Compute');
    // WHEN an access point is created next to its clients, in another stack
    const ap = new S3FilesAccessPoint(other, 'Shared', { fileSystem: fs, path: '/shared' });
    // THEN its own waiter (on that stack's provider) covers it and the mount targets
    const t = Template.fromStack(other);
    const [apId] = only(t, 'AWS::S3Files::AccessPoint');
    const [waiterId, waiter] = only(t, 'Custom::S3FilesMountTargetsAvailable');
    expect(waiter.Properties).toMatchObject({
      ServiceToken: { 'Fn::GetAtt': [expect.stringMatching(/^cdks3fileslambdaWaiterProviderframeworkonEvent/), 'Arn'] },
      AccessPointIds: [{ 'Fn::GetAtt': [apId, 'AccessPointId'] }],
      ExpectedMountTargetCount: '2',
      VerifyBucketVersioning: 'false',
    });
    expect(waiterId).toMatch(/^SharedAvailable/);
    // AND the file system's stack lists no access point (it would reference the other stack)
    const fsTemplate = Template.fromStack(stack);
    fsTemplate.hasResourceProperties('Custom::S3FilesMountTargetsAvailable', { AccessPointIds: [] });
    expect(JSON.stringify(fsTemplate.toJSON())).not.toContain('Fn::ImportValue');
    expect(other.dependencies).toContain(stack);
    expect(stack.dependencies).toEqual([]);
    expect(ap.available).toBeDefined();
  });

  test('on an imported file system it gets a waiter of its own, and a function mounting it waits for that waiter', () => {
    // GIVEN a file system of another app, imported with the AZs of its mount targets
    const stack = newStack();
    const vpc = isolatedVpc(stack);
    const theirs = S3FilesFileSystem.fromFileSystemAttributes(stack, 'Theirs', {
      fileSystemId: 'fs-0123456789abcdef0',
      vpc,
      mountTargetAvailabilityZones: vpc.availabilityZones,
      securityGroups: [ec2.SecurityGroup.fromSecurityGroupId(stack, 'MountTargets', 'sg-0123456789abcdef0')],
    });
    // WHEN an access point is created on it and mounted on a function
    const ap = new S3FilesAccessPoint(stack, 'Team', { fileSystem: theirs, path: '/team' });
    const fn = new lambda.Function(stack, 'Fn', {
      runtime: lambda.Runtime.NODEJS_24_X, handler: 'index.handler', code: lambda.Code.fromInline('x'), vpc,
    });
    LambdaMount.onFunction(fn, ap, { directS3Read: lambda.DirectS3Read.disabled() });
    // THEN the access point is created on the imported id, a waiter waits for it and one mount target per AZ
    const t = Template.fromStack(stack);
    const [apId] = only(t, 'AWS::S3Files::AccessPoint');
    t.hasResourceProperties('AWS::S3Files::AccessPoint', { FileSystemId: 'fs-0123456789abcdef0', RootDirectory: { Path: '/team' } });
    const [waiterId, waiter] = only(t, 'Custom::S3FilesMountTargetsAvailable');
    expect(waiter.Properties).toMatchObject({
      FileSystemId: 'fs-0123456789abcdef0',
      AccessPointIds: [{ 'Fn::GetAtt': [apId, 'AccessPointId'] }],
      ExpectedMountTargetCount: '2',
      VerifyBucketVersioning: 'false',
    });
    // AND the waiter may read the account's file systems (the handler policy), waits for that policy, and the function only after the waiter
    const [readPolicyId, readPolicy] = byPrefix(t, 'AWS::IAM::Policy', 'cdks3fileslambdaWaiterProviderHandlerPolicy');
    expect(JSON.stringify(readPolicy.Properties.PolicyDocument.Statement[0])).toMatch(/s3files:GetAccessPoint.*:file-system\/\*"/);
    expect(waiter.DependsOn).toContain(readPolicyId);
    const [, fnResource] = byPrefix(t, 'AWS::Lambda::Function', 'Fn');
    expect(fnResource.DependsOn).toContain(waiterId);
  });

  test('warns when the POSIX user is root', () => {
    // GIVEN / WHEN
    const { stack } = accessPoint({ posixUser: { uid: 0, gid: 0 } });
    // THEN
    expect(warnings(stack).join('\n')).toMatch(/`posixUser.uid` is 0 \(root\)/);
  });

  test('does not warn for a non-root user', () => {
    const { stack } = accessPoint();
    expect(warnings(stack).join('\n')).not.toMatch(/root/);
  });

  test.each<[string, Partial<S3FilesAccessPointOptions>, RegExp]>([
    ['uid negative', { posixUser: { uid: -1, gid: 1000 } }, /invalid posixUser.uid -1: POSIX ids must be integers from 0 to 4294967295/],
    ['uid fractional', { posixUser: { uid: 1000.5, gid: 1000 } }, /invalid posixUser.uid 1000.5/],
    ['uid too large', { posixUser: { uid: 4294967296, gid: 1000 } }, /invalid posixUser.uid 4294967296/],
    ['gid negative', { posixUser: { uid: 1000, gid: -5 } }, /invalid posixUser.gid -5/],
    ['gid NaN', { posixUser: { uid: 1000, gid: NaN } }, /invalid posixUser.gid NaN/],
    ['secondary gid bad', { posixUser: { uid: 1000, gid: 1000, secondaryGids: [1, -2] } }, /invalid posixUser.secondaryGids\[1\] -2/],
    ['17 secondary gids', { posixUser: { uid: 1000, gid: 1000, secondaryGids: Array.from({ length: 17 }, (_, i) => i + 1) } },
      /invalid posixUser.secondaryGids \[1, 2, .*17\]: NFS \(AUTH_SYS\) carries at most 16 secondary groups/],
    ['permissions not octal', { createPermissions: '789' }, /invalid createPermissions "789": it must be 3 or 4 octal digits.*Fix: use a mode such as "755"/],
    ['permissions too short', { createPermissions: '75' }, /invalid createPermissions "75"/],
    ['permissions symbolic', { createPermissions: 'rwxr-xr-x' }, /invalid createPermissions "rwxr-xr-x"/],
    ['relative path', { path: 'lambda' }, /invalid path "lambda": access point paths must be absolute. Fix: use "\/lambda"/],
    ['path too long', { path: `/${'a'.repeat(100)}` }, /invalid path .*it is 101 characters long, the limit is 100/],
    ['five components', { path: '/a/b/c/d/e' }, /invalid path "\/a\/b\/c\/d\/e": it has 5 components, S3 Files allows at most 4/],
    ['hidden component', { path: '/data/.cache' }, /invalid path "\/data\/.cache": component ".cache" starts with "."/],
    ['dot-dot component', { path: '/data/../etc' }, /invalid path "\/data\/..\/etc": component ".." starts with "."/],
    ['double slash', { path: '/data//x' }, /invalid path "\/data\/\/x": it contains an empty component/],
    ['trailing slash', { path: '/data/' }, /invalid path "\/data\/": it contains an empty component/],
  ])('rejects %s', (_name, options, message) => {
    expect(() => accessPoint(options)).toThrow(message);
  });

  test('accepts the root path and four components', () => {
    expect(() => accessPoint({ path: '/' })).not.toThrow();
    expect(() => accessPoint({ path: '/a/b/c/d' })).not.toThrow();
  });

  test('skips unresolved tokens instead of rejecting them', () => {
    // GIVEN
    const uid = Token.asNumber(Lazy.number({ produce: () => 1234 }));
    // WHEN
    const { stack } = accessPoint({
      posixUser: { uid, gid: uid, secondaryGids: [uid] },
      path: Lazy.string({ produce: () => '/from-token' }),
      createPermissions: Lazy.string({ produce: () => '700' }),
    });
    // THEN
    Template.fromStack(stack).hasResourceProperties('AWS::S3Files::AccessPoint', {
      PosixUser: { Uid: '1234', Gid: '1234', SecondaryGids: ['1234'] },
      RootDirectory: { Path: '/from-token', CreationPermissions: { OwnerUid: '1234', OwnerGid: '1234', Permissions: '700' } },
    });
  });
});

describe('imports that cannot work are refused at synth (warned where tokens hide the answer)', () => {
  const ENV = { account: '111111111111', region: 'us-east-1' };
  const FS_ID = 'fs-0123456789abcdef0';
  const FS_ARN = `arn:aws:s3files:us-east-1:111111111111:file-system/${FS_ID}`;
  const AP_ARN = `${FS_ARN}/access-point/fsap-0123456789abcdef0`;
  const envStack = (env: { account?: string; region?: string } = ENV) => new Stack(new App(), 'Env', { env });

  test('a new access point on a file system of another account', () => {
    // GIVEN a file system whose ARN names account 222222222222, imported in a stack of 111111111111
    const stack = envStack();
    const theirs = S3FilesFileSystem.fromFileSystemAttributes(stack, 'Theirs', { fileSystemArn: FS_ARN.replace('111111111111', '222222222222') });
    // WHEN / THEN
    expect(() => new S3FilesAccessPoint(stack, 'Ap', { path: '/lambda', fileSystem: theirs }))
      .toThrow(/Env\/Ap: invalid fileSystem "Env\/Theirs": it is in account 222222222222 \(its ARN\) and Env in 111111111111.*Fix: create the access point in a stack of account 222222222222; to mount it from account 111111111111, import it \(`S3FilesAccessPoint\.fromAccessPointAttributes\(\)`\) and have the owner allow your role in the file system's policy \(README, "Who can mount": ECS, Batch and EC2 only; Lambda and AgentCore mount only their own account's file systems\)\./);
  });

  test('a new access point on a file system of another region', () => {
    const stack = envStack();
    const theirs = S3FilesFileSystem.fromFileSystemAttributes(stack, 'Theirs', { fileSystemArn: FS_ARN.replace('us-east-1', 'eu-west-1') });
    expect(() => new S3FilesAccessPoint(stack, 'Ap', { path: '/lambda', fileSystem: theirs }))
      .toThrow(/Env\/Ap: invalid fileSystem "Env\/Theirs": it is in eu-west-1 \(its ARN\) and Env in us-east-1.*Fix: create the access point in a stack of eu-west-1/);
  });

  test('an environment-agnostic stack: the same access point is accepted with warnings naming the account and region', () => {
    const stack = newStack();
    const theirs = S3FilesFileSystem.fromFileSystemAttributes(stack, 'Theirs', { fileSystemArn: FS_ARN });
    new S3FilesAccessPoint(stack, 'Ap', { path: '/lambda', fileSystem: theirs });
    const w = warnings(stack).join('\n');
    expect(w).toMatch(/TestStack\/Theirs is in us-east-1 \(its ARN\), and TestStack is environment-agnostic.*Give the stack an `env` with `region` 'us-east-1'/);
    expect(w).toMatch(/TestStack\/Theirs is in account 111111111111 \(its ARN\).*Give the stack an `env` with `account` '111111111111'/);
  });

  test('mounting a file system of another region', () => {
    // GIVEN an imported access point of a file system in eu-west-1, and a function in us-east-1
    const stack = envStack();
    const vpc = isolatedVpc(stack);
    const fileSystem = S3FilesFileSystem.fromFileSystemAttributes(stack, 'Theirs', {
      fileSystemArn: FS_ARN.replace('us-east-1', 'eu-west-1'), vpc, clientSecurityGroup: ec2.SecurityGroup.fromSecurityGroupId(stack, 'C', 'sg-0aaaaaaaaaaaaaaaa'),
    });
    const ap = S3FilesAccessPoint.fromAccessPointAttributes(stack, 'Ap', { fileSystem, accessPointArn: AP_ARN.replace('us-east-1', 'eu-west-1') });
    const fn = new lambda.Function(stack, 'Fn', { ...FN, vpc });
    // WHEN / THEN
    expect(() => LambdaMount.onFunction(fn, ap, { directS3Read: lambda.DirectS3Read.disabled() }))
      .toThrow(/Env\/Fn: invalid fileSystem "Env\/Theirs": it is in eu-west-1 \(its ARN\) and Env in us-east-1, and clients mount a file system only from a VPC in its region.*Fix: mount it in a stack of eu-west-1/);
  });

  test.each<[string, () => unknown, RegExp]>([
    ['an access point ARN of another file system', () => {
      const stack = newStack();
      const fileSystem = S3FilesFileSystem.fromFileSystemAttributes(stack, 'Theirs', { fileSystemArn: FS_ARN });
      return S3FilesAccessPoint.fromAccessPointAttributes(stack, 'Ap', { fileSystem, accessPointArn: AP_ARN.replace(FS_ID, 'fs-0fedcba9876543210') });
    }, /TestStack\/Ap: invalid accessPointArn ".*fs-0fedcba9876543210\/access-point\/fsap-0123456789abcdef0": it is an access point of .*fs-0fedcba9876543210, and `fileSystem` \(TestStack\/Theirs\) has the ARN .*fs-0123456789abcdef0.*Fix: pass the file system the access point belongs to/],
    ['an access point ARN of another file system, the file system imported by id', () => {
      const stack = newStack();
      const fileSystem = S3FilesFileSystem.fromFileSystemAttributes(stack, 'Theirs', { fileSystemId: 'fs-0fedcba9876543210' });
      return S3FilesAccessPoint.fromAccessPointAttributes(stack, 'Ap', { fileSystem, accessPointArn: AP_ARN });
    }, /invalid accessPointArn .*: it is an access point of .*fs-0123456789abcdef0, and `fileSystem` \(TestStack\/Theirs\) has the id fs-0fedcba9876543210/],
    ['an access point ARN of the same file system id in another region', () => {
      const stack = newStack();
      const fileSystem = S3FilesFileSystem.fromFileSystemAttributes(stack, 'Theirs', { fileSystemArn: FS_ARN });
      return S3FilesAccessPoint.fromAccessPointAttributes(stack, 'Ap', { fileSystem, accessPointArn: AP_ARN.replace('us-east-1', 'eu-west-1') });
    }, /invalid accessPointArn "arn:aws:s3files:eu-west-1:.*": it is an access point of arn:aws:s3files:eu-west-1:/],
    ['an id and an ARN of two access points', () => {
      const stack = newStack();
      const fileSystem = S3FilesFileSystem.fromFileSystemAttributes(stack, 'Theirs', { fileSystemArn: FS_ARN });
      return S3FilesAccessPoint.fromAccessPointAttributes(stack, 'Ap', { fileSystem, accessPointArn: AP_ARN, accessPointId: 'fsap-0fedcba9876543210' });
    }, /invalid accessPointId "fsap-0fedcba9876543210": `accessPointArn` names another access point \(fsap-0123456789abcdef0\)/],
    ['an id and an ARN of two file systems', () => S3FilesFileSystem.fromFileSystemAttributes(newStack(), 'Theirs', { fileSystemArn: FS_ARN, fileSystemId: 'fs-0fedcba9876543210' }),
      /invalid fileSystemId "fs-0fedcba9876543210": `fileSystemArn` names another file system \(fs-0123456789abcdef0\)/],
    ['a malformed file system ARN', () => S3FilesFileSystem.fromFileSystemAttributes(newStack(), 'Theirs', { fileSystemArn: 'arn:aws:elasticfilesystem:us-east-1:111111111111:file-system/fs-0123456789abcdef0' }),
      /invalid fileSystemArn "arn:aws:elasticfilesystem:.*": an S3 Files file system ARN looks like arn:aws:s3files:us-east-1:111122223333:file-system\/fs-0123456789abcdef0/],
    ['a malformed access point ARN', () => {
      const stack = newStack();
      const fileSystem = S3FilesFileSystem.fromFileSystemAttributes(stack, 'Theirs', { fileSystemArn: FS_ARN });
      return S3FilesAccessPoint.fromAccessPointAttributes(stack, 'Ap', { fileSystem, accessPointArn: `${FS_ARN}/fsap-0123456789abcdef0` });
    }, /invalid accessPointArn ".*": an S3 Files access point ARN looks like arn:aws:s3files:.*access-point\/fsap-0123456789abcdef0/],
    ['a file system id of 8 hex digits (the API takes 17 to 40)', () => S3FilesFileSystem.fromFileSystemAttributes(newStack(), 'Short', { fileSystemId: 'fs-01234567' }),
      /invalid fileSystemId "fs-01234567": an S3 Files file system id looks like fs-0123456789abcdef0 \(fs- and 17 to 40 hex digits\)/],
    ['an access point id of 16 hex digits', () => {
      const stack = newStack();
      const fileSystem = S3FilesFileSystem.fromFileSystemAttributes(stack, 'Theirs', { fileSystemId: FS_ID });
      return S3FilesAccessPoint.fromAccessPointAttributes(stack, 'Ap', { fileSystem, accessPointId: 'fsap-0123456789abcdef' });
    }, /invalid accessPointId "fsap-0123456789abcdef": an S3 Files access point id looks like fsap-0123456789abcdef0 \(fsap- and 17 to 40 hex digits\)/],
  ])('refuses %s', (_what, build, message) => {
    expect(build).toThrow(message);
  });

  test('an access point ARN with a file system created in this app: accepted with a warning', () => {
    const stack = newStack();
    const fileSystem = new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack) });
    S3FilesAccessPoint.fromAccessPointAttributes(stack, 'Ap', { fileSystem, accessPointArn: AP_ARN });
    expect(warnings(stack).join('\n')).toMatch(/`accessPointArn` belongs to fs-0123456789abcdef0, and the id of TestStack\/Files is only known at deploy time/);
  });

  test('a function in another VPC whose security group is imported', () => {
    // GIVEN the file system in one VPC, a function in another VPC with an imported security group
    const stack = newStack();
    const fileSystem = new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack) });
    const other = isolatedVpc(stack, 'Other');
    const fn = new lambda.Function(stack, 'Fn', {
      ...FN, vpc: other, securityGroups: [ec2.SecurityGroup.fromSecurityGroupId(stack, 'Sg', 'sg-0bbbbbbbbbbbbbbbb')],
    });
    // WHEN / THEN
    expect(() => LambdaMount.onFunction(fn, fileSystem.addAccessPoint('Ap', { path: '/lambda' })))
      .toThrow(/TestStack\/Fn: invalid vpcSubnets .*: the function's subnet is in TestStack\/Other, and the mount targets in TestStack\/Vpc: clients mount only from the mount targets' VPC.*Fix: place the function in subnets of TestStack\/Vpc/);
  });

  test('a function with an imported security group in subnets of the file system\'s VPC is accepted', () => {
    const stack = newStack();
    const vpc = isolatedVpc(stack);
    const fileSystem = new S3FilesFileSystem(stack, 'Files', { vpc });
    const fn = new lambda.Function(stack, 'Fn', { ...FN, vpc, securityGroups: [ec2.SecurityGroup.fromSecurityGroupId(stack, 'Sg', 'sg-0bbbbbbbbbbbbbbbb')] });
    LambdaMount.onFunction(fn, fileSystem.addAccessPoint('Ap', { path: '/lambda' }));
    expect(warnings(stack).join('\n')).not.toMatch(/VPC/);
  });
});

describe('aws-cdk-lib\'s own S3 Files helper', () => {
  test('lambda.FileSystem.fromS3FilesAccessPoint with this library\'s access point fails with the library\'s message and the fix', () => {
    const { ap } = accessPoint();
    expect(() => lambda.FileSystem.fromS3FilesAccessPoint(ap as any, '/mnt/data'))
      .toThrow(/TestStack\/AccessPoint: invalid accessPoint "TestStack\/AccessPoint": it is an access point of this library, which `lambda\.FileSystem\.fromS3FilesAccessPoint\(\)` cannot mount .*Fix: mount it with `LambdaMount\.onFunction\(\)`/);
  });
});
