import * as path from 'path';
import { CfnElement, CfnOutput, RemovalPolicy, Stack, StackProps } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as s3assets from 'aws-cdk-lib/aws-s3-assets';
import { Construct } from 'constructs';
import { Ec2Mount, S3FilesFileSystem } from '../../src';
import { acknowledge } from '../../src/private/nag';

export interface Ec2BenchmarkStackProps extends StackProps {
  /**
   * Delete the file system and bucket with the stack.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * The benchmark instance's type (Graviton: the AMI is arm64).
   * @default m7g.large
   */
  readonly instanceType?: ec2.InstanceType;
  /**
   * File sizes fio and `aws s3 cp` move, as fio and numfmt read them.
   * @default '1M 16M 128M'
   */
  readonly sizes?: string;
}

/** Where run.sh and the report bundle are unpacked on the instance. */
const BENCH_DIR = '/opt/ec2-benchmark';
/** The access point's directory, and so the key prefix the mount shows. */
const ACCESS_POINT_PATH = '/bench';

/**
 * The EC2 benchmark after the source articles: one instance (no NAT: the S3 gateway endpoint
 * serves S3 and the Amazon Linux repositories; Session Manager through interface endpoints) mounts
 * the file system at boot and measures fio on the mount against `aws s3 cp` of the same files, and
 * the export and import visibility delays. Results land in the bucket under benchmarks/ec2/<run>/.
 */
export class Ec2BenchmarkStack extends Stack {
  public readonly fileSystem: S3FilesFileSystem;
  public readonly instance: ec2.Instance;

