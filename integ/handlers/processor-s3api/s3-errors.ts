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
