import { paginateListFileSystems, S3FilesClient } from '@aws-sdk/client-s3files';
import { s3Module, S3Sender } from './clients';
import { PropertyReader, show } from './properties';
import { IsCompleteDeps, IsCompleteResult, Poll, ResourceError, ResourceHandler, WaitLogger } from './resource-handler';
import { describeError, httpStatusOf, isTransient } from './sdk-errors';
import { BUCKET_CLEANER_RESOURCE_TYPE, FOREIGN_FILE_SYSTEM_GRACE_SECONDS, GUARD_TOTAL_SECONDS } from '../../src/private/provider/custom-resource-contract';

/**
 * `Custom::S3FilesBucketCleaner`: belongs to a bucket the construct created, not to a file system.
 * A file system's replacement or rollback never reaches it; only the bucket's own deletion does
 * (removal from the app, stack deletion, a replaced bucket), and then, with RemovalPolicy.DESTROY,
 * it waits until no file system lists the bucket, empties it (every version and delete marker) and
 * deletes it, retrying while S3 still reports a file system attached. CloudFormation's delete of
 * the bucket that follows finds it gone. It never empties a bucket a file system still lists,
 * whatever its properties say. Create and Update only validate.
 */

/** Time one poll spends deleting object versions before it hands back to the provider. */
const EMPTY_SLICE_MS = 25_000;

export interface BucketCleanerProps {
  readonly bucketArn: string;
  /** "true" only with RemovalPolicy.DESTROY; otherwise Delete does nothing. */
  readonly emptyOnDelete: boolean;
  readonly totalTimeoutSeconds: number;
}

/** The cleaner lists file systems (S3 Files) and empties and deletes the bucket (S3). */
export interface CleanerDeps {
  readonly client: S3FilesClient;
  readonly s3: S3Sender;
  readonly now: () => number;
  readonly log: WaitLogger;
}

const bucketOf = (bucketArn: string): string => bucketArn.slice(bucketArn.indexOf(':::') + 3);

class BucketCleanerHandler extends ResourceHandler<BucketCleanerProps> {
  constructor() {
    super(BUCKET_CLEANER_RESOURCE_TYPE);
  }

  protected read(properties: PropertyReader): BucketCleanerProps {
    const bucketArn = properties.raw('BucketArn');
    if (typeof bucketArn !== 'string' || !/^arn:[\w-]+:s3:::[^/]+$/.test(bucketArn)) {
      properties.fail(`"BucketArn" must be a bucket ARN (arn:aws:s3:::name), got ${show(bucketArn)}.`);
    }
    return {
      bucketArn,
      emptyOnDelete: properties.boolean('EmptyOnDelete'),
      totalTimeoutSeconds: properties.seconds('TotalTimeoutSeconds', GUARD_TOTAL_SECONDS),
    };
  }

  /** The bucket's name: a replaced bucket gets Delete with the old one. */
  protected physicalId(props: BucketCleanerProps): string {
    return bucketOf(props.bucketArn);
  }

  protected summary(props: BucketCleanerProps | undefined): Record<string, unknown> {
    return { bucketArn: props?.bucketArn, emptyOnDelete: props?.emptyOnDelete ?? false };
  }

  protected pollCreateOrUpdate(): undefined {
    return undefined;
  }

  /** Only a Delete with DESTROY acts. */
  protected pollDelete(props: BucketCleanerProps | undefined, deps: IsCompleteDeps, startedAt: number): Poll | undefined {
    if (!props?.emptyOnDelete) return undefined;
    return { work: cleanerDelete(deps, props, startedAt), timeoutSeconds: props.totalTimeoutSeconds };
  }
}

export const BUCKET_CLEANER = new BucketCleanerHandler();

const cleanerFailed = (message: string): ResourceError => BUCKET_CLEANER.error(message);
const isCleanerFailure = (error: unknown): boolean => error instanceof ResourceError && error.resourceType === BUCKET_CLEANER_RESOURCE_TYPE;

/**
 * A key as listed with `EncodingType=url` (S3 percent-encodes it, a space possibly as `+`), or as
 * it came when the answer says it is not encoded.
 */
export function listedKey(key: string, encodingType: string | undefined): string {
  return encodingType === 'url' ? decodeURIComponent(key.replace(/\+/g, ' ')) : key;
}

/**
 * Deletes object versions and delete markers for up to `sliceMs`; true once the bucket is empty.
 * Keys are listed URL-encoded (`EncodingType=url`): without it S3 sends them through XML 1.0, where
 * a carriage return comes back as a line feed and a delete of that key removes nothing (S3 API
 * reference, ListObjectVersions: with `encoding-type`, Key, KeyMarker, NextKeyMarker, Prefix and
 * Delimiter are encoded). A listing that shows again versions just deleted without an error means
 * the deletes removed nothing: that is said as it is, never taken for an empty bucket.
 */
