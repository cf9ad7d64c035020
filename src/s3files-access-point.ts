import { Annotations, Resource, Tokenization } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3files from 'aws-cdk-lib/aws-s3files';
import { Construct, IDependable } from 'constructs';
import { CLIENT_READ_ACTIONS, CLIENT_READ_WRITE_ACTIONS, CLIENT_ROOT_ACTIONS } from './private/client-actions';
import {
  validateAccessPointPath, validatePermissions, validatePosixId, validateS3FilesActions, validateSecondaryGids,
} from './private/validation';
import type { S3FilesFileSystem } from './s3files-file-system';

/**
 * The POSIX identity every NFS operation through an access point runs as.
 */
export interface PosixUser {
  /** User id, 0 to 4294967295. */
  readonly uid: number;
  /** Primary group id, 0 to 4294967295. */
  readonly gid: number;
  /**
   * Secondary group ids (at most 16).
   * @default - none
   */
  readonly secondaryGids?: number[];
}

/**
 * Options for an S3 Files access point.
 */
export interface S3FilesAccessPointOptions {
  /**
   * Root directory of the access point on the file system: absolute, at most 100 characters
   * and 4 components, no component starting with '.'. Created on first use.
   * @default '/lambda'
   */
  readonly path?: string;

  /**
   * The POSIX user the clients act as.
   * @default - uid 1000, gid 1000
   */
  readonly posixUser?: PosixUser;

  /**
   * Octal permissions of the root directory when S3 Files creates it (owner = the POSIX user).
   * @default '755'
   */
  readonly createPermissions?: string;
}

/**
 * Properties of an S3 Files access point.
 */
export interface S3FilesAccessPointProps extends S3FilesAccessPointOptions {
  /** The file system the access point belongs to. */
  readonly fileSystem: S3FilesFileSystem;
}

/**
 * An access point of an S3 Files file system: a fixed POSIX identity and root directory.
 * Any number of functions may mount one access point. It may live in another stack than its
 * file system (next to the functions that use it), sibling or nested.
 */
export class S3FilesAccessPoint extends Resource {
  /** The access point id (`fsap-...`). */
  public readonly accessPointId: string;
  /** The access point ARN. */
  public readonly accessPointArn: string;
  /** The file system of this access point. */
  public readonly fileSystem: S3FilesFileSystem;
  /** The root directory of this access point. */
  public readonly path: string;
  /** The POSIX user of this access point. */
  public readonly posixUser: PosixUser;
  /**
   * Completes when this access point and the file system's mount targets are available.
   * Clients of this access point depend on this. For an access point in another stack than its
   * file system, it includes a waiter of its own in this access point's stack.
   */
  public readonly available: IDependable;

  constructor(scope: Construct, id: string, props: S3FilesAccessPointProps) {
    super(scope, id);
    this.fileSystem = props.fileSystem;
    this.path = props.path ?? '/lambda';
    this.posixUser = props.posixUser ?? { uid: 1000, gid: 1000 };
    const permissions = props.createPermissions ?? '755';

    validateAccessPointPath(this, this.path);
    validatePosixId(this, 'posixUser.uid', this.posixUser.uid);
    validatePosixId(this, 'posixUser.gid', this.posixUser.gid);
    validateSecondaryGids(this, this.posixUser.secondaryGids ?? []);
    validatePermissions(this, permissions);
    if (this.posixUser.uid === 0) {
      Annotations.of(this).addWarningV2('cdk-s3files-lambda:posixUserRoot',
        'posixUser.uid is 0 (root): every client of this access point acts as root on the file system. Use a non-root uid such as 1000 unless root is required.');
    }

    const uid = Tokenization.stringifyNumber(this.posixUser.uid);
    const gid = Tokenization.stringifyNumber(this.posixUser.gid);
    const secondaryGids = this.posixUser.secondaryGids?.map(g => Tokenization.stringifyNumber(g));
    const resource = new s3files.CfnAccessPoint(this, 'Resource', {
      fileSystemId: this.fileSystem.fileSystemId,
      posixUser: { uid, gid, secondaryGids: secondaryGids?.length ? secondaryGids : undefined },
      rootDirectory: {
        path: this.path,
        creationPermissions: { ownerUid: uid, ownerGid: gid, permissions },
      },
    });
    this.accessPointId = resource.attrAccessPointId;
    this.accessPointArn = resource.attrAccessPointArn;
    this.available = this.fileSystem._registerAccessPoint(this);
  }

  /**
   * Grants read access over NFS (`s3files:ClientMount`), only through this access point.
   * @param grantee the principal to grant
   */
  public grantRead(grantee: iam.IGrantable): iam.Grant {
    return this.fileSystem._grantClient(grantee, CLIENT_READ_ACTIONS, this);
  }

  /**
   * Grants read and write access over NFS (`s3files:ClientMount` and `s3files:ClientWrite`),
   * only through this access point.
   * @param grantee the principal to grant
   */
  public grantReadWrite(grantee: iam.IGrantable): iam.Grant {
    return this.fileSystem._grantClient(grantee, CLIENT_READ_WRITE_ACTIONS, this);
  }

  /**
   * Grants root access over NFS (`s3files:ClientMount`, `s3files:ClientWrite` and
   * `s3files:ClientRootAccess`), only through this access point. It matters only when this access
   * point's POSIX user is 0: it does not let a non-root user act on root-owned entries.
   * @param grantee the principal to grant
   */
  public grantRootAccess(grantee: iam.IGrantable): iam.Grant {
    return this.fileSystem._grantClient(grantee, CLIENT_ROOT_ACTIONS, this);
  }

  /**
   * Grants the given `s3files:` actions on the file system, only through this access point.
   * @param grantee the principal to grant
   * @param actions the actions, each starting with `s3files:`
   */
  public grant(grantee: iam.IGrantable, ...actions: string[]): iam.Grant {
    validateS3FilesActions(this, actions);
    return this.fileSystem._grantClient(grantee, actions, this);
  }
}
