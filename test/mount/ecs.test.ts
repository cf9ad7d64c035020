import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import { EcsMount, S3FilesAccessPoint, S3FilesFileSystem } from '../../src';
import { findCycle } from '../lifecycle/cfn';
import { byPrefix, isolatedVpc, newStack, only, warnings } from '../util/template';

const IMAGE = ecs.ContainerImage.fromRegistry('public.ecr.aws/docker/library/busybox:stable');

/** Storage (file system + access point) in one stack, a Fargate service in another: the common layout. */
/** Storage and compute stacks; with `service` (the default) a Fargate service runs the task definition (tests that mount it call onService). */
function storageAndCompute(withService = true) {
  const app = new App();
  const storage = new Stack(app, 'Storage');
  const vpc = isolatedVpc(storage);
  const fileSystem = new S3FilesFileSystem(storage, 'Files', { vpc });
  const accessPoint = fileSystem.addAccessPoint('Results', { path: '/results' });
  const compute = new Stack(app, 'Compute');
  const cluster = new ecs.Cluster(compute, 'Cluster', { vpc });
  const taskDefinition = new ecs.FargateTaskDefinition(compute, 'Reader');
  const container = taskDefinition.addContainer('app', { image: IMAGE });
  const service = withService ? new ecs.FargateService(compute, 'Service', {
    cluster, taskDefinition, vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
  }) : undefined;
  return { app, storage, compute, vpc, fileSystem, accessPoint, cluster, taskDefinition, container, service: service! };
}

/** Statements of the policies attached to a role whose logical id starts with `rolePrefix`. */
function roleStatements(t: Template, rolePrefix: string): any[] {
  return Object.values(t.findResources('AWS::IAM::Policy'))
    .filter((p: any) => JSON.stringify(p.Properties.Roles).includes(rolePrefix))
    .flatMap((p: any) => p.Properties.PolicyDocument.Statement);
}