  constructor(scope: Construct, id: string, props: Ec2BenchmarkStackProps = {}) {
    super(scope, id, props);

    const vpc = new ec2.Vpc(this, 'Vpc', {
      maxAzs: 2,
      natGateways: 0,
      subnetConfiguration: [{ name: 'Isolated', subnetType: ec2.SubnetType.PRIVATE_ISOLATED, cidrMask: 24 }],
      gatewayEndpoints: { S3: { service: ec2.GatewayVpcEndpointAwsService.S3 } },
    });
    for (const [name, service] of [
      ['Ssm', ec2.InterfaceVpcEndpointAwsService.SSM],
      ['SsmMessages', ec2.InterfaceVpcEndpointAwsService.SSM_MESSAGES],
      ['Ec2Messages', ec2.InterfaceVpcEndpointAwsService.EC2_MESSAGES],
    ] as const) {
      vpc.addInterfaceEndpoint(`${name}Endpoint`, { service });
    }

    this.fileSystem = new S3FilesFileSystem(this, 'FileSystem', { vpc, removalPolicy: props.removalPolicy });
    const bucket = this.fileSystem.bucket!;
    const accessPoint = this.fileSystem.addAccessPoint('Bench', { path: ACCESS_POINT_PATH });

    this.instance = new ec2.Instance(this, 'Instance', {
      vpc,
      vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
      instanceType: props.instanceType ?? ec2.InstanceType.of(ec2.InstanceClass.M7G, ec2.InstanceSize.LARGE),
      machineImage: ec2.MachineImage.latestAmazonLinux2023({ cpuType: ec2.AmazonLinuxCpuType.ARM_64 }),
      requireImdsv2: true,
      ssmSessionPermissions: true,
      blockDevices: [{ deviceName: '/dev/xvda', volume: ec2.BlockDeviceVolume.ebs(16, { encrypted: true, volumeType: ec2.EbsDeviceVolumeType.GP3 }) }],
    });
    // The mount first (user data: amazon-efs-utils, fstab, mount with retries) ...
    Ec2Mount.onInstance(this.instance, accessPoint, { mountPath: '/mnt/bench' });

    // ... then the benchmark: its script and report bundle come from the CDK assets bucket.
    const script = new s3assets.Asset(this, 'Script', { path: path.join(__dirname, '..', 'handlers', 'ec2-benchmark', 'run.sh') });
    const report = new s3assets.Asset(this, 'Report', { path: path.join(__dirname, '..', '..', 'assets', 'integ', 'handlers', 'ec2-benchmark', 'index') });
    script.grantRead(this.instance);
    report.grantRead(this.instance);
    const userData = this.instance.userData;
    const scriptFile = userData.addS3DownloadCommand({ bucket: script.bucket, bucketKey: script.s3ObjectKey, localFile: `${BENCH_DIR}/run.sh` });
    const reportZip = userData.addS3DownloadCommand({ bucket: report.bucket, bucketKey: report.s3ObjectKey, localFile: `${BENCH_DIR}/report.zip` });
    userData.addCommands(
      // Never benchmark the instance's own disk in place of the file system.
      'mountpoint -q /mnt/bench || { echo "ec2-benchmark: /mnt/bench is not mounted" >> /var/log/ec2-benchmark.log; exit 1; }',
      'dnf install -y fio nodejs unzip',
      `unzip -o ${reportZip} -d ${BENCH_DIR}`,
      `MOUNT_DIR=/mnt/bench BUCKET=${bucket.bucketName} PREFIX=${ACCESS_POINT_PATH.slice(1)}/ OUT=/var/tmp/ec2-benchmark `
        + `REPORT=${BENCH_DIR}/index.js SIZES='${props.sizes ?? '1M 16M 128M'}' bash ${scriptFile} > /var/log/ec2-benchmark.log 2>&1`,
    );
    // The S3-API side of the comparison, the visibility probes and the results, all under the bucket.
    bucket.grantReadWrite(this.instance, `${ACCESS_POINT_PATH.slice(1)}/*`);
    bucket.grantDelete(this.instance, `${ACCESS_POINT_PATH.slice(1)}/*`);
    bucket.grantPut(this.instance, 'benchmarks/ec2/*');

    new CfnOutput(this, 'Results', { value: `s3://${bucket.bucketName}/benchmarks/ec2/`, description: 'results.json and results.md of each boot' });
    new CfnOutput(this, 'Log', { value: `aws ssm start-session --target ${this.instance.instanceId}, then: sudo cat /var/log/ec2-benchmark.log` });

    acknowledge(vpc, 'AwsSolutions-VPC7', 'Benchmark VPC with isolated subnets only (no internet route), deleted after the run.');
    acknowledge(this.instance, 'AwsSolutions-EC28', 'A one-off benchmark instance: detailed monitoring would cost more than the run.');
    acknowledge(this.instance, 'AwsSolutions-EC29', 'A one-off benchmark instance, deleted with the stack: termination protection would block that.');
    acknowledge(this.instance, 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/AmazonSSMManagedInstanceCore]',
      'Session Manager access to read the benchmark log; the AWS managed policy is what Session Manager documents.');
    const grants = 'aws-cdk-lib\'s asset and bucket grants, limited to the asset objects and to the bench/ and benchmarks/ec2/ prefixes of the benchmark\'s own bucket.';
    for (const finding of ['Action::s3:GetObject*', 'Action::s3:GetBucket*', 'Action::s3:List*', 'Action::s3:DeleteObject*', 'Action::s3:Abort*',
      'Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*',
      `Resource::<${this.getLogicalId(bucket.node.defaultChild as CfnElement)}.Arn>/benchmarks/ec2/*`,
      `Resource::<${this.getLogicalId(bucket.node.defaultChild as CfnElement)}.Arn>/bench/*`]) {
      acknowledge(this.instance, `AwsSolutions-IAM5[${finding}]`, grants);
    }
    for (const endpoint of ['SsmEndpoint', 'SsmMessagesEndpoint', 'Ec2MessagesEndpoint']) {
      acknowledge(vpc.node.findChild(endpoint), 'AwsSolutions-EC23', 'aws-cdk-lib\'s interface endpoint group admits HTTPS from the VPC\'s own CIDR only.');
    }
  }
}