export async function emptyBucketSlice(
  s3: S3Sender, bucket: string, now: () => number, sliceMs = EMPTY_SLICE_MS,
): Promise<{ empty: boolean; deleted: number }> {
  const { DeleteObjectsCommand, ListObjectVersionsCommand } = s3Module();
  const stopAt = now() + sliceMs;
  let deleted = 0;
  let justDeleted = new Set<string>();
  for (let confirmations = 0; ;) {
    // Always from the start: what was deleted is gone, so the first page is what remains.
    const page = await s3.send(new ListObjectVersionsCommand({ Bucket: bucket, MaxKeys: 1000, EncodingType: 'url' }));
    const objects = [...(page.Versions ?? []), ...(page.DeleteMarkers ?? [])]
      .map((v) => ({ Key: listedKey(v.Key!, page.EncodingType), VersionId: v.VersionId }));
    if (objects.length === 0) return { empty: true, deleted };
    const still = objects.filter((o) => justDeleted.has(`${o.VersionId}\n${o.Key}`));
    if (still.length > 0) throw cleanerFailed(deletesRemovedNothing(bucket, still.length, still[0]));
    const result = await s3.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: objects, Quiet: true } }));
    if (result.Errors?.length) {
      const first = result.Errors[0];
      throw cleanerFailed(`could not empty bucket ${bucket}: ${result.Errors.length} object versions were not deleted `
        + `(first: ${JSON.stringify(first.Key)} ${first.VersionId ?? ''}: ${first.Code} ${first.Message}). The bucket is kept; fix the cause and retry the stack operation.`);
    }
    deleted += objects.length;
    justDeleted = new Set(objects.map((o) => `${o.VersionId}\n${o.Key}`));
    // Out of time: one more listing (one call) still confirms the deletes of a last page.
    if (now() >= stopAt && (page.IsTruncated || confirmations++ > 0)) return { empty: false, deleted };
  }
}

/** The message when S3 accepted the deletes and the versions are still there. */
function deletesRemovedNothing(bucket: string, count: number, first: { Key: string; VersionId?: string }): string {
  return `could not empty bucket ${bucket}: S3 answered the deletes of ${count} object versions without an error, yet they are still listed `
    + `(first: ${JSON.stringify(first.Key)} ${first.VersionId ?? ''}): the deletes removed nothing. That happens when a listing returns a key in `
    + 'another form than the one stored (a key holding characters XML 1.0 cannot carry, such as a carriage return, from an S3-compatible '
    + 'server that ignores EncodingType=url); it is not a permission of the cleaner. The bucket and those objects are kept: delete them '
    + '(aws s3api delete-object with the exact key and version id), then retry the stack operation.';
}

/**
 * The file systems that still list the bucket (any, not only the construct's: one may have been
 * replaced), and those of them that are not on their way out.
 */
async function attachedFileSystems(client: S3FilesClient, bucketArn: string): Promise<{ all: string[]; staying: string[] }> {
  const all: string[] = [];
  const staying: string[] = [];
  for await (const page of paginateListFileSystems({ client, pageSize: 100 }, { bucket: bucketArn })) {
    for (const f of page.fileSystems ?? []) {
      const shown = `${f.fileSystemId} (${f.status})`;
      all.push(shown);
      if (f.status !== 'deleting' && f.status !== 'deleted') staying.push(shown);
    }
  }
  return { all, staying };
}

function isNoSuchBucket(error: unknown): boolean {
  const e = error as { name?: string; Code?: string };
  return e?.name === 'NoSuchBucket' || e?.Code === 'NoSuchBucket' || httpStatusOf(error) === 404;
}

/** S3's refusal to delete a bucket that holds objects: 409 BucketNotEmpty. */
function isBucketNotEmpty(error: unknown): boolean {
  const e = error as { name?: string; Code?: string };
  return httpStatusOf(error) === 409 && (e?.name === 'BucketNotEmpty' || e?.Code === 'BucketNotEmpty');
}

/** S3's refusal to delete a bucket a file system is (still) attached to: 409 BucketHasS3FileSystemAttached. */
export function isStillAttached(error: unknown): boolean {
  const e = error as { name?: string; Code?: string; message?: string };
  return httpStatusOf(error) === 409 && (e?.name === 'BucketHasS3FileSystemAttached' || e?.Code === 'BucketHasS3FileSystemAttached'
    || /S3FileSystemAttached|file system attached/i.test(e?.message ?? ''));
}

