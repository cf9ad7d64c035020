import { Resource, ResourceProps } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct, IDependable } from 'constructs';
import { refuseAwsCdkReference } from './private/compat';
import { invalid } from './private/messages';
import { efsVolumesOfFileSystem } from './private/mount/foreign-mounts';
import { IS3FilesFileSystem } from './s3files-file-system-contract';
import { S3FilesFileSystemMetrics } from './s3files-file-system-metrics';
import { S3FilesFileSystemGrants } from './s3files-grants';

/**
 * The grants and metrics every file system class shares (a hidden base: its members appear on
 * `S3FilesFileSystemBase` and `S3FilesFileSystem`, which declare the optional contract members
 * their own way: optional for a user's subclass, always set on a created file system). Each is
 * `S3FilesFileSystemGrants`' or `S3FilesFileSystemMetrics`' method of the same meaning.
 * @internal
 */
export abstract class FileSystemGrantsAndMetrics extends Resource {
  public abstract readonly fileSystemId: string;
  public abstract readonly fileSystemArn: string;
  public abstract readonly mountTargetsAvailable: IDependable;
  public abstract readonly connections: ec2.Connections;

  constructor(scope: Construct, id: string, props: ResourceProps = {}) {
    super(scope, id, props);
    // aws-cdk-lib's EFS consumers (batch.EcsVolume.efs, ecs EFS volumes) read a ref of their own:
    // name the library's call instead of failing on an undefined property.
    refuseAwsCdkReference(this, 'fileSystemRef', () => invalid(this, 'fileSystem', this.node.path,
      'it is an S3 Files file system, and aws-cdk-lib\'s EFS volumes (`EcsVolume.efs()`, an ECS `efsVolumeConfiguration`) take an EFS file system',
      'mount an access point of it with `BatchMount.onJobDefinition()` or `EcsMount.onTaskDefinition()`'));
    // An ECS or Batch `efsVolumeConfiguration` given its id reaches none of the above.
    this.node.addValidation({ validate: () => efsVolumesOfFileSystem(this) });
  }

  /**
   * Grants read access over NFS (`s3files:ClientMount`) through any access point.
   * @param grantee the principal to grant
   */
  public grantRead(grantee: iam.IGrantable): iam.Grant {
    return this.grants.read(grantee);
  }

  /**
   * Grants read and write access over NFS (`s3files:ClientMount`, `s3files:ClientWrite`) through any access point.
   * @param grantee the principal to grant
   */
  public grantReadWrite(grantee: iam.IGrantable): iam.Grant {
    return this.grants.readWrite(grantee);
  }

  /**
   * Grants root access over NFS (`ClientMount`, `ClientWrite`, `ClientRootAccess`) through any access point.
   * @param grantee the principal to grant
   */
  public grantRootAccess(grantee: iam.IGrantable): iam.Grant {
    return this.grants.rootAccess(grantee);
  }

  /**
   * Grants the given `s3files:` actions through any access point.
   * @param grantee the principal to grant
   * @param actions the actions, each starting with `s3files:`
   */
  public grant(grantee: iam.IGrantable, ...actions: string[]): iam.Grant {
    return this.grants.actions(grantee, ...actions);
  }

  /**
   * A CloudWatch metric of this file system (namespace `AWS/S3/Files`, dimension `FileSystemId`).
   * @param metricName the metric name, e.g. `PendingExports`
   * @param props metric options
   */
  public metric(metricName: string, props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metrics.metric(metricName, props);
  }

  /**
   * Files written on the mount and not yet exported to the bucket.
   * @param props metric options
   * @default - statistic Sum, 1 minute
   */
  public metricPendingExports(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metrics.pendingExports(props);
  }

  /**
   * Exports that failed for good (not retried): the change never reaches the bucket.
   * @param props metric options
   * @default - statistic Sum, 1 minute
   */
  public metricExportFailures(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metrics.exportFailures(props);
  }

  /**
   * Imports from the bucket that failed.
   * @param props metric options
   * @default - statistic Sum, 1 minute
   */
  public metricImportFailures(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metrics.importFailures(props);
  }

  /**
   * Files moved to lost+found: a write on the mount lost a conflict with a change in the bucket.
   * @param props metric options
   * @default - statistic Sum, 1 minute
   */
  public metricLostAndFoundFiles(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metrics.lostAndFoundFiles(props);
  }

  /**
   * Client connections (the file system takes at most 25,000).
   * @param props metric options
   * @default - statistic Sum, 1 minute
   */
  public metricClientConnections(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metrics.clientConnections(props);
  }

