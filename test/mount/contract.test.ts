import { App, Size, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as batch from 'aws-cdk-lib/aws-batch';
import * as agentcore from 'aws-cdk-lib/aws-bedrockagentcore';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct, IConstruct } from 'constructs';
import { AgentCoreMount, BatchMount, Ec2Mount, EcsMount, EksMount, IS3FilesAccessPoint, LambdaMount, S3FilesAccessPoint, S3FilesFileSystem } from '../../src';
import { importedCluster } from '../util/eks';
import { FN, isolatedVpc, warnings } from '../util/template';

// One contract, every mount adapter: what each compute gets and is refused the same way (issue 28:
// the authorization rules at the seams). Each adapter is described once; every rule runs over all.

interface MountOptions { readonly readOnly?: boolean; readonly role?: iam.IRole }
interface Adapter {
  readonly name: string;
  /** The service mounts only its own account's file systems (Lambda, AgentCore). */
  readonly sameAccountOnly: boolean;
  /** The mount helper is amazon-efs-utils (its telemetry is granted). */
  readonly efsUtils: boolean;
  /** Mounts `accessPoint` on a new compute of this kind in `stack`; returns the construct the mount's messages are on. */
  mount(stack: Stack, vpc: ec2.IVpc, accessPoint: IS3FilesAccessPoint, id: string, options?: MountOptions): IConstruct;
}

const ec2Role = (stack: Stack, id: string) => new iam.Role(stack, id, { assumedBy: new iam.ServicePrincipal('ec2.amazonaws.com') });

const ADAPTERS: Adapter[] = [
  {
    name: 'Lambda (LambdaMount.onFunction)',
    sameAccountOnly: true,
    efsUtils: false,
    mount: (stack, vpc, ap, id, o = {}) => {
      const fn = new lambda.Function(stack, id, { ...FN, vpc, role: o.role });
      LambdaMount.onFunction(fn, ap, { readOnly: o.readOnly });
      return fn;
    },
  },
  {
    name: 'ECS (EcsMount.onTaskDefinition)',
    sameAccountOnly: false,
    efsUtils: true,
    mount: (stack, _vpc, ap, id, o = {}) => {
      const task = new ecs.FargateTaskDefinition(stack, id, { taskRole: o.role });
      task.addContainer('App', { image: ecs.ContainerImage.fromRegistry('public.ecr.aws/docker/library/busybox:stable') });
      EcsMount.onTaskDefinition(task, ap, { readOnly: o.readOnly });
      return task;
    },
  },
  {
    name: 'Batch (BatchMount.onJobDefinition)',
    sameAccountOnly: false,
    efsUtils: true,
    mount: (stack, _vpc, ap, id, o = {}) => {
      const container = new batch.EcsFargateContainerDefinition(stack, `${id}Container`, {
        image: ecs.ContainerImage.fromRegistry('public.ecr.aws/docker/library/busybox:stable'),
        cpu: 1,
        memory: Size.gibibytes(2),
        jobRole: o.role ?? new iam.Role(stack, `${id}Role`, { assumedBy: new iam.ServicePrincipal('ecs-tasks.amazonaws.com') }),
      });
      const job = new batch.EcsJobDefinition(stack, id, { container });
      BatchMount.onJobDefinition(job, ap, { readOnly: o.readOnly });
      return job;
    },
  },
  {
    name: 'EC2 (Ec2Mount.onInstance)',
    sameAccountOnly: false,
    efsUtils: true,
    mount: (stack, vpc, ap, id, o = {}) => {
      const instance = new ec2.Instance(stack, id, {
        vpc,
        vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
        instanceType: ec2.InstanceType.of(ec2.InstanceClass.T4G, ec2.InstanceSize.MICRO),
        machineImage: ec2.MachineImage.latestAmazonLinux2023({ cpuType: ec2.AmazonLinuxCpuType.ARM_64 }),
        role: o.role,
      });
      Ec2Mount.onInstance(instance, ap, { readOnly: o.readOnly });
      return instance;
    },
  },
  {
    name: 'AgentCore (AgentCoreMount.onRuntime)',
    sameAccountOnly: true,
    efsUtils: false,
    mount: (stack, vpc, ap, id, o = {}) => {
      const runtime = new agentcore.Runtime(stack, id, {
        runtimeName: id.toLowerCase(),
        agentRuntimeArtifact: agentcore.AgentRuntimeArtifact.fromImageUri('123456789012.dkr.ecr.us-east-1.amazonaws.com/agent:latest'),
        // (usingVpc makes a security group with a fixed id in the scope it is given)
        networkConfiguration: agentcore.RuntimeNetworkConfiguration.usingVpc(new Construct(stack, `${id}Network`), {
          vpc, vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
        }),
        executionRole: o.role,
      });
      AgentCoreMount.onRuntime(runtime, ap, { mountPath: `/mnt/${id.toLowerCase()}`, readOnly: o.readOnly });
      return runtime;
    },
  },
  {
    // A cluster of another app (its kubectl provider), whose driver's node role is the role mounting;
    // the mount's messages are on the cluster's driver construct.
    name: 'EKS (EksMount.onCluster)',
    sameAccountOnly: true,
    efsUtils: true,
    mount: (stack, vpc, ap, id, o = {}) => {
      const cluster = importedCluster(stack, vpc, id);
      EksMount.installDriver(cluster, { existingDriverVersion: '3.4.1', nodeRole: o.role });
      EksMount.onCluster(cluster, ap, { claimName: id.toLowerCase(), readOnly: o.readOnly });
      return cluster.node.findChild('S3FilesCsiDriver');
    },
  },
];