/**
 * One poll of the cleaner's Delete (DESTROY). Waits while any file system lists the bucket, then
 * empties it slice by slice, then deletes it, retrying the service's attached-conflict. Fails,
 * keeping the bucket and what is left in it, at `totalTimeoutSeconds` or on a non-retryable error.
 */
export async function cleanerDelete(deps: CleanerDeps, props: BucketCleanerProps, startedAtMs: number): Promise<IsCompleteResult> {
  const bucket = bucketOf(props.bucketArn);
  const elapsedMs = deps.now() - startedAtMs;
  const elapsed = Math.round(elapsedMs / 1000);
  const overTotal = elapsedMs >= props.totalTimeoutSeconds * 1000;
  const giveUp = (what: string) => cleanerFailed(`bucket ${bucket} ${what} after ${elapsed} s (limit ${props.totalTimeoutSeconds} s). `
    + 'The bucket and whatever is still in it are kept. To finish: once no S3 Files file system lists it (aws s3files list-file-systems '
    + `--bucket ${props.bucketArn}), empty it (every object version) and delete it, then retry the stack operation.`);
  try {
    const attached = await attachedFileSystems(deps.client, props.bucketArn);
    // The stack's own file systems are deleted (by their guards) before the cleaner runs: one that is
    // still not being deleted after a short grace is retained, or was made outside the stack.
    if (attached.staying.length > 0 && elapsedMs >= FOREIGN_FILE_SYSTEM_GRACE_SECONDS * 1000) {
      throw cleanerFailed(`bucket ${bucket} is still used by file system ${attached.staying.join(', ')}, which is not being deleted `
        + '(a file system with RemovalPolicy.RETAIN keeps using the bucket after its stack is gone, and so does one made outside the stack). '
        + 'Nothing was emptied: the bucket and its data are kept. To finish: delete that file system (aws s3files delete-file-system) and retry, '
        + 'or retry the stack deletion keeping the bucket (aws cloudformation delete-stack --retain-resources with the bucket\'s logical id).');
    }
    if (attached.all.length > 0) {
      if (overTotal) throw giveUp(`is still used by file system ${attached.all.join(', ')}, so it was not emptied`);
      deps.log.info('Waiting until no file system lists the bucket before emptying it', { bucket, attached: attached.all, elapsedSeconds: elapsed });
      return { IsComplete: false };
    }
    const slice = await emptyBucketSlice(deps.s3, bucket, deps.now);
    if (!slice.empty) {
      if (overTotal) throw giveUp('is still not empty');
      deps.log.info('Emptying the bucket', { bucket, deletedVersions: slice.deleted, elapsedSeconds: elapsed });
      return { IsComplete: false };
    }
    try {
      await deps.s3.send(new (s3Module().DeleteBucketCommand)({ Bucket: bucket }));
    } catch (error) {
      if (isNoSuchBucket(error)) return { IsComplete: true };
      if (isBucketNotEmpty(error)) {
        // Objects written after it was emptied (a writer still running): emptied again next poll.
        if (overTotal) throw giveUp(`is still not empty: objects keep being written to it (${describeError(error)})`);
        deps.log.info('Objects were written to the bucket after it was emptied; emptying it again', { bucket, elapsedSeconds: elapsed });
        return { IsComplete: false };
      }
      if (isStillAttached(error)) {
        if (overTotal) throw giveUp(`is empty, but S3 still refuses to delete it (${describeError(error)})`);
        deps.log.info('The bucket is empty; S3 still reports a file system attached, retrying', { bucket, elapsedSeconds: elapsed });
        return { IsComplete: false };
      }
      throw error;
    }
    deps.log.info('Bucket emptied and deleted', { bucket, elapsedSeconds: elapsed });
    return { IsComplete: true };
  } catch (error) {
    if (isCleanerFailure(error)) throw error;
    if (isNoSuchBucket(error)) return { IsComplete: true };
    if (!isTransient(error)) {
      // Only a refusal is a matter of the cleaner's policy.
      const policy = httpStatusOf(error) === 403
        ? 'Check the cleaner\'s policy (s3files:ListFileSystems, s3:ListBucketVersions, s3:DeleteObjectVersion, s3:DeleteBucket), then retry.'
        : 'Fix the cause, then retry the stack operation.';
      throw cleanerFailed(`bucket ${bucket} could not be emptied and deleted: ${describeError(error)}. The bucket is kept. ${policy}`);
    }
    if (overTotal) throw giveUp(`could not be reached (${describeError(error)})`);
    deps.log.warn('Transient error while cleaning the bucket; will retry on the next poll', { bucket, error: describeError(error) });
    return { IsComplete: false };
  }
}
