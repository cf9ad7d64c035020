import { Logger } from '@aws-lambda-powertools/logger';
import type { WaitLogger } from './resource-handler';

/** The custom-resource handlers' structured logger (one per container). */
export const logger = new Logger({ serviceName: 's3files-provider' });

/** Powertools' variadic signature, narrowed to the waiter's (message, attributes) logger. */
export const log: WaitLogger = {
  info: (message, extra) => logger.info(message, { ...extra }),
  warn: (message, extra) => logger.warn(message, { ...extra }),
};
