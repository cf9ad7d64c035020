import { App, CfnCondition, CfnParameter, Duration, Fn, Lazy, NestedStack, RemovalPolicies, RemovalPolicy, Size, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3files from 'aws-cdk-lib/aws-s3files';
import { ImportTrigger, MountTargetIpAddressType, S3FilesFileSystem, S3FilesFileSystemMetrics, S3FilesMountedFunction } from '../src';
import { allowsDeletingFileSystem } from './lifecycle/cfn';
import { docsText } from './util/docs';
import { byPrefix, FN, isolatedVpc, newStack, only, resourcesOfType, warnings } from './util/template';

function fileSystem(props: Partial<ConstructorParameters<typeof S3FilesFileSystem>[2]> = {}) {
  const stack = newStack();
  const vpc = props.vpc ?? isolatedVpc(stack);
  const fs = new S3FilesFileSystem(stack, 'Files', { ...props, vpc });
  return { stack, vpc, fs, template: () => Template.fromStack(stack) };
}

describe('S3FilesFileSystem: created bucket', () => {
  test('is versioned, SSE-S3, public access blocked, bucket-owner-enforced, lifecycle-managed and retained', () => {
    // GIVEN / WHEN
    const { template } = fileSystem();
    // THEN
    const t = template();
    t.hasResource('AWS::S3::Bucket', {
      Properties: {
        VersioningConfiguration: { Status: 'Enabled' },
        BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
        PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
        OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
        LifecycleConfiguration: {
          Rules: [Match.objectLike({
            Status: 'Enabled',
            NoncurrentVersionExpiration: { NoncurrentDays: 30 },
            AbortIncompleteMultipartUpload: { DaysAfterInitiation: 7 },
          })],
        },
      },
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
  });

  test('bucket policy denies requests without TLS', () => {
    // GIVEN / WHEN
    const { template } = fileSystem();
    // THEN
    template().hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({
          Effect: 'Deny',
          Action: 's3:*',
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        })]),
      },
    });
  });

  test('noncurrentVersionExpiration is configurable', () => {
    // GIVEN / WHEN
    const { template } = fileSystem({ noncurrentVersionExpiration: Duration.days(90) });
    // THEN
    template().hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: { Rules: [Match.objectLike({ NoncurrentVersionExpiration: { NoncurrentDays: 90 } })] },
    });
  });

  test('bucketEncryptionKey makes the created bucket SSE-KMS with a bucket key', () => {
    // GIVEN
    const stack = newStack();
    const key = new kms.Key(stack, 'Key');
    // WHEN
    new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack), bucketEncryptionKey: key });
    // THEN
    Template.fromStack(stack).hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{
          BucketKeyEnabled: true,
          ServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms', KMSMasterKeyID: { 'Fn::GetAtt': [Match.stringLikeRegexp('^Key'), 'Arn'] } },
        }],
      },
    });
  });
});

