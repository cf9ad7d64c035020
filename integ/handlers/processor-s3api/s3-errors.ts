/** How the S3 processor tells S3's answers apart. */
function isCode(e: unknown, ...names: string[]): boolean {
  const err = e as { name?: string; Code?: string };
  return names.includes(err?.name ?? '') || names.includes(err?.Code ?? '');
}
const statusOf = (e: unknown): number | undefined => (e as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;

/** A conditional request whose condition did not hold (412), or a concurrent conditional write (409). */
export const isConditionFailure = (e: unknown): boolean =>
  isCode(e, 'PreconditionFailed', 'ConditionalRequestConflict') || [409, 412].includes(statusOf(e) ?? 0);

/** The key or version is gone. */
export const isGone = (e: unknown): boolean => isCode(e, 'NoSuchKey', 'NoSuchVersion', 'NotFound') || statusOf(e) === 404;

/**
 * Why S3 will not serve (or copy) an object to this function, whatever the run does, or undefined:
 * - InvalidObjectState (GetObject) / ObjectNotInActiveTierError (CopyObject): the object is in S3
 *   Glacier Flexible Retrieval or Deep Archive (or an archive tier of Intelligent-Tiering) and must
 *   be restored first (S3 API reference, GetObject and CopyObject);
 * - 400 InvalidRequest naming server-side encryption: stored with SSE-C, whose key the function
 *   does not have (S3 user guide, "Using server-side encryption with customer-provided keys");
 * - a KMS error, or AccessDenied naming KMS: a KMS key this function may not use.
 */
export function unservable(e: unknown): string | undefined {
  const err = e as { name?: string; Code?: string; message?: string };
  const code = err?.Code ?? err?.name ?? '';
  const message = err?.message ?? '';
  if (['InvalidObjectState', 'ObjectNotInActiveTierError'].includes(code)) return `${code}: archived (S3 Glacier Flexible Retrieval or Deep Archive); restore it first`;
  if (code === 'InvalidRequest' && /server.side encryption/i.test(message)) return `${code}: encrypted with a customer-provided key (SSE-C) this function does not have`;
  if (code.startsWith('KMS.') || (code === 'AccessDenied' && /\bkms\b|kms:/i.test(message))) return `${code}: its KMS key is one this function may not use`;
  return undefined;
}
