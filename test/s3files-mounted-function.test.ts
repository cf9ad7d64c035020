import * as cdk from 'aws-cdk-lib';
import { App, Fn, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { S3FilesAccessPoint, S3FilesFileSystem, S3FilesMountedFunction, S3FilesMountedFunctionProps } from '../src';
import { byPrefix, FN, isolatedVpc, newStack, only, resourcesOfType, warnings } from './util/template';

function mounted(props: Partial<S3FilesMountedFunctionProps> = {}, stack: Stack = newStack()) {
  const fn = new S3FilesMountedFunction(stack, 'Processor', { ...FN, ...props });
  return { stack, fn, template: () => Template.fromStack(stack) };
}

/** All statements of the function's role policy. */
function roleStatements(template: Template, functionId: string): any[] {
  const [, policy] = byPrefix(template, 'AWS::IAM::Policy', `${functionId}ServiceRoleDefaultPolicy`);
  return policy.Properties.PolicyDocument.Statement;
}

function fileSystemPolicyStatements(template: Template): any[] {
  const [, policy] = only(template, 'AWS::S3Files::FileSystemPolicy');
  return policy.Properties.Policy.Statement;
}

/** The direct-read statement: the object reads of the file system's prefix. */
const isDirectRead = (s: any) => JSON.stringify(s.Action) === '["s3:GetObject","s3:GetObjectVersion"]';

describe('S3FilesMountedFunction: defaults', () => {
  test('creates a VPC without NAT: isolated subnets in two AZs and an S3 gateway endpoint', () => {
    // GIVEN / WHEN
    const { template } = mounted();
    // THEN
    const t = template();
    t.resourceCountIs('AWS::EC2::NatGateway', 0);
    t.resourceCountIs('AWS::EC2::InternetGateway', 0);
    t.resourceCountIs('AWS::EC2::Subnet', 2);
    t.allResourcesProperties('AWS::EC2::Subnet', { MapPublicIpOnLaunch: false });
    t.hasResourceProperties('AWS::EC2::VPCEndpoint', {
      VpcEndpointType: 'Gateway',
      ServiceName: { 'Fn::Join': ['', ['com.amazonaws.', { Ref: 'AWS::Region' }, '.s3']] },
    });
    t.resourceCountIs('AWS::S3Files::MountTarget', 2);
  });

  test('mounts the access point at /mnt/s3files with direct reads AUTO (the service default) and sets MOUNT_PATH', () => {
    // GIVEN / WHEN
    const { template, fn } = mounted();
    // THEN
    const [apId] = only(template(), 'AWS::S3Files::AccessPoint');
    template().hasResourceProperties('AWS::Lambda::Function', {
      FileSystemConfigs: [{ Arn: { 'Fn::GetAtt': [apId, 'AccessPointArn'] }, LocalMountPath: '/mnt/s3files', S3FilesConfig: { DirectS3Read: 'AUTO' } }],
      Environment: { Variables: { MOUNT_PATH: '/mnt/s3files' } },
      VpcConfig: Match.objectLike({ SubnetIds: [{ Ref: Match.stringLikeRegexp('^ProcessorVpcIsolatedSubnet1') }, { Ref: Match.stringLikeRegexp('^ProcessorVpcIsolatedSubnet2') }] }),
    });
    expect(fn.mountPath).toBe('/mnt/s3files');
    expect(fn.accessPoint.fileSystem).toBe(fn.s3FileSystem);
  });

  test('logical ids are readable', () => {
    // GIVEN / WHEN
    const { template } = mounted();
    // THEN
    const ids = Object.keys(template().toJSON().Resources);
    expect(ids).toEqual(expect.arrayContaining([
      expect.stringMatching(/^ProcessorFileSystem[0-9A-F]{8}$/),
      expect.stringMatching(/^ProcessorAccessPoint[0-9A-F]{8}$/),
      expect.stringMatching(/^ProcessorFileSystemMountTargetAz1[0-9A-F]{8}$/),
      expect.stringMatching(/^ProcessorFileSystemClientSecurityGroup[0-9A-F]{8}$/),
      expect.stringMatching(/^ProcessorFileSystemMountTargetsAvailable[0-9A-F]{8}$/),
      expect.stringMatching(/^ProcessorFileSystemServiceRole[0-9a-f]{8}[0-9A-F]{8}$/),
      expect.stringMatching(/^ProcessorFileSystemBucket[0-9A-F]{8}$/),
      expect.stringMatching(/^ProcessorVpc[0-9A-F]{8}$/),
      expect.stringMatching(/^Processor[0-9A-F]{8}$/),
    ]));
  });

  test('the function depends on the waiter and the file system policy, not merely the mount targets', () => {
    // GIVEN / WHEN
    const { template } = mounted();
    // THEN
    const t = template();
    const [, fn] = byPrefix(t, 'AWS::Lambda::Function', 'Processor');
    const [waiterId] = only(t, 'Custom::S3FilesMountTargetsAvailable');
    const [policyId] = only(t, 'AWS::S3Files::FileSystemPolicy');
    expect(fn.DependsOn).toEqual(expect.arrayContaining([waiterId, policyId]));
    // the waiter, in turn, waits for every mount target
    const [, waiter] = only(t, 'Custom::S3FilesMountTargetsAvailable');
    const mtIds = resourcesOfType(t, 'AWS::S3Files::MountTarget').map(([id]) => id);
    expect(waiter.DependsOn).toEqual(expect.arrayContaining(mtIds));
    // and only the function resource waits (its role and security group do not)
    const [, role] = byPrefix(t, 'AWS::IAM::Role', 'ProcessorServiceRole');
    expect(role.DependsOn ?? []).not.toContain(waiterId);
  });

  test('ClientMount and ClientWrite scoped to the file system with the access point condition', () => {
    // GIVEN / WHEN
    const { template } = mounted();
    // THEN
    const t = template();
    const [apId] = only(t, 'AWS::S3Files::AccessPoint');
    const [fsId] = only(t, 'AWS::S3Files::FileSystem');
    const mount = roleStatements(t, 'Processor').find((s: any) => JSON.stringify(s.Action).includes('s3files:'));
    expect(mount).toEqual({
      Effect: 'Allow',
      Action: ['s3files:ClientMount', 's3files:ClientWrite'],
      Resource: { 'Fn::GetAtt': [fsId, 'FileSystemArn'] },
      Condition: { ArnEquals: { 's3files:AccessPointArn': { 'Fn::GetAtt': [apId, 'AccessPointArn'] } } },
    });
  });

  test('the file system policy names no function and the function role carries no tag: the identity grant and the access point are what count', () => {
    // GIVEN / WHEN
    const { template } = mounted();
    // THEN
    const t = template();
    expect(fileSystemPolicyStatements(t).map((st) => st.Sid)).toEqual(['DenyInsecureTransport', 'DenyMountsWithoutAccessPoint']);
    expect(JSON.stringify(fileSystemPolicyStatements(t))).not.toContain('ProcessorServiceRole');
    const [, role] = byPrefix(t, 'AWS::IAM::Role', 'ProcessorServiceRole');
    expect(role.Properties.Tags).toBeUndefined();
  });

  test('joins the file system\'s client security group, next to its own; no rule names the function', () => {
    // GIVEN / WHEN
    const { template, stack } = mounted();
    // THEN the function has its own group (all outbound) and the client group
    const t = template();
    const [, fn] = byPrefix(t, 'AWS::Lambda::Function', 'Processor');
    expect(fn.Properties.VpcConfig.SecurityGroupIds).toEqual([
      { 'Fn::GetAtt': [expect.stringMatching(/^ProcessorSecurityGroup/), 'GroupId'] },
      { 'Fn::GetAtt': [expect.stringMatching(/^ProcessorFileSystemClientSecurityGroup/), 'GroupId'] },
    ]);
    // AND the only NFS rules are the file system's own pair, which name the client group
    const rules = [...resourcesOfType(t, 'AWS::EC2::SecurityGroupIngress'), ...resourcesOfType(t, 'AWS::EC2::SecurityGroupEgress')];
    expect(rules).toHaveLength(2);
    expect(JSON.stringify(rules)).not.toMatch(/ProcessorSecurityGroup/);
    expect(warnings(stack).filter((w) => /Ignoring Egress rule/.test(w))).toEqual([]);
  });

  test('any number of functions costs no further security-group rule or policy statement', () => {
    // GIVEN one file system
    const counts: number[][] = [];
    for (const n of [1, 5]) {
      const stack = newStack();
      const fileSystem = new S3FilesFileSystem(stack, 'Shared', { vpc: isolatedVpc(stack) });
      // WHEN n functions mount it
      for (let i = 0; i < n; i++) new S3FilesMountedFunction(stack, `F${i}`, { ...FN, s3FileSystem: fileSystem });
      const t = Template.fromStack(stack);
      counts.push([
        resourcesOfType(t, 'AWS::EC2::SecurityGroupIngress').length,
        fileSystemPolicyStatements(t).length,
        JSON.stringify(fileSystemPolicyStatements(t)).length,
      ]);
    }
    // THEN rules, statements and policy size are the same for 1 and 5 functions
    expect(counts[1]).toEqual(counts[0]);
    expect(counts[0].slice(0, 2)).toEqual([1, 2]);
  });

  test('a function that already has five security groups gets a clear error', () => {
    // GIVEN
    const stack = newStack();
    const vpc = isolatedVpc(stack);
    const securityGroups = [1, 2, 3, 4, 5].map((i) => new ec2.SecurityGroup(stack, `Sg${i}`, { vpc }));
    // WHEN / THEN
    expect(() => mounted({ vpc, securityGroups }, stack))
      .toThrow(/TestStack\/Processor: invalid securityGroups .*with the file system's client security group the function has 6, and Lambda allows at most 5. Fix: pass at most 4 security groups/);
  });

  test('a security group without allow-all outbound still reaches NFS through the client group', () => {
    // GIVEN a function in a restrictive security group of the shared VPC
    const stack = newStack();
    const vpc = isolatedVpc(stack);
    const securityGroup = new ec2.SecurityGroup(stack, 'Restrictive', { vpc, allowAllOutbound: false });
    // WHEN
    mounted({ vpc, securityGroups: [securityGroup] }, stack);
    // THEN the client group it joins carries the NFS egress; its own group was not opened
    const egress = resourcesOfType(Template.fromStack(stack), 'AWS::EC2::SecurityGroupEgress');
    expect(egress).toHaveLength(1);
    expect(egress[0][1].Properties).toMatchObject({
      IpProtocol: 'tcp',
      FromPort: 2049,
      ToPort: 2049,
      GroupId: { 'Fn::GetAtt': [expect.stringMatching(/^ProcessorFileSystemClientSecurityGroup/), 'GroupId'] },
    });
  });

  test('direct reads get s3:GetObject(Version) on the file system\'s objects (its prefix), as the S3 user guide grants, whatever the access point\'s directory', () => {
    // GIVEN / WHEN
    const { template } = mounted({ s3FileSystemOptions: { prefix: 'shared/' }, accessPointOptions: { path: '/jobs/in' } });
    // THEN the file system's prefix: efs-utils and Lambda probe the prefix itself, which a grant under /jobs/in would deny
    const direct = roleStatements(template(), 'Processor').find(isDirectRead);
    expect(direct).toEqual({
      Effect: 'Allow',
      Action: ['s3:GetObject', 's3:GetObjectVersion'],
      Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [expect.stringMatching(/^ProcessorFileSystemBucket/), 'Arn'] }, '/shared/*']] },
    });
    // AND no s3:ListBucket (Lambda's documented direct-read policy has none)
    expect(JSON.stringify(roleStatements(template(), 'Processor'))).not.toContain('s3:ListBucket');
  });

  test('an access point at the root directory reads under the prefix', () => {
    const { template } = mounted({ accessPointOptions: { path: '/' } });
    const direct = roleStatements(template(), 'Processor').find(isDirectRead);
    expect(direct.Resource['Fn::Join'][1][1]).toBe('/*');
  });
});

