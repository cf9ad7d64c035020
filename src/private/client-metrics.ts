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