describe('EcsMount.onService: a Fargate service in another stack mounts the storage stack\'s access point', () => {
  test('the task definition gets the S3 Files volume and the mount point', () => {
    // GIVEN / WHEN
    const { compute, accessPoint, service } = storageAndCompute();
    const volume = EcsMount.onService(service, accessPoint, { containerPath: '/mnt/results' });
    // THEN
    const t = Template.fromStack(compute);
    t.hasResourceProperties('AWS::ECS::TaskDefinition', {
      Volumes: [{
        Name: volume,
        S3FilesVolumeConfiguration: {
          FileSystemArn: { 'Fn::ImportValue': Match.stringLikeRegexp('FileSystemArn') },
          AccessPointArn: { 'Fn::ImportValue': Match.stringLikeRegexp('AccessPointArn') },
        },
      }],
      ContainerDefinitions: [Match.objectLike({ MountPoints: [{ SourceVolume: volume, ContainerPath: '/mnt/results', ReadOnly: false }] })],
    });
    expect(volume).toMatch(/^s3files-[0-9a-f]{12}$/);
  });

  test('the task role gets the scoped client actions, the reads ECS validates with, direct reads', () => {
    // GIVEN / WHEN
    const { compute, accessPoint, service } = storageAndCompute();
    EcsMount.onService(service, accessPoint);
    // THEN
    const t = Template.fromStack(compute);
    const st = roleStatements(t, 'ReaderTaskRole');
    const apArn = { 'Fn::ImportValue': expect.stringMatching(/AccessPointArn/) };
    expect(st).toEqual(expect.arrayContaining([
      expect.objectContaining({ Action: ['s3files:ClientMount', 's3files:ClientWrite'], Condition: { ArnEquals: { 's3files:AccessPointArn': apArn } } }),
      expect.objectContaining({ Action: 's3files:GetAccessPoint', Resource: apArn }),
      expect.objectContaining({ Action: 's3files:ListMountTargets', Resource: { 'Fn::ImportValue': expect.stringMatching(/FileSystemArn/) } }),
      expect.objectContaining({ Action: ['s3:GetObject', 's3:GetObjectVersion'] }),
      { Effect: 'Allow', Action: 's3:ListBucket', Resource: { 'Fn::ImportValue': expect.stringMatching(/Bucket/) } },
      { Effect: 'Allow', Action: 'cloudwatch:PutMetricData', Resource: '*', Condition: { StringEquals: { 'cloudwatch:namespace': ['efs-utils/S3Files', 'efs-utils/EFS'] } } },
      expect.objectContaining({ Action: expect.arrayContaining(['logs:CreateLogStream', 'logs:PutLogEvents']) }),
    ]));
    // GetAccessPoint carries no access-point condition (the key does not exist for it: a condition would deny)
    expect(st.find((s) => s.Action === 's3files:GetAccessPoint').Condition).toBeUndefined();
    const [, role] = byPrefix(t, 'AWS::IAM::Role', 'ReaderTaskRole');
    expect(JSON.stringify(role.Properties.Tags ?? [])).not.toContain('s3files-client-');
  });

  test('the service joins the client security group, and it and the task definition wait for the waiter (a stack dependency)', () => {
    // GIVEN / WHEN
    const { app, storage, compute, accessPoint, service } = storageAndCompute();
    EcsMount.onService(service, accessPoint);
    // THEN
    const t = Template.fromStack(compute);
    t.hasResourceProperties('AWS::ECS::Service', {
      NetworkConfiguration: { AwsvpcConfiguration: { SecurityGroups: Match.arrayWith([{ 'Fn::ImportValue': Match.stringLikeRegexp('ClientSecurityGroup') }]) } },
    });
    expect(compute.dependencies).toContain(storage);
    expect(storage.dependencies).toEqual([]);
    // AND neither template has a reference cycle
    const assembly = app.synth();
    for (const stack of assembly.stacks) expect(findCycle(stack.template)).toBeUndefined();
  });

  test('in one stack, the task definition and the service DependsOn the waiter and the file system policy', () => {
    // GIVEN
    const stack = newStack();
    const vpc = isolatedVpc(stack);
    const fs = new S3FilesFileSystem(stack, 'Files', { vpc });
    const ap = fs.addAccessPoint('Data', { path: '/lambda' });
    const td = new ecs.FargateTaskDefinition(stack, 'Task');
    td.addContainer('app', { image: IMAGE });
    const service = new ecs.FargateService(stack, 'Service', { cluster: new ecs.Cluster(stack, 'Cluster', { vpc }), taskDefinition: td });
    // WHEN
    EcsMount.onService(service, ap);
    // THEN
    const t = Template.fromStack(stack);
    const [waiterId] = byPrefix(t, 'Custom::S3FilesMountTargetsAvailable', 'FilesMountTargetsAvailable');
    const [policyId] = only(t, 'AWS::S3Files::FileSystemPolicy');
    const [, task] = only(t, 'AWS::ECS::TaskDefinition');
    expect(task.DependsOn).toEqual(expect.arrayContaining([waiterId, policyId]));
    const [, svc] = only(t, 'AWS::ECS::Service');
    expect(svc.DependsOn).toEqual(expect.arrayContaining([waiterId]));
  });
});