describe('S3FilesMountedFunction: options', () => {
  test('readOnly: no ClientWrite anywhere', () => {
    // GIVEN / WHEN
    const { template } = mounted({ readOnly: true });
    // THEN
    const t = template();
    expect(JSON.stringify(roleStatements(t, 'Processor'))).not.toContain('ClientWrite');
    expect(JSON.stringify(roleStatements(t, 'Processor'))).toContain('s3files:ClientMount');
  });

  test('rootAccess adds ClientRootAccess', () => {
    // GIVEN / WHEN
    const { template } = mounted({ rootAccess: true });
    // THEN
    const mount = roleStatements(template(), 'Processor').find((s: any) => JSON.stringify(s.Action).includes('s3files:'));
    expect(mount.Action).toEqual(['s3files:ClientMount', 's3files:ClientWrite', 's3files:ClientRootAccess']);
  });

  test('readOnly with rootAccess deploys with a warning', () => {
    const { stack } = mounted({ readOnly: true, rootAccess: true });
    expect(warnings(stack).join('\n')).toMatch(/`readOnly` and `rootAccess` are both set/);
  });

  test('custom mount path', () => {
    const { template } = mounted({ mountPath: '/mnt/data-1.v2' });
    template().hasResourceProperties('AWS::Lambda::Function', {
      FileSystemConfigs: [Match.objectLike({ LocalMountPath: '/mnt/data-1.v2' })],
      Environment: { Variables: { MOUNT_PATH: '/mnt/data-1.v2' } },
    });
  });

  test('keeps the user environment next to MOUNT_PATH', () => {
    const { template } = mounted({ environment: { STAGE: 'test' } });
    template().hasResourceProperties('AWS::Lambda::Function', { Environment: { Variables: { STAGE: 'test', MOUNT_PATH: '/mnt/s3files' } } });
  });

  test('uses a given VPC and bucket to build the file system', () => {
    // GIVEN
    const stack = newStack();
    const vpc = isolatedVpc(stack);
    const bucket = s3.Bucket.fromBucketName(stack, 'Data', 'existing-data');
    // WHEN
    const { fn, template } = mounted({ vpc, bucket }, stack);
    // THEN
    expect((fn.s3FileSystem as S3FilesFileSystem).vpc).toBe(vpc);
    expect((fn.s3FileSystem as S3FilesFileSystem).bucket).toBe(bucket);
    const t = template();
    t.resourceCountIs('AWS::EC2::VPC', 1);
    t.resourceCountIs('AWS::S3::Bucket', 0);
    t.hasResourceProperties('Custom::S3FilesMountTargetsAvailable', { VerifyBucketVersioning: 'true', BucketName: 'existing-data' });
  });

  test('fileSystemOptions reach the new file system', () => {
    const { template } = mounted({ s3FileSystemOptions: { prefix: 'in/' } });
    template().hasResourceProperties('AWS::S3Files::FileSystem', { Prefix: 'in/' });
  });
});

