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
