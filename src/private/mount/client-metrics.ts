/** The CloudWatch namespace amazon-efs-utils publishes its S3 Files client metrics in (FACTS, Monitoring). */
export const EFS_UTILS_METRIC_NAMESPACE = 'efs-utils/S3Files';

/** CloudWatch statistics (lower case) and the Metrics Insights function that aggregates the same way. */
export const METRICS_INSIGHTS_FUNCTIONS: Readonly<Record<string, string>> = {
  minimum: 'MIN',
  min: 'MIN',
  maximum: 'MAX',
  max: 'MAX',
  average: 'AVG',
  avg: 'AVG',
  sum: 'SUM',
  samplecount: 'COUNT',
  n: 'COUNT',
};

/**
 * Where amazon-efs-utils (v3.2.0, with the s3files-utils.conf it ships: metrics_enabled = true,
 * [cloudwatch-log] enabled = true) publishes: S3BucketAccessible and S3BucketReachable in
 * efs-utils/S3Files, NFSConnectionAccessible in efs-utils/EFS (src/proxy/src/aws/cw_publisher.rs).
 */
export const EFS_UTILS_METRIC_NAMESPACES = [EFS_UTILS_METRIC_NAMESPACE, 'efs-utils/EFS'];
/** The log group amazon-efs-utils writes to by default (DEFAULT_CLOUDWATCH_LOG_GROUP), 14 days' retention. */
export const EFS_UTILS_LOG_GROUP = '/aws/efs/utils';
/** What it calls on that log group: create it, set its retention, create its streams and write to them. */
export const EFS_UTILS_LOG_ACTIONS = ['logs:CreateLogGroup', 'logs:PutRetentionPolicy', 'logs:CreateLogStream', 'logs:DescribeLogStreams', 'logs:PutLogEvents'];