describe('S3FilesMountedFunction: sharing', () => {
  test('two functions share one access point', () => {
    // GIVEN
    const stack = newStack();
    const first = new S3FilesMountedFunction(stack, 'Writer', { ...FN });
    // WHEN
    const second = new S3FilesMountedFunction(stack, 'Reader', { ...FN, accessPoint: first.accessPoint, readOnly: true });
    // THEN
    expect(second.s3FileSystem).toBe(first.s3FileSystem);
    expect(second.accessPoint).toBe(first.accessPoint);
    const t = Template.fromStack(stack);
    t.resourceCountIs('AWS::S3Files::FileSystem', 1);
    const [apId] = only(t, 'AWS::S3Files::AccessPoint');
    for (const id of ['Writer', 'Reader']) {
      const [, fn] = byPrefix(t, 'AWS::Lambda::Function', `${id}`);
      expect(fn.Properties.FileSystemConfigs[0].Arn).toEqual({ 'Fn::GetAtt': [apId, 'AccessPointArn'] });
    }
    expect(resourcesOfType(t, 'AWS::EC2::SecurityGroupIngress')).toHaveLength(1);
    const writes = ['Writer', 'Reader'].map((id) => JSON.stringify(roleStatements(t, id)).includes('s3files:ClientWrite'));
    expect(writes).toEqual([true, false]);
  });

  test('two functions share one file system, each with its own access point', () => {
    // GIVEN
    const stack = newStack();
    const fs = new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack) });
    // WHEN
    const a = new S3FilesMountedFunction(stack, 'A', { ...FN, s3FileSystem: fs });
    const b = new S3FilesMountedFunction(stack, 'B', { ...FN, s3FileSystem: fs, accessPointOptions: { path: '/b', posixUser: { uid: 2000, gid: 2000 } } });
    // THEN
    expect(a.accessPoint).not.toBe(b.accessPoint);
    const t = Template.fromStack(stack);
    const apIds = resourcesOfType(t, 'AWS::S3Files::AccessPoint').map(([id]) => id);
    // beside each function, named after it
    expect(apIds).toEqual([expect.stringMatching(/^AAccessPoint/), expect.stringMatching(/^BAccessPoint/)]);
    t.hasResourceProperties('Custom::S3FilesMountTargetsAvailable', { AccessPointIds: apIds.map(id => ({ 'Fn::GetAtt': [id, 'AccessPointId'] })) });
  });

  test('functions with the same id in different scopes get distinct access points', () => {
    // GIVEN
    const stack = newStack();
    const fs = new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack) });
    // WHEN
    new S3FilesMountedFunction(new ec2.SecurityGroup(stack, 'ScopeA', { vpc: fs.vpc! }), 'Fn', { ...FN, s3FileSystem: fs });
    new S3FilesMountedFunction(new ec2.SecurityGroup(stack, 'ScopeB', { vpc: fs.vpc! }), 'Fn', { ...FN, s3FileSystem: fs });
    // THEN
    expect(stack.node.findChild('ScopeA').node.tryFindChild('FnAccessPoint')).toBeInstanceOf(S3FilesAccessPoint);
    expect(stack.node.findChild('ScopeB').node.tryFindChild('FnAccessPoint')).toBeInstanceOf(S3FilesAccessPoint);
  });
});

