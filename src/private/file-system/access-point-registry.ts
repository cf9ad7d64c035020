import { IConstruct, IDependable } from 'constructs';

/**
 * A file system that takes its access points into account itself (this library's
 * `S3FilesFileSystem`: its waiter waits for them, its delete guard outlives them). Found by the
 * method, not `instanceof`: a second copy of the library may be loaded.
 */
export interface AccessPointRegistry {
  /** Takes a new access point into account; returns what its clients must wait for. */
  _registerAccessPoint(accessPoint: IConstruct & { readonly accessPointId: string }): IDependable;
}

/** The file system's registry, when it has one. */
export function registryOf(fileSystem: unknown): AccessPointRegistry | undefined {
  const candidate = fileSystem as Partial<AccessPointRegistry> | undefined;
  return typeof candidate?._registerAccessPoint === 'function' ? candidate as AccessPointRegistry : undefined;
}
