import * as crypto from 'crypto';
import { Stack, Token } from 'aws-cdk-lib';
import { IConstruct } from 'constructs';
import type { IS3FilesAccessPoint } from '../../s3files-access-point-contract';
import { describe, invalid } from '../messages';

// What ECS task definitions and Batch job definitions share: S3 Files volumes by name, and the
// containers' mount points.

/** An S3 Files volume of a task or job definition: whose it is and how it is configured. */
export interface S3FilesVolume {
  readonly accessPoint: string;
  readonly config: { readonly fileSystemArn: string; readonly accessPointArn: string; readonly transitEncryptionPort?: number };
}

/**
 * The name of an access point's volume in a task or job definition: the given one, checked, or a
 * hash of the access point as CloudFormation sees it (its stack's name and its ARN resolved there: a
 * logical id, or a literal), not its construct path, which a Stage move changes; the task definition
 * would be replaced for it.
 */
export function volumeName(scope: IConstruct, accessPoint: IS3FilesAccessPoint, given: string | undefined, service: string): string {
  const home = Stack.of(accessPoint);
  const identity = JSON.stringify([home.resolve(home.stackName), home.resolve(accessPoint.accessPointArn)]);
  const name = given ?? `s3files-${crypto.createHash('sha256').update(identity).digest('hex').slice(0, 12)}`;
  if (!Token.isUnresolved(name) && !/^[A-Za-z0-9_-]{1,255}$/.test(name)) {
    invalid(scope, 'volumeName', name, `${service} volume names are 1-255 letters, digits, hyphens and underscores`, 'use a name such as "shared-data"');
  }
  return name;
}

/** The volume's S3 Files configuration, as ECS and Batch take it. */
export function volumeConfig(accessPoint: IS3FilesAccessPoint, transitEncryptionPort: number | undefined): S3FilesVolume['config'] {
  return { fileSystemArn: accessPoint.fileSystem.fileSystemArn, accessPointArn: accessPoint.accessPointArn, transitEncryptionPort };
}

/** One name, one access point; the same port every time it is mounted again. */
export function checkSameVolume(
  scope: IConstruct, name: string, existing: S3FilesVolume | undefined, accessPoint: IS3FilesAccessPoint, port: number | undefined, what: string,
): void {
  if (existing && existing.accessPoint !== accessPoint.node.path) {
    invalid(scope, 'volumeName', name, `the ${what} already has an S3 Files volume of that name for ${existing.accessPoint}`, 'give each access point its own `volumeName`');
  }
  if (existing && port !== undefined && existing.config.transitEncryptionPort !== port) {
    invalid(scope, 'transitEncryptionPort', port, `the ${what}'s volume ${name} was already added with \`transitEncryptionPort\` `
      + `${describe(existing.config.transitEncryptionPort)}`,
    'give the same `transitEncryptionPort` every time this access point is mounted on it (or leave it out after the first)');
  }
}

/** A container's mount point, as ECS and Batch render it. */
export interface ContainerMountPoint { readonly sourceVolume: string; readonly containerPath: string; readonly readOnly: boolean }

/**
 * Adds a mount point unless the container already has it (mounting a task definition, then its
 * service, or two services sharing it, mounts the same volume at the same path again: a duplicate
 * entry CloudFormation rejects). Refuses a path another volume already takes, and the same mount
 * with the other readOnly setting.
 */
export function addMountPoint(
  scope: IConstruct, container: string, existing: ReadonlyArray<{ sourceVolume?: string; containerPath?: string; readOnly?: boolean }>,
  mountPoint: ContainerMountPoint, add: (mountPoint: ContainerMountPoint) => void,
): void {
  // '/data' and '/data/' are one directory in the container.
  const normal = (path: string | undefined) => (path === undefined || Token.isUnresolved(path) ? path : path.replace(/(.)\/+$/, '$1'));
  const taken = existing.find((m) => normal(m.containerPath) === normal(mountPoint.containerPath));
  if (!taken) {
    add(mountPoint);
    return;
  }
  if (taken.sourceVolume !== mountPoint.sourceVolume) {
    invalid(scope, 'containerPath', mountPoint.containerPath, `the container ${container} already mounts the volume ${taken.sourceVolume} there`,
      'give each access point (or volume) its own `containerPath`');
  }
  if ((taken.readOnly ?? false) !== mountPoint.readOnly) {
    invalid(scope, 'readOnly', mountPoint.readOnly, `the container ${container} already mounts the volume ${mountPoint.sourceVolume} at ${mountPoint.containerPath} `
      + `${taken.readOnly ? 'read-only' : 'read-write'}`,
    'mount an access point with the same `readOnly` setting every time, or at another `containerPath`');
  }
}