const ENV = { account: '111111111111', region: 'us-east-1' };
const FOREIGN_FS = 'arn:aws:s3files:us-east-1:222222222222:file-system/fs-0123456789abcdef0';
const OWN_FS = 'arn:aws:s3files:us-east-1:111111111111:file-system/fs-0123456789abcdef0';

function storage(stack: Stack) {
  const vpc = isolatedVpc(stack);
  const fileSystem = new S3FilesFileSystem(stack, 'Files', { vpc });
  return { vpc, fileSystem, accessPoint: fileSystem.addAccessPoint('Data', { path: '/data' }) };
}

function imported(stack: Stack, fileSystemArn: string) {
  const vpc = isolatedVpc(stack);
  const fileSystem = S3FilesFileSystem.fromFileSystemAttributes(stack, 'Theirs', {
    fileSystemArn,
    vpc,
    bucket: s3.Bucket.fromBucketName(stack, 'Bucket', 'their-bucket'),
    clientSecurityGroup: ec2.SecurityGroup.fromSecurityGroupId(stack, 'Clients', 'sg-0123456789abcdef0'),
    // (EKS nodes cannot join the client group: their cluster security group gets a rule on the mount targets' group)
    securityGroups: [ec2.SecurityGroup.fromSecurityGroupId(stack, 'MountTargets', 'sg-0123456789abcdef1')],
  });
  const accessPoint = S3FilesAccessPoint.fromAccessPointAttributes(stack, 'Ap', {
    fileSystem, accessPointArn: `${fileSystemArn}/access-point/fsap-0123456789abcdef0`,
  });
  return { vpc, accessPoint };
}

/** The messages a construct carries (its own, not its children's). */
function messagesOn(scope: IConstruct): string[] {
  return scope.node.metadata.filter((m) => m.type === 'aws:cdk:warning').map((m) => String(m.data));
}

