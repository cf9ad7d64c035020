import * as crypto from 'crypto';
import {
  Annotations, ArnFormat, AspectPriority, Aspects, CfnDeletionPolicy, CfnResource, CustomResource, Duration, IResource, Lazy, Names, RemovalPolicy, Resource, ResourceProps,
  Size, Stack, Token, Tokenization,
} from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3files from 'aws-cdk-lib/aws-s3files';
import { Construct, DependencyGroup, IConstruct, IDependable } from 'constructs';
import { CLIENT_READ_ACTIONS, CLIENT_READ_WRITE_ACTIONS, CLIENT_ROOT_ACTIONS } from './private/client-actions';
import { EFS_UTILS_METRIC_NAMESPACE, METRICS_INSIGHTS_FUNCTIONS } from './private/client-metrics';
import {
  BUCKET_CLEANER_RESOURCE_TYPE, CUSTOM_RESOURCE_MAX_SECONDS, DEFAULT_AVAILABILITY_TIMEOUT_SECONDS, DELETE_GUARD_RESOURCE_TYPE, DELETE_TIMEOUT_SECONDS, GUARD_TOTAL_SECONDS,
  WAITER_RESOURCE_TYPE,
} from './private/custom-resource-contract';
import { checkSameRegion } from './private/environment';
import { grantsByAlias, kmsKeyGrant, kmsKeyWildcard } from './private/kms';
import { FileSystemMountInfo } from './private/mount-info';
import { acknowledge, findingResource } from './private/nag';
import { estimatePolicyCharacters } from './private/policy-size';
import {
  invalid, setKeys, Shown, validateAvailabilityTimeout, validateBoolean, validateImportSizeThreshold, validatePrefix, validateS3FilesActions, validateWholeDays,
} from './private/validation';
import {
  S3FilesWaiterProvider, waiterServiceTimeout, WAITER_READ_ACTIONS,
} from './private/waiter-provider';
import { S3FilesAccessPoint, S3FilesAccessPointOptions } from './s3files-access-point';

/** CloudFormation takes 1 to 10 import rules per file system. */
const MAX_IMPORT_DATA_RULES = 10;
/** NFS port of the mount targets. */
const NFS_PORT = 2049;
/** The principal S3 Files uses to assume the service role (S3 Files is built on EFS). */
const SERVICE_PRINCIPAL = 'elasticfilesystem.amazonaws.com';
/** Largest file system policy S3 Files accepts, in characters. */
const MAX_FILE_SYSTEM_POLICY_CHARS = 20000;

/**
 * When S3 Files imports object data into the file system's cache.
 */
export class ImportTrigger {
  /** Import small files of a directory when the directory is first accessed (the service default). */
  public static readonly ON_DIRECTORY_FIRST_ACCESS = new ImportTrigger('ON_DIRECTORY_FIRST_ACCESS');
  /** Import a file's data only when that file is accessed. */
  public static readonly ON_FILE_ACCESS = new ImportTrigger('ON_FILE_ACCESS');

  /**
   * Escape hatch for a trigger value newer than this library.
   * @param value the CloudFormation `Trigger` value
   */
  public static of(value: string): ImportTrigger {
    return new ImportTrigger(value);
  }

  /**
   * @param value the CloudFormation `Trigger` value
   */
  private constructor(public readonly value: string) {}
}

/**
 * The IP addresses a mount target gets in its subnet (CloudFormation `IpAddressType`).
 * It must match the subnets: IPv6 needs subnets with an IPv6 CIDR block, IPv4 needs an IPv4 one.
 */
export class MountTargetIpAddressType {
  /** An IPv4 address only (the service default). */
  public static readonly IPV4_ONLY = new MountTargetIpAddressType('IPV4_ONLY');
  /** An IPv6 address only: the subnets need an IPv6 CIDR block. */
  public static readonly IPV6_ONLY = new MountTargetIpAddressType('IPV6_ONLY');
  /** Both an IPv4 and an IPv6 address: the subnets need both kinds of CIDR block. */
  public static readonly DUAL_STACK = new MountTargetIpAddressType('DUAL_STACK');

  /**
   * Escape hatch for a value newer than this library.
   * @param value the CloudFormation `IpAddressType` value
   */
  public static of(value: string): MountTargetIpAddressType {
    return new MountTargetIpAddressType(value);
  }

  /**
   * @param value the CloudFormation `IpAddressType` value
   */
  private constructor(public readonly value: string) {}
}

/**
 * One rule for what S3 Files imports into its cache from the bucket, and when.
 */
export interface ImportDataRule {
  /**
   * The key prefix the rule applies to, as CloudFormation's `ImportDataRule.Prefix` takes it:
   * `''` for everything, else ending with `/`; at most 1,024 characters.
   * @default ''
   */
  readonly prefix?: string;
  /**
   * Files smaller than this are imported (0 to 48 TiB).
   * @default Size.kibibytes(128)
   */
  readonly sizeLessThan?: Size;
  /**
   * When they are imported.
   * @default ImportTrigger.ON_DIRECTORY_FIRST_ACCESS
   */
  readonly trigger?: ImportTrigger;
}

/**
 * Options for an S3 Files file system, everything except the VPC.
 * `S3FilesMountedFunction` accepts these to shape the file system it creates.
 */
export interface S3FilesFileSystemOptions {
  /**
   * Subnets for the mount targets: one mount target per availability zone.
   * Two selected subnets in the same AZ are an error.
   * @default - the VPC's private subnets (PRIVATE_WITH_EGRESS, else PRIVATE_ISOLATED), one per AZ
   */
  readonly vpcSubnets?: ec2.SubnetSelection;

  /**
   * The general-purpose bucket to present as a file system. Versioning must be enabled;
   * for an imported bucket it is verified at deploy time.
   * @default - a new bucket: versioned, SSE-S3 (SSE-KMS with `bucketEncryptionKey`), public access
   * blocked, bucket owner enforced, TLS-only, noncurrent versions expire
   */
  readonly bucket?: s3.IBucket;

  /**
   * Key prefix of the bucket the file system presents: '' (whole bucket) or ending in '/'.
   * @default ''
   */
  readonly prefix?: string;

  /**
   * The bucket's SSE-KMS key. The service role gets the KMS actions it needs
   * (restricted with `kms:ViaService` to S3). For a new bucket, the bucket is encrypted with it.
   * @default - the bucket's own `encryptionKey` if known, else none (SSE-S3)
   */
  readonly bucketEncryptionKey?: kms.IKey;

  /**
   * The customer managed KMS key that encrypts the file system's own storage (file data and
   * metadata at rest in the file system, CloudFormation `KmsKeyId`). It is not the bucket's key:
   * objects in the bucket stay encrypted as the bucket says (`bucketEncryptionKey`). The key must
   * be in the file system's region. Which KMS rights the principal that deploys the stack needs is
   * assumed from EFS, not yet seen in an account: `kms:DescribeKey`,
   * `kms:GenerateDataKeyWithoutPlaintext` and `kms:CreateGrant` on it (a key's default policy lets
   * the account's IAM policies grant them). Create-only: changing it replaces the file system.
   * @see https://docs.aws.amazon.com/AmazonS3/latest/userguide/s3-files-encryption.html
   * @default - an AWS owned key
   */
  readonly fileSystemEncryptionKey?: kms.IKey;

  /**
   * The IP addresses of the mount targets. Checked against the subnets this app defines (an IPv6
   * mount target needs a subnet with an IPv6 CIDR block); imported subnets are checked at deploy
   * time. Create-only: changing it replaces the mount targets.
   * @default MountTargetIpAddressType.IPV4_ONLY
   */
  readonly mountTargetIpAddressType?: MountTargetIpAddressType;

  /**
   * Objects smaller than this are imported into the file system cache; larger reads are
   * served directly from S3.
   * @default - the service's (128 KiB); 128 KiB once another synchronization prop is set
   */
  readonly importSizeThreshold?: Size;

  /**
   * Up to 10 import rules, each for its own key prefix. `importSizeThreshold` and `importTrigger`
   * are shorthand for one rule with prefix `''`; give either those or this.
   * @default - the service's; one rule (prefix '', the two props above) once another synchronization prop is set
   */
  readonly importDataRules?: ImportDataRule[];

  /**
   * When data is imported into the cache.
   * @default - the service's; ON_DIRECTORY_FIRST_ACCESS once another synchronization prop is set
   */
  readonly importTrigger?: ImportTrigger;

  /**
   * Cached data not accessed for this long is dropped from the file system (it stays in S3).
   * Whole days, 1 to 365. Without this and the import props the library writes no synchronization
   * configuration and the service's defaults apply; once any of them is set, CloudFormation needs
   * the one expiration rule, and it is 30 days unless given here.
   * @default - the service's; 30 days once another synchronization prop is set
   */
  readonly expireAfterLastAccess?: Duration;

