import { App, Size, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as batch from 'aws-cdk-lib/aws-batch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as iam from 'aws-cdk-lib/aws-iam';
import { BatchMount, S3FilesAccessPoint, S3FilesFileSystem } from '../../src';
import { byPrefix, isolatedVpc, newStack, only } from '../util/template';

const IMAGE = ecs.ContainerImage.fromRegistry('public.ecr.aws/docker/library/busybox:stable');

function fargateJob(stack: Stack, id = 'Job', withRole = true): batch.EcsJobDefinition {
  const container = new batch.EcsFargateContainerDefinition(stack, `${id}Container`, {
    image: IMAGE,
    cpu: 1,
    memory: Size.gibibytes(2),
    jobRole: withRole ? new iam.Role(stack, `${id}Role`, { assumedBy: new iam.ServicePrincipal('ecs-tasks.amazonaws.com') }) : undefined,
  });
  return new batch.EcsJobDefinition(stack, id, { container });
}

function withAccessPoint(stack: Stack = newStack()) {
  const vpc = isolatedVpc(stack);
  const fileSystem = new S3FilesFileSystem(stack, 'Files', { vpc });
  return { stack, vpc, fileSystem, accessPoint: fileSystem.addAccessPoint('Data', { path: '/data' }) };
}

describe('BatchMount.onJobDefinition', () => {
  test('the job definition gets the S3 Files volume and mount point next to its own, and waits for the waiter', () => {
    // GIVEN a Fargate job that already has a host volume
    const { stack, accessPoint } = withAccessPoint();
    const job = fargateJob(stack);
    job.container.addVolume(batch.EcsVolume.host({ name: 'scratch', containerPath: '/scratch' }));
    // WHEN
    const name = BatchMount.onJobDefinition(job, accessPoint, { containerPath: '/mnt/data', readOnly: true });
    // THEN
    const t = Template.fromStack(stack);
    const [, jd] = only(t, 'AWS::Batch::JobDefinition');
    expect(jd.Properties.ContainerProperties.Volumes).toEqual([
      { Name: 'scratch', Host: {} },
      { Name: name, S3FilesVolumeConfiguration: { FileSystemArn: { 'Fn::GetAtt': [expect.stringMatching(/^Files/), 'FileSystemArn'] }, AccessPointArn: { 'Fn::GetAtt': [expect.stringMatching(/^FilesData/), 'AccessPointArn'] } } },
    ]);
    expect(jd.Properties.ContainerProperties.MountPoints).toEqual([
      { ContainerPath: '/scratch', SourceVolume: 'scratch' },
      { SourceVolume: name, ContainerPath: '/mnt/data', ReadOnly: true },
    ]);
    const [waiterId] = byPrefix(t, 'Custom::S3FilesMountTargetsAvailable', 'FilesMountTargetsAvailable');
    expect(jd.DependsOn).toEqual(expect.arrayContaining([waiterId]));
    // AND the job role gets ClientMount only (read-only), the validation reads and direct reads
    const [, policy] = byPrefix(t, 'AWS::IAM::Policy', 'JobRoleDefaultPolicy');
    const actions = policy.Properties.PolicyDocument.Statement.map((s: any) => s.Action);
    expect(actions).toEqual(expect.arrayContaining(['s3files:ClientMount', 's3files:GetAccessPoint', 's3files:ListMountTargets', ['s3:GetObject', 's3:GetObjectVersion'], 's3:ListBucket', 'cloudwatch:PutMetricData']));
    expect(policy.Properties.PolicyDocument.Statement.find((s: any) => s.Action === 'cloudwatch:PutMetricData').Condition)
      .toEqual({ StringEquals: { 'cloudwatch:namespace': ['efs-utils/S3Files', 'efs-utils/EFS'] } });
    expect(JSON.stringify(actions)).not.toContain('ClientWrite');
  });

  test('with its compute environment: the environment joins the client group and waits', () => {
    // GIVEN storage in one stack, the job and its environment in another
    const app = new App();
    const { vpc, accessPoint } = withAccessPoint(new Stack(app, 'Storage'));
    const compute = new Stack(app, 'Compute');
    const computeEnvironment = new batch.FargateComputeEnvironment(compute, 'Env', { vpc, vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED } });
    // WHEN
    BatchMount.onJobDefinition(fargateJob(compute), accessPoint, { computeEnvironment });
    // THEN
    Template.fromStack(compute).hasResourceProperties('AWS::Batch::ComputeEnvironment', {
      ComputeResources: { SecurityGroupIds: Match.arrayWith([{ 'Fn::ImportValue': Match.stringLikeRegexp('ClientSecurityGroup') }]) },
    });
  });

  test('one job mounted for two compute environments has the mount point once', () => {
    // GIVEN
    const { stack, vpc, accessPoint } = withAccessPoint();
    const job = fargateJob(stack);
    const first = new batch.FargateComputeEnvironment(stack, 'First', { vpc, vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED } });
    const second = new batch.FargateComputeEnvironment(stack, 'Second', { vpc, vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED } });
    // WHEN
    const a = BatchMount.onJobDefinition(job, accessPoint, { computeEnvironment: first });
    const b = BatchMount.onJobDefinition(job, accessPoint, { computeEnvironment: second });
    // THEN one volume, one mount point, and both environments join the client group
    expect(b).toBe(a);
    const t = Template.fromStack(stack);
    const [, jd] = only(t, 'AWS::Batch::JobDefinition');
    expect(jd.Properties.ContainerProperties.Volumes).toHaveLength(1);
    expect(jd.Properties.ContainerProperties.MountPoints).toEqual([{ SourceVolume: a, ContainerPath: '/mnt/s3files', ReadOnly: false }]);
    for (const [, ce] of Object.entries(t.findResources('AWS::Batch::ComputeEnvironment'))) {
      expect(JSON.stringify((ce as any).Properties.ComputeResources.SecurityGroupIds)).toMatch(/FilesClientSecurityGroup/);
    }
  });

  test.each<[string, (s: Stack, ap: S3FilesAccessPoint) => unknown, RegExp]>([
    ['two access points at the default container path', (s, ap) => {
      const job = fargateJob(s, 'SamePath');
      BatchMount.onJobDefinition(job, ap);
      return BatchMount.onJobDefinition(job, (ap.fileSystem as S3FilesFileSystem).addAccessPoint('Other', { path: '/other' }));
    }, /TestStack\/SamePath: invalid containerPath "\/mnt\/s3files": the container TestStack\/SamePathContainer already mounts the volume s3files-[0-9a-f]{12} there.*Fix: give each access point \(or volume\) its own `containerPath`/],
    ['a container path the container\'s own volume takes', (s, ap) => {
      const job = fargateJob(s, 'Host');
      job.container.addVolume(batch.EcsVolume.host({ name: 'scratch', containerPath: '/scratch' }));
      return BatchMount.onJobDefinition(job, ap, { containerPath: '/scratch' });
    }, /invalid containerPath "\/scratch": the container TestStack\/HostContainer already mounts the volume scratch there/],
    ['a container without a job role', (s, ap) => BatchMount.onJobDefinition(fargateJob(s, 'NoRole', false), ap),
      /TestStack\/NoRole: invalid container.jobRole undefined: the job's container has no job role.*Fix: create the `EcsFargateContainerDefinition` with a `jobRole`/],
    ['an EC2 container', (s, ap) => BatchMount.onJobDefinition(new batch.EcsJobDefinition(s, 'OnEc2', {
      container: new batch.EcsEc2ContainerDefinition(s, 'Ec2Container', { image: IMAGE, cpu: 1, memory: Size.gibibytes(1) }),
    }), ap), /TestStack\/OnEc2: invalid container "TestStack\/Ec2Container": S3 Files volumes are mounted in Batch jobs on Fargate/],
    ['a relative container path', (s, ap) => BatchMount.onJobDefinition(fargateJob(s), ap, { containerPath: 'x' }), /invalid containerPath "x"/],
  ])('refuses %s', (_what, build, message) => {
    const { stack, accessPoint } = withAccessPoint();
    expect(() => build(stack, accessPoint)).toThrow(message);
  });
});
