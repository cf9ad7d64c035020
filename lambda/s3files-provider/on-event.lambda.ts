import type { Context } from 'aws-lambda';
import { BOUNDED_CLIENT_CONFIG, lazyS3Client } from './clients';
import { handleOnEvent } from './dispatch';
import { log, logger } from './log';
import type { OnEventRequest, OnEventResponse } from './resource-handler';

// Created once per container. Region, credentials and endpoint (AWS_ENDPOINT_URL_S3) come from
// the environment; the call is bounded well inside the function's 60 s.
const s3 = lazyS3Client(BOUNDED_CLIENT_CONFIG);

export const handler = async (event: OnEventRequest, context?: Context): Promise<OnEventResponse> => {
  if (context) logger.addContext(context);
  return handleOnEvent(event, { s3, now: Date.now, log });
};