describe('S3FilesMountedFunction: AZ coverage', () => {
  test('a function in an AZ without a mount target is a synth error naming the AZs and the fix', () => {
    // GIVEN a file system with a mount target in AZ #1 only
    const stack = newStack();
    const vpc = isolatedVpc(stack);
    const fileSystem = new S3FilesFileSystem(stack, 'Files', { vpc, vpcSubnets: { subnets: [vpc.isolatedSubnets[0]] } });
    // WHEN a function runs in both AZs / THEN
    expect(() => new S3FilesMountedFunction(stack, 'Fn', { ...FN, s3FileSystem: fileSystem }))
      .toThrow(/TestStack\/Fn: invalid vpcSubnets "AZ #2": TestStack\/Files has mount targets only in AZ #1, and a client needs a mount target in every AZ it runs in\. Fix: select subnets in AZ #1 only/);
    // AND a function in AZ #1 only is fine
    expect(() => new S3FilesMountedFunction(stack, 'Ok', { ...FN, s3FileSystem: fileSystem, vpcSubnets: { subnets: [vpc.isolatedSubnets[0]] } })).not.toThrow();
  });

  test('the file system the construct creates: the fix names `s3FileSystemOptions.vpcSubnets`, the prop that places its mount targets', () => {
    const stack = newStack();
    const vpc = isolatedVpc(stack);
    expect(() => new S3FilesMountedFunction(stack, 'Fn', { ...FN, vpc, s3FileSystemOptions: { vpcSubnets: { subnets: [vpc.isolatedSubnets[0]] } } }))
      .toThrow(/Fix: select subnets in AZ #1 only, or add those AZs to the `s3FileSystemOptions\.vpcSubnets` of TestStack\/Fn, which created the file system.*Python: .*s3_file_system_options\.vpc_subnets/);
  });

  test('literal AZs are compared by name', () => {
    // GIVEN an env-specific stack (literal AZs)
    const stack = new Stack(new App(), 'Env', { env: { account: '111111111111', region: 'us-east-1' } });
    const vpc = isolatedVpc(stack);
    const fileSystem = new S3FilesFileSystem(stack, 'Files', { vpc, vpcSubnets: { subnets: [vpc.isolatedSubnets[1]] } });
    const az0 = vpc.isolatedSubnets[0].availabilityZone;
    // WHEN / THEN
    expect(() => new S3FilesMountedFunction(stack, 'Fn', { ...FN, s3FileSystem: fileSystem })).toThrow(new RegExp(`invalid vpcSubnets "${az0}"`));
  });

  test('a function subnet imported without its AZ gets the warning, not a crash', () => {
    // GIVEN a file system in a normal VPC, and a function subnet imported by id only
    const stack = newStack();
    const vpc = isolatedVpc(stack);
    const fileSystem = new S3FilesFileSystem(stack, 'Files', { vpc });
    // WHEN
    new S3FilesMountedFunction(stack, 'Fn', { ...FN, s3FileSystem: fileSystem, vpcSubnets: { subnets: [ec2.Subnet.fromSubnetId(stack, 'NoAz', 'subnet-0abc')] } });
    // THEN
    expect(warnings(stack).join('\n')).toMatch(/only known at deploy time/);
  });

  test('AZs known only at deploy time get a warning instead', () => {
    // GIVEN a VPC imported with token AZs
    const stack = newStack();
    const vpc = ec2.Vpc.fromVpcAttributes(stack, 'Vpc', {
      vpcId: 'vpc-0123456789abcdef0',
      availabilityZones: [Fn.importValue('az-a'), Fn.importValue('az-b')],
      isolatedSubnetIds: ['subnet-0aaaaaaaaaaaaaaaa', 'subnet-0bbbbbbbbbbbbbbbb'],
    });
    const fileSystem = new S3FilesFileSystem(stack, 'Files', { vpc });
    // WHEN
    new S3FilesMountedFunction(stack, 'Fn', { ...FN, s3FileSystem: fileSystem });
    // THEN
    expect(warnings(stack).join('\n')).toMatch(/only known at deploy time, so the library cannot check that every client subnet has a mount target/);
    // AND it names the prop in each binding's spelling
    expect(warnings(stack).join('\n')).toContain('(Python: vpc_subnets; Java: vpcSubnets(…); Go: VpcSubnets.)');
  });
});

describe('S3FilesMountedFunction: direct S3 reads', () => {
  test('kms:Decrypt through S3 for the bucket\'s objects under any key of the account, with or without a known key (a bucket imported by name)', () => {
    // GIVEN an imported bucket whose key the app does not know
    const stack = newStack();
    // WHEN
    const { template } = mounted({ bucket: s3.Bucket.fromBucketName(stack, 'B', 'data') }, stack);
    // THEN
    const decrypt = roleStatements(template(), 'Processor').find((st: any) => st.Action === 'kms:Decrypt');
    const arn = (rest: string) => ({ 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, rest]] });
    expect(decrypt).toEqual({
      Effect: 'Allow',
      Action: 'kms:Decrypt',
      Resource: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':kms:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':key/*']] },
      Condition: {
        StringLike: {
          'kms:ViaService': { 'Fn::Join': ['', ['s3.', { Ref: 'AWS::Region' }, '.', { Ref: 'AWS::URLSuffix' }]] },
          'kms:EncryptionContext:aws:s3:arn': [arn(':s3:::data'), arn(':s3:::data/*')],
        },
      },
    });
  });

  test('DirectS3Read.disabled(): DISABLED and no S3 read grant', () => {
    const { template } = mounted({ directS3Read: lambda.DirectS3Read.disabled() });
    template().hasResourceProperties('AWS::Lambda::Function', { FileSystemConfigs: [Match.objectLike({ S3FilesConfig: { DirectS3Read: 'DISABLED' } })] });
    expect(JSON.stringify(roleStatements(template(), 'Processor'))).not.toContain('s3:GetObject');
  });

  test('DirectS3Read.enabledWithoutGrant(): ENABLED and no S3 read grant', () => {
    const { template } = mounted({ directS3Read: lambda.DirectS3Read.enabledWithoutGrant() });
    template().hasResourceProperties('AWS::Lambda::Function', { FileSystemConfigs: [Match.objectLike({ S3FilesConfig: { DirectS3Read: 'ENABLED' } })] });
    expect(JSON.stringify(roleStatements(template(), 'Processor'))).not.toContain('s3:GetObject');
  });

  test('DirectS3Read.enabled(bucket): ENABLED with the scoped grant on the file system bucket', () => {
    const stack = newStack();
    const bucket = new s3.Bucket(stack, 'Data', { versioned: true });
    const { template } = mounted({ bucket, directS3Read: lambda.DirectS3Read.enabled(bucket) }, stack);
    template().hasResourceProperties('AWS::Lambda::Function', { FileSystemConfigs: [Match.objectLike({ S3FilesConfig: { DirectS3Read: 'ENABLED' } })] });
    const direct = roleStatements(template(), 'Processor').find(isDirectRead);
    expect(direct.Resource).toEqual({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [expect.stringMatching(/^Data/), 'Arn'] }, '/*']] });
  });

  test('DirectS3Read.auto() below 512 MB: AUTO, grant kept, and a warning', () => {
    const { template, stack } = mounted({ directS3Read: lambda.DirectS3Read.auto() });
    template().hasResourceProperties('AWS::Lambda::Function', { FileSystemConfigs: [Match.objectLike({ S3FilesConfig: { DirectS3Read: 'AUTO' } })] });
    expect(JSON.stringify(roleStatements(template(), 'Processor'))).toContain('s3:GetObject');
    expect(warnings(stack).join('\n')).toMatch(/`memorySize` is 128 MB and `directS3Read` is AUTO/);
  });

  test('the default (AUTO) below 512 MB: the grant, no warning (small reads simply go through the file system)', () => {
    const { template, stack } = mounted();
    expect(JSON.stringify(roleStatements(template(), 'Processor'))).toContain('s3:GetObject');
    expect(warnings(stack).join('\n')).not.toMatch(/directS3Read is AUTO/);
  });

  test('DirectS3Read.auto() at 512 MB: no warning', () => {
    const { stack } = mounted({ directS3Read: lambda.DirectS3Read.auto(), memorySize: 512 });
    expect(warnings(stack).join('\n')).not.toMatch(/directS3Read is AUTO/);
  });

  test('a known key of this account needs no statement of its own; one of another account gets one', () => {
    const stack = new Stack(new App(), 'S', { env: { account: '111111111111', region: 'us-east-1' } });
    const own = new kms.Key(stack, 'Key');
    const { template } = mounted({ s3FileSystemOptions: { bucketEncryptionKey: own } }, stack);
    const decryptsOf = (t: Template) => roleStatements(t, 'Processor').filter((st: any) => st.Action === 'kms:Decrypt');
    expect(decryptsOf(template()).map((st: any) => JSON.stringify(st.Resource))).toEqual([expect.stringContaining(':key/*')]);
    const other = new Stack(new App(), 'O', { env: { account: '111111111111', region: 'us-east-1' } });
    const foreign = kms.Key.fromKeyArn(other, 'Key', 'arn:aws:kms:us-east-1:222222222222:key/00000000-0000-0000-0000-000000000000');
    const bucket = s3.Bucket.fromBucketName(other, 'B', 'theirs');
    const second = mounted({ bucket, s3FileSystemOptions: { bucketEncryptionKey: foreign } }, other);
    expect(decryptsOf(second.template()).map((st: any) => st.Resource)).toEqual([expect.anything(), foreign.keyArn]);
  });
});

describe('S3FilesMountedFunction: validation', () => {
  test.each([
    [{ accessPointOptions: { path: '/lambda', posixUser: { uid: -1, gid: 1 } } }, /invalid accessPointOptions\.posixUser\.uid -1: .*\(Python: access_point_options\.posix_user\.uid; Java: accessPointOptions\(…\) › posixUser\(…\) › uid\(…\); Go: AccessPointOptions\.PosixUser\.Uid\.\)$/],
    [{ s3FileSystemOptions: { prefix: 'no-slash' } }, /invalid s3FileSystemOptions\.prefix "no-slash": .*\(Python: s3_file_system_options\.prefix; Java: s3FileSystemOptions\(…\) › prefix\(…\); Go: S3FileSystemOptions\.Prefix\.\)$/],
  ])('a bad nested option is named as written, with its Python spelling (%#)', (props, message) => {
    expect(() => mounted(props as Partial<S3FilesMountedFunctionProps>)).toThrow(message);
  });

  test.each([
    ['/data', /Processor: invalid mountPath "\/data": Lambda requires it to match/],
    ['/mnt/a/b', /invalid mountPath "\/mnt\/a\/b"/],
    ['/mnt/has space', /invalid mountPath "\/mnt\/has space"/],
    [`/mnt/${'x'.repeat(160)}`, /it is 165 characters long, Lambda allows at most 160/],
  ])('rejects mountPath #%#', (mountPath, message) => {
    expect(() => mounted({ mountPath })).toThrow(message);
  });

  test('rejects the plain lambda filesystem prop', () => {
    const stack = newStack();
    const fs = new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack) });
    const ap = fs.addAccessPoint('Ap', { path: '/lambda' });
    const filesystem = lambda.FileSystem.fromS3FilesAccessPoint(ap.node.defaultChild as any, '/mnt/x');
    expect(() => mounted({ filesystem, s3FileSystem: fs }, stack))
      .toThrow(/invalid filesystem \(a lambda.FileSystem\): S3FilesMountedFunction builds its own S3 Files mount.*Fix: use `s3FileSystem` or `accessPoint` for S3 Files/);
  });

  test('rejects accessPoint together with accessPointOptions', () => {
    const stack = newStack();
    const fs = new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack) });
    expect(() => mounted({ accessPoint: fs.addAccessPoint('Ap', { path: '/lambda' }), accessPointOptions: { path: '/x' } }, stack))
      .toThrow(/invalid accessPointOptions \{ path \}: it configures a new access point, but `accessPoint` shares an existing one/);
  });

  test('rejects an access point of another file system', () => {
    const stack = newStack();
    const vpc = isolatedVpc(stack);
    const one = new S3FilesFileSystem(stack, 'One', { vpc });
    const two = new S3FilesFileSystem(stack, 'Two', { vpc });
    expect(() => mounted({ s3FileSystem: one, accessPoint: two.addAccessPoint('Ap', { path: '/lambda' }) }, stack))
      .toThrow(/invalid accessPoint "TestStack\/Two\/Ap": it belongs to file system TestStack\/Two, not to `s3FileSystem` TestStack\/One/);
  });

  test('rejects bucket or fileSystemOptions with a shared file system', () => {
    const stack = newStack();
    const fs = new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack) });
    const bucket = s3.Bucket.fromBucketName(stack, 'B', 'other-bucket');
    expect(() => mounted({ s3FileSystem: fs, bucket }, stack)).toThrow(/invalid bucket "TestStack\/B": it configures a new file system, but `s3FileSystem` \(or `accessPoint`\) shares an existing one/);
    expect(() => mounted({ accessPoint: fs.addAccessPoint('Ap', { path: '/lambda' }), s3FileSystemOptions: { prefix: 'x/' } }, stack)).toThrow(/invalid s3FileSystemOptions \{ prefix \}/);
  });

  test('rejects bucket given twice', () => {
    const stack = newStack();
    const bucket = s3.Bucket.fromBucketName(stack, 'B', 'other-bucket');
    expect(() => mounted({ bucket, s3FileSystemOptions: { bucket } }, stack)).toThrow(/invalid bucket \["TestStack\/B", "TestStack\/B"\]/);
  });

  test('rejects a vpc that differs from the shared file system VPC', () => {
    const stack = newStack();
    const fs = new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack) });
    const other = isolatedVpc(stack, 'Other');
    expect(() => mounted({ s3FileSystem: fs, vpc: other }, stack))
      .toThrow(/invalid vpc "TestStack\/Other": it differs from the VPC of the shared file system \(TestStack\/Vpc\).*Fix: omit `vpc`/);
  });

  test('accepts the shared file system VPC passed explicitly', () => {
    const stack = newStack();
    const fs = new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack) });
    expect(() => mounted({ s3FileSystem: fs, vpc: fs.vpc }, stack)).not.toThrow();
  });
});

describe('S3FilesMountedFunction: errors and warnings in the user\'s terms', () => {
  test('a bucket passed as fileSystem names fileSystem (the prop written) and the fix', () => {
    const stack = newStack();
    const vpc = isolatedVpc(stack);
    const bucket = new s3.Bucket(stack, 'Data');
    expect(() => new S3FilesMountedFunction(stack, 'Fn', { ...FN, vpc, s3FileSystem: bucket as any }))
      .toThrow(/TestStack\/Fn: invalid s3FileSystem "TestStack\/Data": it is an S3 bucket, not an S3 Files file system\. Fix: pass the bucket as `bucket`/);
    expect(() => new S3FilesMountedFunction(stack, 'Fn2', { ...FN, vpc, s3FileSystem: bucket as any })).not.toThrow(/accessPointOptions/);
  });

  test('a VPC with only public subnets names the file system\'s `vpcSubnets` as the L3 spells it, in each language', () => {
    // GIVEN a VPC with public subnets only
    const stack = newStack();
    const vpc = new ec2.Vpc(stack, 'Public', { maxAzs: 2, natGateways: 0, subnetConfiguration: [{ name: 'Public', subnetType: ec2.SubnetType.PUBLIC }] });
    // THEN the fix names s3FileSystemOptions.vpcSubnets (the function's own vpcSubnets would not help), spelled per binding
    expect(() => new S3FilesMountedFunction(stack, 'Fn', { ...FN, vpc, allowPublicSubnet: true }))
      .toThrow(/invalid vpc "TestStack\/Public": it has no private or isolated subnets for the mount targets\. Fix: .*or pass `s3FileSystemOptions\.vpcSubnets` explicitly\. \(Python: s3_file_system_options\.vpc_subnets; Java: s3FileSystemOptions\(…\) › vpcSubnets\(…\); Go: S3FileSystemOptions\.VpcSubnets\.\)/);
    // AND following it works
    expect(() => new S3FilesMountedFunction(stack, 'Fn2', {
      ...FN, vpc, allowPublicSubnet: true, s3FileSystemOptions: { vpcSubnets: { subnetType: ec2.SubnetType.PUBLIC } },
    })).not.toThrow();
  });

  test('a warning about the access point it made can be acknowledged on the function', () => {
    // GIVEN functions whose own access point acts as root (a warning about the access point)
    const rootFunction = () => {
      const stack = newStack();
      return { stack, fn: new S3FilesMountedFunction(stack, 'Fn', { ...FN, accessPointOptions: { path: '/lambda', posixUser: { uid: 0, gid: 0 } } }) };
    };
    // THEN the warning is on the function, naming the access point
    const { stack } = rootFunction();
    const annotations = Annotations.fromStack(stack);
    expect(annotations.findWarning('/TestStack/Fn', Match.stringLikeRegexp('TestStack/FnAccessPoint: `accessPointOptions.posixUser.uid` is 0'))).toHaveLength(1);
    expect(annotations.findWarning('/TestStack/FnAccessPoint', Match.anyValue())).toHaveLength(0);
    // WHEN the user acknowledges it on the function they made
    const acknowledged = rootFunction();
    cdk.Annotations.of(acknowledged.fn).acknowledgeWarning('cdk-s3files-lambda:posixUserRoot', 'the job needs root');
    // THEN it is gone
    expect(warnings(acknowledged.stack).filter((w) => /posixUser\.uid is 0/.test(w))).toEqual([]);
  });
});