  /**
   * Noncurrent object versions in the created bucket expire after this period.
   * Only valid when this construct creates the bucket.
   * @default Duration.days(30)
   */
  readonly noncurrentVersionExpiration?: Duration;

  /**
   * Security group for the mount targets. The library adds one rule to it: TCP 2049 from the
   * file system's client security group (`clientSecurityGroup`), which every client joins.
   * @default - a new security group with no other ingress and no egress
   */
  readonly securityGroup?: ec2.ISecurityGroup;

  /**
   * What happens to the file system when it leaves the stack (stack deletion, removal from the
   * app, replacement). Everything a retained file system needs to keep synchronising (its service
   * role and the role's policy) and a bucket this construct creates follow the same policy, and so
   * do they when the policy is changed later with `applyRemovalPolicy` or `RemovalPolicies.of(scope)`.
   * With DESTROY, a delete guard deletes the file system once its mount targets and access points
   * are gone, retrying (up to 30 minutes) while the service reports writes pending export to S3,
   * so the last writes are not lost; a created bucket is emptied and deleted by its own cleaner,
   * only when no file system lists it (never on a file system's replacement). SNAPSHOT is not supported.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;

  /**
   * Create the file system even when S3 Files warns about the bucket (the documented case: so many
   * objects under the prefix, around 12 million, that a directory rename could take hours). It
   * waives nothing else. Off by default so such a bucket fails the deployment with the service's
   * explanation instead of producing a slow file system unnoticed. Create-only: changing it later
   * replaces the file system (a new id; the old one is retained or deleted per `removalPolicy`).
   * @default false
   */
  readonly acceptBucketWarning?: boolean;

  /**
   * Let clients mount the file system's root, not only through an access point. By default the
   * file system policy denies `s3files:ClientMount`, `ClientWrite` and `ClientRootAccess` to every
   * principal when the mount carries no `s3files:AccessPointArn` (the condition key S3 Files
   * evaluates on every mount), so a role with `s3files:Client*` on `*` (an AWS managed client
   * policy, say) can still not bypass the access points' POSIX user and root directory. Set this
   * for administrators who mount the whole file system (`mount -t s3files fs-...:/ ...`), and grant
   * them with `grantRead`/`grantReadWrite`/`grantRootAccess` on the file system.
   * @default false
   */
  readonly allowMountsWithoutAccessPoint?: boolean;

  /**
   * How long the deployment waits for the mount targets and access points to become available.
   * 1 to 55 minutes: CloudFormation gives a custom resource at most one hour, and the waiter's
   * `ServiceTimeout` is set to this plus five minutes.
   * @default Duration.minutes(20)
   */
  readonly availabilityTimeout?: Duration;
}

/**
 * Properties of an S3 Files file system.
 */
