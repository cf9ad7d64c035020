import { performance } from 'node:perf_hooks';

/** Phase timings in milliseconds (wall-clock per phase; `processMs` is CPU time spent counting). */
export interface Timings {
  /** Listing the inbox (and, on the mount, checking the working directories). */
  listMs: number;
  /** Taking work: starting the lease, claiming each file (a rename, or a conditional PUT), taking over dead claims. */
  claimMs: number;
  readMs: number;
  processMs: number;
  writeMs: number;
  renameMs: number;
  totalMs: number;
}

export interface FileError {
  readonly name: string;
  readonly error: string;
}

/** What both processors return. `files` counts results this invocation published in processed/. */
export interface ProcessorResult {
  readonly files: number;
  readonly errors: FileError[];
  readonly timings: Timings;
  readonly concurrency: number;
  /** True when this invocation neared its deadline and left files for the next one. */
  readonly deferred?: boolean;
  /** Files claimed from invocations that died (their lease expired) and processed here. */
  readonly recovered?: number;
  /** Files whose result was not published because a result from a newer upload of the name was already there. */
  readonly superseded?: number;
  /** Files another live invocation was already processing (skipped, not counted). */
  readonly skippedClaimed?: number;
  /** Files whose listed version was gone when read (another invocation processed it, or it was deleted). */
  readonly vanished?: number;
  /**
   * Files left claimed for the next invocation instead of failing: a transient error (ENOSPC...),
   * the deadline reached in the middle of reading them, or (on the mount) a file that changed while
   * it was read. Each is retried a bounded number of times, then reported once.
   */
  readonly retrying?: number;
  /**
   * Objects S3 will not serve to the processor and could not be moved to failed/ (archived, SSE-C, a
   * KMS key it may not use), reported once when they were parked and left alone since (S3 side).
   */
  readonly parked?: number;
  /** Why the run stopped early (its lease was lost), if it did. */
  readonly stopped?: string;
}

/** What the processors read from the Lambda context. */
export interface DeadlineContext {
  getRemainingTimeInMillis(): number;
}

/**
 * Time kept in reserve before the Lambda deadline: no new chunk starts after this point, so the
 * chunk in flight can finish (read, write, move) and the result can be returned.
 */
export const DEADLINE_MARGIN_MS = 20_000;
/**
 * Time kept in reserve for publishing what was read and handing the rest back: reading stops at
 * this point even in the middle of a file, so a chunk of large files never runs into the timeout.
 */
export const READ_MARGIN_MS = 8_000;
/**
 * The least time an invocation must have when it starts: below it, the chunk deadline is less than
 * a second away, and every run would return `deferred: true` having done next to nothing.
 */
export const MIN_REMAINING_MS = DEADLINE_MARGIN_MS + 1_000;
/** The timeout to ask for in the message when the remaining time is below `MIN_REMAINING_MS`. */
export const MIN_TIMEOUT_SECONDS = 30;
/** Bytes per chunk: a chunk ends at this many bytes of input as well as at `chunkSizeFor` files. */
export const DEFAULT_CHUNK_BYTES = 256 * 1024 ** 2;

/** Files per chunk: `concurrency` x 8, at least 64 (the benchmark's 20 files are one chunk). */
export function chunkSizeFor(concurrency: number): number {
  return Math.max(64, concurrency * 8);
}

export interface ChunkLoopOptions<T = unknown> {
  /** Items per chunk. */
  readonly size: number;
  /** Epoch ms after which no new chunk starts (default: none). */
  readonly deadline?: number;
  readonly now: () => number;
  /** Taking a chunk from the source is listing: its time goes to `listMs`. */
  readonly timings: Timings;
  readonly log: (message: string, extra: Record<string, unknown>) => void;
  /** Runs before each chunk is taken; may throw to stop (a lease check). */
  readonly beforeChunk?: () => void;
  /** Bytes per chunk (with `sizeOf`): a chunk ends before the item that would pass it (it always has one item). */
  readonly maxBytes?: number;
  readonly sizeOf?: (item: T) => number;
}

/**
 * Feeds `source` to `work` a chunk at a time, each chunk end to end, until the source is exhausted
 * or the deadline is reached, so a run that meets its deadline has finished whole files. Closes the
 * source in every case. Returns true when the deadline left items for the next invocation.
 */
export async function workInChunks<T>(source: AsyncGenerator<T>, opts: ChunkLoopOptions<T>, work: (chunk: T[]) => Promise<void>): Promise<boolean> {
  // An item taken from the source that did not fit the previous chunk's bytes: it opens the next one.
  // (Items taken and not worked on are left where they are: the source only lists, it never claims.)
  let carried: T[] = [];
  const sizeOf = opts.sizeOf ?? (() => 0);
  const maxBytes = opts.maxBytes ?? Infinity;
  const takeChunk = async (): Promise<T[]> => {
    const chunk = carried;
    carried = [];
    let bytes = chunk.reduce((n, item) => n + sizeOf(item), 0);
    while (chunk.length < opts.size && bytes < maxBytes) {
      const next = await source.next();
      if (next.done) break;
      const size = sizeOf(next.value);
      if (chunk.length > 0 && bytes + size > maxBytes) {
        carried = [next.value];
        break;
      }
      chunk.push(next.value);
      bytes += size;
    }
    return chunk;
  };
  try {
    for (;;) {
      if (opts.now() >= (opts.deadline ?? Infinity)) {
        const deferred = carried.length > 0 || (await take(source, 1)).length > 0;
        if (deferred) opts.log('deadline near: leaving the rest for the next invocation', {});
        return deferred;
      }
      opts.beforeChunk?.();
      const chunk = await timed(opts.timings, 'listMs', takeChunk);
      if (chunk.length === 0) return false;
      await work(chunk);
    }
  } finally {
    await source.return(undefined);
  }
}

