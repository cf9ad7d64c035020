/**
 * What killed runs leave under processing/ that nothing else would ever remove, removed once it is
 * provably stale (at the end of each run: one listing page each, and at most 20 markers, oldest first):
 * - a heartbeat `processing/.leases/<claim>` whose lease expired by S3's clock (the age of its
 *   LastModified against this run's own fresh heartbeat, as takeovers judge it, ../shared/lease.ts);
 *   its holder is dead, and a marker of that holder is then judged by its own time (./claims.ts);
 * - a claim marker `processing/<name>` that was released or whose holder is dead, naming an inbox
 *   key with no current object (deleted meanwhile): no run will list that key and take it over.
 *   A marker whose key still holds an object stays: the next run that lists it takes it over (a
 *   parked one stays while its upload is there).
 * Exactly the versions judged are deleted (never a delete marker added), so a marker rewritten by a
 * takeover in between is not touched.
 */
import { DeleteObjectCommand, DeleteObjectsCommand, GetObjectCommand, HeadObjectCommand, ListObjectVersionsCommand } from '@aws-sdk/client-s3';
import { BucketClaims, LEASES_PREFIX, PROCESSING_PREFIX } from './claims';
import { isConditionFailure, isGone } from './s3-errors';
import { errorMessage } from '../shared/common';
import { parseLeaseRecord } from '../shared/lease';
import { listedKey } from '../shared/names';

/** Markers judged per run at most. */
const MARKERS_PER_RUN = 20;

interface Listed {
  readonly key: string;
  readonly versionId?: string;
  readonly lastModified: Date;
  readonly isLatest: boolean;
  readonly deleteMarker: boolean;
  readonly etag?: string;
}

/** Removes stale leases and markers; failures are logged, never the run's. */
export async function sweep(claims: BucketClaims): Promise<void> {
  try {
    await claims.lease.renew(); // a fresh "now" on S3's clock
    const stale: Listed[] = [];
    for (const [key, versions] of await listByKey(claims, LEASES_PREFIX)) {
      if (key === `${LEASES_PREFIX}${claims.claimName}`) continue;
      if (await leaseExpired(claims, key, versions)) stale.push(...versions);
    }
    // Markers younger than a lease cannot be stale yet; of the others, the oldest few per run (each costs two requests).
    const old = [...await listByKey(claims, PROCESSING_PREFIX)].filter(([key, versions]) => !key.startsWith(LEASES_PREFIX)
      && claims.lease.serverNow - (latestOf(versions)?.lastModified.getTime() ?? Infinity) > claims.lease.ttlMs);
    old.sort(([, a], [, b]) => latestOf(a)!.lastModified.getTime() - latestOf(b)!.lastModified.getTime());
    for (const [key, versions] of old.slice(0, MARKERS_PER_RUN)) {
      if (await markerStale(claims, key, versions)) stale.push(...versions);
    }
    await remove(claims, stale);
  } catch (e) {
    claims.log('could not sweep stale leases and claim markers (a later run does)', { error: errorMessage(e) });
  }
}

/** One page of versions under `prefix`, by key (keys decoded: listed with EncodingType=url). */
async function listByKey(claims: BucketClaims, prefix: string): Promise<Map<string, Listed[]>> {
  const page = await claims.client.send(new ListObjectVersionsCommand({ Bucket: claims.bucket, Prefix: prefix, EncodingType: 'url' }));
  const byKey = new Map<string, Listed[]>();
  const add = (v: { Key?: string; VersionId?: string; LastModified?: Date; IsLatest?: boolean; ETag?: string }, deleteMarker: boolean) => {
    const key = listedKey(v.Key!, page.EncodingType);
    const listed = { key, versionId: v.VersionId, lastModified: v.LastModified!, isLatest: v.IsLatest === true, deleteMarker, etag: v.ETag };
    byKey.set(key, [...byKey.get(key) ?? [], listed]);
  };
  (page.Versions ?? []).forEach((v) => add(v, false));
  (page.DeleteMarkers ?? []).forEach((m) => add(m, true));
  return byKey;
}

const latestOf = (versions: Listed[]): Listed | undefined => versions.find((v) => v.isLatest && !v.deleteMarker);

async function leaseExpired(claims: BucketClaims, key: string, versions: Listed[]): Promise<boolean> {
  const latest = latestOf(versions);
  if (!latest) return false;
  const body = await claims.client.send(new GetObjectCommand({ Bucket: claims.bucket, Key: key, VersionId: latest.versionId })).catch((e) => {
    if (isGone(e)) return undefined;
    throw e;
  });
  if (!body) return false;
  const record = parseLeaseRecord(await body.Body!.transformToString());
  return claims.lease.expired(latest.lastModified.getTime(), record?.ttlMs);
}

async function markerStale(claims: BucketClaims, key: string, versions: Listed[]): Promise<boolean> {
  const latest = latestOf(versions);
  if (!latest) return false;
  const held = await claims.client.send(new GetObjectCommand({ Bucket: claims.bucket, Key: key, VersionId: latest.versionId })).catch((e) => {
    if (isGone(e)) return undefined;
    throw e;
  });
  if (!held) return false;
  const marker = await held.Body!.transformToString().then((t) => JSON.parse(t), () => undefined) as
    { owner?: string; key?: string; released?: boolean } | undefined;
  if (typeof marker?.key !== 'string') return false;
  if (!marker.released && !await claims.ownerExpired(marker, latest.lastModified)) return false;
  // Stale only when no run can take it over: its inbox key holds no current object.
  return claims.client.send(new HeadObjectCommand({ Bucket: claims.bucket, Key: marker.key })).then(() => false, (e) => {
    if (isGone(e)) return true;
    throw e;
  });
}

/**
 * Deletes exactly the versions judged: by version id in a versioned bucket; the "null" version (no
 * versioning) only while it still has the ETag listed (`If-Match`), so one rewritten since stays.
 */
async function remove(claims: BucketClaims, versions: Listed[]): Promise<void> {
  const versioned = versions.filter((v) => v.versionId !== undefined && v.versionId !== 'null');
  for (let i = 0; i < versioned.length; i += 1000) {
    const Objects = versioned.slice(i, i + 1000).map((v) => ({ Key: v.key, VersionId: v.versionId }));
    await claims.client.send(new DeleteObjectsCommand({ Bucket: claims.bucket, Delete: { Objects, Quiet: true } }));
  }
  for (const v of versions.filter((x) => !versioned.includes(x))) {
    await claims.client.send(new DeleteObjectCommand({ Bucket: claims.bucket, Key: v.key, IfMatch: v.etag })).catch((e) => {
      if (!isConditionFailure(e) && !isGone(e)) throw e;
    });
  }
  if (versions.length > 0) claims.log('removed stale leases and claim markers left by killed runs', { versions: versions.length });
}
