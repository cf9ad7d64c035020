/**
 * The S3 side's "move": a server-side copy of exactly the version that was read, bounded by the
 * time the run has. CopyObject, or a multipart upload of UploadPartCopy ranges: above 5 GiB, and
 * for an object whose copy does not fit in one run. Both are sent with an abort signal at the
 * run's copy deadline, so a copy never outlives the invocation (the run returns; it is not killed
 * inside the copy, which would happen again on every run). A multipart copy is resumable: the
 * claim marker records its key before it starts and its upload id once it has one (./claims.ts,
 * `Carried`), the parts copied stay, and the next run of the same upload lists them (ListParts)
 * and copies only the rest; a run that takes a killed run's claim over aborts what it may not
 * resume, so no parts stay billed.
 */
import {
  AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CopyObjectCommand, CreateMultipartUploadCommand, ListMultipartUploadsCommand,
  ListPartsCommand, S3Client, UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
import { isGone } from './s3-errors';
import { encodeCopySource, listedKey } from '../shared/names';
import { mapPool } from '../shared/pool';

/** CopyObject copies at most 5 GiB; larger objects are copied with UploadPartCopy. */
export const MAX_COPY_OBJECT_BYTES = 5 * 1024 ** 3;
export const DEFAULT_COPY_PART_BYTES = 512 * 1024 ** 2;
/**
 * The copy rate time is reserved for until a copy of the object was seen to be slower (an
 * assumption: S3 gives no figure): a run stops reading early enough to copy what it read, and does
 * not start an object it could not copy.
 */
export const DEFAULT_COPY_BYTES_PER_SECOND = 50 * 1024 ** 2;
const MIN_PART_BYTES = 5 * 1024 ** 2;
const MAX_PARTS = 10_000;
const MAX_PART_BYTES = 5 * 1024 ** 3;

/** The version to copy: its key, version (undefined: the "null" version) and the ETag that was read. */
export interface CopySource {
  readonly key: string;
  readonly versionId?: string;
  readonly size: number;
  readonly contentType?: string;
  /** Sent as x-amz-copy-source-if-match: without a version id, the only way to copy exactly what was read. */
  readonly etag?: string;
}

/** A multipart copy under way: recorded in the claim marker, resumed by a later run. */
export interface UploadInProgress {
  readonly key: string;
  readonly uploadId: string;
  readonly partBytes: number;
}

export interface CopyOptions {
  readonly threshold?: number;
  readonly partBytes?: number;
  /** On the destination: `If-None-Match: *`, or `If-Match` on the ETag seen. */
  readonly condition?: { IfMatch?: string; IfNoneMatch?: string };
  /** Aborts the copy's requests at the run's copy deadline. */
  readonly signal?: AbortSignal;
  /** Copy in parts even at or under the threshold (its copy does not fit in one run). */
  readonly inParts?: boolean;
  /** A multipart copy of this destination a previous run started. */
  readonly resume?: UploadInProgress;
  /** True once no further part should start (too little time left for one). */
  readonly stopParts?: () => boolean;
  /** Records the copy in the claim marker: the key before the upload starts, then the upload. */
  readonly record?: (copying: string, upload?: UploadInProgress) => Promise<void>;
}

/** The copy was stopped at the run's copy deadline; a multipart copy's parts stay for the next run. */
export class CopyNotFinished extends Error {
  /**
   * @param elapsedMs how long the copy ran (for a single copy, a lower bound of its copy time)
   * @param upload the multipart upload whose parts stay for the next run
   * @param progressed parts were copied in this run (the next run starts further on)
   */
  constructor(public readonly elapsedMs: number, public readonly upload?: UploadInProgress, public readonly progressed = false) {
    super(`its copy did not finish in the time the run had (stopped after ${Math.round(elapsedMs / 1000)} s${upload ? '; the parts copied stay for the next run' : ''})`);
  }
}

/** Milliseconds to reserve for copying `bytes` at `bytesPerSecond`. */
export const copyMs = (bytes: number, bytesPerSecond = DEFAULT_COPY_BYTES_PER_SECOND): number => (bytes / bytesPerSecond) * 1000;

/** The part size for an object: at least 5 MiB, at most 5 GiB, at most 10,000 parts. */
export function partSize(size: number, wanted = DEFAULT_COPY_PART_BYTES): number {
  return Math.min(MAX_PART_BYTES, Math.max(MIN_PART_BYTES, wanted, Math.ceil(size / MAX_PARTS)));
}

export async function copyVersion(
  client: S3Client, bucket: string, src: CopySource, destKey: string, metadata: Record<string, string>, opts: CopyOptions = {},
): Promise<void> {
  const CopySource = encodeCopySource(bucket, src.key, src.versionId);
  const CopySourceIfMatch = src.etag;
  const condition = opts.condition ?? {};
  const abortSignal = opts.signal;
  const t0 = Date.now();
  const stopped = (e: unknown) => abortSignal?.aborted === true || e instanceof CopyNotFinished;
  if (!opts.inParts && !opts.resume && src.size <= (opts.threshold ?? MAX_COPY_OBJECT_BYTES)) {
    try {
      await client.send(new CopyObjectCommand({
        Bucket: bucket, Key: destKey, CopySource, CopySourceIfMatch, MetadataDirective: 'REPLACE', Metadata: metadata, ContentType: src.contentType, ...condition,
      }), { abortSignal });
    } catch (e) {
      throw stopped(e) ? new CopyNotFinished(Date.now() - t0) : e;
    }
    return;
  }
  const upload = await startOrResume(client, bucket, destKey, src, metadata, opts);
  const part = upload.partBytes;
  let copiedNow = 0;
  try {
    const done = upload.done;
    const ranges = Array.from({ length: Math.ceil(src.size / part) }, (_, i) => [i * part, Math.min(src.size, (i + 1) * part) - 1]);
    await mapPool(ranges.map((r, i) => ({ r, n: i + 1 })).filter(({ n }) => !done.has(n)), 4, async ({ r: [first, last], n }) => {
      if (opts.stopParts?.()) throw new CopyNotFinished(Date.now() - t0, upload);
      const res = await client.send(new UploadPartCopyCommand({
        Bucket: bucket, Key: destKey, UploadId: upload.uploadId, PartNumber: n, CopySource, CopySourceIfMatch, CopySourceRange: `bytes=${first}-${last}`,
      }), { abortSignal });
      done.set(n, res.CopyPartResult!.ETag!);
      copiedNow++;
    });
    const Parts = [...done.entries()].sort(([a], [b]) => a - b).map(([PartNumber, ETag]) => ({ PartNumber, ETag }));
    await client.send(new CompleteMultipartUploadCommand({
      Bucket: bucket, Key: destKey, UploadId: upload.uploadId, MultipartUpload: { Parts }, ...condition,
    }), { abortSignal });
  } catch (e) {
    // Out of time: the parts stay, recorded in the claim marker, for the next run of this upload.
    if (stopped(e)) throw new CopyNotFinished(Date.now() - t0, { key: destKey, uploadId: upload.uploadId, partBytes: part }, copiedNow > 0);
    await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: destKey, UploadId: upload.uploadId })).catch(() => undefined);
    throw e;
  }
}

