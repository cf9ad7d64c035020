/**
 * How long a run gives each copy, so that no copy outlives the invocation: every copy is aborted
 * at the run's copy deadline (its end less the time to write the metadata, delete and release),
 * its time is estimated from its size at an assumed rate, or from how long a copy of it already
 * ran without finishing (`copyMs` carried in the claim marker), and an object whose copy would not
 * fit in a whole run is copied in parts, resumed from run to run (./copy.ts).
 */
import { BucketClaims, Item } from './claims';
import { copyMs, CopyOptions, DEFAULT_COPY_PART_BYTES, partSize } from './copy';

/** Kept after the copy deadline: the metadata PUT, the deletes, the claim's release and the lease. */
export const COPY_FINISH_MS = 3_000;
/** A copy that ran out of time once is given this much more than it ran the next time. */
const OVERRUN_FACTOR = 1.25;

export interface CopyClock {
  readonly now: () => number;
  /** When this run started (the same clock). */
  readonly startedAt: number;
  /** After it no copy request may still run: the invocation's end less COPY_FINISH_MS (Infinity without one). */
  readonly copyBy: number;
  /** The copy rate assumed until a copy of the object was seen to be slower. */
  readonly bytesPerSecond: number;
}

/** Milliseconds a copy of the whole object is expected to take. */
export function copyEstimateMs(clock: CopyClock, item: Item): number {
  return Math.max(copyMs(item.size, clock.bytesPerSecond), (item.carried?.copyMs ?? 0) * OVERRUN_FACTOR);
}

/** Whether the object is copied in parts: it is already, or its copy would not fit in a whole run. */
export function copiedInParts(clock: CopyClock, item: Item): boolean {
  return item.carried?.upload !== undefined || copyEstimateMs(clock, item) >= clock.copyBy - clock.startedAt;
}

/**
 * The part size of a copy in parts: what copies in half a run at the rate seen, within S3's limits
 * (at least 5 MiB, so an object under 10 MiB is one part and gains nothing), never more than asked.
 */
function partBytesFor(clock: CopyClock, item: Item, partBytes?: number): number {
  if (item.carried?.upload) return item.carried.upload.partBytes;
  const window = clock.copyBy - clock.startedAt;
  const fitting = Number.isFinite(window) ? Math.floor((item.size / copyEstimateMs(clock, item)) * (window / 2)) : Infinity;
  return partSize(item.size, Math.min(partBytes ?? DEFAULT_COPY_PART_BYTES, fitting));
}

/** Milliseconds reserved before the read deadline for the copy: the whole copy, or one part of it. */
export function copyReserveMs(clock: CopyClock, item: Item, partBytes?: number): number {
  const whole = copyEstimateMs(clock, item);
  if (!copiedInParts(clock, item) || item.size === 0) return whole;
  return whole * (Math.min(item.size, partBytesFor(clock, item, partBytes)) / item.size);
}

/** The bounds of one copy of `item` into `key`: the abort signal, parts, the upload to resume, the marker records. */
export function copyBounds(claims: BucketClaims, clock: CopyClock, item: Item, key: string, partBytes?: number): CopyOptions {
  const left = clock.copyBy - clock.now();
  const inParts = copiedInParts(clock, item);
  const partMs = copyReserveMs(clock, item, partBytes);
  return {
    ...(Number.isFinite(left) ? { signal: AbortSignal.timeout(Math.max(0, left)) } : {}),
    ...(inParts ? { partBytes: partBytesFor(clock, item, partBytes) } : {}),
    inParts,
    resume: item.carried?.upload?.key === key ? item.carried.upload : undefined,
    stopParts: () => clock.now() + partMs > clock.copyBy,
    record: (copying, upload) => claims.carry(item, { copying, upload }),
  };
}
