import { Duration, RemovalPolicy, Stack, StackProps } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { EcsMount, S3FilesAccessPoint, S3FilesFileSystem, S3FilesMountedFunction } from '../../src';
import { acknowledge } from '../../src/private/nag';
import { handlerCode } from '../handler-assets';

export interface CrossComputeStackProps extends StackProps {
  /**
   * Delete the file system and bucket with the stack (integ tests); the app keeps them.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
}

/** Name of the file the integ test drops into the inbox and expects the task to read back. */
export const CROSS_COMPUTE_FILE = 'cross-compute.txt';

// Writes the inbox file through the mount (no S3 import delay in the test).
const SEEDER = `
const fs = require('node:fs/promises');
const path = require('node:path');
exports.handler = async (event) => {
  const name = (event && event.name) || 'cross-compute.txt';
  const inbox = path.join(process.env.MOUNT_PATH, 'inbox');
  await fs.mkdir(inbox, { recursive: true });
  const tmp = path.join(inbox, '.' + name + '.tmp');
  await fs.writeFile(tmp, 'one file system for every compute\\n');
  await fs.rename(tmp, path.join(inbox, name));
  return { seeded: 'inbox/' + name };
};`;

/**
 * One file system for Lambda and ECS: the S3 Files processor Lambda writes its results through an
 * access point, and a Fargate task reads them through the same access point (read-only). The integ
 * test seeds a file, runs the processor, runs the task, and expects the task to exit 0 only when
 * it found the result and its metadata.
 */
export class CrossComputeStack extends Stack {
  public readonly seeder: S3FilesMountedFunction;
  public readonly processor: S3FilesMountedFunction;
  public readonly cluster: ecs.Cluster;
  public readonly taskDefinition: ecs.FargateTaskDefinition;
  /** What a RunTask call needs: the task's subnets and security groups (its own and the client group). */
  public readonly taskSubnets: string[];
  public readonly taskSecurityGroups: string[];

  constructor(scope: Construct, id: string, props: CrossComputeStackProps = {}) {
    super(scope, id, props);

    // One NAT gateway: the task pulls its image from public ECR (no VPC endpoint serves that).
    const vpc = new ec2.Vpc(this, 'Vpc', {
      maxAzs: 2,
      natGateways: 1,
      gatewayEndpoints: { S3: { service: ec2.GatewayVpcEndpointAwsService.S3 } },
    });
    const fileSystem = new S3FilesFileSystem(this, 'FileSystem', { vpc, removalPolicy: props.removalPolicy });
    const shared = new S3FilesAccessPoint(this, 'Shared', { fileSystem, path: '/shared' });

    const common = {
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      handler: 'index.handler',
      accessPoint: shared,
      vpc,
    };
    this.seeder = new S3FilesMountedFunction(this, 'Seeder', {
      ...common,
      description: 'Writes a file into inbox/ through the mount',
      code: lambda.Code.fromInline(SEEDER),
      timeout: Duration.seconds(30),
    });
    this.processor = new S3FilesMountedFunction(this, 'Processor', {
      ...common,
      description: 'The S3 Files processor: inbox/ to processed/<name>/ through the mount',
      code: handlerCode('processor-s3files'),
      memorySize: 512,
      timeout: Duration.minutes(2),
      environment: { POWERTOOLS_SERVICE_NAME: 'processor-s3files', POWERTOOLS_METRICS_NAMESPACE: 'S3FilesCrossCompute' },
    });

    // The reader: a Fargate task that exits 0 only if the processor's result and metadata are there.
    this.cluster = new ecs.Cluster(this, 'Cluster', { vpc, containerInsightsV2: ecs.ContainerInsights.ENHANCED });
    this.taskDefinition = new ecs.FargateTaskDefinition(this, 'Reader', { cpu: 256, memoryLimitMiB: 512 });
    const result = `/mnt/shared/processed/${CROSS_COMPUTE_FILE}`;
    this.taskDefinition.addContainer('reader', {
      image: ecs.ContainerImage.fromRegistry('public.ecr.aws/docker/library/busybox:stable'),
      command: ['sh', '-c', `set -e; test -s ${result}/${CROSS_COMPUTE_FILE}; test -s ${result}/${CROSS_COMPUTE_FILE}.meta.json; cat ${result}/${CROSS_COMPUTE_FILE}.meta.json`],
      logging: ecs.LogDrivers.awsLogs({
        streamPrefix: 'reader',
        logGroup: new logs.LogGroup(this, 'ReaderLogs', { retention: logs.RetentionDays.ONE_WEEK, removalPolicy: RemovalPolicy.DESTROY }),
      }),
    });
    EcsMount.onTaskDefinition(this.taskDefinition, shared, { containerPath: '/mnt/shared', readOnly: true });

    // RunTask has no service to carry the network: the caller passes these.
    const taskGroup = new ec2.SecurityGroup(this, 'ReaderSecurityGroup', { vpc, description: 'The cross-compute reader task' });
    this.taskSubnets = vpc.privateSubnets.map((s) => s.subnetId);
    this.taskSecurityGroups = [taskGroup.securityGroupId, fileSystem.clientSecurityGroup!.securityGroupId];

    acknowledge(vpc, 'AwsSolutions-VPC7', 'Integ VPC torn down after each run; its only outbound traffic is the task\'s image pull.');
  }
}
