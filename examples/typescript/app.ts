// The example app in TypeScript. examples/python and examples/java build the same stack;
// test/bindings/run.sh synthesizes all three and compares the templates.
import { App, CfnOutput, Duration, Size, Stack, StackProps } from 'aws-cdk-lib';
import * as batch from 'aws-cdk-lib/aws-batch';
import * as agentcore from 'aws-cdk-lib/aws-bedrockagentcore';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { AgentCoreMount, BatchMount, Ec2Mount, EcsMount, LambdaMount, S3FilesAccessPoint, S3FilesFileSystem, S3FilesMountedFunction } from 'cdk-s3files-lambda';
import { Construct } from 'constructs';

// Inline code keeps the template free of language-specific asset hashes.
const HANDLER_CODE = 'const fs = require("fs"); exports.handler = async () => fs.readdirSync(process.env.MOUNT_PATH);';

export class ExampleStack extends Stack {
  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);

    // No NAT: isolated subnets, S3 reached through a gateway endpoint.
    const vpc = new ec2.Vpc(this, 'Vpc', {
      maxAzs: 2,
      natGateways: 0,
      subnetConfiguration: [{ name: 'isolated', subnetType: ec2.SubnetType.PRIVATE_ISOLATED, cidrMask: 24 }],
      gatewayEndpoints: { S3: { service: ec2.GatewayVpcEndpointAwsService.S3 } },
    });
    const subnets: ec2.SubnetSelection = { subnetType: ec2.SubnetType.PRIVATE_ISOLATED };

    const fileSystem = new S3FilesFileSystem(this, 'FileSystem', {
      vpc,
      vpcSubnets: subnets,
      importDataRules: [{ prefix: '', sizeLessThan: Size.kibibytes(256) }],
      expireAfterLastAccess: Duration.days(30),
    });

    const fn = new S3FilesMountedFunction(this, 'Processor', {
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      handler: 'index.handler',
      code: lambda.Code.fromInline(HANDLER_CODE),
      memorySize: 1024,
      timeout: Duration.seconds(30),
      vpc,
      vpcSubnets: subnets,
      s3FileSystem: fileSystem,
      mountPath: '/mnt/data',
      accessPointOptions: {
        path: '/processor',
        posixUser: { uid: 1001, gid: 1001 },
      },
      directS3Read: lambda.DirectS3Read.enabled(fileSystem.bucket!),
    });

    new CfnOutput(this, 'FileSystemId', { value: fileSystem.fileSystemId });
    new CfnOutput(this, 'FunctionName', { value: fn.functionName });
  }
}

/** A file system made elsewhere, imported by attributes and mounted on a plain lambda.Function. */
export class ImportedStack extends Stack {
  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);

    const vpc = ec2.Vpc.fromVpcAttributes(this, 'Vpc', {
      vpcId: 'vpc-0123456789abcdef0',
      availabilityZones: ['us-east-1a', 'us-east-1b'],
      isolatedSubnetIds: ['subnet-0aaaaaaaaaaaaaaaa', 'subnet-0bbbbbbbbbbbbbbbb'],
    });
    const fileSystem = S3FilesFileSystem.fromFileSystemAttributes(this, 'Shared', {
      fileSystemId: 'fs-0123456789abcdef0',
      vpc,
      mountTargetAvailabilityZones: ['us-east-1a', 'us-east-1b'],
      clientSecurityGroup: ec2.SecurityGroup.fromSecurityGroupId(this, 'Clients', 'sg-0123456789abcdef0'),
      bucket: s3.Bucket.fromBucketName(this, 'Bucket', 'shared-data-bucket'),
    });
    const accessPoint = S3FilesAccessPoint.fromAccessPointAttributes(this, 'Team', {
      fileSystem,
      accessPointId: 'fsap-0123456789abcdef0',
    });

    const reader = new lambda.Function(this, 'Reader', {
      runtime: lambda.Runtime.NODEJS_24_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline(HANDLER_CODE),
      vpc,
    });
    LambdaMount.onFunction(reader, accessPoint, { readOnly: true });
  }
}

