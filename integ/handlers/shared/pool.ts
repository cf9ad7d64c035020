/**
 * Run `fn` over `items` with at most `concurrency` promises in flight; results keep input order.
 * `fn` should not throw for per-item failures (the processors return error records instead), but if
 * it does the first rejection is propagated after in-flight work settles.
 */
export async function mapPool<T, R>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < items.length) {
      const i = next++;
      try {
        results[i] = await fn(items[i], i);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  const workers = Math.max(1, Math.min(concurrency, items.length));
  await Promise.all(Array.from({ length: workers }, worker));
  if (failure !== undefined) throw failure.error;
  return results;
}

/**
 * One processing step over a batch: runs `step` like {@link mapPool} and keeps, in order, the items
 * whose step returned true (a step that fails reports the item itself and returns false).
 */
export async function keepSucceeded<T>(
  items: readonly T[],
  concurrency: number,
  step: (item: T) => Promise<boolean>,
): Promise<T[]> {
  const ok = await mapPool(items, concurrency, step);
  return items.filter((_, i) => ok[i]);
}
