import { App, CfnWaitConditionHandle, RemovalPolicy, Stack, Stage } from 'aws-cdk-lib';
import { Template as Assertions } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { changeSet, dataLossOnDelete, dependsOnTransitively, exportRefusals, synthTemplates, Template } from './cfn';
import { Ec2Mount, EcsMount, S3FilesAccessPoint, S3FilesFileSystem, S3FilesFileSystemOptions, S3FilesMountedFunction } from '../../src';

// The changes teams make in their second month, checked the way CloudFormation will carry them
// out: every path that deletes (update cleanup, rollback of a failed update, stack deletion, a
// construct moved) must delete only what goes, and updates across stacks must not touch an export
// another stack imports.

const FN = {
  runtime: lambda.Runtime.NODEJS_24_X,
  handler: 'index.handler',
  code: lambda.Code.fromInline('exports.handler = async () => ({})'),
};

function isolatedVpc(scope: Construct): ec2.Vpc {
  return new ec2.Vpc(scope, 'Vpc', { maxAzs: 2, natGateways: 0, subnetConfiguration: [{ name: 'Isolated', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }] });
}

function storage(options: S3FilesFileSystemOptions): Template {
  return synthTemplates((a) => {
    const stack = new Stack(a, 'Storage');
    new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack), removalPolicy: RemovalPolicy.DESTROY, ...options });
  }).Storage;
}

function ofType(t: Template, type: string): string[] {
  return Object.entries(t.Resources).filter(([, r]) => r.Type === type).map(([id]) => id).sort();
}

const KEY = (n: number) => `arn:aws:kms:us-east-1:111111111111:key/1234abcd-12ab-34cd-56ef-12345678900${n}`;

describe('a DESTROY replacement with the bucket the construct created (issue 20, defects 1 and 7)', () => {
  const withKey = (n: number) => (s: Stack) => ({ fileSystemEncryptionKey: kms.Key.fromKeyArn(s, 'Key', KEY(n)) });
  test.each<[string, (s: Stack) => S3FilesFileSystemOptions, (s: Stack) => S3FilesFileSystemOptions]>([
    ['prefix', () => ({ prefix: 'a/' }), () => ({ prefix: 'b/' })],
    ['fileSystemEncryptionKey', withKey(1), withKey(2)],
    ['acceptBucketWarning', () => ({}), () => ({ acceptBucketWarning: true })],
  ])('changing %s: neither the cleanup nor a rollback deletes data the remaining file system uses', (_what, first, second) => {
    const build = (options: (s: Stack) => S3FilesFileSystemOptions) => synthTemplates((a) => {
      const stack = new Stack(a, 'Storage');
      new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack), removalPolicy: RemovalPolicy.DESTROY, ...options(stack) });
    }).Storage;
    // GIVEN / WHEN a create-only property of the file system changes
    const before = build(first);
    const after = build(second);
    const change = changeSet(before, after);
    const [fsId] = ofType(before, 'AWS::S3Files::FileSystem');
    expect(change.replaced).toContain(fsId);
    // THEN the bucket and its cleaner are untouched: the cleaner runs only when the bucket goes
    const [bucket] = ofType(before, 'AWS::S3::Bucket');
    const [cleaner] = ofType(before, 'Custom::S3FilesBucketCleaner');
    expect(change.unchanged).toEqual(expect.arrayContaining([bucket, cleaner]));
    // AND on the cleanup path the old guard deletes only the old file system; on the rollback path the new guard only the new one
    expect(dataLossOnDelete(before, after)).toEqual([]);
    expect(dataLossOnDelete(after, before)).toEqual([]);
    // (the old guard, and the old generation's service role and policy; no policy of the handlers)
    expect(change.removed).toEqual([
      expect.stringMatching(/^FilesDeleteGuard[0-9a-f]{8}/),
      expect.stringMatching(/^FilesServiceRole[0-9a-f]{8}/), expect.stringMatching(/^FilesServiceRolePolicy[0-9a-f]{8}/),
    ]);
    // AND the old file system keeps its S3 rights until it is gone: the role and policy it depends on
    // are not updated (to the new prefix, bucket or key) in the update phase, but removed in cleanup, after it
    const oldPolicies = [].concat(before.Resources[fsId].DependsOn ?? []).filter((id: string) => before.Resources[id].Type === 'AWS::IAM::Policy');
    expect(oldPolicies).toHaveLength(1);
    const oldRole = before.Resources[fsId].Properties.RoleArn['Fn::GetAtt'][0];
    for (const id of [oldPolicies[0], oldRole]) {
      expect(change.updated).not.toContain(id);
      expect(change.removed).toContain(id);
      expect(dependsOnTransitively(before, fsId)).toContain(id);
    }
  });

  test('the rule can fail: a guard of the earlier design (EmptyBucket on the file system\'s guard) is reported on both paths', () => {
    // GIVEN the earlier template shape, where the replaced file system's guard emptied the shared bucket
    const before = storage({ prefix: 'a/' });
    const after = storage({ prefix: 'b/' });
    const [guard] = ofType(before, 'Custom::S3FilesDeleteGuard');
    const [bucket] = ofType(before, 'AWS::S3::Bucket');
    before.Resources[guard].Properties = { ...before.Resources[guard].Properties, BucketArn: { 'Fn::GetAtt': [bucket, 'Arn'] }, EmptyBucket: 'true' };
    // THEN its Delete in cleanup would empty the bucket the new file system uses
    expect(dataLossOnDelete(before, after)).toEqual([`${guard} empties bucket ${bucket}, which stays`]);
  });

  test('stack deletion: the guard deletes the file system before the cleaner empties and deletes the bucket, and the cleaner\'s rights outlive it', () => {
    const t = storage({});
    const [guard] = ofType(t, 'Custom::S3FilesDeleteGuard');
    const [cleaner] = ofType(t, 'Custom::S3FilesBucketCleaner');
    const [bucket] = ofType(t, 'AWS::S3::Bucket');
    // CloudFormation deletes a resource before what it depends on
    expect(dependsOnTransitively(t, guard)).toContain(cleaner);
    const cleanerNeeds = dependsOnTransitively(t, cleaner);
    expect(cleanerNeeds).toContain(bucket);
    expect([...cleanerNeeds].some((id) => /^FilesBucketCleanerPolicy/.test(id))).toBe(true);
    expect(dataLossOnDelete(t, { Resources: {} })).toEqual([]);
  });

  test('removing the file system from the app: the cleaner goes with the bucket it empties', () => {
    const before = storage({});
    const after = synthTemplates((a) => isolatedVpc(new Stack(a, 'Storage'))).Storage;
    expect(changeSet(before, after).removed).toEqual(expect.arrayContaining(ofType(before, 'Custom::S3FilesBucketCleaner')));
    expect(dataLossOnDelete(before, after)).toEqual([]);
  });
});

