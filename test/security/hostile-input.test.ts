import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, Duration, Lazy, RemovalPolicy, Size, Stack, Token } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { ImportTrigger, LambdaMount, MountTargetIpAddressType, S3FilesAccessPoint, S3FilesFileSystem, S3FilesMountedFunction, S3FilesMountedFunctionProps } from '../../src';
import { venvBin } from '../validators/templates';

// Bad configurations a user can write, including through jsii from Python/Java/.NET, where a value
// may arrive with the wrong runtime type (simulated with `as any`). Each must either fail at synth
// with our own error naming the prop and the fix, or be accepted with a warning and still produce
// a template cfn-lint accepts. None may crash inside aws-cdk-lib.

const ENV = { account: '111111111111', region: 'us-east-1' };
const FN = {
  runtime: lambda.Runtime.NODEJS_24_X,
  handler: 'index.handler',
  code: lambda.Code.fromInline('exports.handler = async () => ({})'),
};
const bad = (v: unknown) => v as any;

// Region-agnostic where templates are linted: a concrete region makes CDK write literal AZs (W3010).
function stackIn(app: App, name = 'Hostile', env: { account: string; region?: string } = ENV): Stack {
  return new Stack(app, name, { env });
}
function isolatedVpc(stack: Stack, id = 'Vpc'): ec2.Vpc {
  return new ec2.Vpc(stack, id, { maxAzs: 2, natGateways: 0, subnetConfiguration: [{ name: 'Isolated', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }] });
}
function mounted(stack: Stack, props: Partial<S3FilesMountedFunctionProps> = {}, id = 'Fn'): S3FilesMountedFunction {
  return new S3FilesMountedFunction(stack, id, { ...FN, ...props });
}
function fileSystem(stack: Stack, props: Record<string, unknown> = {}): S3FilesFileSystem {
  return new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack), ...props });
}

interface Rejected { readonly build: (stack: Stack) => unknown; readonly prop: RegExp; readonly fix: RegExp }

