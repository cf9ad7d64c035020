/**
 * Writing what the S3 processor produces, each write conditional so that a writer whose requests
 * stalled past a takeover cannot overwrite the newer result (its late write fails with 412), and
 * each copy and delete conditional on what was read, so a re-upload is never published under
 * metadata that describes another upload, nor deleted unread:
 * - the result: the data copied to `processed/<name>/<name>` (stamped `x-amz-meta-source-version-id`),
 *   then `processed/<name>/<name>.meta.json`;
 * - the inbox: the version read and every older one deleted (so none becomes current again);
 * - what cannot be processed: moved to `failed/<claim>/<name>`, reported once.
 */
import { DeleteObjectCommand, DeleteObjectsCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { BucketClaims, FAILED_PREFIX, Item, PROCESSED_PREFIX } from './claims';
import { CopyNotFinished, copyVersion, CopyOptions } from './copy';
import { keyWithin, MAX_KEY_BYTES } from './keys';
import { isConditionFailure, isGone, unservable } from './s3-errors';
import { errorMessage, metaJson } from '../shared/common';
import { LeaseLost } from '../shared/lease';

/** The object was uploaded again after it was read: nothing of it is written; the new upload waits in the inbox. */
export class SourceChanged extends Error {
  constructor(name: string) {
    super(`${name} was uploaded again after it was read; the new upload is processed by a later run`);
  }
}

export interface PublishOptions extends Pick<CopyOptions, 'threshold' | 'partBytes'> {
  /** How many times a result write is retried after another writer changed the result. */
  readonly attempts: number;
  /** The run's bounds on one copy of the item into `key` (./bounds.ts): its deadline, parts, resumed upload. */
  readonly bounds?: (item: Item, key: string) => CopyOptions;
}

const dataKeyOf = (item: Item): string => `${PROCESSED_PREFIX}${item.name}/${item.name}`;
const copySourceOf = (item: Item) => ({
  key: item.key, versionId: item.versionId, size: item.size, contentType: item.contentType, etag: item.readEtag ?? item.etag,
});

/**
 * Writes the data copy (`phase` "copy") or the metadata (`phase` "meta") of the item's result:
 * first as a new object; if one is there (an older result, or another writer's), on the ETag seen,
 * checking before each write that the claim is still ours.
 */
export async function writeResult(claims: BucketClaims, item: Item, phase: 'copy' | 'meta', opts: PublishOptions): Promise<void> {
  const { client, bucket } = claims;
  const Key = phase === 'copy' ? dataKeyOf(item) : `${dataKeyOf(item)}.meta.json`;
  const source = { key: item.key, versionId: item.versionId ?? 'null', modified: item.lastModified?.toISOString() ?? '', claim: claims.claimName };
  let condition: { IfNoneMatch?: string; IfMatch?: string } = { IfNoneMatch: '*' };
  for (let attempt = 0; ; attempt++) {
    await claims.assertClaim(item);
    try {
      if (phase === 'copy') {
        await copyVersion(client, bucket, copySourceOf(item), Key, { 'source-version-id': source.versionId }, { ...opts, ...opts.bounds?.(item, Key), condition });
      } else {
        const Body = metaJson({ name: item.name, ...item.stats!, source });
        await client.send(new PutObjectCommand({ Bucket: bucket, Key, Body, ContentType: 'application/json', ...condition }));
      }
      return;
    } catch (e) {
      if (!isConditionFailure(e)) throw e;
      if (phase === 'copy' && await sourceChanged(claims, item)) throw new SourceChanged(item.name);
      if (attempt + 1 >= opts.attempts) throw e;
    }
    // Someone else wrote it since we looked: write over what is there now only if the claim is still ours (checked above).
    const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key })).catch((e) => {
      if (isGone(e)) return undefined;
      throw e;
    });
    condition = head?.ETag ? { IfMatch: head.ETag } : { IfNoneMatch: '*' };
  }
}

/** For the "null" version only (a version id names immutable bytes): whether the key now holds another upload. */
async function sourceChanged(claims: BucketClaims, item: Item): Promise<boolean> {
  if (item.versionId !== undefined) return false;
  const head = await claims.client.send(new HeadObjectCommand({ Bucket: claims.bucket, Key: item.key })).catch(() => undefined);
  return head?.ETag !== (item.readEtag ?? item.etag);
}

