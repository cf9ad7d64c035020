import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { invalid } from './private/messages';
import { EFS_UTILS_METRIC_NAMESPACE, METRICS_INSIGHTS_FUNCTIONS } from './private/mount/client-metrics';
import { requireFileSystem } from './private/mount/shapes';
import { IS3FilesFileSystem } from './s3files-file-system-contract';

/**
 * The CloudWatch metrics of a file system: the service's (namespace `AWS/S3/Files`, dimension
 * `FileSystemId`, each with its documented statistic) and amazon-efs-utils' client metrics. For any
 * `IS3FilesFileSystem`; the library's classes also have them as `metricPendingExports()` and the rest.
 *
 * @example
 * declare const fileSystem: IS3FilesFileSystem;
 * const pending = S3FilesFileSystemMetrics.fromFileSystem(fileSystem).pendingExports();
 * @see https://docs.aws.amazon.com/AmazonS3/latest/userguide/s3-files-monitoring.html
 */
export class S3FilesFileSystemMetrics {
  /**
   * The metrics of a file system.
   * @param fileSystem the file system (created, imported or your own)
   */
  public static fromFileSystem(fileSystem: IS3FilesFileSystem): S3FilesFileSystemMetrics {
    return new S3FilesFileSystemMetrics(requireFileSystem(fileSystem, 'S3FilesFileSystemMetrics.fromFileSystem()', 'fileSystem'));
  }

  private constructor(private readonly fileSystem: IS3FilesFileSystem) {}

  /**
   * A metric of the file system (namespace `AWS/S3/Files`, dimension `FileSystemId`).
   * @param metricName the metric name, e.g. `PendingExports`
   * @param props metric options
   */
  public metric(metricName: string, props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return new cloudwatch.Metric({ namespace: 'AWS/S3/Files', metricName, dimensionsMap: { FileSystemId: this.fileSystem.fileSystemId }, ...props });
  }

  /**
   * Files written on the mount and not yet exported to the bucket.
   * @param props metric options
   * @default - statistic Sum, 1 minute
   */
  public pendingExports(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric('PendingExports', { statistic: 'Sum', unit: cloudwatch.Unit.COUNT, ...props });
  }

  /**
   * Exports that failed for good (not retried): the change never reaches the bucket.
   * @param props metric options
   * @default - statistic Sum, 1 minute
   */
  public exportFailures(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric('ExportFailures', { statistic: 'Sum', unit: cloudwatch.Unit.COUNT, ...props });
  }

  /**
   * Imports from the bucket that failed.
   * @param props metric options
   * @default - statistic Sum, 1 minute
   */
  public importFailures(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric('ImportFailures', { statistic: 'Sum', unit: cloudwatch.Unit.COUNT, ...props });
  }

  /**
   * Files moved to lost+found: a write on the mount lost a conflict with a change in the bucket.
   * @param props metric options
   * @default - statistic Sum, 1 minute
   */
  public lostAndFoundFiles(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric('LostAndFoundFiles', { statistic: 'Sum', unit: cloudwatch.Unit.COUNT, ...props });
  }

  /**
   * Client connections (the file system takes at most 25,000).
   * @param props metric options
   * @default - statistic Sum, 1 minute
   */
  public clientConnections(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric('ClientConnections', { statistic: 'Sum', unit: cloudwatch.Unit.COUNT, ...props });
  }

  /**
   * Files and directories in the file system (reported every 15 minutes).
   * @param props metric options
   * @default - statistic Sum, 1 minute
   */
  public inodes(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric('Inodes', { statistic: 'Sum', unit: cloudwatch.Unit.COUNT, ...props });
  }

  /**
   * Age of the oldest change waiting to be exported.
   * @param props metric options
   * @default - statistic Maximum, 1 minute
   */
  public exportAge(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric('ExportAge', { statistic: 'Maximum', unit: cloudwatch.Unit.SECONDS, ...props });
  }

  /**
   * Age of the oldest change waiting to be imported.
   * @param props metric options
   * @default - statistic Maximum, 1 minute
   */
  public importAge(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric('ImportAge', { statistic: 'Maximum', unit: cloudwatch.Unit.SECONDS, ...props });
  }

