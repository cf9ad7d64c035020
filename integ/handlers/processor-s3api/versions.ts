/**
 * The inbox as S3 lists it with ListObjectVersions: each key's current version and the versions
 * stored before it, one page at a time (memory does not grow with the inbox). Keys come
 * URL-encoded (`EncodingType=url`), so a key holding characters XML 1.0 cannot carry, such as
 * `\r`, comes back exactly.
 */
import { ListObjectVersionsCommand, S3Client } from '@aws-sdk/client-s3';
import { listedKey } from '../shared/names';

/** A key whose current version is an object (not a delete marker), with the versions stored before it. */
export interface CurrentVersion {
  readonly key: string;
  /** Undefined for the "null" version (a bucket without versioning, or with versioning suspended). */
  readonly versionId?: string;
  /** Versions stored before the current one. */
  readonly older: string[];
  readonly size: number;
  readonly lastModified?: Date;
  /** The current version's ETag as listed. */
  readonly etag?: string;
}

type Acc = { key: string; versionId?: string; older: string[]; latest?: 'object' | 'deleted'; size: number; lastModified?: Date; etag?: string };

/**
 * Every key under `prefix` with its current version. S3 lists a key's versions newest first and
 * may continue them on the next page: the page's last key (NextKeyMarker) is held back until its
 * versions are complete.
 */
export async function* currentVersions(client: S3Client, bucket: string, prefix: string, pageSize = 1000): AsyncGenerator<CurrentVersion> {
  let carried: Acc | undefined;
  let markers: { KeyMarker?: string; VersionIdMarker?: string } = {};
  for (;;) {
    const page = await client.send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: prefix, MaxKeys: pageSize, EncodingType: 'url', ...markers }));
    const byKey = new Map<string, Acc>();
    if (carried) byKey.set(carried.key, carried);
    // Keys come encoded only when the response says so (S3 does; a server that ignores the parameter sends them as they are).
    const keyOf = (k: string): string => listedKey(k, page.EncodingType);
    const acc = (key: string): Acc => {
      let a = byKey.get(key);
      if (!a) byKey.set(key, a = { key, older: [], size: 0 });
      return a;
    };
    for (const v of page.Versions ?? []) {
      const a = acc(keyOf(v.Key!));
      if (v.IsLatest) {
        Object.assign(a, { versionId: v.VersionId === 'null' ? undefined : v.VersionId, latest: 'object', size: v.Size ?? 0, lastModified: v.LastModified, etag: v.ETag });
      } else if (v.VersionId) {
        a.older.push(v.VersionId);
      }
    }
    for (const m of page.DeleteMarkers ?? []) {
      if (m.IsLatest) acc(keyOf(m.Key!)).latest = 'deleted';
    }
    const nextKey = page.NextKeyMarker === undefined ? undefined : keyOf(page.NextKeyMarker);
    carried = page.IsTruncated ? byKey.get(nextKey!) : undefined;
    for (const a of [...byKey.values()].sort((x, y) => Buffer.compare(Buffer.from(x.key), Buffer.from(y.key)))) {
      if (a === carried || a.latest !== 'object') continue;
      yield { key: a.key, versionId: a.versionId, older: a.older, size: a.size, lastModified: a.lastModified, etag: a.etag };
    }
    if (!page.IsTruncated) return;
    markers = { KeyMarker: nextKey, VersionIdMarker: page.NextVersionIdMarker };
  }
}
