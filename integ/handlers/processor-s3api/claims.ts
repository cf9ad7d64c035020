/**
 * Claims in the bucket: `processing/<name>`, a marker object written with `If-None-Match: *`, so
 * exactly one invocation wins a name; `processing/.leases/<claim>`, one heartbeat object per
 * invocation. A marker whose owner's lease expired (by S3's clock, ../shared/lease.ts) or whose
 * owner handed the object back (`released`) is taken over with `If-Match` on its ETag, again by
 * exactly one invocation. The marker also counts the attempts on the version it names, so an
 * object that never fits one run is parked after MAX_ATTEMPTS instead of blocking the inbox.
 */
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { abortUploads } from './copy';
import { keyWithin } from './keys';
import { isConditionFailure, isGone } from './s3-errors';
import { CurrentVersion } from './versions';
import { errorMessage, FileError } from '../shared/common';
import { Lease, LeaseLost, LeaseStore, parseLeaseRecord } from '../shared/lease';
import { TextStats } from '../shared/text-stats';

export const INBOX_PREFIX = 'inbox/';
export const PROCESSING_PREFIX = 'processing/';
export const LEASES_PREFIX = 'processing/.leases/';
export const PROCESSED_PREFIX = 'processed/';
export const FAILED_PREFIX = 'failed/';
/** Times an object is handed back (the deadline, no time to copy it, a run killed holding it) before it goes to failed/. */
export const MAX_ATTEMPTS = 5;

type Log = (message: string, extra: Record<string, unknown>) => void;

export interface Item extends CurrentVersion {
  readonly name: string;
  /** Why it is moved to failed/ without being read (a key the file system cannot show, a name too long for its result). */
  readonly refusal?: string;
  /** Runs that had it before and did not finish it (from the marker). */
  attempts: number;
  /** The claim marker's versions to delete when done. */
  markerVersions?: (string | undefined)[];
  /** The ETag of the marker this invocation wrote: the claim is ours while the marker still has it. */
  markerEtag?: string;
  stats?: TextStats;
  contentType?: string;
  /** The ETag of what was read: copies and deletes are conditional on it. */
  readEtag?: string;
  /** What the claim marker carries from run to run for this upload (./claims.ts, `Carried`). */
  carried?: Carried;
}

/**
 * What a claim marker carries for the upload it names, so the next run does not start over:
 * - `copying`: the key a multipart copy was started for (written before CreateMultipartUpload), so a
 *   run that takes the claim over from a killed one aborts what it left there (its parts are billed)
 *   even when that key was the killed run's own `failed/<claim>/<name>`;
 * - `upload`: that copy's upload id and part size, which a later run of the same upload resumes;
 * - `read`: what was counted (with the ETag read), so a large object is copied in a run of its own;
 * - `copyMs`: how long a copy of it ran before it was given up (a lower bound of its copy time);
 * - `parked`: why S3 will not serve it (and it cannot be moved): the upload is not taken again.
 */
export interface Carried {
  readonly copying?: string;
  readonly upload?: { readonly key: string; readonly uploadId: string; readonly partBytes: number };
  readonly read?: { readonly etag?: string; readonly contentType?: string; readonly stats: TextStats };
  readonly copyMs?: number;
  readonly parked?: string;
}

/** A claim marker's content. */
interface Marker {
  readonly owner?: string;
  readonly key?: string;
  readonly versionId?: string | null;
  readonly etag?: string;
  readonly attempts?: number;
  readonly released?: boolean;
  readonly carried?: Carried;
}

/**
 * The claim marker's key, `processing/<name>`; for a name of more than 1,013 bytes, shortened to
 * fit S3's key limit (./keys.ts), the same way by every invocation.
 */
const markerKey = (item: { readonly name: string }): string => keyWithin(PROCESSING_PREFIX, item.name).key;

function parseMarker(text: string): Marker {
  try {
    const m = JSON.parse(text);
    const owner = typeof m?.owner === 'string' && /^\d{13}-[0-9a-f-]{36}$/.test(m.owner) ? m.owner : undefined;
    return { ...m, owner, attempts: Number.isSafeInteger(m?.attempts) && m.attempts >= 0 ? m.attempts : 0 };
  } catch {
    return {};
  }
}

