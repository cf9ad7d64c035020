import { Logger } from '@aws-lambda-powertools/logger';
import { S3FilesClient } from '@aws-sdk/client-s3files';
import type { Context } from 'aws-lambda';
import { handleIsComplete } from './is-complete';
import type { IsCompleteRequest } from './request';
import type { IsCompleteResult } from './waiter';

// Created once per container. Default config: region, credentials and endpoint
// (AWS_ENDPOINT_URL_S3FILES: the client's service id is "S3Files") come from the environment.
const client = new S3FilesClient({});
const logger = new Logger({ serviceName: 's3files-wait-for-available' });
// Powertools' variadic signature, narrowed to the waiter's (message, attributes) logger.
const log = {
  info: (message: string, extra?: Record<string, unknown>) => logger.info(message, { ...extra }),
  warn: (message: string, extra?: Record<string, unknown>) => logger.warn(message, { ...extra }),
};

export const handler = async (event: IsCompleteRequest, context?: Context): Promise<IsCompleteResult> => {
  if (context) logger.addContext(context);
  return handleIsComplete(event, { client, now: Date.now, log });
};
