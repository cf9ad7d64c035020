import type { S3Client } from '@aws-sdk/client-s3';

/**
 * SDK client settings for the custom-resource handlers. Lambda stops them after 60 s, and the
 * provider framework turns that into FAILED at once, so no single call may hang: a connection
 * gets 3 s, a response 8 s, and a call two attempts (at most ~25 s with back-off). A stalled
 * call then fails with a transient TimeoutError and the next poll tries again.
 */
export const BOUNDED_CLIENT_CONFIG = {
  maxAttempts: 2,
  // Recent @smithy/node-http-handler versions only log an exceeded requestTimeout unless told to throw.
  requestHandler: { connectionTimeout: 3_000, requestTimeout: 8_000, throwOnRequestTimeout: true },
};

/** Whatever one isComplete invocation does must end by then, leaving room to answer in 60 s. */
export const POLL_BUDGET_MS = 45_000;

/** Marks work that did not finish within its budget. */
export const OVER_BUDGET = Symbol('over budget');

/**
 * Resolves with the work's result, or with OVER_BUDGET once `ms` have passed (the work is left
 * to finish or fail on its own: every step of it is idempotent and bounded by the client settings).
 */
export async function withinBudget<T>(work: Promise<T>, ms: number): Promise<T | typeof OVER_BUDGET> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<typeof OVER_BUDGET>((resolve) => {
    timer = setTimeout(() => resolve(OVER_BUDGET), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** What the handlers call S3 with: an S3Client, or the lazy one below. */
export type S3Sender = Pick<S3Client, 'send'>;

/**
 * @aws-sdk/client-s3 (the Lambda runtime provides it) costs most of the handlers' module load,
 * and only the bucket cleaner and the imported bucket's versioning check call S3: loaded, and the
 * client made, on the first call.
 */
export function lazyS3Client(config: typeof BOUNDED_CLIENT_CONFIG): S3Sender {
  let client: S3Client | undefined;
  const send = async (command: Parameters<S3Client['send']>[0]) => {
    client ??= new (s3Module().S3Client)(config);
    return client.send(command);
  };
  return { send: send as S3Client['send'] };
}

/** @aws-sdk/client-s3, loaded where a command is made (a require: the bundle keeps it external). */
export function s3Module(): typeof import('@aws-sdk/client-s3') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('@aws-sdk/client-s3');
}
