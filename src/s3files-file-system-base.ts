import { Duration, IResource, Resource, ResourceProps } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct, IConstruct, IDependable } from 'constructs';
import { CLIENT_READ_ACTIONS, CLIENT_READ_WRITE_ACTIONS, CLIENT_ROOT_ACTIONS } from './private/client-actions';
import { EFS_UTILS_METRIC_NAMESPACE, METRICS_INSIGHTS_FUNCTIONS } from './private/client-metrics';
import { grantScoped } from './private/grants';
import { FileSystemMountInfo } from './private/mount-info';
import { scopeActions } from './private/s3files-actions';
import { invalid } from './private/validation';
import { S3FilesAccessPoint, S3FilesAccessPointOptions } from './s3files-access-point';

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
   * every mount target (and access point) is available; for an imported one, at once (it exists).
   */
  readonly mountTargetsAvailable: IDependable;

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
   * The availability zones the file system has mount targets in. A Lambda function needs a mount
   * target in every AZ of its subnets: with this, a subnet in another AZ is a synth-time error.
   * @default - not checked
   */
  readonly availabilityZones?: string[];
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
   * The bucket the file system presents: needed for the direct-read grant of Lambda mounts.
   * @default - unknown: direct reads must be disabled or granted by you (DirectS3Read.enabledWithoutGrant())
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

/** Marks the library's own file system classes (not `instanceof`: a second copy of the library may be loaded). */
const FILE_SYSTEM_BASE = Symbol.for('cdk-s3files-lambda.S3FilesFileSystemBase');

/**
 * What grants, metrics and mounts need of a file system, owned or imported.
 */
export abstract class S3FilesFileSystemBase extends Resource implements IS3FilesFileSystem {
  /**
   * Whether `x` is a file system of this library (created or imported), as opposed to another
   * implementation of `IS3FilesFileSystem`.
   * @param x any value
   */
  public static isS3FilesFileSystemBase(x: any): x is S3FilesFileSystemBase {
    return x !== null && typeof x === 'object' && FILE_SYSTEM_BASE in x;
  }

  public abstract readonly fileSystemId: string;
  public abstract readonly fileSystemArn: string;
  public abstract readonly mountTargetsAvailable: IDependable;
  public abstract readonly connections: ec2.Connections;

  constructor(scope: Construct, id: string, props: ResourceProps = {}) {
    super(scope, id, props);
    Object.defineProperty(this, FILE_SYSTEM_BASE, { value: true });
  }

  public grantRead(grantee: iam.IGrantable): iam.Grant {
    return this._grant(grantee, CLIENT_READ_ACTIONS);
  }

  public grantReadWrite(grantee: iam.IGrantable): iam.Grant {
    return this._grant(grantee, CLIENT_READ_WRITE_ACTIONS);
  }

  public grantRootAccess(grantee: iam.IGrantable): iam.Grant {
    return this._grant(grantee, CLIENT_ROOT_ACTIONS);
  }

  public grant(grantee: iam.IGrantable, ...actions: string[]): iam.Grant {
    return this._grant(grantee, actions);
  }