  /**
   * Files and directories in the file system (reported every 15 minutes).
   * @param props metric options
   * @default - statistic Sum, 1 minute
   */
  public metricInodes(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metrics.inodes(props);
  }

  /**
   * Age of the oldest change waiting to be exported.
   * @param props metric options
   * @default - statistic Maximum, 1 minute
   */
  public metricExportAge(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metrics.exportAge(props);
  }

  /**
   * Age of the oldest change waiting to be imported.
   * @param props metric options
   * @default - statistic Maximum, 1 minute
   */
  public metricImportAge(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metrics.importAge(props);
  }

  /**
   * Bytes of file data read (SampleCount: read operations).
   * @param props metric options
   * @default - statistic Sum, 1 minute
   */
  public metricDataReadBytes(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metrics.dataReadBytes(props);
  }

  /**
   * Bytes of file data written (SampleCount: write operations).
   * @param props metric options
   * @default - statistic Sum, 1 minute
   */
  public metricDataWriteBytes(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metrics.dataWriteBytes(props);
  }

  /**
   * Bytes of metadata read (SampleCount: metadata read operations).
   * @param props metric options
   * @default - statistic Sum, 1 minute
   */
  public metricMetadataReadBytes(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metrics.metadataReadBytes(props);
  }

  /**
   * Bytes of metadata written (SampleCount: metadata write operations).
   * @param props metric options
   * @default - statistic Sum, 1 minute
   */
  public metricMetadataWriteBytes(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metrics.metadataWriteBytes(props);
  }

  /**
   * Bytes stored in the file system (reported every 15 minutes).
   * @param props metric options
   * @default - statistic Average, 1 minute
   */
  public metricStorageBytes(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metrics.storageBytes(props);
  }

  /**
   * The amazon-efs-utils client metric `S3BucketAccessible` over every client of the bucket, or one
   * client's with `InstanceId` in the dimensions map (see `S3FilesFileSystemMetrics.clientBucketAccessible`).
   * @param props metric options
   * @default - statistic Minimum, 1 minute, every client of the bucket
   */
  public metricClientBucketAccessible(props?: cloudwatch.MetricOptions): cloudwatch.IMetric {
    return this.metrics.clientBucketAccessible(props);
  }

  /**
   * The amazon-efs-utils client metric `S3BucketReachable` over every client of the bucket, or one
   * client's with `InstanceId` in the dimensions map (see `S3FilesFileSystemMetrics.clientBucketReachable`).
   * @param props metric options
   * @default - statistic Minimum, 1 minute, every client of the bucket
   */
  public metricClientBucketReachable(props?: cloudwatch.MetricOptions): cloudwatch.IMetric {
    return this.metrics.clientBucketReachable(props);
  }

  private get grants(): S3FilesFileSystemGrants {
    return S3FilesFileSystemGrants.fromFileSystem(this as unknown as IS3FilesFileSystem);
  }

  private get metrics(): S3FilesFileSystemMetrics {
    return S3FilesFileSystemMetrics.fromFileSystem(this as unknown as IS3FilesFileSystem);
  }
}

/**
 * The base of a file system class of your own: an S3 Files file system this library does not
 * create or import (in any language). Provide its id, ARN, `connections` and
 * `mountTargetsAvailable`, and what else of `IS3FilesFileSystem`'s contract you know; it gets the
 * grants and metrics, and every mount adapter and `S3FilesAccessPoint` take it.
 * @subclassable
 */
export abstract class S3FilesFileSystemBase extends FileSystemGrantsAndMetrics implements IS3FilesFileSystem {
  /** The VPC of the mount targets, when known. */
  public readonly vpc?: ec2.IVpc;
  /** A security group the mount targets admit on TCP 2049, when there is one. */
  public readonly clientSecurityGroup?: ec2.ISecurityGroup;
  /** The bucket the file system presents, when known. */
  public readonly bucket?: s3.IBucket;
  /** The key prefix of the bucket the file system presents. */
  public readonly prefix?: string;
  /** The bucket's SSE-KMS key, when known. */
  public readonly bucketEncryptionKey?: kms.IKey;
  /** The availability zones of the mount targets, when known. */
  public readonly mountTargetAvailabilityZones?: string[];

  /**
   * @param scope the construct's scope
   * @param id its id
   * @param props where it lives (`environmentFromArn` for a file system of another account or region)
   */
  constructor(scope: Construct, id: string, props: ResourceProps = {}) {
    super(scope, id, props);
  }
}
