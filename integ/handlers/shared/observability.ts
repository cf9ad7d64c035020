import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';

/** CloudWatch namespace used when POWERTOOLS_METRICS_NAMESPACE is not set. */
export const DEFAULT_METRICS_NAMESPACE = 'S3FilesLambda';

/**
 * Logger + EMF metrics for one handler. Service name comes from POWERTOOLS_SERVICE_NAME (falling
 * back to the handler's own name), namespace from POWERTOOLS_METRICS_NAMESPACE.
 */
export function observability(defaultService: string): { logger: Logger; metrics: Metrics } {
  const serviceName = process.env.POWERTOOLS_SERVICE_NAME || defaultService;
  const namespace = process.env.POWERTOOLS_METRICS_NAMESPACE || DEFAULT_METRICS_NAMESPACE;
  return {
    logger: new Logger({ serviceName }),
    metrics: new Metrics({ namespace, serviceName }),
  };
}