describe('EcsMount.onTaskDefinition', () => {
  test('readOnly: ClientMount only and a read-only mount point; the same access point twice is one volume', () => {
    // GIVEN
    const { compute, accessPoint, taskDefinition } = storageAndCompute(false);
    const sidecar = taskDefinition.addContainer('sidecar', { image: IMAGE, essential: false });
    // WHEN
    const first = EcsMount.onTaskDefinition(taskDefinition, accessPoint, { readOnly: true });
    const second = EcsMount.onTaskDefinition(taskDefinition, accessPoint, { readOnly: true, containers: [sidecar], containerPath: '/data' });
    // THEN
    expect(second).toBe(first);
    const t = Template.fromStack(compute);
    const [, task] = only(t, 'AWS::ECS::TaskDefinition');
    expect(task.Properties.Volumes).toHaveLength(1);
    expect(task.Properties.ContainerDefinitions.map((c: any) => c.MountPoints)).toEqual([
      [{ SourceVolume: first, ContainerPath: '/mnt/s3files', ReadOnly: true }],
      [{ SourceVolume: first, ContainerPath: '/data', ReadOnly: true }],
    ]);
    const clientStatements = roleStatements(t, 'ReaderTaskRole').filter((s) => JSON.stringify(s.Action).includes('s3files:Client'));
    expect(clientStatements.map((s) => s.Action)).toEqual(['s3files:ClientMount']);
  });

  test('two access points are two volumes; other volumes of the task definition are kept', () => {
    // GIVEN
    const { compute, fileSystem, accessPoint, taskDefinition } = storageAndCompute(false);
    taskDefinition.addVolume({ name: 'scratch' });
    const other = new S3FilesAccessPoint(compute, 'Other', { fileSystem, path: '/other' });
    // WHEN
    const a = EcsMount.onTaskDefinition(taskDefinition, accessPoint);
    const b = EcsMount.onTaskDefinition(taskDefinition, other, { volumeName: 'other', containerPath: '/mnt/other' });
    // THEN
    const [, task] = only(Template.fromStack(compute), 'AWS::ECS::TaskDefinition');
    expect(task.Properties.Volumes.map((v: any) => [v.Name, v.S3FilesVolumeConfiguration !== undefined])).toEqual([['scratch', false], [a, true], [b, true]]);
  });

  test('mounting the task definition, then its service, then a second service sharing it writes each mount point once', () => {
    // GIVEN
    const { compute, accessPoint, cluster, taskDefinition, service } = storageAndCompute();
    const second = new ecs.FargateService(compute, 'Second', { cluster, taskDefinition, vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED } });
    // WHEN
    const a = EcsMount.onTaskDefinition(taskDefinition, accessPoint, { containerPath: '/mnt/results' });
    const b = EcsMount.onService(service, accessPoint, { containerPath: '/mnt/results' });
    const c = EcsMount.onService(second, accessPoint, { containerPath: '/mnt/results/' });
    // THEN one volume and one mount point (a duplicate MountPoints entry is cfn-lint E3037: CloudFormation rejects it)
    expect(new Set([a, b, c]).size).toBe(1);
    const [, task] = only(Template.fromStack(compute), 'AWS::ECS::TaskDefinition');
    expect(task.Properties.Volumes).toHaveLength(1);
    expect(task.Properties.ContainerDefinitions[0].MountPoints).toEqual([{ SourceVolume: a, ContainerPath: '/mnt/results', ReadOnly: false }]);
  });

  test('a read-only task definition mount, then onService(service, accessPoint) with no options: the service keeps it read-only, at its path', () => {
    // GIVEN (what the refusal of a service never given to onService tells the user to call)
    const { compute, accessPoint, taskDefinition, service } = storageAndCompute();
    EcsMount.onTaskDefinition(taskDefinition, accessPoint, { readOnly: true, containerPath: '/data' });
    // WHEN
    EcsMount.onService(service, accessPoint);
    // THEN one read-only mount point, no ClientWrite anywhere, the label says ClientMount only
    const t = Template.fromStack(compute);
    const [, task] = only(t, 'AWS::ECS::TaskDefinition');
    expect(task.Properties.ContainerDefinitions[0].MountPoints).toEqual([expect.objectContaining({ ContainerPath: '/data', ReadOnly: true })]);
    expect(Object.values(task.Properties.ContainerDefinitions[0].DockerLabels)).toEqual(['ClientMount']);
    expect(JSON.stringify(t.findResources('AWS::IAM::Policy'))).not.toContain('s3files:ClientWrite');
    expect(warnings(compute).join('\n')).not.toMatch(/readOnlySharedRole|role of its own/);
  });

  test('the service first, then a read-only mount of the task definition: the docker label holds the union (a write still forces a new revision)', () => {
    const { compute, accessPoint, taskDefinition, service } = storageAndCompute();
    EcsMount.onService(service, accessPoint);
    EcsMount.onTaskDefinition(taskDefinition, accessPoint, { readOnly: true, containerPath: '/data' });
    const [, task] = only(Template.fromStack(compute), 'AWS::ECS::TaskDefinition');
    expect(Object.values(task.Properties.ContainerDefinitions[0].DockerLabels)).toEqual(['ClientMount,ClientWrite']);
  });

  test('JavaScript nulls: null options mount with the defaults; null fields keep the task definition\'s', () => {
    const { compute, accessPoint, taskDefinition, service } = storageAndCompute();
    EcsMount.onTaskDefinition(taskDefinition, accessPoint, { readOnly: true, containerPath: '/data' });
    EcsMount.onService(service, accessPoint, { readOnly: null, containerPath: null } as any);
    const [, task] = only(Template.fromStack(compute), 'AWS::ECS::TaskDefinition');
    expect(task.Properties.ContainerDefinitions[0].MountPoints).toEqual([expect.objectContaining({ ContainerPath: '/data', ReadOnly: true })]);
    const other = storageAndCompute();
    expect(() => EcsMount.onService(other.service, other.accessPoint, null as any)).not.toThrow();
  });

  test('options given as undefined (as the bindings pass unset ones) keep the task definition\'s; one given overrides it', () => {
    const { compute, accessPoint, taskDefinition, service } = storageAndCompute();
    EcsMount.onTaskDefinition(taskDefinition, accessPoint, { readOnly: true, containerPath: '/data' });
    EcsMount.onService(service, accessPoint, { readOnly: undefined, containerPath: undefined });
    const [, task] = only(Template.fromStack(compute), 'AWS::ECS::TaskDefinition');
    expect(task.Properties.ContainerDefinitions[0].MountPoints).toEqual([expect.objectContaining({ ContainerPath: '/data', ReadOnly: true })]);
    // the same mount with the other readOnly is a synth error (docs/computes.md)
    const other = storageAndCompute();
    EcsMount.onTaskDefinition(other.taskDefinition, other.accessPoint, { readOnly: true, containerPath: '/data' });
    expect(() => EcsMount.onService(other.service, other.accessPoint, { readOnly: false })).toThrow(/readOnly/);
  });

  test('ECS Managed Instances are accepted; an EC2+Fargate task definition is accepted with a warning', () => {
    // GIVEN
    const stack = newStack();
    const fs = new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack) });
    const ap = fs.addAccessPoint('Data', { path: '/lambda' });
    const managed = new ecs.TaskDefinition(stack, 'Managed', { compatibility: ecs.Compatibility.MANAGED_INSTANCES, networkMode: ecs.NetworkMode.AWS_VPC, cpu: '256', memoryMiB: '512' });
    managed.addContainer('app', { image: IMAGE, memoryLimitMiB: 512 });
    const mixed = new ecs.TaskDefinition(stack, 'Mixed', { compatibility: ecs.Compatibility.EC2_AND_FARGATE, networkMode: ecs.NetworkMode.AWS_VPC, cpu: '256', memoryMiB: '512' });
    mixed.addContainer('app', { image: IMAGE, memoryLimitMiB: 512 });
    // WHEN
    EcsMount.onTaskDefinition(managed, ap);
    EcsMount.onTaskDefinition(mixed, ap);
    // THEN
    const w = warnings(stack).join('\n');
    expect(w).toMatch(/TestStack\/Mixed is also EC2-compatible.*fails/);
    expect(w).not.toMatch(/TestStack\/Managed is/);
  });

  test.each<[string, (s: Stack, ap: S3FilesAccessPoint) => unknown, RegExp]>([
    ['an EC2-only task definition', (s, ap) => {
      const td = new ecs.Ec2TaskDefinition(s, 'OnEc2');
      td.addContainer('app', { image: IMAGE, memoryLimitMiB: 256 });
      return EcsMount.onTaskDefinition(td, ap);
    }, /TestStack\/OnEc2: invalid compatibility "EC2": ECS mounts S3 Files volumes only in tasks on Fargate or ECS Managed Instances.*Fix: use a `FargateTaskDefinition`/],
    ['a task definition without a container', (s, ap) => EcsMount.onTaskDefinition(new ecs.FargateTaskDefinition(s, 'Empty'), ap),
      /TestStack\/Empty: invalid containers \[\]: the task definition has no essential container yet.*Fix: add the container before mounting, or pass `containers`/],
    ['a container of another task definition', (s, ap) => {
      const td = new ecs.FargateTaskDefinition(s, 'Mine');
      td.addContainer('app', { image: IMAGE });
      const theirs = new ecs.FargateTaskDefinition(s, 'Theirs').addContainer('app', { image: IMAGE });
      return EcsMount.onTaskDefinition(td, ap, { containers: [theirs] });
    }, /invalid containers "TestStack\/Theirs\/app": the container belongs to TestStack\/Theirs/],
    ['a relative container path', (s, ap) => {
      const td = new ecs.FargateTaskDefinition(s, 'Rel');
      td.addContainer('app', { image: IMAGE });
      return EcsMount.onTaskDefinition(td, ap, { containerPath: 'data' });
    }, /invalid containerPath "data": it must be an absolute path.*\(Python: container_path; Java: containerPath\(…\); Go: ContainerPath\.\)/],
    ['a bad volume name', (s, ap) => {
      const td = new ecs.FargateTaskDefinition(s, 'BadName');
      td.addContainer('app', { image: IMAGE });
      return EcsMount.onTaskDefinition(td, ap, { volumeName: 'has space' });
    }, /invalid volumeName "has space": ECS volume names are 1-255 letters/],
    ['one volume name for two access points', (s, ap) => {
      const td = new ecs.FargateTaskDefinition(s, 'Twice');
      td.addContainer('app', { image: IMAGE });
      EcsMount.onTaskDefinition(td, ap, { volumeName: 'data' });
      const other = (ap.fileSystem as S3FilesFileSystem).addAccessPoint('Other', { path: '/other' });
      return EcsMount.onTaskDefinition(td, other, { volumeName: 'data', containerPath: '/other' });
    }, /invalid volumeName "data": the task definition already has an S3 Files volume of that name for TestStack\/Files\/Data/],
    ['two access points at the default container path', (s, ap) => {
      const td = new ecs.FargateTaskDefinition(s, 'SamePath');
      td.addContainer('app', { image: IMAGE });
      EcsMount.onTaskDefinition(td, ap);
      return EcsMount.onTaskDefinition(td, (ap.fileSystem as S3FilesFileSystem).addAccessPoint('Other', { path: '/other' }));
    }, /TestStack\/SamePath: invalid containerPath "\/mnt\/s3files": the container TestStack\/SamePath\/app already mounts the volume s3files-[0-9a-f]{12} there.*Fix: give each access point \(or volume\) its own `containerPath`/],
    ['an access point at a path another volume of the container takes', (s, ap) => {
      const td = new ecs.FargateTaskDefinition(s, 'Scratch');
      td.addVolume({ name: 'scratch' });
      td.addContainer('app', { image: IMAGE }).addMountPoints({ sourceVolume: 'scratch', containerPath: '/data', readOnly: false });
      return EcsMount.onTaskDefinition(td, ap, { containerPath: '/data' });
    }, /invalid containerPath "\/data": the container TestStack\/Scratch\/app already mounts the volume scratch there/],
    ['the same mount read-only, then read-write', (s, ap) => {
      const td = new ecs.FargateTaskDefinition(s, 'Both');
      td.addContainer('app', { image: IMAGE });
      EcsMount.onTaskDefinition(td, ap, { readOnly: true });
      return EcsMount.onTaskDefinition(td, ap);
    }, /invalid readOnly false: the container TestStack\/Both\/app already mounts the volume s3files-[0-9a-f]{12} at \/mnt\/s3files read-only.*Fix: mount an access point with the same `readOnly` setting every time/],
    ['the same access point with another transit encryption port', (s, ap) => {
      const td = new ecs.FargateTaskDefinition(s, 'Ports');
      td.addContainer('app', { image: IMAGE });
      EcsMount.onTaskDefinition(td, ap, { transitEncryptionPort: 12049 });
      return EcsMount.onTaskDefinition(td, ap, { transitEncryptionPort: 12050 });
    }, /invalid transitEncryptionPort 12050: the task definition's volume s3files-[0-9a-f]{12} was already added with `transitEncryptionPort` 12049/],
  ])('refuses %s, naming the prop and the fix', (_what, build, message) => {
    const stack = newStack();
    const fs = new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack) });
    expect(() => build(stack, fs.addAccessPoint('Data', { path: '/lambda' }))).toThrow(message);
  });

  test('a service in an AZ without a mount target is refused', () => {
    // GIVEN mount targets in two of three AZs, and a service in all three (an env-agnostic stack has two AZs)
    const stack = new Stack(new App(), 'TestStack', { env: { account: '111111111111', region: 'us-east-1' } });
    const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 3, natGateways: 0, subnetConfiguration: [{ name: 'Isolated', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }] });
    const fs = new S3FilesFileSystem(stack, 'Files', { vpc, vpcSubnets: { subnets: vpc.isolatedSubnets.slice(0, 2) } });
    const td = new ecs.FargateTaskDefinition(stack, 'Task');
    td.addContainer('app', { image: IMAGE });
    const service = new ecs.FargateService(stack, 'Service', { cluster: new ecs.Cluster(stack, 'Cluster', { vpc }), taskDefinition: td });
    // WHEN / THEN
    expect(() => EcsMount.onService(service, fs.addAccessPoint('Data', { path: '/lambda' }))).toThrow(/TestStack\/Service: invalid vpcSubnets "dummy1c": TestStack\/Files has mount targets only in dummy1a, dummy1b/);
  });
});
