import { LambdaClient } from '@aws-sdk/client-lambda';
import { S3Client } from '@aws-sdk/client-s3';

let s3: { key: string; client: S3Client } | undefined;
let lambda: { key: string; client: LambdaClient } | undefined;

function envKey(...names: string[]): string {
  return JSON.stringify(names.map((n) => process.env[n]));
}

/**
 * One S3 client per configuration, reused across invocations (keeps connections warm). Default
 * config; `S3_FORCE_PATH_STYLE=true` is for S3-compatible stores. Endpoints come from the SDK's own
 * `AWS_ENDPOINT_URL_S3` handling, never from code.
 */
export function s3Client(): S3Client {
  const forcePathStyle = process.env.S3_FORCE_PATH_STYLE === 'true';
  const key = envKey('S3_FORCE_PATH_STYLE', 'AWS_ENDPOINT_URL_S3', 'AWS_ENDPOINT_URL', 'AWS_REGION');
  if (s3?.key !== key) s3 = { key, client: new S3Client(forcePathStyle ? { forcePathStyle } : {}) };
  return s3.client;
}

export function lambdaClient(): LambdaClient {
  const key = envKey('AWS_ENDPOINT_URL_LAMBDA', 'AWS_ENDPOINT_URL', 'AWS_REGION');
  if (lambda?.key !== key) lambda = { key, client: new LambdaClient({}) };
  return lambda.client;
}
