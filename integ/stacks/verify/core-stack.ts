import * as fs from 'fs';
import * as path from 'path';
import { Annotations, CfnOutput, Duration, RemovalPolicy, Stack, StackProps, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { grantObjects, probeFunction, ProbeFunction, rawVolumeTask } from './probe';
import { Ec2Mount, EcsMount, S3FilesAccessPoint, S3FilesFileSystem } from '../../../src';

/** Where the EC2 probe puts its results (read back by the probe function). */
export const EC2_RESULT_KEY = 'verify-results/ec2.json';
const IMAGE = 'public.ecr.aws/docker/library/busybox:stable';

/**
 * The verification app's core (`npx projen verify`): one DESTROY file system with its own KMS key,
 * probed from Lambda, Fargate and EC2. One NAT gateway: the tasks pull from public ECR, the
 * instance installs amazon-efs-utils, and the probes call the S3 Files API.
 */
export class VerifyCoreStack extends Stack {
  public readonly vpc: ec2.Vpc;
  public readonly fileSystem: S3FilesFileSystem;
  public readonly fileSystemKey: kms.Key;
  /** uid 1000 at /verify: every compute's access-point mount. */
  public readonly accessPoint: S3FilesAccessPoint;
  public readonly writer: ProbeFunction;
  public readonly reader: ProbeFunction;
  public readonly rootProbes: { readonly withAccess: ProbeFunction; readonly withoutAccess: ProbeFunction; readonly userWithAccess: ProbeFunction };
  public readonly cluster: ecs.Cluster;
  /** Task definitions: the library's mount, a root mount, and the access point without the validation reads. */
  public readonly tasks: Readonly<Record<'accessPoint' | 'root' | 'withoutReads', ecs.FargateTaskDefinition>>;
  public readonly taskSubnets: string[];
  public readonly taskSecurityGroups: string[];

  constructor(scope: Construct, id: string, props: StackProps = {}) {
    super(scope, id, props);
    this.vpc = new ec2.Vpc(this, 'Vpc', {
      maxAzs: 2,
      natGateways: 1,
      gatewayEndpoints: { S3: { service: ec2.GatewayVpcEndpointAwsService.S3 } },
    });
    Validations.of(this.vpc).acknowledge({ id: 'AwsSolutions-VPC7', reason: 'Verification VPC, destroyed at the end of each run.' });
    const vpcSubnets = { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS };
    this.fileSystemKey = new kms.Key(this, 'FileSystemKey', {
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.DESTROY,
      pendingWindow: Duration.days(7),
      description: 'cdk-s3files-lambda verification: the file system\'s own key (kms.file-system-key)',
    });
    this.fileSystem = new S3FilesFileSystem(this, 'FileSystem', {
      vpc: this.vpc, vpcSubnets, removalPolicy: RemovalPolicy.DESTROY, fileSystemEncryptionKey: this.fileSystemKey,
    });
    this.accessPoint = this.fileSystem.addAccessPoint('Verify', { path: '/verify' });
    const rootAp = this.fileSystem.addAccessPoint('RootProbe', { path: '/root-probe', posixUser: { uid: 0, gid: 0 } });
    Annotations.of(rootAp).acknowledgeWarning('cdk-s3files-lambda:posixUserRoot', 'uid 0 is what root-access.* verifies.');
    const userAp = this.fileSystem.addAccessPoint('UserProbe', { path: '/user-probe' });

    // Lambda: a writer (also the sync, policy and key probes), a read-only reader, the root probes.
    const common = { vpc: this.vpc, vpcSubnets, fileSystem: this.fileSystem };
    this.writer = probeFunction(this, 'Writer', { ...common, accessPoint: this.accessPoint, keyPrefix: 'verify/' });
    this.writer.addToRolePolicy(new iam.PolicyStatement({
      actions: ['s3files:GetFileSystemPolicy', 's3files:GetFileSystem'], resources: [this.fileSystem.fileSystemArn],
    }));
    // It also reads the EC2 probe's results, and looks for what an EKS root mount would write.
    grantObjects(this.writer, this.fileSystem, ['verify-results/', 'eks-root-probe.txt'], ['s3:GetObject']);
    this.reader = probeFunction(this, 'Reader', { ...common, accessPoint: this.accessPoint, keyPrefix: 'verify/', readOnly: true });
    this.rootProbes = {
      withAccess: probeFunction(this, 'RootWithAccess', { ...common, accessPoint: rootAp, keyPrefix: 'root-probe/', rootAccess: true }),
      withoutAccess: probeFunction(this, 'RootWithoutAccess', { ...common, accessPoint: rootAp, keyPrefix: 'root-probe/' }),
      userWithAccess: probeFunction(this, 'UserWithRootAccess', { ...common, accessPoint: userAp, keyPrefix: 'user-probe/', rootAccess: true }),
    };

    // ECS (Fargate): the library's mount; a root mount whose role IAM allows (no access-point
    // condition), so only the file-system policy can refuse it; and the access point mounted with
    // the client actions only, without the reads the field report says ECS validates with.
    this.cluster = new ecs.Cluster(this, 'Cluster', { vpc: this.vpc, containerInsightsV2: ecs.ContainerInsights.ENHANCED });
    const taskLogs = new logs.LogGroup(this, 'TaskLogs', { retention: logs.RetentionDays.ONE_WEEK, removalPolicy: RemovalPolicy.DESTROY });
    const container = (td: ecs.FargateTaskDefinition, mount: string) => td.addContainer('probe', {
      image: ecs.ContainerImage.fromRegistry(IMAGE),
      command: ['sh', '-c', `set -e; echo ecs-probe > ${mount}/ecs-probe.txt; test "$(cat ${mount}/ecs-probe.txt)" = ecs-probe; echo mounted`],
      logging: ecs.LogDrivers.awsLogs({ streamPrefix: 'verify', logGroup: taskLogs }),
    });
    const runtimePlatform = { cpuArchitecture: ecs.CpuArchitecture.ARM64, operatingSystemFamily: ecs.OperatingSystemFamily.LINUX };
    const taskProps = { cpu: 256, memoryLimitMiB: 512, runtimePlatform };
    const apTask = new ecs.FargateTaskDefinition(this, 'AccessPointTask', taskProps);
    container(apTask, '/mnt/verify');
    EcsMount.onTaskDefinition(apTask, this.accessPoint, { containerPath: '/mnt/verify' });
    const rootTask = new ecs.FargateTaskDefinition(this, 'RootTask', taskProps);
    rawVolumeTask(rootTask, container(rootTask, '/mnt/root'), this.fileSystem, undefined, '/mnt/root');
    this.fileSystem.grantReadWrite(rootTask.taskRole);
    this.fileSystem.grant(rootTask.taskRole, 's3files:ListMountTargets');
    const bareTask = new ecs.FargateTaskDefinition(this, 'WithoutReadsTask', taskProps);
    rawVolumeTask(bareTask, container(bareTask, '/mnt/verify'), this.fileSystem, this.accessPoint, '/mnt/verify');
    this.accessPoint.grantReadWrite(bareTask.taskRole);
    this.tasks = { accessPoint: apTask, root: rootTask, withoutReads: bareTask };
    const taskGroup = new ec2.SecurityGroup(this, 'TaskSecurityGroup', { vpc: this.vpc, description: 'The verification tasks' });
    this.taskSubnets = this.vpc.privateSubnets.map((s) => s.subnetId);
    this.taskSecurityGroups = [taskGroup.securityGroupId, this.fileSystem.clientSecurityGroup!.securityGroupId];

    // EC2: the library's boot-time mount, then the probe script (an EXIT trap: it runs even when
    // the mount gave up) tries the root with a role IAM allows and puts its results in the bucket.
    const host = new ec2.Instance(this, 'Host', {
      vpc: this.vpc,
      vpcSubnets,
      instanceType: ec2.InstanceType.of(ec2.InstanceClass.T4G, ec2.InstanceSize.MICRO),
      machineImage: ec2.MachineImage.latestAmazonLinux2023({ cpuType: ec2.AmazonLinuxCpuType.ARM_64 }),
      requireImdsv2: true,
      detailedMonitoring: true,
      blockDevices: [{ deviceName: '/dev/xvda', volume: ec2.BlockDeviceVolume.ebs(8, { encrypted: true }) }],
    });
    Ec2Mount.onInstance(host, this.accessPoint, { mountPath: '/mnt/verify' });
    this.fileSystem.grantReadWrite(host.role);
    grantObjects(host.role, this.fileSystem, ['verify-results/'], ['s3:PutObject']);
    const script = fs.readFileSync(path.join(__dirname, '..', '..', 'handlers', 'verify-ec2', 'probe.sh'), 'utf8');
    host.userData.addOnExitCommands(
      `FILE_SYSTEM_ID=${this.fileSystem.fileSystemId} MOUNT_PATH=/mnt/verify RESULT_URI=s3://${this.fileSystem.bucket!.bucketName}/${EC2_RESULT_KEY} bash <<'VERIFY_PROBE'`,
      script.trimEnd(),
      'VERIFY_PROBE',
    );
    Validations.of(host).acknowledge({ id: 'AwsSolutions-EC29', reason: 'Verification instance, terminated at the end of each run.' });

    new CfnOutput(this, 'BucketName', { value: this.fileSystem.bucket!.bucketName });
    new CfnOutput(this, 'FileSystemId', { value: this.fileSystem.fileSystemId });
    new CfnOutput(this, 'VpcId', { value: this.vpc.vpcId });
    new CfnOutput(this, 'WriterFunctionName', { value: this.writer.functionName });
  }
}
