/**
 * The S3 side's "move": a server-side copy of exactly the version that was read. CopyObject up to
 * 5 GiB, above it a multipart upload of UploadPartCopy ranges. A multipart upload is aborted when
 * the copy fails, and one that a killed run left for the same key is aborted before a new one
 * starts (only the invocation holding the name's claim copies it), so no parts stay billed.
 */
import {
  AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CopyObjectCommand, CreateMultipartUploadCommand, ListMultipartUploadsCommand,
  S3Client, UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
import { encodeCopySource } from '../shared/names';
import { mapPool } from '../shared/pool';

/** CopyObject copies at most 5 GiB; larger objects are copied with UploadPartCopy. */
export const MAX_COPY_OBJECT_BYTES = 5 * 1024 ** 3;
export const DEFAULT_COPY_PART_BYTES = 512 * 1024 ** 2;
/**
 * The copy rate time is reserved for (an assumption, on the low side: S3 gives no figure): a run
 * stops reading early enough to copy what it read, and does not start an object it could not copy.
 */
export const DEFAULT_COPY_BYTES_PER_SECOND = 50 * 1024 ** 2;
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

export interface CopyOptions {
  readonly threshold?: number;
  readonly partBytes?: number;
  /** On the destination: `If-None-Match: *`, or `If-Match` on the ETag seen. */
  readonly condition?: { IfMatch?: string; IfNoneMatch?: string };
}

/** Milliseconds to reserve for copying `bytes` at `bytesPerSecond`. */
export const copyMs = (bytes: number, bytesPerSecond = DEFAULT_COPY_BYTES_PER_SECOND): number => (bytes / bytesPerSecond) * 1000;

export async function copyVersion(
  client: S3Client, bucket: string, src: CopySource, destKey: string, metadata: Record<string, string>, opts: CopyOptions = {},
): Promise<void> {
  const CopySource = encodeCopySource(bucket, src.key, src.versionId);
  const CopySourceIfMatch = src.etag;
  const condition = opts.condition ?? {};
  if (src.size <= (opts.threshold ?? MAX_COPY_OBJECT_BYTES)) {
    await client.send(new CopyObjectCommand({
      Bucket: bucket, Key: destKey, CopySource, CopySourceIfMatch, MetadataDirective: 'REPLACE', Metadata: metadata, ContentType: src.contentType, ...condition,
    }));
    return;
  }
  await abortLeftUploads(client, bucket, destKey);
  const part = Math.min(MAX_PART_BYTES, Math.max(opts.partBytes ?? DEFAULT_COPY_PART_BYTES, Math.ceil(src.size / MAX_PARTS)));
  const { UploadId } = await client.send(new CreateMultipartUploadCommand({
    Bucket: bucket, Key: destKey, Metadata: metadata, ContentType: src.contentType,
  }));
  try {
    const ranges = Array.from({ length: Math.ceil(src.size / part) }, (_, i) => [i * part, Math.min(src.size, (i + 1) * part) - 1]);
    const parts = await mapPool(ranges, 4, async ([first, last], i) => {
      const r = await client.send(new UploadPartCopyCommand({
        Bucket: bucket, Key: destKey, UploadId, PartNumber: i + 1, CopySource, CopySourceIfMatch, CopySourceRange: `bytes=${first}-${last}`,
      }));
      return { PartNumber: i + 1, ETag: r.CopyPartResult!.ETag };
    });
    await client.send(new CompleteMultipartUploadCommand({
      Bucket: bucket, Key: destKey, UploadId, MultipartUpload: { Parts: parts }, ...condition,
    }));
  } catch (e) {
    await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: destKey, UploadId })).catch(() => undefined);
    throw e;
  }
}

/** Aborts the multipart uploads of exactly `key` that a run killed mid-copy left behind (best effort). */
async function abortLeftUploads(client: S3Client, bucket: string, key: string): Promise<void> {
  const listed = await client.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: key })).catch(() => undefined);
  for (const u of listed?.Uploads ?? []) {
    if (u.Key !== key) continue;
    await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: u.UploadId })).catch(() => undefined);
  }
}
