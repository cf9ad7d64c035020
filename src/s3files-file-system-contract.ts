import { IResource } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { IDependable } from 'constructs';

/**
 * An S3 Files file system: one created by `S3FilesFileSystem` or one imported with
 * `S3FilesFileSystem.fromFileSystemAttributes`.
 */
export interface IS3FilesFileSystem extends IResource, ec2.IConnectable {
  /**
   * The file system id (`fs-...`).
   * @attribute
   */
  readonly fileSystemId: string;
  /**
   * The file system ARN.
   * @attribute
   */
  readonly fileSystemArn: string;
  /**
   * Completes when the file system can be mounted: for a file system created in this app, when
   * every mount target (and access point) is available and its file-system policy is in place; for
   * an imported one, at once (it exists). Everything that mounts depends on it.
   */
  readonly mountTargetsAvailable: IDependable;

  /**
   * The VPC of the mount targets: clients mount only from it.
   * @default - unknown: the same-VPC and AZ checks do not run
   */
  readonly vpc?: ec2.IVpc;

  /**
   * A security group the mount targets admit on TCP 2049: clients join it (no rule per client).
   * @default - none: clients are let in through `connections` (a rule on the mount targets' groups per client)
   */
  readonly clientSecurityGroup?: ec2.ISecurityGroup;

  /**
   * The bucket the file system presents (direct reads of its objects are granted on it).
   * @default - unknown: direct reads cannot be granted
   */
  readonly bucket?: s3.IBucket;

  /**
   * The key prefix of the bucket the file system presents (`''` or ending with `/`).
   * @default ''
   */
  readonly prefix?: string;

  /**
   * The bucket's SSE-KMS key, when it is another account's (the account's own keys are covered).
   * @default - the bucket's `encryptionKey`, if any
   */
  readonly bucketEncryptionKey?: kms.IKey;

  /**
   * The availability zones the file system has mount targets in: a client whose subnets are in
   * another AZ cannot mount (a synth-time error).
   * @default - unknown: the AZ check does not run
   */
  readonly mountTargetAvailabilityZones?: string[];

  /**
   * Grants read access over NFS (`s3files:ClientMount`) through any access point.
   * @param grantee the principal to grant
   */
  grantRead(grantee: iam.IGrantable): iam.Grant;
  /**
   * Grants read and write access over NFS (`s3files:ClientMount`, `s3files:ClientWrite`) through any access point.
   * @param grantee the principal to grant
   */
  grantReadWrite(grantee: iam.IGrantable): iam.Grant;
  /**
   * Grants root access over NFS (`ClientMount`, `ClientWrite`, `ClientRootAccess`) through any access point.
   * @param grantee the principal to grant
   */
  grantRootAccess(grantee: iam.IGrantable): iam.Grant;
  /**
   * Grants the given `s3files:` actions through any access point.
   * @param grantee the principal to grant
   * @param actions the actions, each starting with `s3files:`
   */
  grant(grantee: iam.IGrantable, ...actions: string[]): iam.Grant;
  /**
   * A CloudWatch metric of this file system (namespace `AWS/S3/Files`, dimension `FileSystemId`).
   * @param metricName the metric name, e.g. `PendingExports`
   * @param props metric options
   */
  metric(metricName: string, props?: cloudwatch.MetricOptions): cloudwatch.Metric;

  /**
   * Files written on the mount and not yet exported to the bucket.
   * @param props metric options
   * @default - statistic Sum, 1 minute
   */
  metricPendingExports(props?: cloudwatch.MetricOptions): cloudwatch.Metric;

  /**
   * Exports that failed for good (not retried): the change never reaches the bucket.
   * @param props metric options
   * @default - statistic Sum, 1 minute
   */
  metricExportFailures(props?: cloudwatch.MetricOptions): cloudwatch.Metric;

  /**
   * Imports from the bucket that failed.
   * @param props metric options
   * @default - statistic Sum, 1 minute
   */
  metricImportFailures(props?: cloudwatch.MetricOptions): cloudwatch.Metric;

  /**
   * Files moved to lost+found: a write on the mount lost a conflict with a change in the bucket.
   * @param props metric options
   * @default - statistic Sum, 1 minute
   */
  metricLostAndFoundFiles(props?: cloudwatch.MetricOptions): cloudwatch.Metric;

  /**
   * Client connections (the file system takes at most 25,000).
   * @param props metric options
   * @default - statistic Sum, 1 minute
   */
  metricClientConnections(props?: cloudwatch.MetricOptions): cloudwatch.Metric;

  /**
   * Files and directories in the file system (reported every 15 minutes).
   * @param props metric options
   * @default - statistic Sum, 1 minute
   */
  metricInodes(props?: cloudwatch.MetricOptions): cloudwatch.Metric;

  /**
   * Age of the oldest change waiting to be exported.
   * @param props metric options
   * @default - statistic Maximum, 1 minute
   */
  metricExportAge(props?: cloudwatch.MetricOptions): cloudwatch.Metric;