const REJECTED: Record<string, Rejected> = {
  'uid as a string (jsii)': { build: (s) => mounted(s, { accessPointOptions: { path: '/lambda', posixUser: { uid: bad('1000'), gid: 1000 } } }), prop: /invalid accessPointOptions\.posixUser\.uid "1000"/, fix: /whole number such as 1000/ },
  'negative uid': { build: (s) => mounted(s, { accessPointOptions: { path: '/lambda', posixUser: { uid: -1, gid: 1000 } } }), prop: /invalid accessPointOptions\.posixUser\.uid -1/, fix: /whole number/ },
  'uid above 2^32-1': { build: (s) => mounted(s, { accessPointOptions: { path: '/lambda', posixUser: { uid: 4294967296, gid: 1 } } }), prop: /invalid accessPointOptions\.posixUser\.uid 4294967296/, fix: /whole number/ },
  'fractional gid': { build: (s) => mounted(s, { accessPointOptions: { path: '/lambda', posixUser: { uid: 1, gid: 1.5 } } }), prop: /invalid accessPointOptions\.posixUser\.gid 1\.5/, fix: /whole number/ },
  'NaN gid': { build: (s) => mounted(s, { accessPointOptions: { path: '/lambda', posixUser: { uid: 1, gid: NaN } } }), prop: /invalid accessPointOptions\.posixUser\.gid NaN/, fix: /whole number/ },
  '17 secondary gids': { build: (s) => mounted(s, { accessPointOptions: { path: '/lambda', posixUser: { uid: 1, gid: 1, secondaryGids: Array.from({ length: 17 }, (_, i) => i) } } }), prop: /invalid accessPointOptions\.posixUser\.secondaryGids/, fix: /at most 16 groups/ },
  'secondary gids as a string (jsii)': { build: (s) => mounted(s, { accessPointOptions: { path: '/lambda', posixUser: { uid: 1, gid: 1, secondaryGids: bad('1001') } } }), prop: /invalid accessPointOptions\.posixUser\.secondaryGids "1001"/, fix: /\[1001, 1002\]/ },
  'permissions not octal': { build: (s) => mounted(s, { accessPointOptions: { path: '/lambda', createPermissions: '789' } }), prop: /invalid accessPointOptions\.createPermissions "789"/, fix: /"755" or "0750"/ },
  'permissions as a number (jsii)': { build: (s) => mounted(s, { accessPointOptions: { path: '/lambda', createPermissions: bad(755) } }), prop: /invalid accessPointOptions\.createPermissions 755: it must be a string/, fix: /"755"/ },
  'relative access point path': { build: (s) => mounted(s, { accessPointOptions: { path: 'lambda' } }), prop: /invalid accessPointOptions\.path "lambda"/, fix: /"\/lambda"/ },
  'path escaping with ..': { build: (s) => mounted(s, { accessPointOptions: { path: '/data/../etc' } }), prop: /invalid accessPointOptions\.path "\/data\/..\/etc"/, fix: /does not start with "\."/ },
  'path with 5 components': { build: (s) => mounted(s, { accessPointOptions: { path: '/a/b/c/d/e' } }), prop: /invalid accessPointOptions\.path "\/a\/b\/c\/d\/e"/, fix: /shallower path/ },
  'path over 100 chars': { build: (s) => mounted(s, { accessPointOptions: { path: `/${'x'.repeat(100)}` } }), prop: /invalid accessPointOptions\.path .*101 characters/, fix: /shorter path/ },
  'path as a number (jsii)': { build: (s) => mounted(s, { accessPointOptions: { path: bad(42) } }), prop: /invalid accessPointOptions\.path 42: it must be a string/, fix: /"\/lambda"/ },
  'mount path outside /mnt': { build: (s) => mounted(s, { mountPath: '/tmp/data' }), prop: /invalid mountPath "\/tmp\/data"/, fix: /"\/mnt\/s3files"/ },
  'mount path two levels deep': { build: (s) => mounted(s, { mountPath: '/mnt/a/b' }), prop: /invalid mountPath "\/mnt\/a\/b"/, fix: /"\/mnt\/s3files"/ },
  'mount path of 161 chars': { build: (s) => mounted(s, { mountPath: `/mnt/${'m'.repeat(156)}` }), prop: /invalid mountPath .*161 characters/, fix: /shorter path/ },
  'mount path as a number (jsii)': { build: (s) => mounted(s, { mountPath: bad(2049) }), prop: /invalid mountPath 2049: it must be a string/, fix: /"\/mnt\/s3files"/ },
  'prefix without trailing slash': { build: (s) => fileSystem(s, { prefix: 'data' }), prop: /invalid prefix "data"/, fix: /"data\/"/ },
  'prefix with leading slash': { build: (s) => fileSystem(s, { prefix: '/data/' }), prop: /invalid prefix "\/data\/"/, fix: /drop the leading slash/ },
  'prefix with //': { build: (s) => fileSystem(s, { prefix: 'a//b/' }), prop: /invalid prefix "a\/\/b\/"/, fix: /remove the duplicate slashes/ },
  'prefix as a number (jsii)': { build: (s) => fileSystem(s, { prefix: bad(7) }), prop: /invalid prefix 7: it must be a string/, fix: /"data\/"/ },
  'import threshold above the schema maximum': { build: (s) => fileSystem(s, { importDataRules: [{ sizeLessThan: Size.tebibytes(100) }] }), prop: /invalid importDataRules\[0\]\.sizeLessThan/, fix: /Size\.kibibytes\(128\)/ },
  'import threshold as a number (jsii)': { build: (s) => fileSystem(s, { importDataRules: [{ sizeLessThan: bad(131072) }] }), prop: /invalid importDataRules\[0\]\.sizeLessThan 131072: it must be a Size/, fix: /Size\.kibibytes\(128\)/ },
  'expiry in hours': { build: (s) => fileSystem(s, { expireAfterLastAccess: Duration.hours(36) }), prop: /invalid expireAfterLastAccess 1 day 12 hours/, fix: /Duration\.days\(n\) with 1 <= n <= 365/ },
  'expiry beyond 365 days': { build: (s) => fileSystem(s, { expireAfterLastAccess: Duration.days(400) }), prop: /invalid expireAfterLastAccess 400 days/, fix: /1 <= n <= 365/ },
  'expiry as a number (jsii)': { build: (s) => fileSystem(s, { expireAfterLastAccess: bad(30) }), prop: /invalid expireAfterLastAccess 30: it must be a Duration/, fix: /Duration\.days\(1\)/ },
  'lower-case import trigger': { build: (s) => fileSystem(s, { importDataRules: [{ trigger: ImportTrigger.of('on file access') }] }), prop: /invalid importDataRules\[0\]\.trigger "on file access"/, fix: /ImportTrigger\.ON_FILE_ACCESS/ },
  'import trigger as a plain string (jsii)': { build: (s) => fileSystem(s, { importDataRules: [{ trigger: bad('ON_FILE_ACCESS') }] }), prop: /invalid importDataRules\[0\]\.trigger "ON_FILE_ACCESS": it must be an `ImportTrigger`/, fix: /ImportTrigger\.ON_DIRECTORY_FIRST_ACCESS/ },
  'availability timeout of 30 s': { build: (s) => fileSystem(s, { availabilityTimeout: Duration.seconds(30) }), prop: /invalid availabilityTimeout 30 seconds/, fix: /Duration\.minutes\(20\)/ },
  'availability timeout of 3 h': { build: (s) => fileSystem(s, { availabilityTimeout: Duration.hours(3) }), prop: /invalid availabilityTimeout 3 hours/, fix: /Duration\.minutes\(20\)/ },
  'availability timeout as a number (jsii)': { build: (s) => fileSystem(s, { availabilityTimeout: bad(600) }), prop: /invalid availabilityTimeout 600: it must be a Duration/, fix: /Duration\.minutes\(20\)/ },
  'SNAPSHOT removal policy': { build: (s) => fileSystem(s, { removalPolicy: RemovalPolicy.SNAPSHOT }), prop: /invalid removalPolicy "SNAPSHOT"/, fix: /RemovalPolicy\.RETAIN or RemovalPolicy\.DESTROY/ },
  'noncurrent expiry with an imported bucket (conflict)': {
    build: (s) => fileSystem(s, { bucket: s3.Bucket.fromBucketName(s, 'B', 'existing'), noncurrentVersionExpiration: Duration.days(7) }),
    prop: /invalid noncurrentVersionExpiration 7 days/,
    fix: /drop `noncurrentVersionExpiration`/,
  },
  'accessPoint and accessPointOptions (conflict)': {
    build: (s) => { const f = fileSystem(s); mounted(s, { accessPoint: f.addAccessPoint('Shared', { path: '/lambda' }), accessPointOptions: { path: '/x' } }); },
    prop: /invalid accessPointOptions \{ [a-zA-Z, ]+ \}/,
    fix: /drop `accessPointOptions`/,
  },
  'fileSystem and bucket (conflict)': {
    build: (s) => { const f = fileSystem(s); mounted(s, { s3FileSystem: f, bucket: s3.Bucket.fromBucketName(s, 'B', 'other') }); },
    prop: /invalid bucket "Hostile\/[A-Za-z]+"/,
    fix: /configure the shared `S3FilesFileSystem` instead/,
  },
  'a vpc other than the shared file system\'s': {
    build: (s) => { const f = fileSystem(s); mounted(s, { s3FileSystem: f, vpc: isolatedVpc(s, 'Other') }); },
    prop: /invalid vpc "Hostile\/Other"/,
    fix: /omit `vpc`/,
  },
  'a second lambda filesystem': {
    build: (s) => mounted(s, { filesystem: bad({}) }),
    prop: /invalid filesystem \(a lambda\.FileSystem\): S3FilesMountedFunction builds its own S3 Files mount/,
    fix: /use `s3FileSystem` or `accessPoint` for S3 Files/,
  },
  'our file system passed as Lambda\'s filesystem (Python filesystem= instead of file_system=)': {
    build: (s) => mounted(s, { filesystem: bad(fileSystem(s)) }),
    prop: /invalid filesystem "Hostile\/Files": this is Lambda's own mount setting \(a `lambda\.FileSystem`\); an S3 Files file system goes in `s3FileSystem`/,
    fix: /pass it as `s3FileSystem` and leave `filesystem` unset\. \(Python: lambda_\.FileSystem, s3_file_system;/,
  },
  'our access point passed as Lambda\'s filesystem': {
    build: (s) => mounted(s, { filesystem: bad(fileSystem(s).addAccessPoint('Ap', { path: '/lambda' })) }),
    prop: /invalid filesystem "Hostile\/Files\/Ap": .*an S3 Files access point goes in `accessPoint`/,
    fix: /pass it as `accessPoint` and leave `filesystem` unset\. \(Python: lambda_\.FileSystem, access_point;/,
  },
  'a VPC without private subnets': {
    build: (s) => fileSystem(s, { vpc: new ec2.Vpc(s, 'PublicOnly', { maxAzs: 2, natGateways: 0, subnetConfiguration: [{ name: 'Public', subnetType: ec2.SubnetType.PUBLIC }] }) }),
    prop: /invalid vpc .*no private or isolated subnets/,
    fix: /add PRIVATE_ISOLATED or PRIVATE_WITH_EGRESS subnets/,
  },
  'two subnets in one AZ': {
    build: (s) => {
      const vpc = ec2.Vpc.fromVpcAttributes(s, 'Imported', { vpcId: 'vpc-1', availabilityZones: ['us-east-1a'], privateSubnetIds: ['subnet-1'] });
      const subnets = [ec2.Subnet.fromSubnetAttributes(s, 'A', { subnetId: 'subnet-a', availabilityZone: 'us-east-1a' }),
        ec2.Subnet.fromSubnetAttributes(s, 'B', { subnetId: 'subnet-b', availabilityZone: 'us-east-1a' })];
      return fileSystem(s, { vpc, vpcSubnets: { subnets } });
    },
    prop: /invalid vpcSubnets \["subnet-a", "subnet-b"\]/,
    fix: /the `onePerAz` option of the subnet selection/,
  },
  'an imported subnet without its AZ': {
    build: (s) => fileSystem(s, { vpcSubnets: { subnets: [ec2.Subnet.fromSubnetId(s, 'NoAz', 'subnet-0abc')] } }),
    prop: /invalid vpcSubnets "subnet-0abc"/,
    fix: /import it with its `availabilityZone` \(`ec2\.Subnet\.fromSubnetAttributes\(\)`\)/,
  },
  'a function in an AZ without a mount target': {
    build: (s) => {
      const vpc = isolatedVpc(s);
      const files = new S3FilesFileSystem(s, 'OneAz', { vpc, vpcSubnets: { subnets: [vpc.isolatedSubnets[0]] } });
      return mounted(s, { s3FileSystem: files });
    },
    prop: /Hostile\/Fn: invalid vpcSubnets "[a-z0-9-]+": Hostile\/OneAz has mount targets only in/,
    fix: /select subnets in .* only, or add those AZs to the `vpcSubnets` of \S+/,
  },
  'a function with five security groups of its own': {
    build: (s) => {
      const vpc = isolatedVpc(s);
      return mounted(s, { vpc, securityGroups: [1, 2, 3, 4, 5].map((i) => new ec2.SecurityGroup(s, `Sg${i}`, { vpc })) });
    },
    prop: /invalid securityGroups .*Lambda allows at most 5/,
    fix: /pass at most 4 security groups/,
  },
  'SNAPSHOT through applyRemovalPolicy': {
    build: (s) => fileSystem(s).applyRemovalPolicy(RemovalPolicy.SNAPSHOT),
    prop: /invalid applyRemovalPolicy "SNAPSHOT"/,
    fix: /RemovalPolicy.RETAIN or RemovalPolicy.DESTROY/,
  },
  'an availabilityTimeout past CloudFormation\'s hour': {
    build: (s) => fileSystem(s, { availabilityTimeout: Duration.minutes(90) }),
    prop: /invalid availabilityTimeout 1 hour 30 minutes: .*at most one hour/,
    fix: /Duration.minutes\(20\)/,
  },
  'a subnet group the VPC does not have': {
    build: (s) => fileSystem(s, { vpcSubnets: { subnetGroupName: 'Nope' } }),
    prop: /invalid vpcSubnets \{"subnetGroupName":"Nope"\}/,
    fix: /select subnet groups that exist in the VPC/,
  },
  'an imported bucket from another region': {
    build: (s) => fileSystem(s, { bucket: s3.Bucket.fromBucketAttributes(s, 'Far', { bucketName: 'far-away', region: 'eu-west-1' }) }),
    prop: /invalid bucket "far-away": the bucket is in eu-west-1 but the file system is in us-east-1/,
    fix: /same region as the stack/,
  },
  'file system key in another region': {
    build: (s) => fileSystem(s, { fileSystemEncryptionKey: kms.Key.fromKeyArn(s, 'FarKey', 'arn:aws:kms:eu-west-1:111111111111:key/1234abcd-12ab-34cd-56ef-1234567890ab') }),
    prop: /invalid fileSystemEncryptionKey "arn:aws:kms:eu-west-1:.*in eu-west-1 but the file system is in us-east-1/,
    fix: /use a key .* in us-east-1/,
  },
  'file system key as an ARN string (jsii)': {
    build: (s) => fileSystem(s, { fileSystemEncryptionKey: bad('arn:aws:kms:us-east-1:111111111111:key/1234abcd-12ab-34cd-56ef-1234567890ab') }),
    prop: /invalid fileSystemEncryptionKey "arn:aws:kms:.*: it is a string, not a KMS key/,
    fix: /kms\.Key\.fromKeyArn/,
  },
  'IPv6 mount targets in IPv4-only subnets': {
    build: (s) => fileSystem(s, { mountTargetIpAddressType: MountTargetIpAddressType.DUAL_STACK }),
    prop: /invalid mountTargetIpAddressType "DUAL_STACK": subnet Hostile\/Vpc\/IsolatedSubnet1 has no IPv6 CIDR block/,
    fix: /IPV4_ONLY, or give the VPC IPv6/,
  },
  'mount-target IP address type as a string (jsii)': {
    build: (s) => fileSystem(s, { mountTargetIpAddressType: bad('DUAL_STACK') }),
    prop: /invalid mountTargetIpAddressType "DUAL_STACK": it must be a MountTargetIpAddressType/,
    fix: /MountTargetIpAddressType\.DUAL_STACK/,
  },
  'a token in minutes where days are needed': {
    build: (s) => fileSystem(s, { expireAfterLastAccess: Duration.minutes(Token.asNumber(Lazy.number({ produce: () => 43200 }))) }),
    prop: /invalid expireAfterLastAccess \(a token\): a token amount cannot be converted to days at synth time/,
    fix: /give the token in days: Duration\.days\(n\)/,
  },
  'a token in KiB where bytes are needed': {
    build: (s) => fileSystem(s, { importDataRules: [{ sizeLessThan: Size.kibibytes(Token.asNumber(Lazy.number({ produce: () => 128 }))) }] }),
    prop: /invalid importDataRules\[0\]\.sizeLessThan \(a token\): a token amount cannot be converted to bytes/,
    fix: /give the token in bytes: Size\.bytes\(n\)/,
  },
  'a token in minutes as availability timeout': {
    build: (s) => fileSystem(s, { availabilityTimeout: Duration.minutes(Token.asNumber(Lazy.number({ produce: () => 20 }))) }),
    prop: /invalid availabilityTimeout \(a token\): a token amount cannot be converted to seconds/,
    fix: /Duration\.seconds\(n\)/,
  },
  'acceptBucketWarning as a string (jsii)': {
    build: (s) => fileSystem(s, { acceptBucketWarning: bad('false') }),
    prop: /invalid acceptBucketWarning "false": it must be a boolean/,
    fix: /pass true to create the file system despite a bucket warning, or omit it/,
  },
  // LambdaMount.onFunction and the imports: a user's own function, another team's file system
  'mounting on a function without a VPC': {
    build: (s) => LambdaMount.onFunction(new lambda.Function(s, 'NoVpc', FN), fileSystem(s).addAccessPoint('Ap', { path: '/lambda' })),
    prop: /invalid vpc "none": a function mounts S3 Files only from inside the VPC of the mount targets/,
    fix: /create the function with the file system's VPC/,
  },
  'mounting on a function in another VPC': {
    build: (s) => LambdaMount.onFunction(new lambda.Function(s, 'Elsewhere', { ...FN, vpc: isolatedVpc(s, 'Other') }), fileSystem(s).addAccessPoint('Ap', { path: '/lambda' })),
    prop: /invalid vpc ".*Elsewhere\/SecurityGroup": the function's security group is in another VPC than the mount targets/,
    fix: /create the function with the file system's VPC/,
  },
  'mounting a second access point on one function': {
    build: (s) => {
      const files = fileSystem(s);
      const fn = new lambda.Function(s, 'Twice', { ...FN, vpc: files.vpc });
      LambdaMount.onFunction(fn, files.addAccessPoint('One', { path: '/lambda' }));
      LambdaMount.onFunction(fn, files.addAccessPoint('Two', { path: '/two' }));
    },
    prop: /invalid filesystem "already set": Lambda allows one file system mount per function/,
    fix: /share the access point between functions/,
  },
  'an access point of another file system than fileSystem': {
    build: (s) => {
      const vpc = isolatedVpc(s);
      const a = new S3FilesFileSystem(s, 'A', { vpc });
      const b = new S3FilesFileSystem(s, 'B', { vpc });
      mounted(s, { s3FileSystem: a, accessPoint: b.addAccessPoint('OfB', { path: '/lambda' }) });
    },
    prop: /invalid accessPoint "Hostile\/B\/OfB": it belongs to file system Hostile\/B, not to `s3FileSystem` Hostile\/A/,
    fix: /pass an access point of `s3FileSystem`, or omit `s3FileSystem`/,
  },
  'an imported file system without id or ARN': {
    build: (s) => S3FilesFileSystem.fromFileSystemAttributes(s, 'Nothing', {}),
    prop: /invalid fileSystemId undefined: an imported file system needs its id or its ARN/,
    fix: /give `fileSystemId` \(fs-...\) or `fileSystemArn`/,
  },
  'an imported file system id that is not one (jsii number)': {
    build: (s) => S3FilesFileSystem.fromFileSystemAttributes(s, 'Num', { fileSystemId: bad(12345) }),
    prop: /invalid fileSystemId 12345: an S3 Files file system id looks like fs-0123456789abcdef0/,
    fix: /as the S3 Files console or CLI shows it/,
  },
  'an imported access point without id or ARN': {
    build: (s) => S3FilesAccessPoint.fromAccessPointAttributes(s, 'NoAp', { fileSystem: fileSystem(s) }),
    prop: /invalid accessPointId undefined: an imported access point needs its id or its ARN/,
    fix: /give `accessPointId` \(fsap-...\) or `accessPointArn`/,
  },

  'grant() with another service\'s action': {
    build: (s) => fileSystem(s).grant(new lambda.Function(s, 'G', FN), 's3:GetObject'),
    prop: /invalid actions "s3:GetObject": only s3files: actions can be granted/,
    fix: /grant other services' actions on their own resources/,
  },
};

interface Warned { readonly build: (stack: Stack) => unknown; readonly warning: RegExp }

const WARNED: Record<string, Warned> = {
  'an imported bucket from another account': {
    build: (s) => fileSystem(s, { bucket: s3.Bucket.fromBucketAttributes(s, 'Theirs', { bucketName: 'theirs', account: '222222222222' }) }),
    warning: /`bucket` is owned by account 222222222222, not 111111111111: its bucket policy must allow the service role/,
  },
  'uid 0 (root)': { build: (s) => mounted(s, { accessPointOptions: { path: '/lambda', posixUser: { uid: 0, gid: 0 } } }), warning: /`accessPointOptions\.posixUser\.uid` is 0 \(root\)/ },
  'readOnly with rootAccess': { build: (s) => mounted(s, { readOnly: true, rootAccess: true }), warning: /`readOnly` and `rootAccess` are both set/ },
  'AUTO direct reads on 128 MB': { build: (s) => mounted(s, { directS3Read: lambda.DirectS3Read.auto() }), warning: /`memorySize` is 128 MB and `directS3Read` is AUTO/ },
  'a token as prefix': { build: (s) => fileSystem(s, { prefix: Lazy.string({ produce: () => 'late/' }) }), warning: /`prefix` is an unresolved token/ },
  'a token as access point path': { build: (s) => mounted(s, { accessPointOptions: { path: Lazy.string({ produce: () => '/late' }) } }), warning: /`accessPointOptions\.path` is an unresolved token/ },
  'a token as uid': { build: (s) => mounted(s, { accessPointOptions: { path: '/lambda', posixUser: { uid: Token.asNumber(Lazy.number({ produce: () => 1001 })), gid: 1001 } } }), warning: /`accessPointOptions\.posixUser\.uid` is an unresolved token/ },
  'a token as mount path': { build: (s) => mounted(s, { mountPath: Lazy.string({ produce: () => '/mnt/late' }) }), warning: /`mountPath` is an unresolved token/ },
  'a token as permissions': { build: (s) => mounted(s, { accessPointOptions: { path: '/lambda', createPermissions: Lazy.string({ produce: () => '750' }) } }), warning: /`accessPointOptions\.createPermissions` is an unresolved token/ },
};

describe('hostile input rejected at synth with the prop and the fix', () => {
  test.each(Object.entries(REJECTED))('%s', (_name, c) => {
    // GIVEN a fresh stack
    const stack = stackIn(new App());
    // WHEN the bad configuration is built
    let error: unknown;
    try {
      c.build(stack);
    } catch (e) {
      error = e;
    }
    // THEN it is our plain validation error (not a TypeError or an aws-cdk-lib internal error) ...
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).constructor).toBe(Error);
    const message = (error as Error).message;
    // ... naming the construct, the prop and the fix
    expect(message).toMatch(/^Hostile\/\S+: invalid /);
    expect(message).toMatch(c.prop);
    expect(message).toMatch(/\. Fix: /);
    expect(message.split('. Fix: ')[1]).toMatch(c.fix);
  });
});