/**
 * This invocation's heartbeat object. S3 stamps LastModified with its own clock; a versioned
 * bucket keeps every renewal, so the previous version is deleted after each one.
 */
export class S3LeaseStore implements LeaseStore {
  private versionId?: string;
  constructor(private readonly client: S3Client, private readonly bucket: string, private readonly key: string) {}

  public async write(body: string): Promise<number> {
    const put = await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: this.key, Body: body, ContentType: 'application/json' }));
    const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.key, VersionId: put.VersionId }));
    const previous = this.versionId;
    this.versionId = put.VersionId;
    if (previous !== undefined && previous !== put.VersionId) {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.key, VersionId: previous })).catch(() => undefined);
    }
    return head.LastModified!.getTime();
  }

  public async remove(): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.key, VersionId: this.versionId }));
  }
}

export class BucketClaims {
  public readonly errors: FileError[] = [];
  public moved = 0;
  public skippedClaimed = 0;
  public vanished = 0;
  public recovered = 0;
  public retrying = 0;
  public parked = 0;

  constructor(
    public readonly client: S3Client, public readonly bucket: string, public readonly claimName: string,
    public readonly lease: Lease, public readonly log: Log,
  ) {}

  public fail(name: string, error: string): void {
    this.errors.push({ name, error });
    this.log('file not processed', { name, error });
  }