  /**
   * Bytes of file data read (SampleCount: read operations).
   * @param props metric options
   * @default - statistic Sum, 1 minute
   */
  public dataReadBytes(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric('DataReadBytes', { statistic: 'Sum', unit: cloudwatch.Unit.BYTES, ...props });
  }

  /**
   * Bytes of file data written (SampleCount: write operations).
   * @param props metric options
   * @default - statistic Sum, 1 minute
   */
  public dataWriteBytes(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric('DataWriteBytes', { statistic: 'Sum', unit: cloudwatch.Unit.BYTES, ...props });
  }

  /**
   * Bytes of metadata read (SampleCount: metadata read operations).
   * @param props metric options
   * @default - statistic Sum, 1 minute
   */
  public metadataReadBytes(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric('MetadataReadBytes', { statistic: 'Sum', unit: cloudwatch.Unit.BYTES, ...props });
  }

  /**
   * Bytes of metadata written (SampleCount: metadata write operations).
   * @param props metric options
   * @default - statistic Sum, 1 minute
   */
  public metadataWriteBytes(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric('MetadataWriteBytes', { statistic: 'Sum', unit: cloudwatch.Unit.BYTES, ...props });
  }

  /**
   * Bytes stored in the file system (reported every 15 minutes).
   * @param props metric options
   * @default - statistic Average, 1 minute
   */
  public storageBytes(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric('StorageBytes', { statistic: 'Average', unit: cloudwatch.Unit.BYTES, ...props });
  }

  /**
   * The amazon-efs-utils client metric `S3BucketAccessible` (1 = the client can read the bucket for
   * direct reads), from the clients that mount with amazon-efs-utils (EC2, ECS, Batch, EKS nodes;
   * never Lambda or AgentCore). The clients publish it per client (dimensions `Bucket` and
   * `InstanceId`): by default this is a CloudWatch Metrics Insights query over every client of the
   * bucket, aggregated with the statistic (Minimum: 0 as soon as one client cannot read the bucket);
   * give `InstanceId` in the options' dimensions map for one client's metric.
   * @param props metric options
   * @default - statistic Minimum, 1 minute, every client of the bucket
   * @see https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/query_with_cloudwatch-metrics-insights.html
   */
  public clientBucketAccessible(props?: cloudwatch.MetricOptions): cloudwatch.IMetric {
    return this.clientMetric('S3BucketAccessible', props);
  }

  /**
   * The amazon-efs-utils client metric `S3BucketReachable` (1 = the client reaches S3 over the
   * network), from the clients that mount with amazon-efs-utils (EC2, ECS, Batch, EKS nodes; never
   * Lambda or AgentCore). Like `clientBucketAccessible`: every client of the bucket, or one with `InstanceId`.
   * @param props metric options
   * @default - statistic Minimum, 1 minute, every client of the bucket
   */
  public clientBucketReachable(props?: cloudwatch.MetricOptions): cloudwatch.IMetric {
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
    const fs = this.fileSystem;
    const dimensions: Record<string, string> = { ...props.dimensionsMap };
    if (dimensions.Bucket === undefined) {
      if (!fs.bucket) {
        invalid(fs, 'bucket', undefined, `the efs-utils client metric ${metricName} is published by bucket name, and this file system's bucket is not known`,
          'give `bucket` to `S3FilesFileSystem.fromFileSystemAttributes()`, or pass `dimensionsMap`: { Bucket: name }');
      }
      dimensions.Bucket = fs.bucket.bucketName;
    }
    const statistic = props.statistic ?? 'Minimum';
    const period = props.period ?? Duration.minutes(1);
    if (dimensions.InstanceId !== undefined) {
      return new cloudwatch.Metric({ namespace: EFS_UTILS_METRIC_NAMESPACE, metricName, ...props, statistic, period, dimensionsMap: dimensions });
    }
    if (props.unit !== undefined) {
      invalid(fs, 'unit', props.unit, `without an InstanceId, ${metricName} is a Metrics Insights query over every client, which takes no unit`,
        'leave unit out, or pick one client with dimensionsMap: { InstanceId }');
    }
    const fn = METRICS_INSIGHTS_FUNCTIONS[statistic.toLowerCase()];
    if (!fn) {
      invalid(fs, 'statistic', statistic, `without an InstanceId, ${metricName} is a Metrics Insights query over every client, which aggregates with MIN, MAX, AVG, SUM or COUNT `
        + 'only',
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
}
