import { Size } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as batch from 'aws-cdk-lib/aws-batch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { BatchMount, Ec2Mount, EcsMount, S3FilesFileSystem, S3FilesMountedFunction } from '../src';
import { FN, isolatedVpc, newStack, stripAssetHashes } from './util/template';

describe('full stack snapshot', () => {
  test('two functions sharing one access point on a default file system', () => {
    // GIVEN
    const stack = newStack('SnapshotStack');
    // WHEN
    const writer = new S3FilesMountedFunction(stack, 'Writer', { ...FN, memorySize: 512 });
    new S3FilesMountedFunction(stack, 'Reader', {
      ...FN,
      accessPoint: writer.accessPoint,
      readOnly: true,
      directS3Read: lambda.DirectS3Read.auto(),
      memorySize: 1024,
    });
    // THEN
    const template = stripAssetHashes(Template.fromStack(stack).toJSON());
    expect(JSON.stringify(template)).not.toMatch(/[0-9a-f]{64}/);
    expect(template).toMatchSnapshot();
  });
});

describe('compute mounts snapshot', () => {
  test('one access point mounted in a Fargate service, a Batch job and an instance', () => {
    // GIVEN
    const stack = newStack('ComputeSnapshot');
    const vpc = isolatedVpc(stack);
    const fileSystem = new S3FilesFileSystem(stack, 'Files', { vpc });
    const results = fileSystem.addAccessPoint('Results', { path: '/results' });
    const image = ecs.ContainerImage.fromRegistry('public.ecr.aws/docker/library/busybox:stable');
    const taskDefinition = new ecs.FargateTaskDefinition(stack, 'Reader');
    taskDefinition.addContainer('app', { image });
    const service = new ecs.FargateService(stack, 'Service', { cluster: new ecs.Cluster(stack, 'Cluster', { vpc }), taskDefinition });
    const job = new batch.EcsJobDefinition(stack, 'Job', {
      container: new batch.EcsFargateContainerDefinition(stack, 'JobContainer', {
        image, cpu: 1, memory: Size.gibibytes(2), jobRole: new iam.Role(stack, 'JobRole', { assumedBy: new iam.ServicePrincipal('ecs-tasks.amazonaws.com') }),
      }),
    });
    const host = new ec2.Instance(stack, 'Host', {
      vpc,
      instanceType: ec2.InstanceType.of(ec2.InstanceClass.T4G, ec2.InstanceSize.MICRO),
      machineImage: ec2.MachineImage.latestAmazonLinux2023({ cpuType: ec2.AmazonLinuxCpuType.ARM_64 }),
    });
    // WHEN
    EcsMount.onService(service, results, { readOnly: true });
    BatchMount.onJobDefinition(job, results);
    Ec2Mount.onInstance(host, results);
    // THEN
    const template = stripAssetHashes(Template.fromStack(stack).toJSON());
    expect(JSON.stringify(template)).not.toMatch(/[0-9a-f]{64}/);
    expect(template).toMatchSnapshot();
  });
});

describe('stripAssetHashes', () => {
  test('replaces 64-hex asset hashes and S3 keys, and keeps everything else', () => {
    // GIVEN
    const hash = 'a'.repeat(64);
    // WHEN
    const stripped = stripAssetHashes({ Code: { S3Bucket: `cdk-${hash}`, S3Key: `${hash}.zip` }, Other: 'keep' });
    // THEN
    expect(stripped).toEqual({ Code: { S3Bucket: 'cdk-ASSET_HASH', S3Key: 'ASSET_KEY' }, Other: 'keep' });
  });
});