  public metric(metricName: string, props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: 'AWS/S3/Files',
      metricName,
      dimensionsMap: { FileSystemId: this.fileSystemId },
      ...props,
    });
  }

  public metricPendingExports(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric('PendingExports', { statistic: 'Sum', unit: cloudwatch.Unit.COUNT, ...props });
  }

  public metricExportFailures(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric('ExportFailures', { statistic: 'Sum', unit: cloudwatch.Unit.COUNT, ...props });
  }

  public metricImportFailures(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric('ImportFailures', { statistic: 'Sum', unit: cloudwatch.Unit.COUNT, ...props });
  }

  public metricLostAndFoundFiles(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric('LostAndFoundFiles', { statistic: 'Sum', unit: cloudwatch.Unit.COUNT, ...props });
  }

  public metricClientConnections(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric('ClientConnections', { statistic: 'Sum', unit: cloudwatch.Unit.COUNT, ...props });
  }

  public metricInodes(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric('Inodes', { statistic: 'Sum', unit: cloudwatch.Unit.COUNT, ...props });
  }

  public metricExportAge(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric('ExportAge', { statistic: 'Maximum', unit: cloudwatch.Unit.SECONDS, ...props });
  }

  public metricImportAge(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric('ImportAge', { statistic: 'Maximum', unit: cloudwatch.Unit.SECONDS, ...props });
  }

  public metricDataReadBytes(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric('DataReadBytes', { statistic: 'Sum', unit: cloudwatch.Unit.BYTES, ...props });
  }

  public metricDataWriteBytes(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric('DataWriteBytes', { statistic: 'Sum', unit: cloudwatch.Unit.BYTES, ...props });
  }

  public metricMetadataReadBytes(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric('MetadataReadBytes', { statistic: 'Sum', unit: cloudwatch.Unit.BYTES, ...props });
  }

  public metricMetadataWriteBytes(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric('MetadataWriteBytes', { statistic: 'Sum', unit: cloudwatch.Unit.BYTES, ...props });
  }

  public metricStorageBytes(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric('StorageBytes', { statistic: 'Average', unit: cloudwatch.Unit.BYTES, ...props });
  }

  public metricClientBucketAccessible(props?: cloudwatch.MetricOptions): cloudwatch.IMetric {
    return this.clientMetric('S3BucketAccessible', props);
  }

  public metricClientBucketReachable(props?: cloudwatch.MetricOptions): cloudwatch.IMetric {
    return this.clientMetric('S3BucketReachable', props);
  }

  /**
   * amazon-efs-utils publishes per client, with the dimensions Bucket and InstanceId (FACTS): a
   * metric with Bucket alone matches nothing. With an InstanceId, that client's metric; without,
   * a Metrics Insights query over every client of the bucket (usable in alarms and dashboards),
   * its function from the statistic (Minimum: 0 as soon as one client fails). No unit: efs-utils
   * documents none, and an alarm's unit that differs from the published one matches nothing.
   */
  private clientMetric(metricName: string, props: cloudwatch.MetricOptions = {}): cloudwatch.IMetric {
    const bucket = this._mountInfo().bucket;
    const dimensions: Record<string, string> = { ...props.dimensionsMap };
    if (dimensions.Bucket === undefined) {
      if (!bucket) {
        invalid(this, 'bucket', undefined, `the efs-utils client metric ${metricName} is published by bucket name, and this file system's bucket is not known`,
          'give bucket to fromFileSystemAttributes, or pass dimensionsMap: { Bucket: name }');
      }
      dimensions.Bucket = bucket.bucketName;
    }
    const statistic = props.statistic ?? 'Minimum';
    const period = props.period ?? Duration.minutes(1);
    if (dimensions.InstanceId !== undefined) {
      return new cloudwatch.Metric({ namespace: EFS_UTILS_METRIC_NAMESPACE, metricName, ...props, statistic, period, dimensionsMap: dimensions });
    }
    if (props.unit !== undefined) {
      invalid(this, 'unit', props.unit, `without an InstanceId, ${metricName} is a Metrics Insights query over every client, which takes no unit`,
        'leave unit out, or pick one client with dimensionsMap: { InstanceId }');
    }
    const fn = METRICS_INSIGHTS_FUNCTIONS[statistic.toLowerCase()];
    if (!fn) {
      invalid(this, 'statistic', statistic, `without an InstanceId, ${metricName} is a Metrics Insights query over every client, which aggregates with MIN, MAX, AVG, SUM or COUNT only`,
        'use Minimum, Maximum, Average, Sum or SampleCount, or pick one client with dimensionsMap: { InstanceId }');
    }
    const where = Object.entries(dimensions).map(([key, value]) => `${key} = '${value}'`).join(' AND ');
    return new cloudwatch.MathExpression({
      expression: `SELECT ${fn}(${metricName}) FROM SCHEMA("${EFS_UTILS_METRIC_NAMESPACE}", Bucket, InstanceId) WHERE ${where}`,
      period,
      label: props.label ?? metricName,
      color: props.color,
      searchAccount: props.account,
      searchRegion: props.region,
    });
  }

  /**
   * Grants `s3files:` actions: identity-policy statements on the grantee, each action on its
   * documented resource (this file system, its access points, or the one access point given, with
   * `s3files:AccessPointArn` on the client actions). It does not name the grantee in this stack, so
   * grantees may live in any stack.
   * @internal
   */
  public _grant(grantee: iam.IGrantable, actions: string[], accessPointArn?: string, scope: IConstruct = this): iam.Grant {
    const scoped = scopeActions(scope, actions, { fileSystemArn: this.fileSystemArn, accessPointArn });
    return grantScoped(scope, grantee, scoped, `${actions.join(', ')} on ${this.node.path}`, { fileSystemArn: this.fileSystemArn, accessPointArn });
  }

  /** What a mount needs to know beyond the interface. @internal */
  public abstract _mountInfo(): FileSystemMountInfo;

  /**
   * Takes a new access point of this file system into account and returns what its clients wait
   * for (the access point and the mount targets being available).
   * @internal
   */
  public abstract _registerAccessPoint(accessPoint: S3FilesAccessPoint): IDependable;

  /**
   * Adds an access point to this file system.
   * @param id construct id of the access point (a child of this file system)
   * @param options POSIX user, root directory and its creation permissions
   */
  public addAccessPoint(id: string, options: S3FilesAccessPointOptions = {}): S3FilesAccessPoint {
    return new S3FilesAccessPoint(this, id, { ...options, fileSystem: this });
  }

}