  /** Claim the item's name; false if a live invocation holds it or another one won the race. */
  public async claim(item: Item): Promise<boolean> {
    const Key = markerKey(item);
    try {
      const put = await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key, Body: this.markerBody(item), IfNoneMatch: '*' }));
      item.markerVersions = [put.VersionId];
      item.markerEtag = put.ETag;
      return true;
    } catch (e) {
      if (!isConditionFailure(e)) throw e;
    }
    // Someone holds (or held) the name: take it over only if it was handed back or its owner's lease expired.
    const held = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key })).catch((e) => {
      if (isGone(e)) return undefined; // released just now: the next run picks the name up
      throw e;
    });
    if (!held) return false;
    const marker = parseMarker(await held.Body!.transformToString());
    const sameUpload = marker.versionId === (item.versionId ?? null) && (item.versionId !== undefined || marker.etag === item.etag);
    // Parked: S3 will not serve this upload and it could not be moved; reported once, when it was parked.
    if (sameUpload && marker.carried?.parked) {
      this.parked++;
      return false;
    }
    const expired = !marker.released && await this.ownerExpired(marker, held.LastModified!);
    if (!marker.released && !expired) {
      this.skippedClaimed++;
      return false;
    }
    // Attempts count for the same upload only; a run that died holding it counts as one.
    item.attempts = sameUpload ? (marker.attempts ?? 0) + (expired ? 1 : 0) : 0;
    item.carried = sameUpload ? { ...marker.carried, copying: undefined } : {};
    // A multipart copy a killed run left: resumed for the same upload (the parts it copied stay), otherwise aborted.
    const left = marker.carried?.copying;
    if (left !== undefined && !(sameUpload && marker.carried?.upload?.key === left)) {
      await abortUploads(this.client, this.bucket, left);
      item.carried = { ...item.carried, upload: undefined };
    }
    try {
      const put = await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key, Body: this.markerBody(item), IfMatch: held.ETag }));
      item.markerVersions = [put.VersionId, held.VersionId];
      item.markerEtag = put.ETag;
    } catch (e) {
      if (isConditionFailure(e)) return false;
      throw e;
    }
    if (expired) {
      this.recovered++;
      this.log('took over a claim whose owner\'s lease expired', { name: item.name, owner: marker.owner });
    }
    return true;
  }

  /** Whether the marker's owner is dead: its lease object is older than its lease (or gone, judged by the marker's own time). */
  public async ownerExpired(marker: Pick<Marker, 'owner'>, markerModified: Date): Promise<boolean> {
    const holder = marker.owner ? await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: `${LEASES_PREFIX}${marker.owner}` })).catch((e) => {
      if (isGone(e)) return undefined;
      throw e;
    }) : undefined;
    const record = holder ? parseLeaseRecord(await holder.Body!.transformToString()) : undefined;
    const lastSign = (holder?.LastModified ?? markerModified).getTime();
    const damage = this.lease.damage(lastSign, record?.ttlMs);
    if (damage) this.log(damage, { owner: marker.owner });
    // Our latest heartbeat is "now" on S3's clock (at most a heartbeat old: that only delays a takeover).
    return this.lease.expired(lastSign, record?.ttlMs);
  }

  /** Throws LeaseLost unless this invocation still holds its lease and the item's claim marker is the one it wrote. */
  public async assertClaim(item: Item): Promise<void> {
    this.lease.assertHeld();
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: markerKey(item), IfMatch: item.markerEtag }));
    } catch (e) {
      if (isConditionFailure(e) || isGone(e)) throw new LeaseLost(`the claim on ${item.name} was taken over`);
      throw e;
    }
  }

  /** Deletes the claim marker's versions: the name is free again. */
  public async release(item: Item): Promise<void> {
    for (const VersionId of item.markerVersions ?? []) {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: markerKey(item), VersionId })).catch((e) =>
        this.log('claim marker not deleted (it expires with this invocation\'s lease)', { name: item.name, error: errorMessage(e) }));
    }
  }

  /**
   * Leaves the object in the inbox for the next run, its marker rewritten as released with one
   * more attempt (none for a copy that moved on: its parts stay) and what it carries (the next run
   * takes it over at once). Resolves to false when the attempts are used up and the caller must
   * park it instead.
   */
  public async handBack(item: Item, why: string, countAttempt = true): Promise<boolean> {
    const attempts = item.attempts + (countAttempt ? 1 : 0);
    if (countAttempt && attempts >= MAX_ATTEMPTS) return false;
    const Key = markerKey(item);
    try {
      const Body = this.markerBody({ ...item, attempts }, true);
      const put = await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key, Body, IfMatch: item.markerEtag }));
      // In a versioned bucket the earlier marker versions would stay behind as noncurrent versions.
      for (const VersionId of item.markerVersions ?? []) {
        if (VersionId !== undefined && VersionId !== put.VersionId) {
          await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key, VersionId })).catch(() => undefined);
        }
      }
    } catch (e) {
      // The attempt is not counted, but the object is never stranded: the name is freed.
      this.log('could not count the attempt on the claim marker', { name: item.name, error: errorMessage(e) });
      await this.release(item);
    }
    this.retrying++;
    this.log('object left in inbox/ for the next run', { name: item.name, reason: why, attempts });
    return true;
  }

  /**
   * Rewrites the claim marker (on the ETag this invocation wrote) to carry `carried` from now on
   * (marked released when `released`); throws LeaseLost when the claim was taken over.
   */
  public async carry(item: Item, carried: Carried, released = false): Promise<void> {
    item.carried = { ...item.carried, ...carried };
    try {
      const Body = this.markerBody(item, released);
      const put = await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: markerKey(item), Body, IfMatch: item.markerEtag }));
      item.markerVersions = [put.VersionId, ...(item.markerVersions ?? [])];
      item.markerEtag = put.ETag;
    } catch (e) {
      if (isConditionFailure(e) || isGone(e)) throw new LeaseLost(`the claim on ${item.name} was taken over`);
      throw e;
    }
  }

  /**
   * Parks an upload S3 will not serve and that could not be moved: it stays in inbox/, its claim
   * marker stays and records why, so later runs leave this upload alone (a new upload of the name is
   * processed) and it is reported once, here. False when the marker could not be written.
   */
  public async park(item: Item, why: string): Promise<boolean> {
    try {
      // Released too: a new upload of the name is taken over at once.
      await this.carry(item, { parked: why }, true);
    } catch (e) {
      if (e instanceof LeaseLost) throw e;
      return false;
    }
    this.fail(item.name, `${why}: it stays in inbox/, parked (its claim marker ${markerKey(item)} records it), and is not reported again; `
      + 'restore it, or upload it again, to have it processed');
    return true;
  }

  private markerBody(item: Item, released = false): string {
    const { key, versionId, etag, attempts, carried } = item;
    const extra = { ...(carried ? { carried } : {}), ...(released ? { released } : {}) };
    return JSON.stringify({ owner: this.claimName, key, versionId: versionId ?? null, etag, attempts, ...extra });
  }
}
