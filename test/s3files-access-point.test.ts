import { App, Lazy, Stack, Token } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { S3FilesAccessPoint, S3FilesAccessPointOptions, S3FilesFileSystem } from '../src';
import { byPrefix, isolatedVpc, newStack, only, warnings } from './util/template';

function withFileSystem() {
  const stack = newStack();
  const fs = new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack) });
  return { stack, fs };
}

function accessPoint(options: S3FilesAccessPointOptions = {}) {
  const { stack, fs } = withFileSystem();
  const ap = new S3FilesAccessPoint(stack, 'AccessPoint', { ...options, fileSystem: fs });
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
    fs.addAccessPoint('One').grantRead(role);
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
      availabilityZones: vpc.availabilityZones,
      securityGroups: [ec2.SecurityGroup.fromSecurityGroupId(stack, 'MountTargets', 'sg-0123456789abcdef0')],
    });
    // WHEN an access point is created on it and mounted on a function
    const ap = new S3FilesAccessPoint(stack, 'Team', { fileSystem: theirs, path: '/team' });
    const fn = new lambda.Function(stack, 'Fn', {
      runtime: lambda.Runtime.NODEJS_24_X, handler: 'index.handler', code: lambda.Code.fromInline('x'), vpc,
    });
    ap.mountOnFunction(fn, { directS3Read: lambda.DirectS3Read.disabled() });
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
    // AND the waiter may read that file system, and the function is created only after the waiter
    const [, readPolicy] = byPrefix(t, 'AWS::IAM::Policy', 'cdks3fileslambdaWaiterProviderIsCompleteServiceRoleDefaultPolicy');
    expect(JSON.stringify(readPolicy.Properties.PolicyDocument)).toContain('file-system/fs-0123456789abcdef0');
    const [, fnResource] = byPrefix(t, 'AWS::Lambda::Function', 'Fn');
    expect(fnResource.DependsOn).toContain(waiterId);
  });

  test('warns when the POSIX user is root', () => {
    // GIVEN / WHEN
    const { stack } = accessPoint({ posixUser: { uid: 0, gid: 0 } });
    // THEN
    expect(warnings(stack).join('\n')).toMatch(/posixUser.uid is 0 \(root\)/);
  });

  test('does not warn for a non-root user', () => {
    const { stack } = accessPoint();
    expect(warnings(stack).join('\n')).not.toMatch(/root/);
  });

  test.each<[string, S3FilesAccessPointOptions, RegExp]>([
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