export interface S3FilesFileSystemProps extends S3FilesFileSystemOptions {
  /**
   * The VPC of the mount targets (all mount targets of a file system live in one VPC).
   */
  readonly vpc: ec2.IVpc;
}

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
    return this._grantClient(grantee, CLIENT_READ_ACTIONS);
  }

  public grantReadWrite(grantee: iam.IGrantable): iam.Grant {
    return this._grantClient(grantee, CLIENT_READ_WRITE_ACTIONS);
  }

  public grantRootAccess(grantee: iam.IGrantable): iam.Grant {
    return this._grantClient(grantee, CLIENT_ROOT_ACTIONS);
  }

  public grant(grantee: iam.IGrantable, ...actions: string[]): iam.Grant {
    validateS3FilesActions(this, actions);
    return this._grantClient(grantee, actions);
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
   * Grants client actions: an identity-policy statement on the grantee, limited to the access
   * point when one is given (`s3files:AccessPointArn`, the documented condition key of the client
   * actions). It does not name the grantee in this stack, so grantees may live in any stack.
   * @internal
   */
  public _grantClient(grantee: iam.IGrantable, actions: string[], accessPointArn?: string): iam.Grant {
    const conditions = accessPointArn ? { ArnEquals: { 's3files:AccessPointArn': accessPointArn } } : undefined;
    const grant = iam.Grant.addToPrincipal({ grantee, actions, resourceArns: [this.fileSystemArn], conditions });
    // An immutable imported role (mutable: false) reports success but adds nothing.
    const immutable = (grantee.grantPrincipal.constructor as { PROPERTY_INJECTION_ID?: string }).PROPERTY_INJECTION_ID === 'aws-cdk-lib.aws-iam.ImmutableRole';
    if (!grant.success || immutable) {
      const principal = grantee.grantPrincipal;
      const where = Construct.isConstruct(principal) ? principal.node.path : principal.toString();
      Annotations.of(this).addWarningV2('cdk-s3files-lambda:grantNotApplied',
        `${where} could not be granted ${actions.join(', ')}: it is an imported or immutable principal whose policies this app cannot change. Attach a policy allowing ${actions.join(', ')} on this file system${accessPointArn ? ' (condition s3files:AccessPointArn = the access point\'s ARN)' : ''} to it yourself.`);
    }
    return grant;
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

/**
 * An Amazon S3 Files file system over a general-purpose S3 bucket, with its service role,
 * one mount target per AZ, a mount-target security group and a client security group, a file
 * system policy, a deploy-time waiter that completes only when every mount target (and access
 * point) is available, and a delete guard that keeps unexported writes on deletion.
 *
 * @example
 * declare const vpc: ec2.IVpc;
 *
 * // The bucket's docs/ prefix as a file system; /app on it owned by 1000:1000.
 * const fileSystem = new S3FilesFileSystem(this, 'Docs', { vpc, prefix: 'docs/' });
 * const appDir = fileSystem.addAccessPoint('App', { path: '/app' });
 * new S3FilesMountedFunction(this, 'Writer', {
 *   runtime: lambda.Runtime.NODEJS_24_X,
 *   handler: 'index.handler',
 *   code: lambda.Code.fromAsset('lambda'),
 *   fileSystem,
 *   accessPoint: appDir,
 * });
 */
export class S3FilesFileSystem extends S3FilesFileSystemBase implements iam.IResourceWithPolicy {
  /**
   * Imports an existing file system (created elsewhere, in another app or account, or by hand).
   *
   * An imported file system needs no waiter (it exists) and its file-system policy is not this
   * app's to change: grants add identity statements to the grantee.
   * New access points on it (an `S3FilesAccessPoint` given this file system) get a waiter of
   * their own in their stack; existing ones are imported with `fromAccessPointAttributes`.
   * @param scope the scope of the imported construct
   * @param id its id
   * @param attrs what is known of the file system
   */
  public static fromFileSystemAttributes(scope: Construct, id: string, attrs: S3FilesFileSystemAttributes): IS3FilesFileSystem {
    return new ImportedFileSystem(scope, id, attrs);
  }

  /** The file system id (`fs-...`). */
  public readonly fileSystemId: string;
  /** The file system ARN. */
  public readonly fileSystemArn: string;
  /** The bucket the file system presents. */
  public readonly bucket: s3.IBucket;
  /** The key prefix of the bucket the file system presents ('' = whole bucket). */
  public readonly prefix: string;
  /** The bucket's SSE-KMS key, when known. */
  public readonly bucketEncryptionKey?: kms.IKey;
  /** The role S3 Files assumes to synchronise with the bucket. */
  public readonly serviceRole: iam.IRole;
  /** Network access to the mount targets (default port TCP 2049). */
  public readonly connections: ec2.Connections;
  /**
   * Clients join this security group to reach the mount targets over NFS. The mount-target group
   * has one rule for it, so any number of clients costs no further rules, and clients in other
   * stacks only reference it (no rule in this stack names them).
   */
  public readonly clientSecurityGroup: ec2.ISecurityGroup;
  /** The VPC of the mount targets. */
  public readonly vpc: ec2.IVpc;
  /** Completes when every mount target and access point is available. Depend on this, not on the mount targets. */
  public readonly mountTargetsAvailable: IDependable;

  /** Number of mount targets (one per AZ). @internal */
  public readonly _mountTargetCount: number;
  /** The waiter's timeout in seconds (a token when availabilityTimeout is one). @internal */
  public readonly _availabilityTimeoutSeconds: number;

  private readonly resource: s3files.CfnFileSystem;
  private readonly ownsBucket: boolean;
  private readonly mountTargetAzs: AzCoverage;
  private readonly accessPoints: S3FilesAccessPoint[] = [];
  private readonly resourcePolicyStatements: iam.PolicyStatement[] = [];
  private readonly policyResource: s3files.CfnFileSystemPolicy;
  private readonly allowMountsWithoutAccessPoint: boolean;
  private readonly waiter: CustomResource;
  private readonly deleteGuard: CustomResource;
  /** The handlers' rights on this file system (waiter reads; guard deletes with DESTROY). */
  private readonly handlerPolicy: iam.CfnPolicy;

  constructor(scope: Construct, id: string, props: S3FilesFileSystemProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    rejectSnapshot(this, 'removalPolicy', removalPolicy);

    this.vpc = props.vpc;
    this.prefix = props.prefix ?? '';
    validatePrefix(this, this.prefix);
    this._availabilityTimeoutSeconds = validateAvailabilityTimeout(this,
      props.availabilityTimeout ?? Duration.seconds(DEFAULT_AVAILABILITY_TIMEOUT_SECONDS));

    // ---- bucket
    const importedBucket = props.bucket !== undefined;
    this.ownsBucket = !importedBucket;
    if (importedBucket && props.noncurrentVersionExpiration) {
      invalid(this, 'noncurrentVersionExpiration', props.noncurrentVersionExpiration,
        'it only applies to a bucket this construct creates, but `bucket` was given', 'configure the lifecycle on your bucket and drop noncurrentVersionExpiration');
    }
    this.bucketEncryptionKey = props.bucketEncryptionKey ?? props.bucket?.encryptionKey;
    this.bucket = props.bucket ?? this.createBucket(props);
    this.checkBucketLocation();

    // ---- service role (its policy is a separate resource the file system depends on)
    const role = new iam.Role(this, 'ServiceRole', {
      description: 'Assumed by Amazon S3 Files to synchronise the file system with its bucket',
      assumedBy: new iam.ServicePrincipal(SERVICE_PRINCIPAL).withConditions({
        StringEquals: { 'aws:SourceAccount': stack.account },
        ArnLike: { 'aws:SourceArn': stack.formatArn({ service: 's3files', resource: 'file-system', resourceName: '*' }) },
      }),
    });
    this.serviceRole = role;
    // Keyed like the delete guard: a replacement adds a policy for the new file system, and the old
    // one keeps its rights until it is deleted (DESTROY) or retained with it (RETAIN), so its last
    // writes still reach S3. Updated in place, the old prefix or bucket would lose them first.
    const replacement = this.replacementHash(role, props);
    const rolePolicy = new iam.Policy(this, `ServiceRolePolicy${replacement}`, {
      roles: [role],
      statements: this.serviceRoleStatements(),
    });
    this.acknowledgeServiceRoleFindings(rolePolicy);

    // ---- file system
    this.resource = new s3files.CfnFileSystem(this, 'Resource', {
      bucket: this.bucket.bucketArn,
      roleArn: role.roleArn,
      prefix: this.prefix === '' ? undefined : this.prefix,
      kmsKeyId: this.fileSystemKeyId(props.fileSystemEncryptionKey),
      synchronizationConfiguration: this.synchronizationConfiguration(props),
      // Only when set: omitting it keeps the templates of everyone who never asked for it unchanged.
      acceptBucketWarning: this.acceptBucketWarning(props.acceptBucketWarning),
    });
    // Without its S3 and EventBridge rights in place the service fails silently: wait for the policy.
    this.resource.node.addDependency(rolePolicy);
    this.resource.applyRemovalPolicy(removalPolicy);
    // A retained file system keeps exporting and importing only while its role and the role's
    // policy exist; a created bucket keeps the data. They follow the *final* policy of the file
    // system, however it was set (prop, applyRemovalPolicy, RemovalPolicies.of, an aspect).
    for (const follower of [role.node.defaultChild, rolePolicy.node.defaultChild]) {
      if (follower instanceof CfnResource) this.followRemovalPolicy(follower, () => this.resource.cfnOptions);
    }
    // A created bucket follows too, unless it was given a removal policy of its own
    // (bucket.applyRemovalPolicy, RemovalPolicies.of): then that one counts, and the cleaner empties
    // it only if it is deleted. Decided after every mutating aspect has run.
    if (this.ownsBucket) {
      const bucketCfn = this.bucket.node.defaultChild as CfnResource;
      Aspects.of(this.bucket).add({
        visit: (node) => {
          if (!(node instanceof CfnResource) || (node !== bucketCfn && node !== this.bucket.policy?.node.defaultChild)) return;
          const own = bucketCfn.cfnOptions;
          const fs = this.resource.cfnOptions;
          node.cfnOptions.deletionPolicy = own.deletionPolicy ?? fs.deletionPolicy;
          node.cfnOptions.updateReplacePolicy = own.updateReplacePolicy ?? fs.updateReplacePolicy;
        },
      }, { priority: AspectPriority.DEFAULT + 100 });
    }
    this.node.addValidation({ validate: () => this.validateFinalRemovalPolicy() });
    this.fileSystemId = this.resource.attrFileSystemId;
    this.fileSystemArn = this.resource.attrFileSystemArn;

    // ---- delete guard: everything using the file system depends on it, so on deletion it runs
    // after they are gone and deletes the file system itself (DESTROY only), without forceDelete.
    const provider = S3FilesWaiterProvider.getOrCreate(this);
    ({ guard: this.deleteGuard, policy: this.handlerPolicy } = this.createDeleteGuard(provider, replacement));
    if (this.ownsBucket) this.deleteGuard.node.addDependency(this.createBucketCleaner(provider));

    // ---- network: one client group; one rule on the mount-target group, whatever the number of clients
    const securityGroup = props.securityGroup ?? new ec2.SecurityGroup(this, 'MountTargetSecurityGroup', {
      vpc: this.vpc,
      description: 'S3 Files mount targets: NFS (TCP 2049) only from the client security group',
      allowAllOutbound: false,
    });
    this.connections = new ec2.Connections({ securityGroups: [securityGroup], defaultPort: ec2.Port.tcp(NFS_PORT) });
    const clientSecurityGroup = new ec2.SecurityGroup(this, 'ClientSecurityGroup', {
      vpc: this.vpc,
      description: 'S3 Files clients: members reach the mount targets over NFS (TCP 2049)',
      allowAllOutbound: false,
    });
    // Explicit rules with fixed ids: the ids Connections.allowTo gives embed the construct path, so a
    // Stage move would recreate them, and EC2 refuses the duplicate before the old one is deleted.
    const nfsRules = [
      new ec2.CfnSecurityGroupIngress(this, 'NfsFromClients', {
        groupId: securityGroup.securityGroupId,
        ipProtocol: 'tcp',
        fromPort: NFS_PORT,
        toPort: NFS_PORT,
        sourceSecurityGroupId: clientSecurityGroup.securityGroupId,
        description: 'NFS from the S3 Files client security group',
      }),
      new ec2.CfnSecurityGroupEgress(this, 'NfsToMountTargets', {
        groupId: clientSecurityGroup.securityGroupId,
        ipProtocol: 'tcp',
        fromPort: NFS_PORT,
        toPort: NFS_PORT,
        destinationSecurityGroupId: securityGroup.securityGroupId,
        description: 'NFS to the S3 Files mount targets',
      }),
    ];
    this.clientSecurityGroup = clientSecurityGroup;

    // ---- mount targets, keyed by AZ: dropping one AZ leaves the others' logical ids alone
    const targets = this.selectMountTargetSubnets(props.vpcSubnets);
    this.mountTargetAzs = new AzCoverage(targets.map(t => t.az));
    const ipAddressType = props.mountTargetIpAddressType;
    if (ipAddressType !== undefined && typeof (ipAddressType as Partial<MountTargetIpAddressType>)?.value !== 'string') {
      invalid(this, 'mountTargetIpAddressType', ipAddressType, 'it must be a MountTargetIpAddressType, not a string',
        'use MountTargetIpAddressType.DUAL_STACK (or IPV4_ONLY, IPV6_ONLY, or MountTargetIpAddressType.of(value) for a newer value)');
    }
    if (ipAddressType) targets.forEach(({ subnet }) => checkSubnetIpFamilies(this, subnet, ipAddressType));
    const mountTargets = targets.map(({ subnet, az }) => {
      const mt = new s3files.CfnMountTarget(this, `MountTarget${az.idKey ?? az.key}`, {
        fileSystemId: this.fileSystemId,
        subnetId: subnet.subnetId,
        securityGroups: [securityGroup.securityGroupId],
        ipAddressType: ipAddressType?.value,
      });
      mt.node.addDependency(this.deleteGuard);
      return mt;
    });
    this._mountTargetCount = mountTargets.length;

    // ---- file system policy: TLS only; client mounts only through an access point (unless allowed)
    this.allowMountsWithoutAccessPoint = validateBoolean(this, 'allowMountsWithoutAccessPoint', props.allowMountsWithoutAccessPoint ?? false);
    this.policyResource = new s3files.CfnFileSystemPolicy(this, 'FileSystemPolicy', {
      fileSystemId: this.fileSystemId,
      policy: Lazy.any({ produce: () => this.renderResourcePolicy() }),
    });
    this.policyResource.node.addDependency(this.deleteGuard);
    this.node.addValidation({ validate: () => this.validatePolicySize() });

    // ---- waiter (its read rights are in the per-file-system handler policy, with the guard's)
    if (importedBucket) provider.grantVerifyBucketVersioning(this.bucket);
    this.waiter = this.createWaiter(this, 'MountTargetsAvailable', provider,
      Lazy.list({ produce: () => this.accessPoints.map(ap => ap.accessPointId) }),
      { name: this.bucket.bucketName, verifyVersioning: importedBucket });
    // Clients wait for this, so it also stands for the NFS rules being in place.
    this.waiter.node.addDependency(...mountTargets, securityGroup, clientSecurityGroup, ...nfsRules, this.handlerPolicy);
    this.mountTargetsAvailable = this.waiter;
  }

  /** @internal */
  public _mountInfo(): FileSystemMountInfo {
    return {
      vpc: this.vpc,
      clientSecurityGroup: this.clientSecurityGroup,
      bucket: this.bucket,
      prefix: this.prefix,
      bucketEncryptionKey: this.bucketEncryptionKey,
      policyDependable: this.policyResource,
      checkAzCoverage: (scope, prop, subnets) => this._checkAzCoverage(scope, prop, subnets),
    };
  }

  /**
   * The file system policy resource: depend on it to use the file system only once its policy is in place.
   */
  public get policyDependable(): IDependable {
    return this.policyResource;
  }

  /**
   * Adds a statement to the file system policy (`AWS::S3Files::FileSystemPolicy`), for example the
   * documented per-role pair (an Allow and a Deny naming a role ARN in `Principal`, conditioned on
   * `s3files:AccessPointArn`) that keeps a role to one access point. The policy's own Denies
   * (no TLS; no access point, unless `allowMountsWithoutAccessPoint`) still apply.
   * @param statement the statement to add
   */
  public addToResourcePolicy(statement: iam.PolicyStatement): iam.AddToResourcePolicyResult {
    this.resourcePolicyStatements.push(statement);
    return { statementAdded: true, policyDependable: this.policyResource };
  }

  /**
   * Sets the removal policy of the file system. The service role, its policy, a created bucket
   * and the delete guard follow it.
   * @param policy RETAIN, RETAIN_ON_UPDATE_OR_DELETE or DESTROY (S3 Files has no snapshots)
   */
  public applyRemovalPolicy(policy: RemovalPolicy): void {
    rejectSnapshot(this, 'applyRemovalPolicy', policy);
    super.applyRemovalPolicy(policy);
  }


  /**
   * Registers an access point of this file system; returns what its clients must wait for.
   * An access point in this stack joins the file system's waiter. One in another stack (sibling
   * or nested) gets a waiter of its own in its stack: listing it in this stack's waiter would
   * make the two stacks reference each other.
   * @internal
   */
  public _registerAccessPoint(accessPoint: S3FilesAccessPoint): IDependable {
    // Deleted before the delete guard deletes the file system (a stack dependency across stacks).
    accessPoint.node.addDependency(this.deleteGuard);
    if (Stack.of(accessPoint) === Stack.of(this)) {
      this.accessPoints.push(accessPoint);
      return this.waiter;
    }
    const provider = S3FilesWaiterProvider.getOrCreate(accessPoint);
    provider.grantReadFileSystem(this.fileSystemArn);
    const own = this.createWaiter(accessPoint, 'Available', provider, [accessPoint.accessPointId]);
    const ready = new DependencyGroup();
    ready.add(this.waiter, own);
    return ready;
  }

  /**
   * Fails when a client's subnets are in an AZ without a mount target (Lambda rejects such a
   * function at deploy time). Warns when the AZs are only known at deploy time.
   * @internal
   */
  public _checkAzCoverage(scope: IConstruct, prop: string, subnets: ec2.ISubnet[]): void {
    this.mountTargetAzs.check(scope, prop, subnets, this.node.path, ', or add those AZs to the file system\'s vpcSubnets');
  }


  private createWaiter(
    scope: Construct, id: string, provider: S3FilesWaiterProvider, accessPointIds: string[],
    bucket?: { readonly name: string; readonly verifyVersioning: boolean },
  ): CustomResource {
    return createWaiter(scope, id, provider, {
      fileSystemId: this.fileSystemId,
      mountTargetCount: this._mountTargetCount,
      accessPointIds,
      timeoutSeconds: this._availabilityTimeoutSeconds,
      bucket,
    });
  }

  /** The key's ARN; a literal ARN in another region than the stack's is refused (the service needs the file system's region). */
  private fileSystemKeyId(key: kms.IKey | undefined): string | undefined {
    if (!key) return undefined;
    const arn: unknown = (key as Partial<kms.IKey>).keyArn;
    if (typeof arn !== 'string') {
      invalid(this, 'fileSystemEncryptionKey', key, 'it must be a KMS key object, not its id or ARN', 'pass kms.Key.fromKeyArn(scope, \'Key\', keyArn), or a key this app creates');
    }
    const region = Stack.of(this).region;
    if (!Token.isUnresolved(arn) && !Token.isUnresolved(region)) {
      const keyRegion = arn.split(':')[3];
      if (keyRegion && keyRegion !== region) {
        invalid(this, 'fileSystemEncryptionKey', arn, `the key is in ${keyRegion} but the file system is in ${region}, and S3 Files needs a key in the file system's region`,
          `use a key (or a multi-Region replica) in ${region}`);
      }
    }
    return arn;
  }

  private acceptBucketWarning(value: unknown): true | undefined {
    if (value === undefined || value === false) return undefined;
    if (value === true || Token.isUnresolved(value)) return value as true;
    return invalid(this, 'acceptBucketWarning', value, 'it must be a boolean', 'pass true to create the file system despite a bucket warning, or omit it');
  }

  private createBucket(props: S3FilesFileSystemProps): s3.IBucket {
    const noncurrentDays = validateWholeDays(this, 'noncurrentVersionExpiration', props.noncurrentVersionExpiration ?? Duration.days(30), 1, 36500);
    const bucket = new s3.Bucket(this, 'Bucket', {
      versioned: true,
      encryption: this.bucketEncryptionKey ? s3.BucketEncryption.KMS : s3.BucketEncryption.S3_MANAGED,
      encryptionKey: this.bucketEncryptionKey,
      bucketKeyEnabled: this.bucketEncryptionKey ? true : undefined,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      lifecycleRules: [{
        id: 'ExpireNoncurrentVersionsAndAbortUploads',
        noncurrentVersionExpiration: Duration.days(noncurrentDays),
        abortIncompleteMultipartUploadAfter: Duration.days(7),
      }],
      // Follows the file system's final removal policy unless given its own (see bucketRemoval).
      // With DESTROY its cleaner empties it, only once no file system lists it.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    // Unset, so a removal policy the user gives the bucket later is recognised as theirs.
    const cfn = bucket.node.defaultChild as CfnResource;
    cfn.cfnOptions.deletionPolicy = undefined;
    cfn.cfnOptions.updateReplacePolicy = undefined;
    acknowledge(bucket, 'AwsSolutions-S1',
      'Server access logs need a second bucket the owner chooses; object access through the file system is audited with CloudTrail data events. Pass your own bucket (with logging) as `bucket` to log it.');
    return bucket;
  }

  /** Copies the file system's final DeletionPolicy/UpdateReplacePolicy onto `resource` at synthesis. */
  private followRemovalPolicy(resource: CfnResource, from: () => { deletionPolicy?: CfnDeletionPolicy; updateReplacePolicy?: CfnDeletionPolicy }): void {
    resource.addOverride('DeletionPolicy', Lazy.string({ produce: () => from().deletionPolicy }));
    resource.addOverride('UpdateReplacePolicy', Lazy.string({ produce: () => from().updateReplacePolicy }));
  }

  /** True when a created bucket's final removal policy deletes it (then its cleaner empties it). */
  private get emptiesBucket(): boolean {
    return this.ownsBucket && (this.bucket.node.defaultChild as CfnResource).cfnOptions.deletionPolicy === CfnDeletionPolicy.DELETE;
  }

  /**
   * A hash of what replaces the file system when it changes (bucket, prefix, role and, only when
   * set, the key and acceptBucketWarning), as CloudFormation sees it (values, or references by
   * logical id), never construct paths: moving the stack into a Stage, or the construct into
   * another scope with the same logical ids, keeps it. The delete guard and the service-role
   * policy are keyed by it.
   */
  private replacementHash(role: iam.IRole, props: S3FilesFileSystemOptions): string {
    const key = props.fileSystemEncryptionKey;
    const identity = Stack.of(this).resolve({
      bucket: this.bucket.bucketName,
      prefix: this.prefix,
      role: role.roleArn,
      // The other create-only properties, only when set: the ids of everyone else stay.
      ...(key ? { fileSystemKey: key.keyArn } : {}),
      ...(props.acceptBucketWarning === true ? { acceptBucketWarning: true } : {}),
    });
    return crypto.createHash('sha256').update(JSON.stringify(identity)).digest('hex').slice(0, 8);
  }

  /** True when the file system's final removal policy deletes it. */
  private get destroyOnDelete(): boolean {
    return this.resource.cfnOptions.deletionPolicy === CfnDeletionPolicy.DELETE;
  }

  private validateFinalRemovalPolicy(): string[] {
    const policy = this.resource.cfnOptions.deletionPolicy;
    return policy === CfnDeletionPolicy.SNAPSHOT
      ? [`${this.node.path}: invalid removal policy SNAPSHOT (set on the file system after construction): S3 Files file systems have no snapshots. Fix: use RemovalPolicy.RETAIN or RemovalPolicy.DESTROY.`]
      : [];
  }

  /**
   * The delete guard and its own IAM policy, keyed by what replaces the file system (bucket,
   * prefix, role). A replacement then creates a new guard and policy, and CloudFormation deletes
   * the old pair in its cleanup phase: the old guard still holds the old file system's id and its
   * policy still names the old ARN. Removing the file system from the app removes the pair too;
   * the guard depends on its policy, so the policy outlives the guard's Delete.
   */
  private createDeleteGuard(provider: S3FilesWaiterProvider, hash: string): { guard: CustomResource; policy: iam.CfnPolicy } {
    const scope = new Construct(this, `DeleteGuard${hash}`);
    const handlerRole = provider.isCompleteFunction.role!;
    const policy = new iam.CfnPolicy(scope, 'Policy', {
      policyName: Names.uniqueResourceName(scope, { maxLength: 128 }),
      roles: [handlerRole.roleName],
      policyDocument: Lazy.any({ produce: () => this.renderGuardPolicy() }),
    });
    this.acknowledgeGuardFindings(policy);
    const guard = new CustomResource(scope, 'Resource', {
      serviceToken: provider.serviceToken,
      resourceType: DELETE_GUARD_RESOURCE_TYPE,
      serviceTimeout: Duration.seconds(CUSTOM_RESOURCE_MAX_SECONDS),
      properties: {
        FileSystemId: this.fileSystemId,
        // Always present, so switching DESTROY -> RETAIN is an Update (no-op), never a Delete that deletes.
        DeleteFileSystem: Lazy.string({ produce: () => (this.destroyOnDelete ? 'true' : 'false') }),
        DeleteTimeoutSeconds: String(DELETE_TIMEOUT_SECONDS),
        TotalTimeoutSeconds: String(GUARD_TOTAL_SECONDS),
      },
    });
    guard.node.addDependency(policy);
    return { guard, policy };
  }

  /**
   * For a bucket this construct created: the cleaner that empties and deletes it when the bucket
   * itself goes (DESTROY only), keyed by the bucket, so a file system's replacement or rollback
   * never reaches it. Every delete guard depends on it, so on stack deletion it runs after the file
   * system is deleted; it waits until no file system lists the bucket, and retries S3's
   * BucketHasS3FileSystemAttached while the detachment completes. Its rights are in a policy of
   * its own that outlives its Delete.
   */
  private createBucketCleaner(provider: S3FilesWaiterProvider): CustomResource {
    const scope = new Construct(this, 'BucketCleaner');
    const policy = new iam.CfnPolicy(scope, 'Policy', {
      policyName: Names.uniqueResourceName(scope, { maxLength: 128 }),
      roles: [provider.isCompleteFunction.role!.roleName],
      policyDocument: Lazy.any({ produce: () => this.renderCleanerPolicy() }),
    });
    acknowledge(policy, 'AwsSolutions-IAM5[Resource::*]',
      's3files:ListFileSystems has no resource-level permissions; the cleaner lists the file systems of its bucket and empties it only when there is none.');
    acknowledge(policy, `AwsSolutions-IAM5[${findingResource(this, this.bucket.arnForObjects('*'))}]`,
      'Only with RemovalPolicy.DESTROY on a bucket this construct created: the cleaner empties it (every object version) once no file system uses it.');
    const cleaner = new CustomResource(scope, 'Resource', {
      serviceToken: provider.serviceToken,
      resourceType: BUCKET_CLEANER_RESOURCE_TYPE,
      serviceTimeout: Duration.seconds(CUSTOM_RESOURCE_MAX_SECONDS),
      properties: {
        BucketArn: this.bucket.bucketArn,
        // Always present, so switching DESTROY -> RETAIN is an Update (no-op), never a Delete that empties.
        EmptyOnDelete: Lazy.string({ produce: () => (this.emptiesBucket ? 'true' : 'false') }),
        TotalTimeoutSeconds: String(GUARD_TOTAL_SECONDS),
      },
    });
    cleaner.node.addDependency(policy);
    return cleaner;
  }

  /** The cleaner's rights: a read always (a policy needs a statement); emptying and deletion only with DESTROY. */
  private renderCleanerPolicy(): iam.PolicyDocument {
    const doc = new iam.PolicyDocument();
    // ListFileSystems has no resource-level permissions.
    doc.addStatements(new iam.PolicyStatement({ actions: ['s3files:ListFileSystems'], resources: ['*'] }));
    if (!this.emptiesBucket) return doc;
    doc.addStatements(
      new iam.PolicyStatement({ actions: ['s3:ListBucket', 's3:ListBucketVersions', 's3:DeleteBucket'], resources: [this.bucket.bucketArn] }),
      new iam.PolicyStatement({ actions: ['s3:DeleteObject', 's3:DeleteObjectVersion'], resources: [this.bucket.arnForObjects('*')] }),
    );
    return doc;
  }

  /**
   * The handlers' rights on this file system: the waiter's reads always; the guard's deletion,
   * clean-up and emptying only when the final policy is DESTROY. No Sids: every file system's
   * policy counts against IAM's 10,240 characters of inline policies on the one handler role.
   */
  private renderGuardPolicy(): iam.PolicyDocument {
    const doc = new iam.PolicyDocument();
    doc.addStatements(new iam.PolicyStatement({
      actions: HANDLER_READ_ACTIONS,
      resources: [this.fileSystemArn, `${this.fileSystemArn}/access-point/*`],
    }));
    if (!this.destroyOnDelete) return doc;
    const stack = Stack.of(this);
    doc.addStatements(
      new iam.PolicyStatement({ actions: ['s3files:DeleteFileSystem'], resources: [this.fileSystemArn] }),
      // What CloudFormation's own delete handler holds: the service removes its EventBridge rules on the caller's behalf.
      new iam.PolicyStatement({ actions: GUARD_EVENTS_ACTIONS, resources: [eventsRuleArn(stack)] }),
    );
    return doc;
  }

  private acknowledgeGuardFindings(policy: iam.CfnPolicy): void {
    acknowledge(policy, `AwsSolutions-IAM5[${findingResource(this, `${this.fileSystemArn}/access-point/*`)}]`,
      'Read-only, on the access points of this one file system: their ids exist only after creation, and the waiter checks each one.');
    acknowledge(policy, `AwsSolutions-IAM5[${findingResource(this, eventsRuleArn(Stack.of(this)))}]`,
      'The service names its EventBridge rules DO-NOT-DELETE-S3-Files* and removes them on the caller\'s behalf when the file system is deleted (the same rights CloudFormation\'s own delete handler holds).');
  }

  /** S3 Files needs the bucket in the file system's region; warn on a foreign account. */
  private checkBucketLocation(): void {
    const stack = Stack.of(this);
    const { region, account } = this.bucket.env;
    if (!Token.isUnresolved(region) && !Token.isUnresolved(stack.region) && region !== stack.region) {
      invalid(this, 'bucket', this.bucket.bucketName, `the bucket is in ${region} but the file system is in ${stack.region}`, 'use a bucket in the same region as the stack');
    }
    if (!Token.isUnresolved(account) && !Token.isUnresolved(stack.account) && account !== stack.account) {
      Annotations.of(this).addWarningV2('cdk-s3files-lambda:crossAccountBucket',
        `bucket is owned by account ${account}, not ${stack.account}: its bucket policy must allow the service role, and versioning is only checked at deploy time.`);
    }
  }

  /** The service role's documented rights are wildcards by design; say why, on the policy only. */
  private acknowledgeServiceRoleFindings(policy: iam.Policy): void {
    const stack = Stack.of(this);
    for (const action of ['s3:GetObject*', 's3:PutObject*', 's3:DeleteObject*']) {
      acknowledge(policy, `AwsSolutions-IAM5[Action::${action}]`,
        'S3 Files synchronises objects with their versions, tags and ACL-free metadata; these are the action families AWS documents for the file system role, limited to the objects under the prefix and the bucket account.');
    }
    acknowledge(policy, `AwsSolutions-IAM5[${findingResource(this, this.bucket.arnForObjects(`${this.prefix}*`))}]`,
      'The file system presents every object under its prefix, so the service role needs all of them (and only them).');
    acknowledge(policy, `AwsSolutions-IAM5[${findingResource(this, `arn:${stack.partition}:events:*:*:rule/DO-NOT-DELETE-S3-Files*`)}]`,
      'The service names its EventBridge rules DO-NOT-DELETE-S3-Files*; the statement also requires events:ManagedBy = elasticfilesystem.amazonaws.com.');
    acknowledge(policy, `AwsSolutions-IAM5[${findingResource(this, `arn:${stack.partition}:events:*:*:rule/*`)}]`,
      'Read-only: the service describes rules and lists their targets to find its own. Without it S3-side changes silently never reach the file system.');
    acknowledge(policy, 'AwsSolutions-IAM5[Resource::*]',
      'events:ListRules and events:ListRuleNamesByTarget have no resource-level permissions (AWS service authorization reference); read-only, the service lists rules to find its own.');
    if (this.bucketEncryptionKey && grantsByAlias(this.bucketEncryptionKey)) {
      acknowledge(policy, `AwsSolutions-IAM5[${findingResource(this, kmsKeyWildcard(stack))}]`,
        'The encryption key was given as an alias: the statement covers only the key that carries this alias (kms:ResourceAliases condition).');
    }
  }

  private serviceRoleStatements(): iam.PolicyStatement[] {
    const stack = Stack.of(this);
    const inBucketAccount = { StringEquals: { 'aws:ResourceAccount': this.bucket.env.account } };
    const statements = [
      new iam.PolicyStatement({
        sid: 'S3BucketAccess',
        actions: ['s3:ListBucket', 's3:ListBucketVersions', 's3:GetBucketLocation', 's3:GetBucketVersioning'],
        resources: [this.bucket.bucketArn],
        conditions: inBucketAccount,
      }),
      new iam.PolicyStatement({
        sid: 'S3ObjectAccess',
        actions: ['s3:GetObject*', 's3:PutObject*', 's3:DeleteObject*', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'],
        resources: [this.bucket.arnForObjects(`${this.prefix}*`)],
        conditions: inBucketAccount,
      }),
      // Missing EventBridge rights fail silently: S3-side changes would never reach the mount.
      new iam.PolicyStatement({
        sid: 'EventBridgeManageS3FilesRules',
        actions: ['events:PutRule', 'events:PutTargets', 'events:DeleteRule', 'events:DisableRule', 'events:EnableRule', 'events:RemoveTargets'],
        resources: [`arn:${stack.partition}:events:*:*:rule/DO-NOT-DELETE-S3-Files*`],
        conditions: { StringEquals: { 'events:ManagedBy': SERVICE_PRINCIPAL } },
      }),
      new iam.PolicyStatement({
        sid: 'EventBridgeReadRules',
        actions: ['events:DescribeRule', 'events:ListTargetsByRule'],
        resources: [`arn:${stack.partition}:events:*:*:rule/*`],
      }),
      // AWS's service authorization reference lists no resource type for these two: on rule/* they
      // would authorize nothing (the examples in the S3 Files docs put them there).
      new iam.PolicyStatement({
        sid: 'EventBridgeListRules',
        actions: ['events:ListRules', 'events:ListRuleNamesByTarget'],
        resources: ['*'],
      }),
    ];
    if (this.bucketEncryptionKey) {
      statements.push(new iam.PolicyStatement({
        sid: 'KmsForBucketEncryption',
        actions: ['kms:GenerateDataKey', 'kms:Encrypt', 'kms:Decrypt', 'kms:ReEncryptFrom', 'kms:ReEncryptTo'],
        ...kmsKeyGrant(this.bucketEncryptionKey, { StringEquals: { 'kms:ViaService': `s3.${stack.region}.${stack.urlSuffix}` } }),
      }));
    }
    return statements;
  }

  private synchronizationConfiguration(props: S3FilesFileSystemOptions): s3files.CfnFileSystem.SynchronizationConfigurationProperty | undefined {
    const shorthand = props.importSizeThreshold !== undefined || props.importTrigger !== undefined;
    if (props.importDataRules === undefined && !shorthand && props.expireAfterLastAccess === undefined) {
      return undefined; // service defaults
    }
    if (props.importDataRules !== undefined && shorthand) {
      invalid(this, 'importDataRules', `${props.importDataRules.length} rule(s)`, 'importSizeThreshold and importTrigger are shorthand for one rule with prefix "", and both were given',
        'put that rule into importDataRules (prefix "") and drop importSizeThreshold and importTrigger');
    }
    const rules = props.importDataRules ?? [{ prefix: '', sizeLessThan: props.importSizeThreshold, trigger: props.importTrigger }];
    if (!Array.isArray(rules) || rules.length < 1 || rules.length > MAX_IMPORT_DATA_RULES) {
      invalid(this, 'importDataRules', Array.isArray(rules) ? `${rules.length} rules` : rules, `S3 Files takes 1 to ${MAX_IMPORT_DATA_RULES} import rules`,
        `give between 1 and ${MAX_IMPORT_DATA_RULES} rules (or omit importDataRules for the default)`);
    }
    const seen = new Set<string>();
    const importDataRules = rules.map((rule, i) => {
      // The single-rule props keep their own names in errors.
      const name = (field: string, shorthandProp: string) => (props.importDataRules ? `importDataRules[${i}].${field}` : shorthandProp);
      const prefix = rule.prefix ?? '';
      validatePrefix(this, prefix, name('prefix', 'prefix'));
      if (!Token.isUnresolved(prefix)) {
        if (seen.has(prefix)) {
          invalid(this, name('prefix', 'prefix'), prefix, 'two import rules have the same prefix', 'give each rule its own prefix');
        }
        seen.add(prefix);
      }
      const sizeLessThan = validateImportSizeThreshold(this, rule.sizeLessThan ?? Size.kibibytes(128), name('sizeLessThan', 'importSizeThreshold'));
      const trigger = this.importTriggerValue(rule.trigger, name('trigger', 'importTrigger'));
      return { prefix, sizeLessThan, trigger };
    });
    const days = validateWholeDays(this, 'expireAfterLastAccess', props.expireAfterLastAccess ?? Duration.days(30), 1, 365);
    return {
      importDataRules,
      expirationDataRules: [{ daysAfterLastAccess: days }],
    };
  }

  private importTriggerValue(value: ImportTrigger | undefined, prop: string): string {
    const trigger = (value ?? ImportTrigger.ON_DIRECTORY_FIRST_ACCESS).value;
    if (typeof trigger !== 'string') {
      invalid(this, prop, value, 'it must be an ImportTrigger', 'use ImportTrigger.ON_DIRECTORY_FIRST_ACCESS or ImportTrigger.ON_FILE_ACCESS');
    }
    if (!Token.isUnresolved(trigger) && !/^[A-Z][A-Z_]*$/.test(trigger)) {
      invalid(this, prop, trigger, 'CloudFormation expects an upper-case value such as ON_FILE_ACCESS',
        'use ImportTrigger.ON_DIRECTORY_FIRST_ACCESS or ImportTrigger.ON_FILE_ACCESS');
    }
    return trigger;
  }


  /** Default: private subnets (isolated ones count), one per AZ. Explicit: must already be one per AZ. */
  private selectMountTargetSubnets(selection?: ec2.SubnetSelection): Array<{ subnet: ec2.ISubnet; az: AzRef }> {
    let subnets: ec2.ISubnet[];
    if (selection) {
      try {
        subnets = this.vpc.selectSubnets(selection).subnets;
      } catch (e) {
        invalid(this, 'vpcSubnets', { ...selection, subnets: selection.subnets?.map(sn => sn.node.path) },
          `the VPC cannot satisfy it (${(e as Error).message.split('\n')[0]})`, 'select subnet groups that exist in the VPC');
      }
    } else {
      const hasPrivate = this.vpc.privateSubnets.length > 0;
      if (!hasPrivate && this.vpc.isolatedSubnets.length === 0) {
        invalid(this, 'vpc', this.vpc.node.path, 'it has no private or isolated subnets for the mount targets',
          'add PRIVATE_ISOLATED or PRIVATE_WITH_EGRESS subnets to the VPC, or pass vpcSubnets explicitly');
      }
      subnets = this.vpc.selectSubnets({
        subnetType: hasPrivate ? ec2.SubnetType.PRIVATE_WITH_EGRESS : ec2.SubnetType.PRIVATE_ISOLATED,
        onePerAz: true,
      }).subnets;
    }
    if (subnets.length === 0) {
      invalid(this, 'vpcSubnets', selection ? setKeys(selection) : new Shown('(the default private subnets)'), 'it selects no subnets, so there would be no mount target', 'select at least one subnet');
    }
    const stack = Stack.of(this);
    const byAz = new Map<string, ec2.ISubnet>();
    return subnets.map((subnet) => {
      const az = subnetAz(this, stack, subnet);
      const other = byAz.get(az.key);
      if (other) {
        invalid(this, 'vpcSubnets', [subnetLabel(other), subnetLabel(subnet)], `both subnets are in availability zone ${az.label}, and S3 Files allows one mount target per AZ`,
          'select one subnet per AZ (the onePerAz option of the subnet selection)');
      }
      byAz.set(az.key, subnet);
      return { subnet, az };
    });
  }

  private renderResourcePolicy(): iam.PolicyDocument {
    const doc = new iam.PolicyDocument();
    doc.addStatements(
      new iam.PolicyStatement({
        sid: 'DenyInsecureTransport',
        effect: iam.Effect.DENY,
        principals: [new iam.AnyPrincipal()],
        actions: ['s3files:*'],
        resources: [this.fileSystemArn],
        conditions: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    );
    if (!this.allowMountsWithoutAccessPoint) {
      // Within one account an Allow in either the identity or the resource policy suffices, so
      // only a Deny restricts. S3 Files evaluates s3files:AccessPointArn on every mount; it is
      // absent only when no access point is used, so this denies root mounts to everyone
      // (a role holding s3files:Client* on "*" included), and nothing else.
      doc.addStatements(new iam.PolicyStatement({
        sid: 'DenyMountsWithoutAccessPoint',
        effect: iam.Effect.DENY,
        principals: [new iam.AnyPrincipal()],
        actions: CLIENT_ROOT_ACTIONS,
        resources: [this.fileSystemArn],
        conditions: { Null: { 's3files:AccessPointArn': 'true' } },
      }));
    }
    doc.addStatements(...this.resourcePolicyStatements);
    return doc;
  }

  /** The service rejects policies over 20,000 characters: say so at synth, not 20 minutes into a deploy. */
  private validatePolicySize(): string[] {
    const chars = estimatePolicyCharacters(Stack.of(this).resolve(this.renderResourcePolicy()));
    if (chars <= MAX_FILE_SYSTEM_POLICY_CHARS) return [];
    return [`${this.node.path}: invalid file system policy: with the statements added by addToResourcePolicy it is about ${chars} characters long, and S3 Files accepts at most ${MAX_FILE_SYSTEM_POLICY_CHARS}. Fix: merge statements (one statement can list many principals) or grant through identity policies (the library's grants) instead.`];
  }
}

/** What the waiter reads to see mount targets and access points, and the guard to delete and to say what blocks it. */
const HANDLER_READ_ACTIONS = [...WAITER_READ_ACTIONS, 's3files:ListAccessPoints'];
/** The EventBridge rights of CloudFormation's own AWS::S3Files::FileSystem delete handler. */
const GUARD_EVENTS_ACTIONS = ['events:DescribeRule', 'events:DeleteRule', 'events:ListTargetsByRule', 'events:PutRule', 'events:RemoveTargets'];

function eventsRuleArn(stack: Stack): string {
  return `arn:${stack.partition}:events:${stack.region}:${stack.account}:rule/DO-NOT-DELETE-S3-Files*`;
}

function rejectSnapshot(scope: IConstruct, prop: string, policy: RemovalPolicy): void {
  if (policy === RemovalPolicy.SNAPSHOT) {
    invalid(scope, prop, 'SNAPSHOT', 'S3 Files file systems have no snapshots', 'use RemovalPolicy.RETAIN or RemovalPolicy.DESTROY');
  }
}

/**
 * A waiter (on `provider`, in the stack of `scope`) for a file system's mount targets and the
 * given access points; with `bucket`, it also names the bucket and may verify its versioning.
 */
function createWaiter(scope: Construct, id: string, provider: S3FilesWaiterProvider, props: {
  readonly fileSystemId: string;
  readonly mountTargetCount: number;
  readonly accessPointIds: string[];
  readonly timeoutSeconds: number;
  readonly bucket?: { readonly name: string; readonly verifyVersioning: boolean };
}): CustomResource {
  return new CustomResource(scope, id, {
    serviceToken: provider.serviceToken,
    resourceType: WAITER_RESOURCE_TYPE,
    serviceTimeout: waiterServiceTimeout(props.timeoutSeconds),
    properties: {
      FileSystemId: props.fileSystemId,
      ExpectedMountTargetCount: String(props.mountTargetCount),
      AccessPointIds: props.accessPointIds,
      TimeoutSeconds: Tokenization.stringifyNumber(props.timeoutSeconds),
      VerifyBucketVersioning: props.bucket?.verifyVersioning ? 'true' : 'false',
      ...(props.bucket ? { BucketName: props.bucket.name } : {}),
    },
  });
}

/** An AZ as the library keys it: by name when known, by its `Fn::GetAZs` index in env-agnostic stacks. */
interface AzRef {
  /** Stable, alphanumeric: compares AZs (the name, or the Fn::GetAZs index). */
  readonly key: string;
  /** Part of construct ids when it differs from `key` (see subnetAz). */
  readonly idKey?: string;
  /** For messages: the AZ name, or "AZ #n". */
  readonly label: string;
  /** False when the AZ is a token of unknown shape (it cannot be compared). */
  readonly comparable: boolean;
}

function subnetAz(scope: IConstruct, stack: Stack, subnet: ec2.ISubnet): AzRef {
  let az: string;
  try {
    az = subnet.availabilityZone;
  } catch {
    invalid(scope, 'vpcSubnets', subnetLabel(subnet), 'the subnet was imported without its availability zone, so one mount target per AZ cannot be enforced',
      'import it with its availabilityZone (ec2.Subnet.fromSubnetAttributes), or import the VPC with availabilityZones');
  }
  const ref = azRef(stack, az);
  // A subnet this app creates in an env-aware stack names its AZ; the same subnet in an
  // env-agnostic stack gives its Fn::GetAZs index. Key the mount target by that index either way,
  // so adding `env` to a stack renames no mount target (its VPC already looked the AZs up).
  if (!Token.isUnresolved(az) && subnet.node.defaultChild instanceof ec2.CfnSubnet) {
    const index = stack.availabilityZones.indexOf(az);
    if (index >= 0) return { ...ref, idKey: `Az${index + 1}` };
  }
  return ref;
}

/**
 * Refuses a mount-target IP address type the subnet cannot give, when the subnet is defined in this
 * app (an `AWS::EC2::Subnet` whose CIDR blocks are known); imported subnets are left to the service.
 */
function checkSubnetIpFamilies(scope: IConstruct, subnet: ec2.ISubnet, type: MountTargetIpAddressType): void {
  const cfn = subnet.node.defaultChild;
  if (!(cfn instanceof ec2.CfnSubnet)) return;
  const ipv6Only = cfn.ipv6Native === true;
  const hasIpv4 = !ipv6Only && (cfn.cidrBlock !== undefined || cfn.ipv4IpamPoolId !== undefined);
  const hasIpv6 = cfn.ipv6CidrBlock !== undefined || cfn.ipv6IpamPoolId !== undefined || cfn.assignIpv6AddressOnCreation === true;
  const needs = {
    IPV4_ONLY: { ipv4: true, ipv6: false },
    IPV6_ONLY: { ipv4: false, ipv6: true },
    DUAL_STACK: { ipv4: true, ipv6: true },
  }[type.value];
  if (!needs) return; // a value newer than this library: the service decides
  const missing = [needs.ipv4 && !hasIpv4 ? 'IPv4' : undefined, needs.ipv6 && !hasIpv6 ? 'IPv6' : undefined].filter(Boolean);
  if (missing.length > 0) {
    invalid(scope, 'mountTargetIpAddressType', type.value, `subnet ${subnetLabel(subnet)} has no ${missing.join(' or ')} CIDR block, so a mount target there cannot get that address`,
      hasIpv6 && !hasIpv4 ? 'use MountTargetIpAddressType.IPV6_ONLY, or choose dual-stack subnets'
        : 'use MountTargetIpAddressType.IPV4_ONLY, or give the VPC IPv6 (ec2.IpProtocol.DUAL_STACK) and choose its subnets');
  }
}

/** A subnet's id when it is a literal, else its construct path (never a raw token). */
function subnetLabel(subnet: ec2.ISubnet): string {
  return Token.isUnresolved(subnet.subnetId) ? subnet.node.path : subnet.subnetId;
}

function azRef(stack: Stack, az: string): AzRef {
  if (!Token.isUnresolved(az)) return { key: az.replace(/[^A-Za-z0-9]/g, ''), label: az, comparable: true };
  const resolved = stack.resolve(az);
  const select = resolved?.['Fn::Select'];
  if (Array.isArray(select) && typeof select[0] === 'number' && select[1]?.['Fn::GetAZs'] !== undefined) {
    return { key: `Az${select[0] + 1}`, label: `AZ #${select[0] + 1}`, comparable: true };
  }
  const hash = crypto.createHash('sha256').update(JSON.stringify(resolved)).digest('hex').slice(0, 8);
  return { key: `Az${hash}`, label: 'an AZ known only at deploy time', comparable: false };
}

/** The AZs a file system has mount targets in, and which client subnets they leave out. */
class AzCoverage {
  constructor(private readonly azs: AzRef[]) {}

  get labels(): string[] {
    return this.azs.map(az => az.label);
  }

  /**
   * Fails when a client's subnets are in an AZ without a mount target of `owner` (Lambda rejects
   * such a function at deploy time); warns when the AZs are only known at deploy time.
   */
  check(scope: IConstruct, prop: string, subnets: ec2.ISubnet[], owner: string, moreFix = ''): void {
    const missing = this.missing(Stack.of(scope), subnets);
    if (missing.unknown) {
      Annotations.of(scope).addWarningV2('cdk-s3files-lambda:azCoverageUnknown',
        `The availability zones of ${prop} or of the mount targets of ${owner} are only known at deploy time, so the library cannot check that every client subnet has a mount target in its AZ. A missing one fails the deployment.`);
    }
    if (missing.azs.length > 0) {
      invalid(scope, prop, missing.azs.join(', '),
        `${owner} has mount targets only in ${this.labels.join(', ')}, and a client needs a mount target in every AZ it runs in`,
        `select subnets in ${this.labels.join(', ')} only${moreFix}`);
    }
  }

  missing(stack: Stack, subnets: ec2.ISubnet[]): { azs: string[]; unknown: boolean } {
    const have = new Set(this.azs.map(az => az.key));
    let unknown = this.azs.some(az => !az.comparable);
    const azs = new Set<string>();
    for (const subnet of subnets) {
      let az: AzRef;
      try {
        az = azRef(stack, subnet.availabilityZone);
      } catch {
        unknown = true;
        continue;
      }
      if (!az.comparable) unknown = true;
      else if (!unknown && !have.has(az.key)) azs.add(az.label);
    }
    return { azs: [...azs], unknown };
  }
}

/** A file system imported with `S3FilesFileSystem.fromFileSystemAttributes`. */
class ImportedFileSystem extends S3FilesFileSystemBase {
  public readonly fileSystemId: string;
  public readonly fileSystemArn: string;
  public readonly connections: ec2.Connections;
  // It exists: nothing to wait for.
  public readonly mountTargetsAvailable: IDependable = new DependencyGroup();
  private readonly attrs: S3FilesFileSystemAttributes;
  /** The region and account of a literal fileSystemArn. */
  private readonly arnEnv?: { readonly region: string; readonly account: string };

  constructor(scope: Construct, id: string, attrs: S3FilesFileSystemAttributes) {
    super(scope, id);
    if (!attrs.fileSystemId && !attrs.fileSystemArn) {
      invalid(this, 'fileSystemId', undefined, 'an imported file system needs its id or its ARN', 'give fileSystemId (fs-...) or fileSystemArn');
    }
    const stack = Stack.of(this);
    // A literal ARN names the file system's region and account (the schema's pattern, with them split out).
    const arn = attrs.fileSystemArn !== undefined && !Token.isUnresolved(attrs.fileSystemArn)
      ? /^arn:aws[-a-z]*:s3files:([a-z0-9-]+):(\d{12}):file-system\/(fs-[0-9a-f]{17,40})$/.exec(attrs.fileSystemArn) : undefined;
    if (arn === null) {
      invalid(this, 'fileSystemArn', attrs.fileSystemArn, 'an S3 Files file system ARN looks like arn:aws:s3files:us-east-1:111122223333:file-system/fs-0123456789abcdef0',
        'pass the ARN as the S3 Files console or CLI shows it (or fileSystemId)');
    }
    this.fileSystemArn = attrs.fileSystemArn
      ?? stack.formatArn({ service: 's3files', resource: 'file-system', resourceName: attrs.fileSystemId, arnFormat: ArnFormat.SLASH_RESOURCE_NAME });
    this.fileSystemId = attrs.fileSystemId ?? stack.splitArn(this.fileSystemArn, ArnFormat.SLASH_RESOURCE_NAME).resourceName!;
    // The API and the CloudFormation schemas: 17 to 40 hex digits after fs-.
    if (!Token.isUnresolved(this.fileSystemId) && !/^fs-[0-9a-f]{17,40}$/.test(this.fileSystemId)) {
      invalid(this, attrs.fileSystemId ? 'fileSystemId' : 'fileSystemArn', attrs.fileSystemId ?? attrs.fileSystemArn,
        'an S3 Files file system id looks like fs-0123456789abcdef0 (fs- and 17 to 40 hex digits)', 'pass the id (or ARN) of the file system as the S3 Files console or CLI shows it');
    }
    if (arn && attrs.fileSystemId !== undefined && !Token.isUnresolved(attrs.fileSystemId) && attrs.fileSystemId !== arn[3]) {
      invalid(this, 'fileSystemId', attrs.fileSystemId, `fileSystemArn names another file system (${arn[3]})`, 'give the id and the ARN of one file system, or only one of them');
    }
    this.arnEnv = arn ? { region: arn[1], account: arn[2] } : undefined;
    validatePrefix(this, attrs.prefix ?? '');
    this.connections = new ec2.Connections({ securityGroups: attrs.securityGroups ?? [], defaultPort: ec2.Port.tcp(NFS_PORT) });
    this.attrs = attrs;
  }

  /** @internal */
  public _mountInfo(): FileSystemMountInfo {
    const azs = this.attrs.availabilityZones;
    return {
      vpc: this.attrs.vpc,
      clientSecurityGroup: this.attrs.clientSecurityGroup,
      bucket: this.attrs.bucket,
      prefix: this.attrs.prefix ?? '',
      bucketEncryptionKey: this.attrs.bucketEncryptionKey ?? this.attrs.bucket?.encryptionKey,
      region: this.arnEnv?.region,
      // The same check as for a file system of this app, on the AZs the attributes name.
      checkAzCoverage: (scope, prop, subnets) => {
        if (azs) new AzCoverage(azs.map((az) => azRef(Stack.of(this), az))).check(scope, prop, subnets, this.node.path);
      },
    };
  }

  /**
   * An access point created on an imported file system gets a waiter of its own in its stack: the
   * file system exists, but a new access point takes a moment to become available. It also waits
   * for one mount target per known AZ.
   * @internal
   */
  public _registerAccessPoint(accessPoint: S3FilesAccessPoint): IDependable {
    // CloudFormation creates the access point in its stack's account and region, where it must find the file system.
    checkSameRegion(accessPoint, this.node.path, this.arnEnv?.region, 'an access point is created in its stack\'s region, where the file system must be', 'create the access point');
    const account = Stack.of(accessPoint).account;
    if (this.arnEnv && Token.isUnresolved(account)) {
      Annotations.of(accessPoint).addWarningV2('cdk-s3files-lambda:fileSystemAccountUnchecked',
        `${this.node.path} is in account ${this.arnEnv.account} (its ARN), and ${Stack.of(accessPoint).node.path} is environment-agnostic, so the library cannot check that `
        + `this access point is created in that account: CloudFormation creates it in the stack's account, where the file system must be. Give the stack env: { account: '${this.arnEnv.account}' }.`);
    } else if (this.arnEnv && account !== this.arnEnv.account) {
      invalid(accessPoint, 'fileSystem', this.node.path, `it is in account ${this.arnEnv.account} (its ARN) and ${Stack.of(accessPoint).node.path} in ${account}, `
        + 'and CloudFormation creates an access point in its stack\'s account, where the file system must be',
      `create the access point in a stack of account ${this.arnEnv.account}, or import an access point the owner created (S3FilesAccessPoint.fromAccessPointAttributes)`);
    }
    const provider = S3FilesWaiterProvider.getOrCreate(accessPoint);
    provider.grantReadFileSystem(this.fileSystemArn);
    return createWaiter(accessPoint, 'Available', provider, {
      fileSystemId: this.fileSystemId,
      mountTargetCount: Math.max(1, this.attrs.availabilityZones?.length ?? 1),
      accessPointIds: [accessPoint.accessPointId],
      timeoutSeconds: DEFAULT_AVAILABILITY_TIMEOUT_SECONDS,
    });
  }
}
