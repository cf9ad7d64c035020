import { CfnResource, Stack, Token } from 'aws-cdk-lib';
import { Construct, IConstruct } from 'constructs';
import type { IS3FilesAccessPoint } from '../../s3files-access-point-contract';
import type { IS3FilesFileSystem } from '../../s3files-file-system-contract';
import { shown, whatItIs } from '../argument-shapes';
import { invalid } from '../messages';

// Python and (at run time) every binding pass whatever they are given: each public entry checks that
// a file system or access point is one, by what the library reads of it (so users' own
// implementations pass), and names what it was given instead. aws-efs's file systems and access
// points have the same member names: their L1 type or ARN tells them apart.

/** The AWS service an object's resource belongs to, when its L1 or its ARN says: 'efs', 's3', or undefined. */
function otherService(x: object, arn: unknown): string | undefined {
  const l1 = Construct.isConstruct(x) ? x.node.defaultChild : undefined;
  // A resource of this library's (or any S3 Files L1): nothing to look up.
  if (l1 instanceof CfnResource && l1.cfnResourceType.startsWith('AWS::S3Files::')) return undefined;
  if (l1 instanceof CfnResource && /^AWS::EFS::/.test(l1.cfnResourceType)) {
    const kind = { 'AWS::EFS::FileSystem': 'file system', 'AWS::EFS::AccessPoint': 'access point' }[l1.cfnResourceType] ?? 'resource';
    return `an Amazon EFS ${kind} (${l1.cfnResourceType})`;
  }
  if (typeof arn === 'string' && Construct.isConstruct(x)) {
    const rendered = Token.isUnresolved(arn) ? JSON.stringify(Stack.of(x).resolve(arn)) : arn;
    if (/:elasticfilesystem:|"elasticfilesystem"/.test(rendered)) return 'an Amazon EFS resource (its ARN is an elasticfilesystem one)';
  }
  if (typeof (x as { bucketArn?: unknown }).bucketArn === 'string' && typeof (x as { bucketName?: unknown }).bucketName === 'string') return 'an S3 bucket';
  return undefined;
}

/**
 * `x` when it is an S3 Files file system (created, imported or a user's own), else an error on
 * `prop` of `at` (a construct, or the method's name) naming what it is.
 */
export function requireFileSystem(x: IS3FilesFileSystem, at: IConstruct | string, prop: string): IS3FilesFileSystem {
  const fs = x as Partial<IS3FilesFileSystem> | undefined;
  const other = fs && typeof fs === 'object' ? otherService(fs, fs.fileSystemArn) : undefined;
  const looks = typeof fs?.fileSystemArn === 'string' && typeof fs.fileSystemId === 'string' && fs.mountTargetsAvailable !== undefined && fs.connections !== undefined;
  if (!looks || other) {
    invalid(at, prop, shown(x), `it is ${other ?? whatItIs(x)}, not an S3 Files file system`,
      'pass an `S3FilesFileSystem`, one imported with `S3FilesFileSystem.fromFileSystemAttributes()`, or your own `S3FilesFileSystemBase`');
  }
  return x;
}

/** `x` when it is an S3 Files access point (created, imported or a user's own), else an error on `prop` naming what it is. */
export function requireAccessPoint(x: IS3FilesAccessPoint, at: IConstruct | string, prop: string): IS3FilesAccessPoint {
  const ap = x as Partial<IS3FilesAccessPoint> | undefined;
  const other = ap && typeof ap === 'object' ? otherService(ap, ap.accessPointArn) : undefined;
  const looks = typeof ap?.accessPointArn === 'string' && typeof ap.accessPointId === 'string' && ap.available !== undefined && typeof ap.fileSystem === 'object';
  if (!looks || other) {
    const fileSystemOnly = typeof (x as Partial<IS3FilesFileSystem>)?.fileSystemArn === 'string' && !other;
    invalid(at, prop, shown(x), other ? `it is ${other}, not an S3 Files access point`
      : fileSystemOnly ? 'it is an S3 Files file system, and clients mount through an access point of it' : `it is ${whatItIs(x)}, not an S3 Files access point`,
    fileSystemOnly ? 'pass an access point of it (`fileSystem.addAccessPoint()` or `new S3FilesAccessPoint()`)'
      : 'pass an `S3FilesAccessPoint`, one imported with `S3FilesAccessPoint.fromAccessPointAttributes()`, or your own `S3FilesAccessPointBase`');
  }
  requireFileSystem(x.fileSystem, at, `${prop}.fileSystem`);
  return x;
}