  /**
   * Age of the oldest change waiting to be imported.
   * @param props metric options
   * @default - statistic Maximum, 1 minute
   */
  metricImportAge(props?: cloudwatch.MetricOptions): cloudwatch.Metric;

  /**
   * Bytes of file data read (SampleCount: read operations).
   * @param props metric options
   * @default - statistic Sum, 1 minute
   */
  metricDataReadBytes(props?: cloudwatch.MetricOptions): cloudwatch.Metric;

  /**
   * Bytes of file data written (SampleCount: write operations).
   * @param props metric options
   * @default - statistic Sum, 1 minute
   */
  metricDataWriteBytes(props?: cloudwatch.MetricOptions): cloudwatch.Metric;

  /**
   * Bytes of metadata read (SampleCount: metadata read operations).
   * @param props metric options
   * @default - statistic Sum, 1 minute
   */
  metricMetadataReadBytes(props?: cloudwatch.MetricOptions): cloudwatch.Metric;

  /**
   * Bytes of metadata written (SampleCount: metadata write operations).
   * @param props metric options
   * @default - statistic Sum, 1 minute
   */
  metricMetadataWriteBytes(props?: cloudwatch.MetricOptions): cloudwatch.Metric;

  /**
   * Bytes stored in the file system (reported every 15 minutes).
   * @param props metric options
   * @default - statistic Average, 1 minute
   */
  metricStorageBytes(props?: cloudwatch.MetricOptions): cloudwatch.Metric;

  /**
   * The amazon-efs-utils client metric `S3BucketAccessible` (1 = the client can read the bucket for
   * direct reads), from EC2 instances and ECS tasks that mount this file system (never Lambda).
   * The clients publish it per client (dimensions `Bucket` and `InstanceId`): by default this is a
   * CloudWatch Metrics Insights query over every client of the bucket, aggregated with the
   * statistic (Minimum: 0 as soon as one client cannot read the bucket); give `InstanceId` in the
   * options' dimensions map for one client's metric. Usable in alarms and dashboards.
   * @param props metric options
   * @default - statistic Minimum, 1 minute, every client of the bucket
   * @see https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/query_with_cloudwatch-metrics-insights.html
   */
  metricClientBucketAccessible(props?: cloudwatch.MetricOptions): cloudwatch.IMetric;

  /**
   * The amazon-efs-utils client metric `S3BucketReachable` (1 = the client reaches S3 over the
   * network), from EC2 instances and ECS tasks that mount this file system (never Lambda). Like
   * `metricClientBucketAccessible`: every client of the bucket, or one with `InstanceId`.
   * @param props metric options
   * @default - statistic Minimum, 1 minute, every client of the bucket
   */
  metricClientBucketReachable(props?: cloudwatch.MetricOptions): cloudwatch.IMetric;
}

/**
 * How an existing file system is imported.
 */
export interface S3FilesFileSystemAttributes {
  /**
   * The file system id (`fs-...`). Give this or `fileSystemArn`.
   * @default - taken from `fileSystemArn`
   */
  readonly fileSystemId?: string;
  /**
   * The file system ARN. Give this or `fileSystemId`.
   * @default - built from `fileSystemId` in this stack's account and region
   */
  readonly fileSystemArn?: string;
  /**
   * The VPC of the file system's mount targets: functions that mount it must be in it, and their
   * subnets are checked against `availabilityZones`.
   * @default - not checked
   */
  readonly vpc?: ec2.IVpc;
  /**
   * The availability zones the file system has mount targets in. A client needs a mount target in
   * every AZ of its subnets: with this, a subnet in another AZ is a synth-time error.
   * @default - not checked
   */
  readonly mountTargetAvailabilityZones?: string[];
  /**
   * A security group the mount targets already admit on TCP 2049 (for a file system created by
   * this library in another app: its `clientSecurityGroup`). Clients join it, which adds no rule.
   * @default - clients are let in through `securityGroups` instead
   */
  readonly clientSecurityGroup?: ec2.ISecurityGroup;
  /**
   * The mount targets' security groups. Each client adds an inbound TCP 2049 rule to them (in the
   * client's stack), so they must be mutable imports.
   * @default - none: give `clientSecurityGroup` or this, or mounting fails with an error
   */
  readonly securityGroups?: ec2.ISecurityGroup[];
  /**
   * The bucket the file system presents: needed for the direct-read grants of mounts.
   * @default - unknown: direct reads must be turned off or granted by you (`grantDirectReads: false`, `DirectS3Read.enabledWithoutGrant()`)
   */
  readonly bucket?: s3.IBucket;
  /**
   * The key prefix of the bucket the file system presents (`''` or ending with `/`).
   * @default ''
   */
  readonly prefix?: string;
  /**
   * The bucket's SSE-KMS key, for the `kms:Decrypt` part of the direct-read grant.
   * @default - the bucket's `encryptionKey`, if any
   */
  readonly bucketEncryptionKey?: kms.IKey;
}
