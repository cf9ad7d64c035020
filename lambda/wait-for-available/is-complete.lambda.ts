import { S3FilesClient } from '@aws-sdk/client-s3files';
import type { Context } from 'aws-lambda';
import { handleIsComplete } from './is-complete';
import { log, logger } from './log';
import type { IsCompleteRequest } from './request';
import type { IsCompleteResult } from './waiter';

// Created once per container. Default config: region, credentials and endpoint
// (AWS_ENDPOINT_URL_S3FILES: the client's service id is "S3Files") come from the environment.
const client = new S3FilesClient({});

export const handler = async (event: IsCompleteRequest, context?: Context): Promise<IsCompleteResult> => {
  if (context) logger.addContext(context);
  return handleIsComplete(event, { client, now: Date.now, log });
};
