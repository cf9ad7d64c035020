import { App, Size, Stack } from 'aws-cdk-lib';
import * as batch from 'aws-cdk-lib/aws-batch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as iam from 'aws-cdk-lib/aws-iam';
import { BatchMount, Ec2Mount, EcsMount, S3FilesFileSystem } from 'cdk-s3files-lambda';

const app = new App();
const stack = new Stack(app, 'Pipeline');
// Private subnets with one NAT gateway: the tasks pull their image from public ECR and the
// instance installs amazon-efs-utils. The S3 gateway endpoint (no charge) keeps S3 traffic
// (direct reads, the Amazon Linux repositories) off the NAT gateway, which bills per hour and per GB.
const vpc = new ec2.Vpc(stack, 'Vpc', {
  maxAzs: 2,
  natGateways: 1,
  gatewayEndpoints: { S3: { service: ec2.GatewayVpcEndpointAwsService.S3 } },
});
const fileSystem = new S3FilesFileSystem(stack, 'Files', { vpc });
const results = fileSystem.addAccessPoint('Results', { path: '/results' });
const image = ecs.ContainerImage.fromRegistry('public.ecr.aws/docker/library/busybox:stable');

// ECS on Fargate (or ECS Managed Instances): volume, mount point, task role, NFS, the wait.
const taskDefinition = new ecs.FargateTaskDefinition(stack, 'Reader');
taskDefinition.addContainer('app', { image });
const service = new ecs.FargateService(stack, 'Service', {
  cluster: new ecs.Cluster(stack, 'Cluster', { vpc }),
  taskDefinition,
  // A task that cannot start fails the deployment in minutes instead of hours.
  circuitBreaker: { rollback: true },
  // New tasks mount (with the current rights) before old ones stop.
  minHealthyPercent: 100,
});
EcsMount.onService(service, results, { containerPath: '/mnt/results', readOnly: true });

// AWS Batch on Fargate: the job role gets the grants, the environment joins the client group.
const job = new batch.EcsJobDefinition(stack, 'Job', {
  container: new batch.EcsFargateContainerDefinition(stack, 'JobContainer', {
    image,
    cpu: 1,
    memory: Size.gibibytes(2),
    jobRole: new iam.Role(stack, 'JobRole', { assumedBy: new iam.ServicePrincipal('ecs-tasks.amazonaws.com') }),
  }),
});
const computeEnvironment = new batch.FargateComputeEnvironment(stack, 'Environment', { vpc });
BatchMount.onJobDefinition(job, results, { computeEnvironment });

// EC2: at boot, install amazon-efs-utils, write the fstab line, mount (retrying until reachable).
const host = new ec2.Instance(stack, 'Host', {
  vpc,
  instanceType: ec2.InstanceType.of(ec2.InstanceClass.T4G, ec2.InstanceSize.MICRO),
  machineImage: ec2.MachineImage.latestAmazonLinux2023({ cpuType: ec2.AmazonLinuxCpuType.ARM_64 }),
});
Ec2Mount.onInstance(host, results, { mountPath: '/mnt/results' });

app.synth();
