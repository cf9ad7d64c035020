import { S3FilesClient } from '@aws-sdk/client-s3files';
import type { Context } from 'aws-lambda';
import { BOUNDED_CLIENT_CONFIG, lazyS3Client } from './clients';
import { parseRetainedFileSystems, RETAINED_FILE_SYSTEMS_ENV } from './delete-guard';
import { handleIsComplete } from './dispatch';
import { log, logger } from './log';
import type { IsCompleteRequest, IsCompleteResult } from './resource-handler';

// Created once per container. Region, credentials and endpoint (AWS_ENDPOINT_URL_S3FILES: the
// client's service id is "S3Files"; AWS_ENDPOINT_URL_S3) come from the environment; every call is
// bounded well inside the function's 60 s.
const client = new S3FilesClient(BOUNDED_CLIENT_CONFIG);
const s3 = lazyS3Client(BOUNDED_CLIENT_CONFIG);
// Set by the construct from the stack's current template; read per invocation (an update changes it).
const retained = () => parseRetainedFileSystems(process.env[RETAINED_FILE_SYSTEMS_ENV]);

export const handler = async (event: IsCompleteRequest, context?: Context): Promise<IsCompleteResult> => {
  if (context) logger.addContext(context);
  return handleIsComplete(event, { client, s3, now: Date.now, log, retainedFileSystems: retained() });
};