describe('hostile input accepted with a warning', () => {
  const app = new App({ outdir: fs.mkdtempSync(path.join(os.tmpdir(), 's3files-hostile-')) });
  const stacks = new Map<string, Stack>();

  test.each(Object.entries(WARNED))('%s', (name, c) => {
    // GIVEN one stack per case in a shared app
    const stack = stackIn(app, `Warned${stacks.size}`, { account: ENV.account });
    stacks.set(name, stack);
    // WHEN built
    c.build(stack);
    // THEN it synthesizes with the warning
    const found = Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('.*')).map((w) => String(w.entry.data));
    expect(found.some((w) => c.warning.test(w))).toBe(true);
  });

  test('and every accepted case yields templates cfn-lint accepts [python tools]', () => {
    // GIVEN the accepted cases, synthesized
    expect(stacks.size).toBe(Object.keys(WARNED).length);
    const assembly = app.synth();
    const templates = assembly.stacks.map((s) => path.join(assembly.directory, s.templateFile));
    // WHEN cfn-lint checks them
    const result = spawnSync(venvBin('cfn-lint'), ['--format', 'parseable', '--', ...templates], { encoding: 'utf8' });
    // THEN no error and no warning beyond aws-cdk-lib's own role DependsOn (see cfn-lint.test.ts)
    const findings = result.stdout.split('\n').filter((l) => /:[EW]\d{4}:/.test(l))
      .filter((l) => !/:W3005:'\w*(ServiceRole|Role)[0-9A-F]{8}' dependency already enforced by a 'GetAtt' at 'Resources\/\w+\/Properties\/(Role|RoleArn)'$/.test(l));
    expect(findings).toEqual([]);
    expect(result.stderr).toBe('');
  });
});

test('the table is at least 25 bad configurations', () => {
  // THEN
  expect(Object.keys(REJECTED).length + Object.keys(WARNED).length).toBeGreaterThanOrEqual(25);
});