/** One imported file system mounted by a Fargate service, a Batch job, an EC2 instance and an AgentCore runtime. */
export class OtherComputeStack extends Stack {
  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);

    const vpc = ec2.Vpc.fromVpcAttributes(this, 'Vpc', {
      vpcId: 'vpc-0123456789abcdef0',
      availabilityZones: ['us-east-1a', 'us-east-1b'],
      isolatedSubnetIds: ['subnet-0aaaaaaaaaaaaaaaa', 'subnet-0bbbbbbbbbbbbbbbb'],
    });
    const fileSystem = S3FilesFileSystem.fromFileSystemAttributes(this, 'Shared', {
      fileSystemId: 'fs-0123456789abcdef0',
      vpc,
      mountTargetAvailabilityZones: ['us-east-1a', 'us-east-1b'],
      clientSecurityGroup: ec2.SecurityGroup.fromSecurityGroupId(this, 'Clients', 'sg-0123456789abcdef0'),
      bucket: s3.Bucket.fromBucketName(this, 'Bucket', 'shared-data-bucket'),
    });
    const accessPoint = S3FilesAccessPoint.fromAccessPointAttributes(this, 'Results', {
      fileSystem,
      accessPointId: 'fsap-0123456789abcdef0',
    });
    const image = ecs.ContainerImage.fromRegistry('public.ecr.aws/docker/library/busybox:stable');

    // ECS on Fargate: the volume, the mount point, the task role, NFS, and the wait.
    const cluster = new ecs.Cluster(this, 'Cluster', { vpc });
    const task = new ecs.FargateTaskDefinition(this, 'Task');
    task.addContainer('app', { image });
    const service = new ecs.FargateService(this, 'Service', { cluster, taskDefinition: task });
    EcsMount.onService(service, accessPoint, { containerPath: '/mnt/results', readOnly: true });

    // AWS Batch on Fargate.
    const jobRole = new iam.Role(this, 'JobRole', { assumedBy: new iam.ServicePrincipal('ecs-tasks.amazonaws.com') });
    const job = new batch.EcsJobDefinition(this, 'Job', {
      container: new batch.EcsFargateContainerDefinition(this, 'JobContainer', { image, cpu: 1, memory: Size.gibibytes(2), jobRole }),
    });
    const computeEnvironment = new batch.FargateComputeEnvironment(this, 'Environment', { vpc });
    BatchMount.onJobDefinition(job, accessPoint, { computeEnvironment });

    // EC2: user data installs amazon-efs-utils, writes the fstab line and mounts at boot.
    const host = new ec2.Instance(this, 'Host', {
      vpc,
      instanceType: ec2.InstanceType.of(ec2.InstanceClass.T4G, ec2.InstanceSize.MICRO),
      machineImage: ec2.MachineImage.latestAmazonLinux2023({ cpuType: ec2.AmazonLinuxCpuType.ARM_64 }),
    });
    Ec2Mount.onInstance(host, accessPoint, { mountPath: '/mnt/results' });

    // Bedrock AgentCore: a runtime in the VPC reads the same access point.
    const agent = new agentcore.Runtime(this, 'Agent', {
      runtimeName: 'results_agent',
      agentRuntimeArtifact: agentcore.AgentRuntimeArtifact.fromImageUri('123456789012.dkr.ecr.us-east-1.amazonaws.com/agent:latest'),
      networkConfiguration: agentcore.RuntimeNetworkConfiguration.usingVpc(this, { vpc }),
    });
    AgentCoreMount.onRuntime(agent, accessPoint, { mountPath: '/mnt/results', readOnly: true });
  }
}

const app = new App();
new ExampleStack(app, 'S3FilesLambdaExample');
new ImportedStack(app, 'S3FilesLambdaImported');
new OtherComputeStack(app, 'S3FilesOtherCompute');
app.synth();
