/**
 * Reading one claimed object: GetObject of the listed version, streamed through the counter. Time
 * for its server-side copy is reserved by size, so a run stops reading early enough to publish what
 * it read, and does not start an object whose copy could not finish in what is left.
 */
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Item } from './claims';
import { OutOfTime, Timings } from '../shared/common';
import { TextStatsCounter } from '../shared/text-stats';

/** The object was not started: its copy would not finish in the time left before the read deadline. */
export class NoTimeToCopy extends Error {
  /**
   * @param neverFits its copy is given more time than a whole run has before its read deadline: no
   *   run with this timeout can process it (the attempt counts, so it is parked after the bound).
   */
  constructor(size: number, reserveMs: number, leftMs: number, public readonly neverFits: boolean) {
    super(neverFits
      ? `copying its ${size} bytes is given ${Math.ceil(reserveMs / 1000)} s, more than a whole run has before its read deadline; `
        + 'raise the function\'s timeout'
      : `not started: copying its ${size} bytes is given ${Math.ceil(reserveMs / 1000)} s and ${Math.max(0, Math.floor(leftMs / 1000))} s were left`);
  }
}

export interface ReadClock {
  readonly now: () => number;
  /** When this run first started a read (the same clock; set by the first read). */
  firstRead?: number;
  /** Epoch ms after which no more bytes are read. */
  readonly readBy: number;
  /** Milliseconds reserved for copying the item (./bounds.ts): the whole copy, or one part of it. */
  readonly reserveMs: (item: Item) => number;
}

/**
 * Counts the item's listed version into `item.stats`; throws NoTimeToCopy, OutOfTime, NotTextError
 * or S3's error. An upload a previous run read and could not copy in time is not read again: its
 * counts come from the claim marker (./claims.ts, `Carried`), and the copy gets this run's time.
 */
export async function readItem(client: S3Client, bucket: string, item: Item, clock: ReadClock, timings: Timings): Promise<void> {
  const reserve = clock.reserveMs(item);
  const stopAt = clock.readBy - reserve;
  // Only the copy's reservation stops an object from starting: past the read deadline itself, an
  // object that arrives in one piece still completes (as a one-block file does on the mount).
  const now = clock.now();
  clock.firstRead ??= now;
  if (now >= stopAt && now < clock.readBy) throw new NoTimeToCopy(item.size, reserve, clock.readBy - now, reserve >= clock.readBy - clock.firstRead);
  const carried = item.carried?.read;
  if (carried) {
    Object.assign(item, { stats: carried.stats, readEtag: carried.etag, contentType: carried.contentType });
    return;
  }
  const res = await client.send(new GetObjectCommand({ Bucket: bucket, Key: item.key, VersionId: item.versionId }));
  item.contentType = res.ContentType;
  item.readEtag = res.ETag;
  const counter = new TextStatsCounter();
  const body = res.Body as Readable;
  let done = 0;
  try {
    for await (const chunk of body) {
      const c0 = performance.now();
      counter.update(chunk as Uint8Array);
      timings.processMs += performance.now() - c0;
      done += (chunk as Uint8Array).length;
      // Past the read deadline stop, even mid-object: publishing what is read must fit in what is left.
      if (done < item.size && clock.now() >= stopAt) throw new OutOfTime(done, item.size);
    }
  } finally {
    body.destroy();
  }
  const c0 = performance.now();
  item.stats = counter.finish();
  timings.processMs += performance.now() - c0;
}
