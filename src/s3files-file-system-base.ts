import { Duration, Resource, ResourceProps } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct, IConstruct, IDependable } from 'constructs';
import { CLIENT_READ_ACTIONS, CLIENT_READ_WRITE_ACTIONS, CLIENT_ROOT_ACTIONS } from './private/client-actions';
import { EFS_UTILS_METRIC_NAMESPACE, METRICS_INSIGHTS_FUNCTIONS } from './private/client-metrics';
import { refuseAwsCdkReference } from './private/compat';
import { grantScoped } from './private/grants';
import { invalid } from './private/messages';
import { checkClientAccount } from './private/mount-pipeline';
import { scopeActions } from './private/s3files-actions';
import { IS3FilesFileSystem } from './s3files-file-system-contract';

/**
 * The grants and metrics every file system class shares (a hidden base: its members appear on
 * `S3FilesFileSystemBase` and `S3FilesFileSystem`, which declare the optional contract members
 * their own way: optional for a user's subclass, always set on a created file system).
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
    const bucket = (this as unknown as IS3FilesFileSystem).bucket;
    const dimensions: Record<string, string> = { ...props.dimensionsMap };
    if (dimensions.Bucket === undefined) {
      if (!bucket) {
        invalid(this, 'bucket', undefined, `the efs-utils client metric ${metricName} is published by bucket name, and this file system's bucket is not known`,
          'give `bucket` to `S3FilesFileSystem.fromFileSystemAttributes()`, or pass `dimensionsMap`: { Bucket: name }');
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
    if (Construct.isConstruct(grantee.grantPrincipal)) {
      checkClientAccount(grantee.grantPrincipal, `the role ${grantee.grantPrincipal.node.path}`, grantee, this as unknown as IS3FilesFileSystem,
        scoped.flatMap((s) => s.actions), accessPointArn);
    }
    return grantScoped(scope, grantee, scoped, `${actions.join(', ')} on ${this.node.path}`,
      { fileSystemArn: this.fileSystemArn, accessPointArn, write: scoped.some((s) => s.actions.includes('s3files:ClientWrite')) });
  }
}

/**
 * The base of a file system class of your own: an S3 Files file system this library does not
 * create or import (in any language). Provide its id, ARN, `connections` and
 * `mountTargetsAvailable`, and what else of `IS3FilesFileSystem`'s contract you know; it gets the
 * grants and metrics, and every mount adapter and `S3FilesAccessPoint` take it.
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