/** The result's optional fields, each only when it is set (neither zero, false nor undefined). */
export function whenSet<T extends Record<string, unknown>>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined && v !== 0 && v !== false)) as Partial<T>;
}

/** Up to `count` items from `source` (fewer only when it is exhausted). */
async function take<T>(source: AsyncIterator<T>, count: number): Promise<T[]> {
  const out: T[] = [];
  while (out.length < count) {
    const next = await source.next();
    if (next.done) break;
    out.push(next.value);
  }
  return out;
}

/** The epoch ms after which no new chunk should start, or Infinity without a context. */
export function chunkDeadline(context: DeadlineContext | undefined, now = Date.now()): number {
  if (!context || typeof context.getRemainingTimeInMillis !== 'function') return Infinity;
  return now + Math.max(0, context.getRemainingTimeInMillis() - DEADLINE_MARGIN_MS);
}

/** The epoch ms after which no more bytes are read (files still being read are handed back), or Infinity. */
export function readDeadline(context: DeadlineContext | undefined, now = Date.now()): number {
  if (!context || typeof context.getRemainingTimeInMillis !== 'function') return Infinity;
  return now + Math.max(0, context.getRemainingTimeInMillis() - READ_MARGIN_MS);
}

/**
 * Throws when the invocation started with too little time to do any work before its chunk deadline
 * (Lambda's default timeout is 3 s): without this, each run would return `deferred: true` and
 * process nothing, forever, without a word about the timeout.
 */
export function assertTimeToWork(processor: string, context: DeadlineContext | undefined): void {
  if (!context || typeof context.getRemainingTimeInMillis !== 'function') return;
  const remaining = context.getRemainingTimeInMillis();
  if (remaining >= MIN_REMAINING_MS) return;
  throw new Error(`${processor}: the function's timeout is too short: ${Math.floor(remaining / 1000)} s remained when this invocation started, `
    + `and the processor starts no work in its last ${DEADLINE_MARGIN_MS / 1000} s (kept to finish what is in flight), which leaves it less `
    + `than 1 s: it would return deferred: true on every run, having done next to nothing. Set the function's timeout to at least ${MIN_TIMEOUT_SECONDS} s `
    + '(Lambda\'s default is 3 s).');
}

/** Thrown inside a read that reached the read deadline: the file is handed back, not failed. */
export class OutOfTime extends Error {
  constructor(done: number, size: number) {
    super(`the deadline came while it was read (${done} of ${size} bytes)`);
  }
}

/** Content of `processed/<name>/<name>.meta.json`, the same shape on both sides. */
export interface FileMeta {
  readonly name: string;
  readonly wordCount: number;
  readonly lineCount: number;
  readonly bytes: number;
  /** Exactly which source this result describes (a version id, a modification time and claim). */
  readonly source: Record<string, string>;
}

export function metaJson(meta: FileMeta): string {
  const { name, wordCount, lineCount, bytes, source } = meta;
  return `${JSON.stringify({ name, wordCount, lineCount, bytes, source })}\n`;
}

export function emptyTimings(): Timings {
  return { listMs: 0, claimMs: 0, readMs: 0, processMs: 0, writeMs: 0, renameMs: 0, totalMs: 0 };
}

/** Time an async phase and add its wall-clock to `timings[key]`. */
export async function timed<T>(timings: Timings, key: keyof Timings, fn: () => Promise<T>): Promise<T> {
  const start = performance.now();
  try {
    return await fn();
  } finally {
    timings[key] += performance.now() - start;
  }
}

export function roundTimings(t: Timings): Timings {
  const r = (v: number): number => Math.round(v * 10) / 10;
  return {
    listMs: r(t.listMs),
    claimMs: r(t.claimMs),
    readMs: r(t.readMs),
    processMs: r(t.processMs),
    writeMs: r(t.writeMs),
    renameMs: r(t.renameMs),
    totalMs: r(t.totalMs),
  };
}

export function errorMessage(e: unknown): string {
  // Duck-typed rather than `instanceof Error`: errors can come from another realm.
  if (typeof e === 'object' && e !== null && typeof (e as Error).message === 'string') {
    const err = e as NodeJS.ErrnoException & { $metadata?: unknown };
    // errno code (ENOENT...) for file-system errors, the error name (NoSuchKey...) for SDK errors.
    const code = err.code ?? (err.$metadata !== undefined ? err.name : undefined);
    return code && !err.message.includes(code) ? `${code}: ${err.message}` : err.message;
  }
  return String(e);
}

/**
 * Parse a positive integer setting from the event or the environment, with a clear error naming
 * the setting, the bad value and the allowed range.
 */
export function intSetting(
  name: string,
  fromEvent: unknown,
  fromEnv: string | undefined,
  defaultValue: number,
  min: number,
  max: number,
): number {
  const raw = fromEvent ?? (fromEnv === undefined || fromEnv === '' ? undefined : fromEnv);
  if (raw === undefined || raw === null) return defaultValue;
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*-?\d+\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new Error(`Invalid ${name}: ${JSON.stringify(raw)}. Use an integer from ${min} to ${max}.`);
  }
  return n;
}

export function requireEnv(name: string): string {
  const v = process.env[name];
  if (v === undefined || v === '') {
    throw new Error(`Environment variable ${name} is not set; the function's configuration must provide it.`);
  }
  return v;
}