/** The upload to copy into: the one a previous run started (with the parts it copied), or a new one, recorded first. */
async function startOrResume(
  client: S3Client, bucket: string, key: string, src: CopySource, metadata: Record<string, string>, opts: CopyOptions,
): Promise<UploadInProgress & { done: Map<number, string> }> {
  if (opts.resume?.key === key) {
    const done = await listParts(client, bucket, opts.resume).catch((e) => {
      if (isGone(e)) return undefined; // aborted or completed meanwhile: start again
      throw e;
    });
    if (done) return { ...opts.resume, done };
  }
  // One a killed run left for exactly this key (only the holder of the name's claim copies to it).
  await abortUploads(client, bucket, key);
  await opts.record?.(key);
  const partBytes = partSize(src.size, opts.partBytes);
  const { UploadId } = await client.send(new CreateMultipartUploadCommand({
    Bucket: bucket, Key: key, Metadata: metadata, ContentType: src.contentType,
  }));
  const upload = { key, uploadId: UploadId!, partBytes };
  await opts.record?.(key, upload);
  return { ...upload, done: new Map() };
}

/** The parts of an upload copied so far (ListParts has no key encoding: it names one key). */
async function listParts(client: S3Client, bucket: string, upload: UploadInProgress): Promise<Map<number, string>> {
  const done = new Map<number, string>();
  let PartNumberMarker: string | undefined;
  do {
    const page = await client.send(new ListPartsCommand({ Bucket: bucket, Key: upload.key, UploadId: upload.uploadId, PartNumberMarker }));
    for (const p of page.Parts ?? []) done.set(p.PartNumber!, p.ETag!);
    PartNumberMarker = page.IsTruncated ? page.NextPartNumberMarker : undefined;
  } while (PartNumberMarker !== undefined);
  return done;
}

/**
 * Aborts the multipart uploads of exactly `key` (best effort). Listed with `EncodingType=url`, whose
 * Key, KeyMarker, NextKeyMarker and Prefix come encoded (S3 API reference, ListMultipartUploads),
 * so a key holding `\r` is matched as it is.
 */
export async function abortUploads(client: S3Client, bucket: string, key: string): Promise<void> {
  let markers: { KeyMarker?: string; UploadIdMarker?: string } = {};
  for (let pages = 0; pages < 10; pages++) {
    const listed = await client.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: key, EncodingType: 'url', ...markers })).catch(() => undefined);
    for (const u of listed?.Uploads ?? []) {
      if (listedKey(u.Key!, listed!.EncodingType) !== key) continue;
      await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: u.UploadId })).catch(() => undefined);
    }
    if (!listed?.IsTruncated) return;
    markers = { KeyMarker: listedKey(listed.NextKeyMarker ?? '', listed.EncodingType), UploadIdMarker: listed.NextUploadIdMarker };
  }
}