describe('moving the storage stack into a Stage with the same stack name (issue 20, defect 4)', () => {
  test('changes no logical id: no guard, cleaner, file system or mount target is deleted or replaced', () => {
    // GIVEN the stack at the app's root, WHEN it moves into a Stage keeping its stackName
    const build = (inStage: boolean) => {
      const app = new App();
      const stack = new Stack(inStage ? new Stage(app, 'Prod') : app, 'Storage', { stackName: 'Storage' });
      const fileSystem = new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack), removalPolicy: RemovalPolicy.DESTROY });
      new S3FilesMountedFunction(stack, 'Worker', FN);
      // and an ECS task definition mounting an access point (its volume name; the family is the
      // user's: aws-cdk-lib defaults it to the full path, which a Stage move changes too)
      const task = new ecs.FargateTaskDefinition(stack, 'Task', { family: 'worker' });
      task.addContainer('App', { image: ecs.ContainerImage.fromRegistry('public.ecr.aws/docker/library/busybox:stable') });
      EcsMount.onTaskDefinition(task, fileSystem.addAccessPoint('Data', { path: '/data' }));
      return Assertions.fromStack(stack).toJSON() as Template;
    };
    const before = build(false);
    const after = build(true);
    // THEN nothing is replaced: not the L3's security group (lambda.Function describes the one it
    // makes by its full path; the L3 names it by its path in the stack), not the task definition (its
    // volume is named from the access point's stack and logical id), nor any NFS rule (EC2 would
    // refuse a duplicate before the old one goes)
    const change = changeSet(before, after);
    expect({ removed: change.removed, added: change.added, replaced: change.replaced }).toEqual({ removed: [], added: [], replaced: [] });
    expect(dataLossOnDelete(before, after)).toEqual([]);
  });
});