describe.each(ADAPTERS)('mount contract: $name', (adapter) => {
  test('a file system of another account: refused where the service mounts only its own account\'s, else a warning with the owner\'s statement', () => {
    // GIVEN a client stack of account 111111111111 and a file system whose ARN names 222222222222
    const stack = new Stack(new App(), 'Client', { env: ENV });
    const { vpc, accessPoint } = imported(stack, FOREIGN_FS);
    // WHEN / THEN
    if (adapter.sameAccountOnly) {
      expect(() => adapter.mount(stack, vpc, accessPoint, 'Client'))
        .toThrow(/invalid fileSystem "Client\/Theirs": it is in account 222222222222 \(its ARN\) and the .* in 111111111111: .*(same (AWS )?account|another account's file system for Amazon EFS only).*Fix: mount a file system of account 111111111111, or deploy .* in account 222222222222\./);
      return;
    }
    const client = adapter.mount(stack, vpc, accessPoint, 'Client');
    const [warning] = messagesOn(client).filter((m) => m.includes('crossAccountFileSystem'));
    expect(warning).toMatch(/^Client\/Theirs is in account 222222222222 \(its ARN\) and .* in 111111111111: mounting fails unless the owner's file-system policy allows this role/);
    // the statement names the role, the client actions, the file system, and the access point
    const statement = JSON.parse(/: (\{"Action".*\})\. Direct reads/.exec(warning)![1]);
    expect(statement).toEqual({
      Action: ['s3files:ClientMount', 's3files:ClientWrite'],
      Condition: { StringEquals: { 's3files:AccessPointArn': `${FOREIGN_FS}/access-point/fsap-0123456789abcdef0` } },
      Effect: 'Allow',
      Principal: { AWS: expect.stringMatching(/^<Client[A-Za-z0-9]*Role[0-9A-F]{8}\.Arn>$/) },
      Resource: FOREIGN_FS,
    });
  });

  test('the same account, or an environment-agnostic client stack (a warning that it cannot be checked), mounts', () => {
    const stack = new Stack(new App(), 'Client', { env: ENV });
    const own = imported(stack, OWN_FS);
    expect(messagesOn(adapter.mount(stack, own.vpc, own.accessPoint, 'Client')).join('\n')).not.toMatch(/crossAccount|AccountUnchecked/);
    const agnostic = new Stack(new App(), 'Agnostic');
    const theirs = imported(agnostic, FOREIGN_FS);
    expect(messagesOn(adapter.mount(agnostic, theirs.vpc, theirs.accessPoint, 'Client')).join('\n'))
      .toMatch(/Agnostic\/Theirs is in account 222222222222 \(its ARN\), and Agnostic is environment-agnostic, so the library cannot check .*Give the stack an `env` with `account` '222222222222'/);
  });

  test('an unmodifiable role: one warning lists every statement the mount needs, not only the client actions', () => {
    // GIVEN a role this app cannot change
    const stack = new Stack(new App(), 'S', { env: ENV });
    const { vpc, accessPoint } = storage(stack);
    const role = iam.Role.fromRoleArn(stack, 'Fixed', 'arn:aws:iam::111111111111:role/fixed', { mutable: false });
    // WHEN
    const client = adapter.mount(stack, vpc, accessPoint, 'Client', { role });
    // THEN one warning, naming every statement
    const notGranted = messagesOn(client).filter((m) => m.includes('grantNotApplied'));
    expect(notGranted).toHaveLength(1);
    const expected = ['"s3files:ClientMount"', 's3files:GetAccessPoint', 's3files:ListMountTargets', '"s3:GetObject"', 'kms:Decrypt',
      ...(adapter.efsUtils ? ['s3:ListBucket', 'cloudwatch:PutMetricData', 'logs:PutLogEvents'] : [])];
    for (const part of expected) expect(notGranted[0]).toContain(part);
    expect(notGranted[0]).toMatch(/^S\/Fixed could not be granted what mounting S\/Files\/Data needs: .*Attach these \d+ statements to it yourself/);
  });

  test('readOnly with a role that another mount of the same access point may write with: a warning', () => {
    // GIVEN one role, a read-write mount and a read-only mount of one access point
    const stack = new Stack(new App(), 'S', { env: ENV });
    const { vpc, accessPoint, fileSystem } = storage(stack);
    const shared = ec2Role(stack, 'Shared');
    adapter.mount(stack, vpc, accessPoint, 'Writer', { role: shared });
    const reader = adapter.mount(stack, vpc, accessPoint, 'Reader', { role: shared, readOnly: true });
    // THEN the read-only one says its role can write there
    const [warning] = messagesOn(reader).filter((m) => m.includes('readOnlySharedRole'));
    expect(warning).toMatch(/^`readOnly` is set, but the role S\/Shared is also granted s3files:ClientWrite on this file system through the same access point, by another mount or grant\. /);
    // (on EKS one node role mounts every volume: the way out is another access point, not a role)
    expect(warning).toContain(adapter.name.startsWith('EKS') ? 'Mount the read-only data through an access point no read-write volume of this cluster uses'
      : 'Give the read-only client a role of its own.');
    // AND not with its own role, nor when the write is through another access point
    const other = fileSystem.addAccessPoint('Other', { path: '/other' });
    const second = ec2Role(stack, 'Second');
    adapter.mount(stack, vpc, other, 'OtherWriter', { role: second });
    const alone = adapter.mount(stack, vpc, accessPoint, 'OtherReader', { role: second, readOnly: true });
    expect(messagesOn(alone).join('\n')).not.toContain('readOnlySharedRole');
    // AND a grant on the whole file system counts (it reaches every access point)
    const third = ec2Role(stack, 'Third');
    fileSystem.grantReadWrite(third);
    const late = adapter.mount(stack, vpc, accessPoint, 'LateReader', { role: third, readOnly: true });
    if (adapter.name.startsWith('EKS')) {
      // (on EKS the node role is denied ClientWrite through the read-only volume's access point instead: the read-only mount holds)
      expect(messagesOn(late).join('\n')).not.toContain('readOnlySharedRole');
      const statements = Object.values<any>(Template.fromStack(stack).findResources('AWS::IAM::Policy'))
        .filter((p) => JSON.stringify(p.Properties.Roles).includes('Third')).flatMap((p) => p.Properties.PolicyDocument.Statement);
      expect(statements.filter((st) => st.Effect === 'Deny').map((st) => st.Action)).toEqual(['s3files:ClientWrite']);
    } else {
      expect(messagesOn(late).join('\n')).toMatch(/through every access point \(a grant on the file system\)/);
    }
  });

  test('an access point created in another stack than its client: a warning about its export (replacing or removing it fails)', () => {
    const app = new App();
    const storageStack = new Stack(app, 'Storage', { env: ENV });
    const { vpc, accessPoint, fileSystem } = storage(storageStack);
    const compute = new Stack(app, 'Compute', { env: ENV });
    const client = adapter.mount(compute, vpc, accessPoint, 'Client');
    expect(messagesOn(client).join('\n')).toMatch(/Storage\/Files\/Data is created in stack Storage and mounted by .* in stack Compute, which imports its ARN: CloudFormation refuses to change an export in use/);
    // AND not for an access point in the client's own stack
    const local = new S3FilesAccessPoint(compute, 'Local', { fileSystem, path: '/local' });
    expect(messagesOn(adapter.mount(compute, vpc, local, 'Near')).join('\n')).not.toContain('accessPointInAnotherStack');
  });

  test('with weak cross-stack references (what `cdk init` sets), the warning says the client keeps the old ARN until its own deployment', () => {
    const app = new App({ context: { '@aws-cdk/core:defaultCrossStackReferences': 'weak' } });
    const storageStack = new Stack(app, 'Storage', { env: ENV });
    const { vpc, accessPoint } = storage(storageStack);
    const client = adapter.mount(new Stack(app, 'Compute', { env: ENV }), vpc, accessPoint, 'Client');
    const text = messagesOn(client).join('\n');
    expect(text).toMatch(/reads its ARN from that stack's outputs \(`@aws-cdk\/core:defaultCrossStackReferences` is "weak"\): CloudFormation lets the access point be replaced/);
    expect(text).not.toMatch(/refuses to change an export in use/);
  });
});

test('every warning id the contract checks is one the stack-level warnings show too', () => {
  // (the contract reads a construct's own metadata; users see them through Annotations)
  const stack = new Stack(new App(), 'S', { env: ENV });
  const { vpc, accessPoint } = storage(stack);
  ADAPTERS[0].mount(stack, vpc, accessPoint, 'Fn', { role: iam.Role.fromRoleArn(stack, 'R', 'arn:aws:iam::111111111111:role/r', { mutable: false }) });
  expect(warnings(stack).join('\n')).toContain('cdk-s3files-lambda:grantNotApplied');
});