/**
 * Deletes the version that was read and every older one, at most 1,000 per call. The "null"
 * version is deleted only if it still is what was read (`If-Match`): a re-upload that landed since
 * stays for the next run. Resolves to false when that happened.
 */
export async function removeFromInbox(claims: BucketClaims, item: Item): Promise<boolean> {
  const { client, bucket } = claims;
  const versions = [...(item.versionId !== undefined ? [item.versionId] : []), ...item.older].map((VersionId) => ({ Key: item.key, VersionId }));
  for (let i = 0; i < versions.length; i += 1000) {
    const res = await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: versions.slice(i, i + 1000), Quiet: true } }));
    if (res.Errors?.length) throw new Error(`${res.Errors[0].Code}: ${res.Errors[0].Message}`);
  }
  if (item.versionId !== undefined) return true;
  try {
    await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: item.key, IfMatch: item.readEtag ?? item.etag }));
    return true;
  } catch (e) {
    if (isGone(e)) return true;
    if (isConditionFailure(e)) return false;
    throw e;
  }
}

/**
 * Moves an object that cannot be processed to `failed/<claim>/<name>` (copy, then delete what was
 * read) and reports it once with `why`. If it cannot be moved, it stays in the inbox and says so.
 * A key that would pass S3's 1,024 bytes (a name of more than 966 bytes) is shortened (./keys.ts):
 * the report names the key it was stored under, and the object's metadata `source-key-base64`
 * holds its inbox key exactly (base64 of its UTF-8 bytes: always ASCII, and within the 2 KB S3
 * allows for user metadata).
 */
export async function moveToFailed(claims: BucketClaims, item: Item, why: string, opts: PublishOptions): Promise<boolean> {
  // A move a previous run began (its parts copied) goes on into the same key.
  const resumed = item.carried?.upload?.key.startsWith(FAILED_PREFIX) ? item.carried.upload.key : undefined;
  const { key, shortened } = resumed ? { key: resumed, shortened: false } : keyWithin(`${FAILED_PREFIX}${claims.claimName}/`, item.name);
  const dir = `${key.split('/').slice(0, 2).join('/')}/`;
  const metadata = { 'source-version-id': item.versionId ?? 'null', ...(shortened ? { 'source-key-base64': Buffer.from(item.key, 'utf8').toString('base64') } : {}) };
  try {
    await claims.assertClaim(item);
    await copyVersion(claims.client, claims.bucket, copySourceOf(item), key, metadata, { ...opts, ...opts.bounds?.(item, key) });
    await claims.assertClaim(item);
    await removeFromInbox(claims, item);
    claims.fail(item.name, `${why} (moved to ${dir}${shortened ? shortenedNote(dir, item.name, key) : ''})`);
    await claims.release(item);
    return true;
  } catch (e) {
    if (e instanceof LeaseLost) throw e;
    if (e instanceof CopyNotFinished) {
      // Out of time: the move goes on in the next run (the parts copied stay); nothing to report yet.
      item.carried = { ...item.carried, copying: undefined, ...(e.upload ? { upload: e.upload } : {}) };
      await claims.handBack(item, `moving it to failed/: ${e.message}`, false);
      return false;
    }
    if (isConditionFailure(e) && await sourceChanged(claims, item)) {
      claims.log('object uploaded again before it could be moved to failed/: left for the next run', { name: item.name, reason: why });
    } else if (unservable(e)) {
      // S3 will not copy it either (archived, SSE-C, a KMS key this function may not use): parked, reported once.
      if (await claims.park(item, `${why}; it cannot be moved to failed/ either (${errorMessage(e)})`)) return false;
    } else {
      claims.fail(item.name, `${why}; could not move it to failed/ (${errorMessage(e)}): it stays in inbox/`);
    }
  }
  await claims.release(item);
  return false;
}

/** Where a shortened key put the object, and why, for the report. */
function shortenedNote(dir: string, name: string, key: string): string {
  return ` as ${key.slice(dir.length)}: ${dir}<name> would be a key of ${Buffer.byteLength(`${dir}${name}`, 'utf8')} bytes, over S3's limit of `
    + `${MAX_KEY_BYTES}, so it keeps the name's start and ends with a hash of the name; its metadata source-key-base64 holds its inbox key`;
}