describe('moving a compute stack that mounts an imported file system into a Stage', () => {
  test('recreates no NFS rule on the imported mount-target group (EC2 would refuse the duplicate)', () => {
    const build = (inStage: boolean) => {
      const app = new App();
      const stack = new Stack(inStage ? new Stage(app, 'Prod') : app, 'Compute', { stackName: 'Compute' });
      const vpc = ec2.Vpc.fromVpcAttributes(stack, 'Vpc', {
        vpcId: 'vpc-0123456789abcdef0', availabilityZones: ['us-east-1a'], isolatedSubnetIds: ['subnet-0aaaaaaaaaaaaaaaa'],
      });
      const fileSystem = S3FilesFileSystem.fromFileSystemAttributes(stack, 'Theirs', {
        fileSystemId: 'fs-0123456789abcdef0', vpc, securityGroups: [ec2.SecurityGroup.fromSecurityGroupId(stack, 'MtSg', 'sg-0123456789abcdef0')],
      });
      const host = new ec2.Instance(stack, 'Host', {
        vpc,
        instanceType: ec2.InstanceType.of(ec2.InstanceClass.T4G, ec2.InstanceSize.MICRO),
        machineImage: ec2.MachineImage.latestAmazonLinux2023({ cpuType: ec2.AmazonLinuxCpuType.ARM_64 }),
        securityGroup: new ec2.SecurityGroup(stack, 'HostSg', { vpc, description: 'host', allowAllOutbound: false }),
      });
      const ap = S3FilesAccessPoint.fromAccessPointAttributes(stack, 'Ap', { fileSystem, accessPointId: 'fsap-0123456789abcdef0' });
      Ec2Mount.onInstance(host, ap, { grantDirectReads: false });
      return Assertions.fromStack(stack).toJSON() as Template;
    };
    const before = build(false);
    const after = build(true);
    const change = changeSet(before, after);
    // THEN the same rules, by the same logical ids (an ingress on the imported group, an egress on the host's)
    expect(ofType(before, 'AWS::EC2::SecurityGroupIngress')).toHaveLength(1);
    expect(ofType(before, 'AWS::EC2::SecurityGroupEgress')).toHaveLength(1);
    expect({ removed: change.removed, added: change.added }).toEqual({ removed: [], added: [] });
  });
});

describe('adding env to an env-agnostic stack (issue 20, defect 3)', () => {
  test('renames no mount target', () => {
    const build = (env?: { account: string; region: string }) => synthTemplates((a) => {
      const stack = new Stack(a, 'Storage', { env });
      new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack) });
    }).Storage;
    const before = build();
    const after = build({ account: '111111111111', region: 'us-east-1' });
    // THEN the same mount-target logical ids (Az1, Az2) before and after
    expect(ofType(before, 'AWS::S3Files::MountTarget')).toEqual([expect.stringMatching(/^FilesMountTargetAz1/), expect.stringMatching(/^FilesMountTargetAz2/)]);
    expect(ofType(after, 'AWS::S3Files::MountTarget')).toEqual(ofType(before, 'AWS::S3Files::MountTarget'));
  });
});

describe('storage and compute in two stacks (issue 20, defect 2)', () => {
  const app = (prefix: string) => synthTemplates((a) => {
    const s = new Stack(a, 'Storage');
    const fileSystem = new S3FilesFileSystem(s, 'Files', { vpc: isolatedVpc(s), prefix });
    new S3FilesMountedFunction(new Stack(a, 'Compute'), 'Worker', { ...FN, s3FileSystem: fileSystem });
  });

  test('the model sees what CloudFormation refuses: a replacement changes exports the compute stack imports', () => {
    // GIVEN the README's layout, WHEN the file system is replaced in place
    const refusals = exportRefusals(app('a/'), app('b/'));
    // THEN the storage stack's update would fail ("Export ... in use by Compute")
    expect(refusals).toEqual(expect.arrayContaining([expect.stringMatching(/^Storage: export .* changes while Compute imports it$/)]));
  });

  test('the README\'s two-deploy procedure passes: first the compute stack alone without its mounts, then everything', () => {
    // GIVEN the layout as deployed
    const deployed = app('a/');
    // WHEN 1: `cdk deploy Compute --exclusively` with the file system's functions taken out (the storage stack is not deployed)
    const computeAlone = synthTemplates((a) => {
      const s = new Stack(a, 'Storage');
      new S3FilesFileSystem(s, 'Files', { vpc: isolatedVpc(s), prefix: 'a/' });
      // whatever else the compute stack holds (CloudFormation refuses a template without resources)
      new CfnWaitConditionHandle(new Stack(a, 'Compute'), 'Other');
    });
    const step1 = { ...deployed, Compute: computeAlone.Compute };
    // AND 2: the replacement with the functions back, `cdk deploy --all`
    const step2 = app('b/');
    // THEN neither deploy touches an export in use
    expect(exportRefusals(deployed, step1)).toEqual([]);
    expect(exportRefusals(step1, step2)).toEqual([]);
    // AND the model would have refused the storage stack deployed in step 1 as well (CDK drops the exports nobody imports)
    expect(exportRefusals(deployed, computeAlone)).not.toEqual([]);
  });

  test('adding a function in the compute stack, or a setting that updates in place, touches no export', () => {
    const one = app('a/');
    const more = synthTemplates((a) => {
      const s = new Stack(a, 'Storage');
      const fileSystem = new S3FilesFileSystem(s, 'Files', { vpc: isolatedVpc(s), prefix: 'a/', expireAfterLastAccess: undefined });
      const c = new Stack(a, 'Compute');
      new S3FilesMountedFunction(c, 'Worker', { ...FN, s3FileSystem: fileSystem });
      new S3FilesMountedFunction(c, 'Second', { ...FN, s3FileSystem: fileSystem });
    });
    expect(exportRefusals(one, more)).toEqual([]);
  });
});
