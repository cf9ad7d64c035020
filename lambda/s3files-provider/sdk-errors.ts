/** Shapes of SDK v3 errors we look at, without depending on a client package. */
interface SdkErrorLike {
  name?: string;
  code?: string;
  message?: string;
  $fault?: 'client' | 'server';
  $metadata?: { httpStatusCode?: number };
  $retryable?: { throttling?: boolean };
}

const NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'ENOTFOUND']);
// The SDK re-wraps errors it cannot recognise as Error objects, keeping only the text.
const NETWORK_MESSAGE = /\b(ECONNRESET|ECONNREFUSED|ETIMEDOUT|EPIPE|EAI_AGAIN|ENOTFOUND)\b|socket hang up/;

function asSdkError(error: unknown): SdkErrorLike {
  return (typeof error === 'object' && error !== null ? error : {}) as SdkErrorLike;
}

export function httpStatusOf(error: unknown): number | undefined {
  return asSdkError(error).$metadata?.httpStatusCode;
}

export function isThrottling(error: unknown): boolean {
  const e = asSdkError(error);
  return e.name === 'ThrottlingException' || e.name === 'TooManyRequestsException'
    || e.$retryable?.throttling === true || httpStatusOf(error) === 429;
}

export function isNotFound(error: unknown): boolean {
  const e = asSdkError(error);
  return e.name === 'ResourceNotFoundException' || e.name === 'NotFound' || httpStatusOf(error) === 404;
}

/**
 * Errors worth waiting out: throttling, 5xx and network failures. The SDK already retried them
 * (3 attempts); the next poll tries again, and the handler's own timeout still bounds the wait.
 */
export function isTransient(error: unknown): boolean {
  const e = asSdkError(error);
  const status = httpStatusOf(error);
  return isThrottling(error)
    || e.$fault === 'server'
    || (status !== undefined && status >= 500)
    || e.name === 'TimeoutError'
    || (e.code !== undefined && NETWORK_CODES.has(e.code))
    || NETWORK_MESSAGE.test(e.message ?? '');
}

/** `Name (HTTP 429): message` for logs and failure reasons. */
export function describeError(error: unknown): string {
  const e = asSdkError(error);
  const status = httpStatusOf(error);
  const name = e.name ?? 'Error';
  const message = e.message ?? String(error);
  return `${name}${status ? ` (HTTP ${status})` : ''}: ${message}`;
}