describe('S3FilesFileSystem: service role', () => {
  test('trusts elasticfilesystem.amazonaws.com with aws:SourceAccount and ArnLike aws:SourceArn on file-system/*', () => {
    // GIVEN / WHEN
    const { template } = fileSystem();
    // THEN
    template().hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: {
        Statement: [{
          Action: 'sts:AssumeRole',
          Effect: 'Allow',
          Principal: { Service: 'elasticfilesystem.amazonaws.com' },
          Condition: {
            StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
            ArnLike: {
              'aws:SourceArn': {
                'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':s3files:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':file-system/*']],
              },
            },
          },
        }],
      },
    });
  });

  test('has the S3 bucket/object/multipart actions scoped to the bucket with aws:ResourceAccount', () => {
    // GIVEN / WHEN
    const { template } = fileSystem();
    // THEN
    const [, policy] = byPrefix(template(), 'AWS::IAM::Policy', 'FilesServiceRolePolicy');
    const statements = policy.Properties.PolicyDocument.Statement;
    const bucketStmt = statements.find((s: any) => s.Sid === 'S3BucketAccess');
    const objectStmt = statements.find((s: any) => s.Sid === 'S3ObjectAccess');
    expect(bucketStmt.Action).toEqual(['s3:ListBucket', 's3:ListBucketVersions', 's3:GetBucketLocation', 's3:GetBucketVersioning']);
    expect(bucketStmt.Resource).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^FilesBucket/), 'Arn'] });
    expect(bucketStmt.Condition).toEqual({ StringEquals: { 'aws:ResourceAccount': { Ref: 'AWS::AccountId' } } });
    expect(objectStmt.Action).toEqual(['s3:GetObject*', 's3:PutObject*', 's3:DeleteObject*', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts']);
    expect(objectStmt.Resource).toEqual({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [expect.stringMatching(/^FilesBucket/), 'Arn'] }, '/*']] });
    expect(objectStmt.Condition).toEqual({ StringEquals: { 'aws:ResourceAccount': { Ref: 'AWS::AccountId' } } });
  });

  test('object access is limited to the prefix', () => {
    // GIVEN / WHEN
    const { template } = fileSystem({ prefix: 'data/in/' });
    // THEN
    template().hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({
          Sid: 'S3ObjectAccess',
          Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [Match.anyValue(), 'Arn'] }, '/data/in/*']] },
        })]),
      },
    });
    template().hasResourceProperties('AWS::S3Files::FileSystem', { Prefix: 'data/in/' });
  });

  test('has both EventBridge statements', () => {
    // GIVEN / WHEN
    const { template } = fileSystem();
    // THEN
    template().hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          {
            Sid: 'EventBridgeManageS3FilesRules',
            Effect: 'Allow',
            Action: ['events:PutRule', 'events:PutTargets', 'events:DeleteRule', 'events:DisableRule', 'events:EnableRule', 'events:RemoveTargets'],
            Resource: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':events:*:*:rule/DO-NOT-DELETE-S3-Files*']] },
            Condition: { StringEquals: { 'events:ManagedBy': 'elasticfilesystem.amazonaws.com' } },
          },
          {
            Sid: 'EventBridgeReadRules',
            Effect: 'Allow',
            Action: ['events:DescribeRule', 'events:ListTargetsByRule'],
            Resource: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':events:*:*:rule/*']] },
          },
          {
            // No resource-level permissions (AWS's service authorization data): on rule/* they would authorize nothing.
            Sid: 'EventBridgeListRules',
            Effect: 'Allow',
            Action: ['events:ListRules', 'events:ListRuleNamesByTarget'],
            Resource: '*',
          },
        ]),
      },
    });
  });

  /** The S3 user guide's file-system role KMS statement (Sid UseKmsKeyWithS3Files), on `key/*` of the stack's account. */
  const documentedKmsStatement = (bucketArn: unknown, objectsArn: unknown) => ({
    Sid: 'UseKmsKeyWithS3Files',
    Effect: 'Allow',
    Action: ['kms:GenerateDataKey', 'kms:Encrypt', 'kms:Decrypt', 'kms:ReEncryptFrom', 'kms:ReEncryptTo'],
    Resource: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':kms:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':key/*']] },
    Condition: {
      StringLike: {
        'kms:ViaService': { 'Fn::Join': ['', ['s3.', { Ref: 'AWS::Region' }, '.', { Ref: 'AWS::URLSuffix' }]] },
        'kms:EncryptionContext:aws:s3:arn': [bucketArn, objectsArn],
      },
    },
  });
  const serviceRoleStatements = (t: Template) => byPrefix(t, 'AWS::IAM::Policy', 'FilesServiceRolePolicy')[1].Properties.PolicyDocument.Statement;

  test('has the documented KMS statement for any key of the account, limited to this bucket through S3, with or without a known key', () => {
    // GIVEN a bucket imported by name whose SSE-KMS key the app does not know, and a created bucket with a key
    const stack = newStack();
    new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack), bucket: s3.Bucket.fromBucketName(stack, 'B', 'kms-encrypted') });
    const withKey = newStack('WithKey');
    new S3FilesFileSystem(withKey, 'Files', { vpc: isolatedVpc(withKey), bucketEncryptionKey: new kms.Key(withKey, 'Key') });
    // THEN both service roles may use the bucket's key (whichever it is) through S3 for this bucket's objects
    const arn = (rest: string) => ({ 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, rest]] });
    expect(serviceRoleStatements(Template.fromStack(stack))).toContainEqual(documentedKmsStatement(arn(':s3:::kms-encrypted'), arn(':s3:::kms-encrypted/*')));
    const t = Template.fromStack(withKey);
    const created = { 'Fn::GetAtt': [byPrefix(t, 'AWS::S3::Bucket', 'FilesBucket')[0], 'Arn'] };
    expect(serviceRoleStatements(t)).toContainEqual(documentedKmsStatement(created, { 'Fn::Join': ['', [created, '/*']] }));
    // AND a key of this app needs no statement of its own (the account's keys are covered)
    expect(serviceRoleStatements(t).filter((st: any) => JSON.stringify(st).includes('kms:'))).toHaveLength(1);
  });

  test('a bucket key of another account gets a statement of its own beside the documented one', () => {
    // GIVEN
    const stack = new Stack(new App(), 'S', { env: { account: '111111111111', region: 'us-east-1' } });
    const key = kms.Key.fromKeyArn(stack, 'Key', 'arn:aws:kms:us-east-1:222222222222:key/00000000-0000-0000-0000-000000000000');
    const bucket = s3.Bucket.fromBucketAttributes(stack, 'Imported', { bucketName: 'data-bucket', encryptionKey: key });
    // WHEN
    const fs = new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack), bucket });
    // THEN
    expect(fs.bucketEncryptionKey).toBe(key);
    const kmsStatements = serviceRoleStatements(Template.fromStack(stack)).filter((st: any) => JSON.stringify(st).includes('kms:'));
    expect(kmsStatements.map((st: any) => st.Sid)).toEqual(['UseKmsKeyWithS3Files', 'UseKmsKeyWithS3FilesForeign']);
    expect(kmsStatements[1]).toMatchObject({ Resource: key.keyArn, Condition: { StringEquals: { 'kms:ViaService': { 'Fn::Join': ['', ['s3.us-east-1.', { Ref: 'AWS::URLSuffix' }]] } } } });
  });

  test('the file system depends on the role policy, not just the role', () => {
    // GIVEN / WHEN
    const { template } = fileSystem();
    // THEN
    const t = template();
    const [policyId] = byPrefix(t, 'AWS::IAM::Policy', 'FilesServiceRolePolicy');
    const [, fs] = only(t, 'AWS::S3Files::FileSystem');
    expect(fs.DependsOn).toContain(policyId);
    expect(fs.Properties.RoleArn).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^FilesServiceRole/), 'Arn'] });
    expect(fs.Properties.Bucket).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^FilesBucket/), 'Arn'] });
  });
});

describe('S3FilesFileSystem: KMS keys given as aliases', () => {
  function kmsStatements(t: Template): any[] {
    const [, policy] = byPrefix(t, 'AWS::IAM::Policy', 'FilesServiceRolePolicy');
    return policy.Properties.PolicyDocument.Statement.filter((st: any) => JSON.stringify(st.Action).includes('kms:'));
  }

  test('an imported alias of another account is granted on the keys that carry it, never on the alias ARN', () => {
    // GIVEN an imported bucket encrypted with another account's key known only by its alias
    const stack = new Stack(new App(), 'S', { env: { account: '111111111111', region: 'us-east-1' } });
    const bucketEncryptionKey = kms.Key.fromKeyArn(stack, 'Alias', 'arn:aws:kms:us-east-1:222222222222:alias/data');
    // WHEN
    new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack), bucket: s3.Bucket.fromBucketName(stack, 'B', 'data'), bucketEncryptionKey });
    // THEN
    const [, foreign] = kmsStatements(Template.fromStack(stack));
    expect(JSON.stringify(foreign.Resource)).not.toContain('alias');
    expect(foreign.Resource).toEqual({ 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':kms:us-east-1:222222222222:key/*']] });
    expect(foreign.Condition).toEqual({
      'StringEquals': { 'kms:ViaService': { 'Fn::Join': ['', ['s3.us-east-1.', { Ref: 'AWS::URLSuffix' }]] } },
      'ForAnyValue:StringEquals': { 'kms:ResourceAliases': 'alias/data' },
    });
  });

  test('an alias of this app needs nothing beyond the documented statement (its key is in the account)', () => {
    // GIVEN
    const stack = newStack();
    const key = new kms.Key(stack, 'Key');
    const bucketEncryptionKey = new kms.Alias(stack, 'Alias', { aliasName: 'alias/files', targetKey: key });
    // WHEN
    new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack), bucketEncryptionKey });
    // THEN one KMS statement, on the account's keys: never the alias ARN
    const statements = kmsStatements(Template.fromStack(stack));
    expect(statements.map((st) => st.Sid)).toEqual(['UseKmsKeyWithS3Files']);
    expect(JSON.stringify(statements)).not.toContain('alias');
  });
});

describe('S3FilesFileSystem: file system resource', () => {
  test('is retained by default and has no synchronization configuration unless asked', () => {
    // GIVEN / WHEN
    const { template } = fileSystem();
    // THEN
    const [, fs] = only(template(), 'AWS::S3Files::FileSystem');
    expect(fs.DeletionPolicy).toBe('Retain');
    expect(fs.Properties.SynchronizationConfiguration).toBeUndefined();
    expect(fs.Properties.Prefix).toBeUndefined();
  });

  test('renders the synchronization configuration from one import rule and expireAfterLastAccess', () => {
    // GIVEN / WHEN
    const { template } = fileSystem({
      importDataRules: [{ prefix: '', sizeLessThan: Size.kibibytes(256), trigger: ImportTrigger.ON_FILE_ACCESS }],
      expireAfterLastAccess: Duration.days(7),
    });
    // THEN
    template().hasResourceProperties('AWS::S3Files::FileSystem', {
      SynchronizationConfiguration: {
        ImportDataRules: [{ Prefix: '', SizeLessThan: 262144, Trigger: 'ON_FILE_ACCESS' }],
        ExpirationDataRules: [{ DaysAfterLastAccess: 7 }],
      },
    });
  });

  test('fills the other synchronization rules with defaults when only one is set', () => {
    // GIVEN / WHEN
    const { template } = fileSystem({ expireAfterLastAccess: Duration.days(365) });
    // THEN
    template().hasResourceProperties('AWS::S3Files::FileSystem', {
      SynchronizationConfiguration: {
        ImportDataRules: [{ Prefix: '', SizeLessThan: 131072, Trigger: 'ON_DIRECTORY_FIRST_ACCESS' }],
        ExpirationDataRules: [{ DaysAfterLastAccess: 365 }],
      },
    });
  });

  test('ImportTrigger.of is an escape hatch', () => {
    expect(ImportTrigger.of('ON_SOMETHING_NEW').value).toBe('ON_SOMETHING_NEW');
    expect(ImportTrigger.ON_DIRECTORY_FIRST_ACCESS.value).toBe('ON_DIRECTORY_FIRST_ACCESS');
  });

  test('exposes id, ARN, vpc, prefix and connections', () => {
    // GIVEN / WHEN
    const { stack, fs, vpc } = fileSystem();
    // THEN
    expect(stack.resolve(fs.fileSystemId)).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^Files/), 'FileSystemId'] });
    expect(stack.resolve(fs.fileSystemArn)).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^Files/), 'FileSystemArn'] });
    expect(fs.vpc).toBe(vpc);
    expect(fs.prefix).toBe('');
    expect(fs.connections.defaultPort?.toString()).toBe('2049');
  });
});

describe('S3FilesFileSystem: mount targets', () => {
  test('one per AZ in the isolated subnets, with the mount-target security group', () => {
    // GIVEN / WHEN
    const { template } = fileSystem();
    // THEN
    const t = template();
    const mts = resourcesOfType(t, 'AWS::S3Files::MountTarget');
    // keyed by AZ ("AZ #1", "AZ #2" of an env-agnostic stack), not by position in the selection
    expect(mts.map(([id]) => id)).toEqual([expect.stringMatching(/^FilesMountTargetAz1/), expect.stringMatching(/^FilesMountTargetAz2/)]);
    expect(mts.map(([, r]) => r.Properties.SubnetId.Ref)).toEqual([
      expect.stringMatching(/^VpcIsolatedSubnet1/), expect.stringMatching(/^VpcIsolatedSubnet2/),
    ]);
    for (const [, mt] of mts) {
      expect(mt.Properties.SecurityGroups).toEqual([{ 'Fn::GetAtt': [expect.stringMatching(/^FilesMountTargetSecurityGroup/), 'GroupId'] }]);
    }
  });

  test('prefers PRIVATE_WITH_EGRESS subnets and takes one per AZ by default', () => {
    // GIVEN
    const stack = newStack();
    const vpc = new ec2.Vpc(stack, 'Vpc', {
      maxAzs: 2,
      natGateways: 1,
      subnetConfiguration: [
        { name: 'Public', subnetType: ec2.SubnetType.PUBLIC },
        { name: 'AppA', subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS },
        { name: 'AppB', subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS },
        { name: 'Data', subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
      ],
    });
    // WHEN
    new S3FilesFileSystem(stack, 'Files', { vpc });
    // THEN
    const subnets = resourcesOfType(Template.fromStack(stack), 'AWS::S3Files::MountTarget').map(([, r]) => r.Properties.SubnetId.Ref);
    // env-agnostic stacks see two AZs; one subnet each, from the first egress group
    expect(subnets).toHaveLength(2);
    subnets.forEach(s => expect(s).toMatch(/^VpcApp/));
  });

  test('honours an explicit one-per-AZ subnet selection', () => {
    // GIVEN
    const stack = newStack();
    const vpc = isolatedVpc(stack);
    // WHEN
    new S3FilesFileSystem(stack, 'Files', { vpc, vpcSubnets: { subnets: [vpc.isolatedSubnets[1]] } });
    // THEN
    const mts = resourcesOfType(Template.fromStack(stack), 'AWS::S3Files::MountTarget');
    expect(mts).toHaveLength(1);
    expect(mts[0][1].Properties.SubnetId.Ref).toMatch(/^VpcIsolatedSubnet2/);
  });

  test('the mount-target group admits NFS from the client group only; the client group may only reach NFS', () => {
    // GIVEN / WHEN
    const { template } = fileSystem();
    // THEN
    const t = template();
    const [mtSgId, mtSg] = byPrefix(t, 'AWS::EC2::SecurityGroup', 'FilesMountTargetSecurityGroup');
    const [clientSgId, clientSg] = byPrefix(t, 'AWS::EC2::SecurityGroup', 'FilesClientSecurityGroup');
    expect(mtSg.Properties.SecurityGroupIngress).toBeUndefined();
    expect(mtSg.Properties.SecurityGroupEgress).toEqual([expect.objectContaining({ CidrIp: '255.255.255.255/32' })]);
    expect(clientSg.Properties.SecurityGroupIngress).toBeUndefined();
    // its one real egress rule is the NFS rule below (the other is EC2's "no traffic" placeholder)
    expect(clientSg.Properties.SecurityGroupEgress).toEqual([expect.objectContaining({ CidrIp: '255.255.255.255/32' })]);
    const [ingressId, ingress] = only(t, 'AWS::EC2::SecurityGroupIngress');
    // fixed logical ids, not path-derived ones (a Stage move must not recreate them)
    expect(ingressId).toMatch(/^FilesNfsFromClients[0-9A-F]{8}$/);
    expect(ingress.Properties).toMatchObject({
      IpProtocol: 'tcp',
      FromPort: 2049,
      ToPort: 2049,
      GroupId: { 'Fn::GetAtt': [mtSgId, 'GroupId'] },
      SourceSecurityGroupId: { 'Fn::GetAtt': [clientSgId, 'GroupId'] },
    });
    const [, egress] = only(t, 'AWS::EC2::SecurityGroupEgress');
    expect(egress.Properties).toMatchObject({
      IpProtocol: 'tcp',
      FromPort: 2049,
      ToPort: 2049,
      GroupId: { 'Fn::GetAtt': [clientSgId, 'GroupId'] },
      DestinationSecurityGroupId: { 'Fn::GetAtt': [mtSgId, 'GroupId'] },
    });
  });

  test('uses a given security group', () => {
    // GIVEN
    const stack = newStack();
    const vpc = isolatedVpc(stack);
    const securityGroup = ec2.SecurityGroup.fromSecurityGroupId(stack, 'Sg', 'sg-0123456789abcdef0');
    // WHEN
    const fs = new S3FilesFileSystem(stack, 'Files', { vpc, securityGroup });
    // THEN
    expect(fs.connections.securityGroups).toEqual([securityGroup]);
    Template.fromStack(stack).allResourcesProperties('AWS::S3Files::MountTarget', { SecurityGroups: ['sg-0123456789abcdef0'] });
  });

  test('ingress from a peer is TCP 2049 only', () => {
    // GIVEN
    const { stack, fs, vpc } = fileSystem();
    const client = new ec2.SecurityGroup(stack, 'Client', { vpc });
    // WHEN
    fs.connections.allowDefaultPortFrom(client);
    // THEN
    const ingress = resourcesOfType(Template.fromStack(stack), 'AWS::EC2::SecurityGroupIngress')
      .filter(([, r]) => JSON.stringify(r.Properties.SourceSecurityGroupId).includes('"Client'));
    expect(ingress).toHaveLength(1);
    expect(ingress[0][1].Properties).toMatchObject({ IpProtocol: 'tcp', FromPort: 2049, ToPort: 2049 });
  });
});

describe('S3FilesFileSystem: file system policy and grants', () => {
  const CLIENT_ACTIONS = ['s3files:ClientMount', 's3files:ClientWrite', 's3files:ClientRootAccess'];

  test('denies the client actions without TLS, and to every principal mounting without an access point', () => {
    // GIVEN / WHEN
    const { template } = fileSystem();
    // THEN only documented keys: aws:SecureTransport and s3files:AccessPointArn
    const [, policy] = only(template(), 'AWS::S3Files::FileSystemPolicy');
    const fsArn = { 'Fn::GetAtt': [expect.stringMatching(/^Files/), 'FileSystemArn'] };
    expect(policy.Properties.Policy.Statement).toEqual([{
      Sid: 'DenyInsecureTransport',
      Effect: 'Deny',
      Principal: { AWS: '*' },
      Action: CLIENT_ACTIONS,
      Resource: fsArn,
      Condition: { Bool: { 'aws:SecureTransport': 'false' } },
    }, {
      Sid: 'DenyMountsWithoutAccessPoint',
      Effect: 'Deny',
      Principal: { AWS: '*' },
      Action: CLIENT_ACTIONS,
      Resource: fsArn,
      Condition: { Null: { 's3files:AccessPointArn': 'true' } },
    }]);
    expect(policy.Properties.FileSystemId).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^Files/), 'FileSystemId'] });
    expect(JSON.stringify(template().toJSON())).not.toMatch(/PrincipalTag|s3files-client-/);
  });

  test('allowMountsWithoutAccessPoint drops the access-point Deny, and only that; a non-boolean is refused', () => {
    // GIVEN / WHEN
    const { template } = fileSystem({ allowMountsWithoutAccessPoint: true });
    // THEN
    const [, policy] = only(template(), 'AWS::S3Files::FileSystemPolicy');
    expect(policy.Properties.Policy.Statement.map((st: any) => st.Sid)).toEqual(['DenyInsecureTransport']);
    expect(() => fileSystem({ allowMountsWithoutAccessPoint: 'yes' as any }))
      .toThrow(/invalid allowMountsWithoutAccessPoint "yes": it must be true or false.*Fix: pass allowMountsWithoutAccessPoint: true or false, or omit it/);
  });

  test('grantRead/grantReadWrite/grantRootAccess follow aws-efs: mount, mount+write, all three; no role is tagged; the file system policy stays the same', () => {
    // GIVEN
    const { stack, fs } = fileSystem();
    const client = (id: string) => new iam.Role(stack, id, { assumedBy: new iam.ServicePrincipal('ec2.amazonaws.com') });
    const [reader, writer, admin, custom] = ['Reader', 'Writer', 'Admin', 'Custom'].map(client);
    // WHEN
    const grant = fs.grantRead(reader);
    fs.grantReadWrite(writer);
    fs.grantRootAccess(admin);
    fs.grant(custom, 's3files:ClientMount', 's3files:ClientRootAccess');
    // THEN
    expect(grant.success).toBe(true);
    const t = Template.fromStack(stack);
    const resource = { 'Fn::GetAtt': [Match.stringLikeRegexp('^Files'), 'FileSystemArn'] };
    const granted = (role: string, actions: string | string[]) => t.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: Match.stringLikeRegexp(`^${role}`) }],
      PolicyDocument: { Statement: [{ Action: actions, Effect: 'Allow', Resource: resource }] },
    });
    granted('Reader', 's3files:ClientMount');
    granted('Writer', ['s3files:ClientMount', 's3files:ClientWrite']);
    granted('Admin', ['s3files:ClientMount', 's3files:ClientWrite', 's3files:ClientRootAccess']);
    granted('Custom', ['s3files:ClientMount', 's3files:ClientRootAccess']);
    for (const role of ['Reader', 'Writer', 'Admin', 'Custom']) {
      expect(t.findResources('AWS::IAM::Role')[Object.keys(t.findResources('AWS::IAM::Role')).find((k) => k.startsWith(role))!].Properties.Tags).toBeUndefined();
    }
    const [, policy] = only(t, 'AWS::S3Files::FileSystemPolicy');
    expect(policy.Properties.Policy.Statement.map((st: any) => st.Sid)).toEqual(['DenyInsecureTransport', 'DenyMountsWithoutAccessPoint']);
  });

  test('grant() takes only literal s3files: actions, at least one', () => {
    // GIVEN
    const { stack, fs } = fileSystem();
    const role = new iam.Role(stack, 'Client', { assumedBy: new iam.ServicePrincipal('ec2.amazonaws.com') });
    // WHEN / THEN
    expect(() => fs.grant(role, 's3:GetObject')).toThrow(/invalid actions "s3:GetObject": only s3files: actions can be granted on an S3 Files file system\. Fix: pass actions such as "s3files:ClientMount"/);
    expect(() => fs.grant(role)).toThrow(/invalid actions \[\]: `grant\(\)` needs at least one action\. Fix: .*`grantRead\(\)`, `grantReadWrite\(\)` or `grantRootAccess\(\)`/);
    expect(() => fs.grant(role, Lazy.string({ produce: () => 's3files:ClientMount' })))
      .toThrow(/invalid actions \(a token\): the resource an action applies to is decided at synth, so it must be a literal/);
  });

  test('grant() renders each action on its documented resource type: the file system, its access points, or refuses what no file system scopes', () => {
    // GIVEN
    const { stack, fs } = fileSystem();
    const admin = new iam.Role(stack, 'Admin', { assumedBy: new iam.ServicePrincipal('ec2.amazonaws.com') });
    // WHEN
    fs.grant(admin, 's3files:DeleteAccessPoint', 's3files:GetAccessPoint', 's3files:ClientMount', 's3files:GetFileSystem', 's3files:TagResource');
    // THEN access-point actions on its access points, file-system actions on it, the tag actions on both
    const fsArn = { 'Fn::GetAtt': [expect.stringMatching(/^Files/), 'FileSystemArn'] };
    const aps = { 'Fn::Join': ['', [fsArn, '/access-point/*']] };
    expect(byPrefix(Template.fromStack(stack), 'AWS::IAM::Policy', 'AdminDefaultPolicy')[1].Properties.PolicyDocument.Statement).toEqual([
      { Effect: 'Allow', Action: ['s3files:DeleteAccessPoint', 's3files:GetAccessPoint'], Resource: aps },
      { Effect: 'Allow', Action: ['s3files:ClientMount', 's3files:GetFileSystem'], Resource: fsArn },
      { Effect: 'Allow', Action: 's3files:TagResource', Resource: [aps, fsArn] },
    ]);
    // AND what acts on no one file system is refused with what to do instead; so is an unknown action
    expect(() => fs.grant(admin, 's3files:ListFileSystems')).toThrow(/invalid actions "s3files:ListFileSystems": it lists the account's file systems, which no one file system scopes, so it cannot be granted on one file system\. Fix: add the statement yourself with `iam\.Grant\.addToPrincipal\(\)`/);
    expect(() => fs.grant(admin, 's3files:CreateFileSystem')).toThrow(/invalid actions "s3files:CreateFileSystem": it acts on no existing file system/);
    expect(() => fs.grant(admin, 's3files:MountEverything')).toThrow(/invalid actions "s3files:MountEverything": it is not an S3 Files action this library knows/);
  });

  test('grant() expands a wildcard over the documented actions it can scope', () => {
    // GIVEN
    const { stack, fs } = fileSystem();
    const admin = new iam.Role(stack, 'Admin', { assumedBy: new iam.ServicePrincipal('ec2.amazonaws.com') });
    // WHEN
    fs.grant(admin, 's3files:Client*', 's3files:*AccessPoint');
    // THEN
    const statements = byPrefix(Template.fromStack(stack), 'AWS::IAM::Policy', 'AdminDefaultPolicy')[1].Properties.PolicyDocument.Statement;
    expect(statements.map((st: any) => st.Action)).toEqual([
      ['s3files:ClientMount', 's3files:ClientRootAccess', 's3files:ClientWrite', 's3files:CreateAccessPoint'],
      ['s3files:DeleteAccessPoint', 's3files:GetAccessPoint'],
    ]);
    expect(() => fs.grant(admin, 's3files:Nothing*')).toThrow(/invalid actions "s3files:Nothing\*": it matches no S3 Files action that can be granted on a file system/);
  });

  test('a principal that cannot be granted gets a warning saying what to attach', () => {
    // GIVEN
    const { stack, fs } = fileSystem();
    const imported = iam.Role.fromRoleArn(stack, 'Imported', 'arn:aws:iam::111111111111:role/fixed', { mutable: false });
    const service = new iam.ServicePrincipal('ec2.amazonaws.com');
    // WHEN
    fs.grantRead(imported);
    const grant = fs.grantRead({ grantPrincipal: service });
    // THEN each grant that could not be added says so, once
    expect(grant.success).toBe(false);
    const text = warnings(stack).join('\n');
    expect(text).toMatch(/TestStack\/Imported could not be granted what s3files:ClientMount on TestStack\/Files needs: it is an imported or immutable principal whose policies this app cannot change\. Attach this statement to it yourself \(<Id\.Attr> stands for that resource's attribute\): \{"Action":"s3files:ClientMount","Effect":"Allow","Resource":"<Files[0-9A-F]{8}\.FileSystemArn>"\}\. The client actions are also allowed to it in the file-system policy of TestStack\/Files, which a principal of another account needs as well\. \[ack: cdk-s3files-lambda:grantNotApplied\]/);
    expect(text).toMatch(/ec2\.amazonaws\.com.* could not be granted what s3files:ClientMount on TestStack\/Files needs/);
    expect(text).not.toMatch(/tag/i);
    // AND the environment-agnostic stack cannot tell the role's account 111111111111 from its own, so the
    // file-system policy allows it too, as iam.Grant.addToPrincipalOrResource would (the service principal: not)
    const [, policy] = only(Template.fromStack(stack), 'AWS::S3Files::FileSystemPolicy');
    const allows = policy.Properties.Policy.Statement.filter((x: any) => x.Effect === 'Allow');
    expect(allows).toEqual([expect.objectContaining({ Principal: { AWS: 'arn:aws:iam::111111111111:role/fixed' }, Action: 's3files:ClientMount' })]);
  });

  test('a grantee in another stack is granted there; this stack names no role of it', () => {
    // GIVEN
    const { stack, fs } = fileSystem();
    const other = new Stack(stack.node.root as App, 'Other');
    const role = new iam.Role(other, 'Client', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
    // WHEN
    fs.grantRead(role);
    // THEN
    const otherTemplate = Template.fromStack(other);
    expect(JSON.stringify(otherTemplate.toJSON())).toContain('s3files:ClientMount');
    expect(JSON.stringify(Template.fromStack(stack).toJSON())).not.toMatch(/Other|Client[0-9A-F]{8}/);
    expect(warnings(stack)).toEqual([]);
  });

  test('a file system policy over 20,000 characters is a synth error', () => {
    // GIVEN
    const { stack, fs } = fileSystem();
    // WHEN 60 statements naming one role each are added by hand
    for (let i = 0; i < 60; i++) {
      fs.addToResourcePolicy(new iam.PolicyStatement({
        principals: [new iam.ArnPrincipal(`arn:aws:iam::111111111111:role/a-rather-long-role-name-for-client-number-${i}`)],
        actions: ['s3files:ClientMount', 's3files:ClientWrite'],
        resources: [fs.fileSystemArn],
        conditions: { ArnEquals: { 's3files:AccessPointArn': `arn:aws:s3files:us-east-1:111111111111:file-system/fs-0123456789abcdef0/access-point/fsap-${i}` } },
      }));
    }
    // THEN
    expect(() => Template.fromStack(stack)).toThrow(/TestStack\/Files: invalid file system policy: .* about \d+ characters long, and S3 Files accepts at most 20000/);
  });

  test('the size estimate takes each reference at what it can be: a role ARN with its path, an access point\'s ARN, in any partition', () => {
    // GIVEN the README's per-role Deny for roles with a path, each pinned to its own access point
    const build = (n: number) => {
      const { stack, fs } = fileSystem();
      for (let i = 0; i < n; i++) {
        const role = new iam.Role(stack, `Client${i}`, { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'), path: '/workloads/reporting/' });
        const ap = fs.addAccessPoint(`Ap${i}`, { path: `/client${i}` });
        fs.addToResourcePolicy(new iam.PolicyStatement({
          sid: `Client${i}OnlyThroughItsAccessPoint`,
          effect: iam.Effect.DENY,
          principals: [new iam.ArnPrincipal(role.roleArn)],
          actions: ['s3files:ClientMount', 's3files:ClientWrite', 's3files:ClientRootAccess'],
          resources: [fs.fileSystemArn],
          conditions: { StringNotEquals: { 's3files:AccessPointArn': ap.accessPointArn } },
        }));
      }
      return { stack, fs };
    };
    // WHEN resolved with the longest values those references can take (CloudFormation names a role
    // <stack>-<id>-<suffix>, at most 64 characters; aws-us-gov; a 14-character region; 40-hex ids)
    const longest = (n: number) => {
      const { stack, fs } = build(n);
      const policy = stack.resolve((fs.node.findChild('FileSystemPolicy') as s3files.CfnFileSystemPolicy).policy);
      return JSON.stringify(policy, (_k, v) => {
        if (v && typeof v === 'object' && !Array.isArray(v)) {
          if (v['Fn::GetAtt']?.[1] === 'Arn') return `arn:aws-us-gov:iam::111111111111:role/workloads/reporting/${'r'.repeat(64)}`;
          if (v['Fn::GetAtt']?.[1] === 'FileSystemArn') return `arn:aws-us-gov:s3files:ap-southeast-4:111111111111:file-system/fs-${'0'.repeat(40)}`;
          if (v['Fn::GetAtt']?.[1] === 'AccessPointArn') return `arn:aws-us-gov:s3files:ap-southeast-4:111111111111:file-system/fs-${'0'.repeat(40)}/access-point/fsap-${'0'.repeat(40)}`;
        }
        return v;
      }).length;
    };
    // THEN 30 such statements fit and 31 are refused, exactly where their longest rendering crosses 20,000
    expect(longest(30)).toBeLessThanOrEqual(20000);
    expect(() => Template.fromStack(build(30).stack)).not.toThrow();
    expect(longest(31)).toBeGreaterThan(20000);
    expect(() => Template.fromStack(build(31).stack)).toThrow(/TestStack\/Files: invalid file system policy: .* about 20345 characters long, and S3 Files accepts at most 20000/);
  });

  test('a role of a nested stack is measured in the nested stack (its ARN reaches the policy through an output), not at a fixed length', () => {
    // GIVEN the per-role Deny for 30 roles of a nested stack, each with a 400-character path
    const { stack, fs } = fileSystem();
    const nested = new NestedStack(stack, 'Clients');
    for (let i = 0; i < 30; i++) {
      const role = new iam.Role(nested, `Client${i}`, { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'), path: `/${'p'.repeat(398)}/` });
      fs.addToResourcePolicy(new iam.PolicyStatement({
        sid: `Client${i}OnlyThroughAccessPoints`,
        effect: iam.Effect.DENY,
        principals: [new iam.ArnPrincipal(role.roleArn)],
        actions: ['s3files:ClientWrite'],
        resources: [fs.fileSystemArn],
      }));
    }
    // THEN resolved in the parent the ARNs are Fn::GetAtt <nested>.Outputs.*, and the estimate follows them:
    // 30 x (a 400-character path) is over 20,000 characters, so the synth refuses it
    expect(() => Template.fromStack(stack)).toThrow(/TestStack\/Files: invalid file system policy: .* about \d+ characters long, and S3 Files accepts at most 20000/);
  });

  test('addToResourcePolicy statements are included, even when added after other grants', () => {
    // GIVEN
    const { stack, fs } = fileSystem();
    // WHEN
    const result = fs.addToResourcePolicy(new iam.PolicyStatement({
      sid: 'Auditor',
      principals: [new iam.ArnPrincipal('arn:aws:iam::111111111111:role/auditor')],
      actions: ['s3files:ClientMount'],
      resources: [fs.fileSystemArn],
    }));
    // THEN
    expect(result.statementAdded).toBe(true);
    expect(result.policyDependable).toBe(fs.policyDependable);
    Template.fromStack(stack).hasResourceProperties('AWS::S3Files::FileSystemPolicy', {
      Policy: { Statement: Match.arrayWith([Match.objectLike({ Sid: 'Auditor', Principal: { AWS: 'arn:aws:iam::111111111111:role/auditor' } })]) },
    });
  });

  test('metric uses the AWS/S3/Files namespace and the FileSystemId dimension', () => {
    // GIVEN
    const { stack, fs } = fileSystem();
    // WHEN
    const metric = fs.metric('PendingExports', { statistic: 'Sum', period: Duration.minutes(1) });
    // THEN
    expect(metric.namespace).toBe('AWS/S3/Files');
    expect(metric.metricName).toBe('PendingExports');
    expect(metric.statistic).toBe('Sum');
    expect(stack.resolve(metric.dimensions)).toEqual({ FileSystemId: { 'Fn::GetAtt': [expect.stringMatching(/^Files/), 'FileSystemId'] } });
  });
});

describe('S3FilesFileSystem: metric helpers', () => {
  // Every service metric the S3 Files monitoring page documents, with its statistic and unit.
  test.each<[keyof S3FilesFileSystem, string, string, cloudwatch.Unit]>([
    ['metricPendingExports', 'PendingExports', 'Sum', cloudwatch.Unit.COUNT],
    ['metricExportFailures', 'ExportFailures', 'Sum', cloudwatch.Unit.COUNT],
    ['metricImportFailures', 'ImportFailures', 'Sum', cloudwatch.Unit.COUNT],
    ['metricLostAndFoundFiles', 'LostAndFoundFiles', 'Sum', cloudwatch.Unit.COUNT],
    ['metricClientConnections', 'ClientConnections', 'Sum', cloudwatch.Unit.COUNT],
    ['metricInodes', 'Inodes', 'Sum', cloudwatch.Unit.COUNT],
    ['metricExportAge', 'ExportAge', 'Maximum', cloudwatch.Unit.SECONDS],
    ['metricImportAge', 'ImportAge', 'Maximum', cloudwatch.Unit.SECONDS],
    ['metricDataReadBytes', 'DataReadBytes', 'Sum', cloudwatch.Unit.BYTES],
    ['metricDataWriteBytes', 'DataWriteBytes', 'Sum', cloudwatch.Unit.BYTES],
    ['metricMetadataReadBytes', 'MetadataReadBytes', 'Sum', cloudwatch.Unit.BYTES],
    ['metricMetadataWriteBytes', 'MetadataWriteBytes', 'Sum', cloudwatch.Unit.BYTES],
    ['metricStorageBytes', 'StorageBytes', 'Average', cloudwatch.Unit.BYTES],
  ])('%s: %s, %s, %s', (method, name, statistic, unit) => {
    // GIVEN / WHEN
    const { stack, fs } = fileSystem();
    const metric = (fs[method] as (p?: cloudwatch.MetricOptions) => cloudwatch.Metric).call(fs);
    // THEN
    expect({ namespace: metric.namespace, name: metric.metricName, statistic: metric.statistic, unit: metric.unit })
      .toEqual({ namespace: 'AWS/S3/Files', name, statistic, unit });
    expect(stack.resolve(metric.dimensions)).toEqual({ FileSystemId: { 'Fn::GetAtt': [expect.stringMatching(/^Files/), 'FileSystemId'] } });
    // AND options override the defaults
    expect((fs[method] as (p?: cloudwatch.MetricOptions) => cloudwatch.Metric).call(fs, { statistic: 'p99', period: Duration.minutes(5) }).statistic).toBe('p99');
  });

  test.each<[keyof S3FilesFileSystem, string]>([
    ['metricClientBucketAccessible', 'S3BucketAccessible'],
    ['metricClientBucketReachable', 'S3BucketReachable'],
  ])('%s: the efs-utils client metric %s as clients publish it (Bucket + InstanceId): every client of the bucket, or one', (method, name) => {
    // GIVEN
    const { stack, fs } = fileSystem();
    const call = (p?: cloudwatch.MetricOptions) => (fs[method] as (o?: cloudwatch.MetricOptions) => cloudwatch.IMetric).call(fs, p);
    // WHEN / THEN by default a Metrics Insights query over every client of the bucket (a metric by Bucket alone matches nothing)
    const all = call();
    expect(all).toBeInstanceOf(cloudwatch.MathExpression);
    const bucketName = { Ref: expect.stringMatching(/^FilesBucket/) };
    expect(stack.resolve((all as cloudwatch.MathExpression).expression)).toEqual({
      'Fn::Join': ['', [`SELECT MIN(${name}) FROM SCHEMA("efs-utils/S3Files", Bucket, InstanceId) WHERE Bucket = '`, bucketName, '\'']],
    });
    expect((all as cloudwatch.MathExpression).period.toMinutes()).toBe(1);
    // AND the statistic picks the aggregate
    expect((call({ statistic: 'Maximum' }) as cloudwatch.MathExpression).expression).toMatch(new RegExp(`^SELECT MAX\\(${name}\\)`));
    // AND with an InstanceId, that client's metric, without a unit
    const one = call({ dimensionsMap: { InstanceId: 'i-0123456789abcdef0' } }) as cloudwatch.Metric;
    expect([one.namespace, one.metricName, one.statistic, one.unit]).toEqual(['efs-utils/S3Files', name, 'Minimum', undefined]);
    expect(stack.resolve(one.dimensions)).toEqual({ Bucket: bucketName, InstanceId: 'i-0123456789abcdef0' });
  });

  test('an alarm on a client metric queries every client, with no unit', () => {
    // GIVEN
    const { stack, fs } = fileSystem();
    // WHEN
    new cloudwatch.Alarm(stack, 'BucketAccess', {
      metric: fs.metricClientBucketAccessible(),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
      evaluationPeriods: 1,
    });
    // THEN
    const [, alarm] = only(Template.fromStack(stack), 'AWS::CloudWatch::Alarm');
    expect(alarm.Properties.Unit).toBeUndefined();
    expect(alarm.Properties.Metrics).toEqual([expect.objectContaining({
      Expression: { 'Fn::Join': ['', [expect.stringMatching(/^SELECT MIN\(S3BucketAccessible\) FROM SCHEMA\("efs-utils\/S3Files", Bucket, InstanceId\) WHERE Bucket = '$/), expect.anything(), '\'']] },
      Period: 60,
    })]);
  });

  test.each<[string, cloudwatch.MetricOptions, RegExp]>([
    ['a percentile', { statistic: 'p99' }, /invalid statistic "p99": without an InstanceId, S3BucketReachable is a Metrics Insights query over every client, which aggregates with MIN, MAX, AVG, SUM or COUNT only/],
    ['a unit', { unit: cloudwatch.Unit.COUNT }, /invalid unit "Count": without an InstanceId, S3BucketReachable is a Metrics Insights query over every client, which takes no unit/],
  ])('client metrics over every client refuse %s, naming the fix', (_what, options, message) => {
    const { fs } = fileSystem();
    expect(() => fs.metricClientBucketReachable(options)).toThrow(message);
  });

  test('client metrics of an imported file system without its bucket: a clear error', () => {
    const stack = newStack();
    const imported = S3FilesFileSystem.fromFileSystemAttributes(stack, 'Theirs', { fileSystemId: 'fs-0123456789abcdef0' });
    expect(() => S3FilesFileSystemMetrics.fromFileSystem(imported).clientBucketReachable()).toThrow(/TestStack\/Theirs: invalid bucket undefined: the efs-utils client metric S3BucketReachable is published by bucket name.*Fix: give `bucket` to `S3FilesFileSystem\.fromFileSystemAttributes\(\)`/);
  });

  test('an imported file system has them too, on its id', () => {
    const stack = newStack();
    const imported = S3FilesFileSystem.fromFileSystemAttributes(stack, 'Theirs', { fileSystemId: 'fs-0123456789abcdef0' });
    expect(stack.resolve(S3FilesFileSystemMetrics.fromFileSystem(imported).exportFailures().dimensions)).toEqual({ FileSystemId: 'fs-0123456789abcdef0' });
  });
});

describe('S3FilesFileSystem: waiter', () => {
  test('the custom resource carries the contract properties, depends on every mount target and references every access point', () => {
    // GIVEN
    const { stack, fs } = fileSystem({ availabilityTimeout: Duration.minutes(30) });
    // WHEN: access points added after construction are still included
    const ap1 = fs.addAccessPoint('Writers', { path: '/lambda' });
    const ap2 = fs.addAccessPoint('Readers', { path: '/readers' });
    // THEN
    const t = Template.fromStack(stack);
    const [, waiter] = only(t, 'Custom::S3FilesMountTargetsAvailable');
    expect(waiter.Properties).toEqual({
      ServiceToken: { 'Fn::GetAtt': [expect.stringMatching(/^cdks3fileslambdaWaiterProviderframeworkonEvent/), 'Arn'] },
      FileSystemId: { 'Fn::GetAtt': [expect.stringMatching(/^Files/), 'FileSystemId'] },
      ExpectedMountTargetCount: '2',
      AccessPointIds: [stack.resolve(ap1.accessPointId), stack.resolve(ap2.accessPointId)],
      TimeoutSeconds: '1800',
      VerifyBucketVersioning: 'false',
      BucketName: { Ref: expect.stringMatching(/^FilesBucket/) },
      // the handler's timeout plus 5 minutes, inside CloudFormation's hour
      ServiceTimeout: '2100',
    });
    const mtIds = resourcesOfType(t, 'AWS::S3Files::MountTarget').map(([id]) => id);
    const apIds = resourcesOfType(t, 'AWS::S3Files::AccessPoint').map(([id]) => id);
    expect(waiter.DependsOn).toEqual(expect.arrayContaining(mtIds));
    // ... and on the NFS rules, so a client that waits for it finds them in place
    const rules = [...resourcesOfType(t, 'AWS::EC2::SecurityGroupIngress'), ...resourcesOfType(t, 'AWS::EC2::SecurityGroupEgress')].map(([id]) => id);
    expect(rules).toHaveLength(2);
    expect(waiter.DependsOn).toEqual(expect.arrayContaining(rules));
    // The access points are ordered by reference (AccessPointIds); a DependsOn too would be redundant (cfn-lint W3005).
    expect(waiter.Properties.AccessPointIds).toEqual(apIds.map((id) => ({ 'Fn::GetAtt': [id, 'AccessPointId'] })));
    expect(fs.mountTargetsAvailable).toBeDefined();
  });

  test('defaults to a 20 minute timeout and an empty access point list', () => {
    // GIVEN / WHEN
    const { template } = fileSystem();
    // THEN
    template().hasResourceProperties('Custom::S3FilesMountTargetsAvailable', { TimeoutSeconds: '1200', AccessPointIds: [] });
  });

  test('an imported bucket is verified at deploy time, and the onEvent role may read its versioning', () => {
    // GIVEN
    const stack = newStack();
    const bucket = s3.Bucket.fromBucketName(stack, 'Imported', 'existing-data');
    // WHEN
    new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack), bucket });
    // THEN
    const t = Template.fromStack(stack);
    t.hasResourceProperties('Custom::S3FilesMountTargetsAvailable', { VerifyBucketVersioning: 'true', BucketName: 'existing-data' });
    t.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: Match.stringLikeRegexp('^cdks3fileslambdaWaiterProviderOnEventServiceRole') }],
      PolicyDocument: {
        Statement: [{
          Action: 's3:GetBucketVersioning',
          Effect: 'Allow',
          Resource: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':s3:::existing-data']] },
        }],
      },
    });
    expect(resourcesOfType(t, 'AWS::S3::Bucket')).toHaveLength(0);
  });

  test('one provider per stack, with one handler policy of a fixed size: reads of the account\'s file systems and access points; every waiter waits for it', () => {
    // GIVEN
    const build = (names: string[]) => {
      const stack = newStack();
      const vpc = isolatedVpc(stack);
      for (const name of names) new S3FilesFileSystem(stack, name, { vpc, removalPolicy: RemovalPolicy.DESTROY });
      return Template.fromStack(stack);
    };
    // WHEN
    const t = build(['A', 'B']);
    // THEN
    expect(resourcesOfType(t, 'AWS::StepFunctions::StateMachine')).toHaveLength(1);
    const waiters = resourcesOfType(t, 'Custom::S3FilesMountTargetsAvailable');
    expect(new Set(waiters.map(([, w]) => JSON.stringify(w.Properties.ServiceToken))).size).toBe(1);
    const [policyId, policy] = byPrefix(t, 'AWS::IAM::Policy', 'cdks3fileslambdaWaiterProviderHandlerPolicy');
    expect(policy.Properties.Roles).toEqual([{ Ref: expect.stringMatching(/^cdks3fileslambdaWaiterProviderIsCompleteServiceRole/) }]);
    const fileSystems = { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':s3files:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':file-system/*']] };
    expect(policy.Properties.PolicyDocument.Statement[0]).toEqual({
      Effect: 'Allow',
      Action: ['s3files:GetFileSystem', 's3files:ListMountTargets', 's3files:GetMountTarget', 's3files:GetAccessPoint', 's3files:ListAccessPoints'],
      Resource: [fileSystems, { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':s3files:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':file-system/*/access-point/*']] }],
    });
    for (const [, waiter] of waiters) expect(waiter.DependsOn).toContain(policyId);
    // AND it is the same for one file system and for eight (a replacement adds nothing to the handler role)
    const policyOf = (tt: Template) => byPrefix(tt, 'AWS::IAM::Policy', 'cdks3fileslambdaWaiterProviderHandlerPolicy')[1];
    expect(policyOf(build(['One']))).toEqual(policyOf(build(['C1', 'C2', 'C3', 'C4', 'C5', 'C6', 'C7', 'C8'])));
  });

  test('the created buckets\' cleaners are what fills the handler role: 19 DESTROY file systems fit one stack, one more is a synth error about IAM\'s inline policy limit', () => {
    // GIVEN a stack with the largest number of file systems (each with a created bucket) whose cleaner policies fit IAM's 10,240 characters
    const build = (n: number) => {
      const stack = newStack();
      const vpc = isolatedVpc(stack);
      for (let i = 0; i < n; i++) new S3FilesFileSystem(stack, `Files${i}`, { vpc, removalPolicy: RemovalPolicy.DESTROY }).addAccessPoint('Ap', { path: '/lambda' });
      return stack;
    };
    // WHEN / THEN
    expect(() => Template.fromStack(build(19))).not.toThrow();
    // (the check counts the handler policy and the cleaners'; no other policy is attached to the role)
    const t = Template.fromStack(build(2));
    const [roleId] = resourcesOfType(t, 'AWS::Lambda::Function').filter(([id]) => /WaiterProviderIsComplete[0-9A-F]{8}$/.test(id))
      .map(([, fn]) => fn.Properties.Role['Fn::GetAtt'][0]);
    const onRole = resourcesOfType(t, 'AWS::IAM::Policy').filter(([, p]) => JSON.stringify(p.Properties.Roles).includes(`"${roleId}"`)).map(([id]) => id);
    expect(onRole.map((id) => id.replace(/[0-9A-F]{8}$/, '')).sort()).toEqual(['Files0BucketCleanerPolicy', 'Files1BucketCleanerPolicy', 'cdks3fileslambdaWaiterProviderHandlerPolicy']);
    expect(() => Template.fromStack(build(20)))
      .toThrow(/TestStack: the handler and bucket-cleaner policies of the S3 Files file systems in this stack add up to about \d+ characters .*IAM allows at most 10240 .*Fix: put some of the file systems that create their bucket in another stack/);
  });

  test('the handlers run on arm64 with the contract polling settings', () => {
    // GIVEN / WHEN
    const { template } = fileSystem();
    // THEN
    const t = template();
    const handlers = resourcesOfType(t, 'AWS::Lambda::Function').filter(([id]) => /WaiterProvider(OnEvent|IsComplete)[0-9A-F]{8}$/.test(id));
    expect(handlers).toHaveLength(2);
    handlers.forEach(([, fn]) => expect(fn.Properties.Architectures).toEqual(['arm64']));
    const [, sm] = only(t, 'AWS::StepFunctions::StateMachine');
    const definition = JSON.stringify(sm.Properties.DefinitionString);
    expect(definition).toContain('\\"IntervalSeconds\\":10');
    // one hour of 10 s polls: CloudFormation's custom-resource limit
    expect(definition).toContain('\\"MaxAttempts\\":360');
  });
});

describe('S3FilesFileSystem: validation', () => {
  test.each([
    ['data', /invalid prefix "data": it must be empty or end with "\/". Fix: use "data\/"/],
    ['/data/', /invalid prefix "\/data\/": S3 keys have no leading "\/".*Fix: drop the leading slash, e.g. "data\/"/],
    ['a//b/', /invalid prefix "a\/\/b\/": it contains an empty path component/],
    [`${'x'.repeat(1024)}/`, /invalid prefix .*the limit is 1024/],
  ])('rejects prefix #%#', (prefix, message) => {
    expect(() => fileSystem({ prefix })).toThrow(message);
  });

  test('accepts an unresolved prefix', () => {
    expect(() => fileSystem({ prefix: Lazy.string({ produce: () => 'x/' }) })).not.toThrow();
  });

  test.each([
    [Duration.days(0), /invalid expireAfterLastAccess 0 days: it must be a whole number of days from 1 to 365/],
    [Duration.days(366), /invalid expireAfterLastAccess 366 days/],
    [Duration.hours(36), /invalid expireAfterLastAccess 1 day 12 hours/],
  ])('rejects expireAfterLastAccess %s', (expireAfterLastAccess, message) => {
    expect(() => fileSystem({ expireAfterLastAccess })).toThrow(message);
  });

  test('rejects an import size above the service maximum', () => {
    expect(() => fileSystem({ importDataRules: [{ sizeLessThan: Size.tebibytes(100) }] }))
      .toThrow(/invalid importDataRules\[0\]\.sizeLessThan "109951162777600 bytes": it must be between 0 and 52673613135872 bytes/);
  });

  test('a negative import size cannot even be constructed (aws-cdk-lib rejects it first)', () => {
    expect(() => fileSystem({ importDataRules: [{ sizeLessThan: Size.bytes(-1) }] })).toThrow(/cannot be negative/);
  });

  test.each([
    [Duration.seconds(30), /invalid availabilityTimeout 30 seconds: it must be between 1 and 55 minutes: CloudFormation gives a custom resource at most one hour/],
    [Duration.minutes(56), /invalid availabilityTimeout 56 minutes/],
    [Duration.hours(2), /invalid availabilityTimeout 2 hours/],
  ])('rejects availabilityTimeout %s', (availabilityTimeout, message) => {
    expect(() => fileSystem({ availabilityTimeout })).toThrow(message);
  });

  test('accepts the 55 minute maximum; the waiter then gets CloudFormation\'s whole hour', () => {
    const { template } = fileSystem({ availabilityTimeout: Duration.minutes(55) });
    template().hasResourceProperties('Custom::S3FilesMountTargetsAvailable', { TimeoutSeconds: '3300', ServiceTimeout: '3600' });
  });

  test('rejects noncurrentVersionExpiration below one day', () => {
    expect(() => fileSystem({ noncurrentVersionExpiration: Duration.hours(12) })).toThrow(/invalid noncurrentVersionExpiration 12 hours/);
  });

  test('rejects noncurrentVersionExpiration together with an existing bucket', () => {
    const stack = newStack();
    const bucket = s3.Bucket.fromBucketName(stack, 'B', 'existing-bucket');
    expect(() => new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack), bucket, noncurrentVersionExpiration: Duration.days(3) }))
      .toThrow(/invalid noncurrentVersionExpiration 3 days: it only applies to a bucket this construct creates/);
  });

  test('rejects RemovalPolicy.SNAPSHOT', () => {
    expect(() => fileSystem({ removalPolicy: RemovalPolicy.SNAPSHOT })).toThrow(/invalid removalPolicy "SNAPSHOT": S3 Files file systems have no snapshots/);
  });

  test('rejects two selected subnets in one AZ', () => {
    // GIVEN
    const stack = newStack();
    const vpc = new ec2.Vpc(stack, 'Vpc', {
      maxAzs: 2,
      natGateways: 0,
      subnetConfiguration: [
        { name: 'A', subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
        { name: 'B', subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
      ],
    });
    // WHEN / THEN
    expect(() => new S3FilesFileSystem(stack, 'Files', { vpc, vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED } }))
      .toThrow(/invalid vpcSubnets \["TestStack\/Vpc\/ASubnet1", "TestStack\/Vpc\/BSubnet1"\]: both subnets are in availability zone AZ #1, and S3 Files allows one mount target per AZ\. Fix: select one subnet per AZ \(the `onePerAz` option/);
    // and the default selection takes one per AZ instead
    expect(() => new S3FilesFileSystem(stack, 'Files2', { vpc })).not.toThrow();
  });

  test('rejects two imported subnets in one AZ by name', () => {
    const stack = newStack();
    const vpc = ec2.Vpc.fromVpcAttributes(stack, 'Vpc', {
      vpcId: 'vpc-1', availabilityZones: ['us-east-1a', 'us-east-1b'], isolatedSubnetIds: ['subnet-1', 'subnet-2'],
    });
    const subnets = [
      ec2.Subnet.fromSubnetAttributes(stack, 'S1', { subnetId: 'subnet-1', availabilityZone: 'us-east-1a' }),
      ec2.Subnet.fromSubnetAttributes(stack, 'S2', { subnetId: 'subnet-2', availabilityZone: 'us-east-1a' }),
    ];
    expect(() => new S3FilesFileSystem(stack, 'Files', { vpc, vpcSubnets: { subnets } }))
      .toThrow(/invalid vpcSubnets \["subnet-1", "subnet-2"\]: both subnets are in availability zone us-east-1a/);
  });

  test('rejects imported subnets without an availability zone', () => {
    const stack = newStack();
    const vpc = ec2.Vpc.fromVpcAttributes(stack, 'Vpc', { vpcId: 'vpc-1', availabilityZones: ['us-east-1a'], isolatedSubnetIds: ['subnet-1'] });
    const subnet = ec2.Subnet.fromSubnetId(stack, 'S1', 'subnet-9');
    expect(() => new S3FilesFileSystem(stack, 'Files', { vpc, vpcSubnets: { subnets: [subnet] } }))
      .toThrow(/invalid vpcSubnets "subnet-9": the subnet was imported without its availability zone.*Fix: import it with its `availabilityZone` \(`ec2\.Subnet\.fromSubnetAttributes\(\)`\)/);
  });

  test('rejects a VPC without private or isolated subnets', () => {
    const stack = newStack();
    const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, subnetConfiguration: [{ name: 'Public', subnetType: ec2.SubnetType.PUBLIC }] });
    expect(() => new S3FilesFileSystem(stack, 'Files', { vpc }))
      .toThrow(/invalid vpc .*: it has no private or isolated subnets for the mount targets. Fix: add PRIVATE_ISOLATED or PRIVATE_WITH_EGRESS subnets/);
  });

  test('rejects a subnet selection the VPC cannot satisfy, naming vpcSubnets', () => {
    const stack = newStack();
    expect(() => new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack), vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS } }))
      .toThrow(/invalid vpcSubnets \{"subnetType":"Private"\}: the VPC cannot satisfy it \(There are no 'Private' subnet groups/);
  });

  test('rejects a selection with no subnets', () => {
    const stack = newStack();
    expect(() => new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack), vpcSubnets: { subnets: [] } }))
      .toThrow(/invalid vpcSubnets \{ subnets \}: it selects no subnets/);
  });

  test('rejects a bucket in another region', () => {
    const app = new App();
    const stack = new Stack(app, 'S', { env: { account: '111111111111', region: 'us-east-1' } });
    const bucket = s3.Bucket.fromBucketAttributes(stack, 'B', { bucketName: 'far-away', region: 'eu-west-1' });
    expect(() => new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack), bucket }))
      .toThrow(/invalid bucket "far-away": the bucket is in eu-west-1 but the file system is in us-east-1/);
  });

  test('warns about a bucket owned by another account, and scopes aws:ResourceAccount to it', () => {
    // GIVEN
    const app = new App();
    const stack = new Stack(app, 'S', { env: { account: '111111111111', region: 'us-east-1' } });
    const bucket = s3.Bucket.fromBucketAttributes(stack, 'B', { bucketName: 'shared', account: '222222222222' });
    // WHEN
    new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack), bucket });
    // THEN
    expect(warnings(stack).join('\n')).toMatch(/`bucket` is owned by account 222222222222, not 111111111111/);
    Template.fromStack(stack).hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Sid: 'S3BucketAccess', Condition: { StringEquals: { 'aws:ResourceAccount': '222222222222' } } })]) },
    });
  });
});

describe('S3FilesFileSystem: data safety on removal', () => {
  function guard(t: Template): [string, any] {
    return only(t, 'Custom::S3FilesDeleteGuard');
  }
  function cleaner(t: Template): [string, any] {
    return only(t, 'Custom::S3FilesBucketCleaner');
  }
  /** Statements of every policy attached to the provider's isComplete role. */
  function handlerRoleStatements(t: Template): Array<{ policy: string; statement: any }> {
    return resourcesOfType(t, 'AWS::IAM::Policy')
      .filter(([, p]) => JSON.stringify(p.Properties.Roles).includes('cdks3fileslambdaWaiterProviderIsCompleteServiceRole'))
      .flatMap(([policy, p]) => p.Properties.PolicyDocument.Statement.map((statement: any) => ({ policy, statement })));
  }
  /** Whether the handlers may delete the file system of `logicalId`, its tags as the template gives them. */
  function handlersMayDelete(t: Template, logicalId: string): boolean {
    const json = t.toJSON() as any;
    const arn = JSON.stringify({ 'Fn::GetAtt': [logicalId, 'FileSystemArn'] });
    return handlerRoleStatements(t).some(({ policy, statement }) => statement.Effect === 'Allow' && allowsDeletingFileSystem({
      policy,
      actions: [].concat(statement.Action),
      resources: [].concat(statement.Resource).map((r) => JSON.stringify(r)),
      conditions: statement.Condition,
    }, logicalId, arn, json));
  }

  test('by default the file system, its role, the role policy and the created bucket are retained, and nobody may delete', () => {
    // GIVEN / WHEN the defaults
    const { template } = fileSystem();
    // THEN nothing the retained file system needs to keep synchronising is deleted with the stack
    const t = template();
    const retained = { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' };
    expect(only(t, 'AWS::S3Files::FileSystem')[1]).toMatchObject(retained);
    expect(byPrefix(t, 'AWS::IAM::Role', 'FilesServiceRole')[1]).toMatchObject(retained);
    expect(byPrefix(t, 'AWS::IAM::Policy', 'FilesServiceRolePolicy')[1]).toMatchObject(retained);
    expect(only(t, 'AWS::S3::Bucket')[1]).toMatchObject(retained);
    expect(only(t, 'AWS::S3::BucketPolicy')[1]).toMatchObject(retained);
    expect(resourcesOfType(t, 'Custom::S3AutoDeleteObjects')).toHaveLength(0);
    expect(guard(t)[1].Properties).toMatchObject({ DeleteFileSystem: 'false' });
    expect(cleaner(t)[1].Properties).toMatchObject({ EmptyOnDelete: 'false' });
    expect(handlersMayDelete(t, only(t, 'AWS::S3Files::FileSystem')[0])).toBe(false);
    expect(JSON.stringify(handlerRoleStatements(t))).not.toMatch(/s3:DeleteObject|s3:DeleteBucket/);
  });

  test('with DESTROY the guard deletes the file system after its users; the bucket\'s own cleaner, deleted after the guard, empties and deletes the created bucket', () => {
    // GIVEN / WHEN
    const { fs, stack } = fileSystem({ removalPolicy: RemovalPolicy.DESTROY });
    fs.addAccessPoint('Extra', { path: '/lambda' });
    const t = Template.fromStack(stack);
    // THEN the guard references the file system (so it is deleted before it, and before the bucket) ...
    const [guardId, g] = guard(t);
    const [fsId, fsRes] = only(t, 'AWS::S3Files::FileSystem');
    const [bucketId, bucket] = only(t, 'AWS::S3::Bucket');
    expect(g.Properties).toEqual({
      ServiceToken: { 'Fn::GetAtt': [expect.stringMatching(/^cdks3fileslambdaWaiterProviderframeworkonEvent/), 'Arn'] },
      ServiceTimeout: '3600',
      FileSystemId: { 'Fn::GetAtt': [fsId, 'FileSystemId'] },
      FileSystemLogicalId: fsId,
      DeleteFileSystem: 'true',
      DeleteTimeoutSeconds: '1800',
      TotalTimeoutSeconds: '3300',
    });
    const [cleanerId, c] = cleaner(t);
    expect(c.Properties).toEqual({
      ServiceToken: { 'Fn::GetAtt': [expect.stringMatching(/^cdks3fileslambdaWaiterProviderframeworkonEvent/), 'Arn'] },
      ServiceTimeout: '3600',
      BucketArn: { 'Fn::GetAtt': [bucketId, 'Arn'] },
      EmptyOnDelete: 'true',
      TotalTimeoutSeconds: '3300',
    });
    // the guard depends on the cleaner: on deletion the file system goes first, then the cleaner runs, then the bucket
    expect(g.DependsOn).toContain(cleanerId);
    expect(cleanerId).toMatch(/^FilesBucketCleaner[0-9A-F]{8}$/);
    expect(fsRes.DeletionPolicy).toBe('Delete');
    expect(bucket.DeletionPolicy).toBe('Delete');
    // ... every mount target, access point and the file system policy depend on the guard (deleted before it) ...
    for (const type of ['AWS::S3Files::MountTarget', 'AWS::S3Files::AccessPoint', 'AWS::S3Files::FileSystemPolicy']) {
      const all = resourcesOfType(t, type);
      expect(all.length).toBeGreaterThan(0);
      for (const [, r] of all) expect(r.DependsOn).toContain(guardId);
    }
    // ... and the guard's rights live in the handlers' policy, which it depends on (so they outlive its Delete):
    // deletion of a file system tagged for deletion with this stack, which this one is
    const [guardPolicyId, guardPolicy] = byPrefix(t, 'AWS::IAM::Policy', 'cdks3fileslambdaWaiterProviderHandlerPolicy');
    expect(g.DependsOn).toContain(guardPolicyId);
    const actions = guardPolicy.Properties.PolicyDocument.Statement.flatMap((st: any) => [].concat(st.Action));
    expect(actions).toEqual(expect.arrayContaining(['s3files:DeleteFileSystem', 's3files:GetFileSystem', 'events:DeleteRule', 'events:RemoveTargets']));
    expect(fsRes.Properties.Tags).toContainEqual({ Key: 'cdk-s3files-lambda:delete-with-stack', Value: { Ref: 'AWS::StackId' } });
    expect(handlersMayDelete(t, fsId)).toBe(true);
    // the guard has no right on the bucket at all
    expect(JSON.stringify(guardPolicy)).not.toMatch(/"s3:|ListFileSystems/);
    // ... and the cleaner's rights live in its own policy, which it depends on
    const [cleanerPolicyId, cleanerPolicy] = byPrefix(t, 'AWS::IAM::Policy', 'FilesBucketCleanerPolicy');
    expect(c.DependsOn).toContain(cleanerPolicyId);
    expect(cleanerPolicy.Properties.PolicyDocument.Statement.flatMap((st: any) => [].concat(st.Action))).toEqual([
      's3files:ListFileSystems', 's3:ListBucket', 's3:ListBucketVersions', 's3:DeleteBucket', 's3:DeleteObject', 's3:DeleteObjectVersion',
    ]);
  });

  test('with DESTROY and an imported bucket, the guard deletes the file system, and nothing can touch the bucket', () => {
    // GIVEN / WHEN
    const stack = newStack();
    new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack), bucket: s3.Bucket.fromBucketName(stack, 'B', 'theirs'), removalPolicy: RemovalPolicy.DESTROY });
    // THEN
    const t = Template.fromStack(stack);
    expect(guard(t)[1].Properties).toMatchObject({ DeleteFileSystem: 'true' });
    expect(resourcesOfType(t, 'Custom::S3FilesBucketCleaner')).toEqual([]);
    const text = JSON.stringify(handlerRoleStatements(t));
    expect(text).toContain('s3files:DeleteFileSystem');
    expect(text).not.toMatch(/s3:Delete|s3files:ListFileSystems/);
  });

  test('with DESTROY only the delete guard may delete, and only its own file system', () => {
    // GIVEN two file systems in one stack, one DESTROY and one RETAIN
    const stack = newStack();
    const vpc = isolatedVpc(stack);
    new S3FilesFileSystem(stack, 'Gone', { vpc, removalPolicy: RemovalPolicy.DESTROY });
    new S3FilesFileSystem(stack, 'Kept', { vpc });
    // WHEN synthesized
    const t = Template.fromStack(stack);
    // THEN exactly one DeleteFileSystem statement, in the handlers' policy, limited to file systems tagged
    // with this stack's id; only the DESTROY file system carries it
    const deletes = handlerRoleStatements(t).filter(({ statement }) => JSON.stringify(statement.Action).includes('s3files:DeleteFileSystem'));
    expect(deletes).toEqual([{
      policy: expect.stringMatching(/^cdks3fileslambdaWaiterProviderHandlerPolicy/),
      statement: {
        Effect: 'Allow',
        Action: 's3files:DeleteFileSystem',
        Resource: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':s3files:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':file-system/*']] },
        Condition: { StringEquals: { 'aws:ResourceTag/cdk-s3files-lambda:delete-with-stack': { Ref: 'AWS::StackId' } } },
      },
    }]);
    expect(handlersMayDelete(t, byPrefix(t, 'AWS::S3Files::FileSystem', 'Gone')[0])).toBe(true);
    expect(handlersMayDelete(t, byPrefix(t, 'AWS::S3Files::FileSystem', 'Kept')[0])).toBe(false);
    const others = JSON.stringify(resourcesOfType(t, 'AWS::IAM::Policy').filter(([id]) => !/^cdks3fileslambdaWaiterProviderHandlerPolicy/.test(id)));
    expect(others).not.toContain('s3files:DeleteFileSystem');
    // AND the handler's environment lists the RETAIN one (a removed guard of its logical id keeps it)
    const [, fn] = byPrefix(t, 'AWS::Lambda::Function', 'cdks3fileslambdaWaiterProviderIsComplete');
    expect(fn.Properties.Environment.Variables.S3FILES_RETAINED_FILE_SYSTEMS).toBe(byPrefix(t, 'AWS::S3Files::FileSystem', 'Kept')[0]);
    // AND both guards are served by the one provider
    const guards = resourcesOfType(t, 'Custom::S3FilesDeleteGuard');
    expect(guards.map(([, g]) => g.Properties.DeleteFileSystem).sort()).toEqual(['false', 'true']);
  });

  test.each([
    ['applyRemovalPolicy', (fs: S3FilesFileSystem) => fs.applyRemovalPolicy(RemovalPolicy.DESTROY)],
    ['RemovalPolicies.of(stack).destroy()', (fs: S3FilesFileSystem) => RemovalPolicies.of(Stack.of(fs)).destroy()],
  ])('DESTROY set with %s after construction reaches the guard, the role, its policy and the bucket', (_how, apply) => {
    // GIVEN a file system built with the default RETAIN
    const { fs, template } = fileSystem();
    // WHEN the policy is changed the standard CDK ways
    apply(fs);
    // THEN the guard deletes, the cleaner empties, and everything follows the file system
    const t = template();
    expect(guard(t)[1].Properties).toMatchObject({ DeleteFileSystem: 'true' });
    expect(cleaner(t)[1].Properties).toMatchObject({ EmptyOnDelete: 'true' });
    for (const [type, prefix] of [['AWS::S3Files::FileSystem', 'Files'], ['AWS::IAM::Role', 'FilesServiceRole'], ['AWS::IAM::Policy', 'FilesServiceRolePolicy'], ['AWS::S3::Bucket', 'FilesBucket']]) {
      expect(byPrefix(t, type, prefix)[1]).toMatchObject({ DeletionPolicy: 'Delete', UpdateReplacePolicy: 'Delete' });
    }
    expect(handlersMayDelete(t, only(t, 'AWS::S3Files::FileSystem')[0])).toBe(true);
  });

  test.each([
    ['applyRemovalPolicy', (fs: S3FilesFileSystem) => fs.applyRemovalPolicy(RemovalPolicy.RETAIN)],
    ['RemovalPolicies.of(stack).retain()', (fs: S3FilesFileSystem) => RemovalPolicies.of(Stack.of(fs)).retain()],
  ])('RETAIN set with %s over a DESTROY prop keeps the file system, its role and the bucket, and disarms the guard', (_how, apply) => {
    // GIVEN a file system built with DESTROY
    const { fs, template } = fileSystem({ removalPolicy: RemovalPolicy.DESTROY });
    // WHEN
    apply(fs);
    // THEN
    const t = template();
    expect(guard(t)[1].Properties).toMatchObject({ DeleteFileSystem: 'false' });
    expect(cleaner(t)[1].Properties).toMatchObject({ EmptyOnDelete: 'false' });
    for (const [type, prefix] of [['AWS::S3Files::FileSystem', 'Files'], ['AWS::IAM::Role', 'FilesServiceRole'], ['AWS::IAM::Policy', 'FilesServiceRolePolicy'], ['AWS::S3::Bucket', 'FilesBucket']]) {
      expect(byPrefix(t, type, prefix)[1]).toMatchObject({ DeletionPolicy: 'Retain' });
    }
    expect(handlersMayDelete(t, only(t, 'AWS::S3Files::FileSystem')[0])).toBe(false);
    expect(JSON.stringify(handlerRoleStatements(t))).not.toMatch(/s3:DeleteObject/);
  });

  test.each([
    ['bucket.applyRemovalPolicy', (b: s3.IBucket) => (b as s3.Bucket).applyRemovalPolicy(RemovalPolicy.RETAIN)],
    ['RemovalPolicies.of(bucket).retain()', (b: s3.IBucket) => RemovalPolicies.of(b).retain()],
  ])('a created bucket given RETAIN of its own (%s) keeps it, and its data, under a DESTROY file system', (_how, retain) => {
    // GIVEN a DESTROY file system, WHEN its bucket alone is retained
    const { fs, template } = fileSystem({ removalPolicy: RemovalPolicy.DESTROY });
    retain(fs.bucket!);
    // THEN the bucket (and its policy) are retained, the cleaner empties nothing and has no right to
    const t = template();
    expect(only(t, 'AWS::S3::Bucket')[1]).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    expect(only(t, 'AWS::S3::BucketPolicy')[1]).toMatchObject({ DeletionPolicy: 'Retain' });
    expect(cleaner(t)[1].Properties).toMatchObject({ EmptyOnDelete: 'false' });
    expect(JSON.stringify(handlerRoleStatements(t))).not.toMatch(/s3:DeleteObject|s3:DeleteBucket/);
    // AND the file system itself is still deleted by its guard
    expect(guard(t)[1].Properties).toMatchObject({ DeleteFileSystem: 'true' });
    expect(only(t, 'AWS::S3Files::FileSystem')[1]).toMatchObject({ DeletionPolicy: 'Delete' });
  });

  test('SNAPSHOT is refused however it is set', () => {
    // GIVEN / WHEN / THEN
    expect(() => fileSystem({ removalPolicy: RemovalPolicy.SNAPSHOT })).toThrow(/invalid removalPolicy "SNAPSHOT"/);
    expect(() => fileSystem().fs.applyRemovalPolicy(RemovalPolicy.SNAPSHOT)).toThrow(/invalid applyRemovalPolicy "SNAPSHOT": S3 Files file systems have no snapshots/);
    const { stack, template } = fileSystem();
    RemovalPolicies.of(stack).snapshot();
    expect(() => template()).toThrow(/invalid removal policy SNAPSHOT \(set on the file system after construction\)/);
  });

  test('the waiter no longer approximates export with a settle period', () => {
    // GIVEN / WHEN a DESTROY file system
    const { template } = fileSystem({ removalPolicy: RemovalPolicy.DESTROY });
    // THEN the waiter carries no delete-time properties
    const [, waiter] = only(template(), 'Custom::S3FilesMountTargetsAvailable');
    expect(Object.keys(waiter.Properties)).not.toEqual(expect.arrayContaining(['WaitForExportOnDelete']));
    expect(waiter.Properties.DeleteTimeoutSeconds).toBeUndefined();
    expect(waiter.Properties.ExportSettleSeconds).toBeUndefined();
  });
});

describe('S3FilesFileSystem: acceptBucketWarning', () => {
  test('absent by default; true renders AcceptBucketWarning', () => {
    // GIVEN / WHEN
    const plain = newStack('Plain');
    new S3FilesFileSystem(plain, 'Files', { vpc: isolatedVpc(plain) });
    const accepting = newStack('Accepting');
    new S3FilesFileSystem(accepting, 'Files', { vpc: isolatedVpc(accepting), acceptBucketWarning: true });
    // THEN
    const [, fsPlain] = only(Template.fromStack(plain), 'AWS::S3Files::FileSystem');
    const [, fsAccepting] = only(Template.fromStack(accepting), 'AWS::S3Files::FileSystem');
    expect(fsPlain.Properties.AcceptBucketWarning).toBeUndefined();
    expect(fsAccepting.Properties.AcceptBucketWarning).toBe(true);
  });
});

describe('S3FilesFileSystem: fileSystemEncryptionKey (the file system\'s own key)', () => {
  test('renders KmsKeyId with the key ARN and leaves the bucket\'s encryption alone', () => {
    // GIVEN
    const stack = newStack();
    const key = new kms.Key(stack, 'FsKey');
    // WHEN
    new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack), fileSystemEncryptionKey: key });
    // THEN
    const t = Template.fromStack(stack);
    t.hasResourceProperties('AWS::S3Files::FileSystem', { KmsKeyId: { 'Fn::GetAtt': [Match.stringLikeRegexp('^FsKey'), 'Arn'] } });
    t.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
    });
    // nothing is granted on it: the service and clients never call KMS with it under our roles
    expect(JSON.stringify(resourcesOfType(t, 'AWS::IAM::Policy'))).not.toMatch(/FsKey/);
  });

  test('absent by default', () => {
    const [, fsResource] = only(fileSystem().template(), 'AWS::S3Files::FileSystem');
    expect(fsResource.Properties.KmsKeyId).toBeUndefined();
  });

  test('a key of another region is refused, naming both regions', () => {
    // GIVEN
    const stack = new Stack(new App(), 'Regional', { env: { account: '111111111111', region: 'us-east-1' } });
    const key = kms.Key.fromKeyArn(stack, 'Far', 'arn:aws:kms:eu-west-1:111111111111:key/1234abcd-12ab-34cd-56ef-1234567890ab');
    // WHEN / THEN
    expect(() => new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack), fileSystemEncryptionKey: key }))
      .toThrow(/Regional\/Files: invalid fileSystemEncryptionKey "arn:aws:kms:eu-west-1:.*the key is in eu-west-1 but the file system is in us-east-1.*Fix: use a key .* in us-east-1/);
  });
});

describe('S3FilesFileSystem: mountTargetIpAddressType', () => {
  function dualStackVpc(stack: Stack): ec2.Vpc {
    return new ec2.Vpc(stack, 'Vpc', {
      maxAzs: 2,
      natGateways: 0,
      ipProtocol: ec2.IpProtocol.DUAL_STACK,
      subnetConfiguration: [{ name: 'Isolated', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }],
    });
  }

  test.each([MountTargetIpAddressType.DUAL_STACK, MountTargetIpAddressType.IPV6_ONLY, MountTargetIpAddressType.IPV4_ONLY])(
    'a dual-stack VPC takes %p on every mount target', (type) => {
      // GIVEN
      const stack = newStack();
      // WHEN
      new S3FilesFileSystem(stack, 'Files', { vpc: dualStackVpc(stack), mountTargetIpAddressType: type });
      // THEN
      const mts = resourcesOfType(Template.fromStack(stack), 'AWS::S3Files::MountTarget');
      expect(mts.map(([, mt]) => mt.Properties.IpAddressType)).toEqual([type.value, type.value]);
    });

  test('absent by default (the service\'s IPV4_ONLY)', () => {
    const mts = resourcesOfType(fileSystem().template(), 'AWS::S3Files::MountTarget');
    expect(mts.map(([, mt]) => mt.Properties.IpAddressType)).toEqual([undefined, undefined]);
  });

  test.each([MountTargetIpAddressType.DUAL_STACK, MountTargetIpAddressType.IPV6_ONLY])('an IPv4-only VPC refuses %p, naming the subnet', (type) => {
    // GIVEN
    const stack = newStack();
    // WHEN / THEN
    expect(() => new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack), mountTargetIpAddressType: type }))
      .toThrow(new RegExp(`TestStack/Files: invalid mountTargetIpAddressType "${type.value}": subnet TestStack/Vpc/IsolatedSubnet1 has no IPv6 CIDR block.*Fix: use MountTargetIpAddressType.IPV4_ONLY, or give the VPC IPv6`));
  });

  test('imported subnets are not judged (their CIDR blocks are unknown), and of() passes a newer value through', () => {
    // GIVEN
    const stack = newStack();
    const vpc = ec2.Vpc.fromVpcAttributes(stack, 'Imported', {
      vpcId: 'vpc-12345678', availabilityZones: ['us-east-1a'], isolatedSubnetIds: ['subnet-12345678'],
    });
    // WHEN
    new S3FilesFileSystem(stack, 'Files', { vpc, mountTargetIpAddressType: MountTargetIpAddressType.IPV6_ONLY });
    new S3FilesFileSystem(stack, 'Later', { vpc, mountTargetIpAddressType: MountTargetIpAddressType.of('IPV4_ONLY') });
    // THEN
    const types = resourcesOfType(Template.fromStack(stack), 'AWS::S3Files::MountTarget').map(([, mt]) => mt.Properties.IpAddressType);
    expect(types.sort()).toEqual(['IPV4_ONLY', 'IPV6_ONLY']);
  });
});

describe('S3FilesFileSystem: importDataRules', () => {
  test('up to 10 rules, each with its own prefix, size and trigger, rendered in order', () => {
    // GIVEN
    const stack = newStack();
    // WHEN
    new S3FilesFileSystem(stack, 'Files', {
      vpc: isolatedVpc(stack),
      importDataRules: [
        { prefix: '', sizeLessThan: Size.kibibytes(64) },
        { prefix: 'hot/', sizeLessThan: Size.mebibytes(16), trigger: ImportTrigger.ON_FILE_ACCESS },
        { prefix: 'archive/', sizeLessThan: Size.bytes(0) },
      ],
    });
    // THEN
    const [, fs] = only(Template.fromStack(stack), 'AWS::S3Files::FileSystem');
    expect(fs.Properties.SynchronizationConfiguration).toEqual({
      ImportDataRules: [
        { Prefix: '', SizeLessThan: 65536, Trigger: 'ON_DIRECTORY_FIRST_ACCESS' },
        { Prefix: 'hot/', SizeLessThan: 16777216, Trigger: 'ON_FILE_ACCESS' },
        { Prefix: 'archive/', SizeLessThan: 0, Trigger: 'ON_DIRECTORY_FIRST_ACCESS' },
      ],
      ExpirationDataRules: [{ DaysAfterLastAccess: 30 }],
    });
  });

  test('clear errors: none or 11 rules, a repeated or malformed prefix, a size out of range', () => {
    const build = (props: Record<string, unknown>) => () => {
      const stack = newStack();
      new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack), ...props });
    };
    expect(build({ importDataRules: [] })).toThrow(/invalid importDataRules "0 rules": S3 Files takes 1 to 10 import rules/);
    expect(build({ importDataRules: Array.from({ length: 11 }, (_, i) => ({ prefix: `p${i}/` })) })).toThrow(/invalid importDataRules "11 rules"/);
    expect(build({ importDataRules: [{ prefix: 'a/' }, { prefix: 'a/' }] })).toThrow(/invalid importDataRules\[1\]\.prefix "a\/": two import rules have the same prefix/);
    expect(build({ importDataRules: [{ prefix: 'logs' }] })).toThrow(/invalid importDataRules\[0\]\.prefix "logs": it must be empty or end with "\/"/);
    expect(build({ importDataRules: [{ sizeLessThan: Size.tebibytes(49) }] })).toThrow(/invalid importDataRules\[0\]\.sizeLessThan "53876069761024 bytes"/);
  });

  test('issue 37 item 2: rules without one for the root directory (prefix \'\') are refused, as S3 Files requires it', () => {
    const build = (props: Record<string, unknown>) => () => {
      const stack = newStack();
      new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack), ...props });
    };
    // GIVEN / WHEN rules for prefixes only, THEN an error naming the prop, the value and the fix
    expect(build({ importDataRules: [{ prefix: 'hot/' }] })).toThrow(
      'TestStack/Files: invalid importDataRules [{"prefix":"hot/"}]: S3 Files requires exactly one import rule for the root directory (prefix \'\'), and none has it. '
      + 'Fix: add `{ prefix: \'\' }` (the service\'s default rule: 128 KiB, `ImportTrigger.ON_DIRECTORY_FIRST_ACCESS`), or set `prefix` to \'\' on the rule for the whole file '
      + 'system. (Python: import_data_rules; Java: importDataRules(…); Go: ImportDataRules.)');
    expect(build({ importDataRules: [{ prefix: 'hot/' }, { prefix: 'cold/', trigger: ImportTrigger.ON_FILE_ACCESS }] })).toThrow(/invalid importDataRules \[.*\]: S3 Files requires/);
    // AND with the root rule (given, or by leaving `prefix` out) it synthesizes
    expect(build({ importDataRules: [{ prefix: 'hot/' }, {}] })).not.toThrow();
    expect(build({ importDataRules: [{ prefix: '', trigger: ImportTrigger.ON_FILE_ACCESS }, { prefix: 'hot/' }] })).not.toThrow();
    // AND a token prefix may be the root rule: accepted, with the unresolved-token warning
    const stack = newStack();
    new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack), importDataRules: [{ prefix: new CfnParameter(stack, 'Prefix').valueAsString }] });
    expect(warnings(stack).filter((w) => /`importDataRules\[0\]\.prefix` is an unresolved token/.test(w))).toHaveLength(1);
    // AND the reference says so
    expect(docsText()).toMatch(/Exactly one rule must be for the root directory \(prefix `''`, also what a rule without `prefix` gets\), as the S3 user guide requires .*: rules without it are a synth-time error/);
  });
});

describe('S3FilesFileSystem: a bucket of the app that S3 Files cannot use (issue 37 item 3)', () => {
  /** Synthesizes a file system (or the L3) over the bucket `make` returns; returns the stack. */
  function synth(make: (stack: Stack) => s3.IBucket, via: 'fileSystem' | 'l3' | 'l3Options' = 'fileSystem'): Stack {
    const stack = newStack();
    const bucket = make(stack);
    if (via === 'fileSystem') new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack), bucket });
    if (via === 'l3') new S3FilesMountedFunction(stack, 'Fn', { ...FN, bucket });
    if (via === 'l3Options') new S3FilesMountedFunction(stack, 'Fn', { ...FN, s3FileSystemOptions: { bucket } });
    Template.fromStack(stack);
    return stack;
  }
  const VERSIONING = /invalid bucket "TestStack\/Data": its versioning is (not configured|"Suspended"), and S3 Files requires versioning enabled to synchronize the file system with the bucket. Fix: create the bucket with `versioned: true`/;
  const DSSE = 'invalid bucket "TestStack/Data": its default encryption is DSSE-KMS (SSEAlgorithm aws:kms:dsse), and S3 Files supports only SSE-S3 (AES256) and SSE-KMS (aws:kms). '
    + 'Fix: create the bucket with `encryption: s3.BucketEncryption.S3_MANAGED` or `s3.BucketEncryption.KMS`.';

  test('an unversioned bucket is refused at synth, given to the file system, to the L3 as `bucket` or as `s3FileSystemOptions.bucket`', () => {
    // GIVEN new s3.Bucket(this, 'Data') as S3 Files' bucket, WHEN synthesized, THEN an error naming the prop and the bucket
    expect(() => synth((s) => new s3.Bucket(s, 'Data'))).toThrow(/TestStack\/Files: invalid bucket "TestStack\/Data": its versioning is not configured/);
    expect(() => synth((s) => new s3.Bucket(s, 'Data'), 'l3')).toThrow(/TestStack\/FnFileSystem: invalid bucket "TestStack\/Data": its versioning is not configured/);
    expect(() => synth((s) => new s3.Bucket(s, 'Data'), 'l3Options')).toThrow(VERSIONING);
  });

  test('a DSSE-KMS bucket is refused at synth (S3 Files supports SSE-S3 and SSE-KMS)', () => {
    const dsse = (s: Stack) => new s3.Bucket(s, 'Data', { versioned: true, encryption: s3.BucketEncryption.DSSE_MANAGED });
    expect(() => synth(dsse)).toThrow(DSSE);
    expect(() => synth(dsse, 'l3')).toThrow(DSSE);
    expect(() => synth(dsse, 'l3Options')).toThrow(DSSE);
  });

  test('what the L1 renders counts: an escape hatch that suspends versioning is refused, one that enables it passes', () => {
    // GIVEN a versioned bucket whose versioning an escape hatch suspends after the file system was built
    expect(() => {
      const stack = newStack();
      const bucket = new s3.Bucket(stack, 'Data', { versioned: true });
      new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack), bucket });
      (bucket.node.defaultChild as s3.CfnBucket).addPropertyOverride('VersioningConfiguration.Status', 'Suspended');
      Template.fromStack(stack);
    }).toThrow(VERSIONING);
    // AND the bucket the construct created, its versioning removed through the L1
    expect(() => {
      const stack = newStack();
      const fs = new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack) });
      (fs.bucket!.node.defaultChild as s3.CfnBucket).versioningConfiguration = undefined;
      Template.fromStack(stack);
    }).toThrow(/TestStack\/Files: invalid bucket "TestStack\/Files\/Bucket": its versioning is not configured/);
    // AND an unversioned bucket an escape hatch versions passes
    expect(() => synth((s) => {
      const bucket = new s3.Bucket(s, 'Data');
      (bucket.node.defaultChild as s3.CfnBucket).versioningConfiguration = { status: 'Enabled' };
      return bucket;
    })).not.toThrow();
  });

  test('versioned buckets with SSE-S3, SSE-KMS (either key) or no encryption setting (S3 applies SSE-S3) pass; an imported bucket is left to the deploy-time check', () => {
    for (const encryption of [undefined, s3.BucketEncryption.S3_MANAGED, s3.BucketEncryption.KMS_MANAGED, s3.BucketEncryption.KMS]) {
      expect(() => synth((s) => new s3.Bucket(s, 'Data', { versioned: true, encryption }))).not.toThrow();
    }
    const stack = synth((s) => s3.Bucket.fromBucketName(s, 'Data', 'existing-data'));
    Template.fromStack(stack).hasResourceProperties('Custom::S3FilesMountTargetsAvailable', { VerifyBucketVersioning: 'true', BucketName: 'existing-data' });
  });

  test('a setting CloudFormation decides (a condition) is accepted with the unresolved-token warning', () => {
    const stack = synth((s) => {
      const on = new CfnCondition(s, 'On', { expression: Fn.conditionEquals(new CfnParameter(s, 'Versioning').valueAsString, 'on') });
      const bucket = new s3.Bucket(s, 'Data');
      (bucket.node.defaultChild as s3.CfnBucket).versioningConfiguration = { status: Fn.conditionIf(on.logicalId, 'Enabled', 'Suspended').toString() };
      return bucket;
    });
    expect(warnings(stack).filter((w) => /The versioning of `bucket` \(TestStack\/Data\) is an unresolved token/.test(w))).toHaveLength(1);
  });

  test('the reference and docs/security.md say what is checked, and when', () => {
    expect(docsText()).toMatch(/A bucket of the app given as `bucket` is checked at synth on what its `CfnBucket` renders: unversioned \(or suspended\) and DSSE-KMS buckets are refused \(S3 Files needs versioning and SSE-S3 or SSE-KMS\)\. An \*\*imported\*\* bucket's versioning is checked at deploy time/);
    expect(docsText()).toMatch(/A bucket of this app is checked at synth on what its `CfnBucket` renders \(escape hatches included\): unversioned, suspended or DSSE-KMS is an error, a value left to CloudFormation \(a condition\) a warning\. An imported bucket's versioning is verified at deploy time\./);
  });
});
