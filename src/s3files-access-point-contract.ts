import { IResource } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { IDependable } from 'constructs';
import { GrantMountOptions } from './mount/options';
import { IS3FilesFileSystem } from './s3files-file-system-contract';

/**
 * An S3 Files access point: one created by `S3FilesAccessPoint`, one imported with
 * `S3FilesAccessPoint.fromAccessPointAttributes`, or your own (extend `S3FilesAccessPointBase`).
 * Mount it with the compute's adapter: `LambdaMount`, `EcsMount`, `BatchMount`, `Ec2Mount`,
 * `AgentCoreMount`; or grant a client of your own with `grantMount`.
 */
export interface IS3FilesAccessPoint extends IResource {
  /**
   * The access point id (`fsap-...`).
   * @attribute
   */
  readonly accessPointId: string;
  /**
   * The access point ARN.
   * @attribute
   */
  readonly accessPointArn: string;
  /** The file system of this access point. */
  readonly fileSystem: IS3FilesFileSystem;
  /** Completes when clients can mount through this access point (the file system's readiness included). */
  readonly available: IDependable;

  /**
   * Grants read access over NFS (`s3files:ClientMount`), only through this access point.
   * @param grantee the principal to grant
   */
  grantRead(grantee: iam.IGrantable): iam.Grant;
  /**
   * Grants read and write access over NFS (`ClientMount`, `ClientWrite`), only through this access point.
   * @param grantee the principal to grant
   */
  grantReadWrite(grantee: iam.IGrantable): iam.Grant;
  /**
   * Grants root access over NFS (`ClientMount`, `ClientWrite`, `ClientRootAccess`), only through this access point.
   * @param grantee the principal to grant
   */
  grantRootAccess(grantee: iam.IGrantable): iam.Grant;
  /**
   * Grants the given `s3files:` actions on what they apply to through this access point: the client
   * actions on the file system with the `s3files:AccessPointArn` condition, access-point actions on it.
   * @param grantee the principal to grant
   * @param actions the actions, each starting with `s3files:`
   */
  grant(grantee: iam.IGrantable, ...actions: string[]): iam.Grant;
  /**
   * Grants everything a client of your own needs to mount through this access point (what every
   * mount adapter grants): the client actions limited to it, the reads services validate a mount
   * with (`s3files:GetAccessPoint`, `s3files:ListMountTargets`), the direct reads of the file
   * system's objects unless turned off, and with amazon-efs-utils what it publishes. Networking (the
   * file system's `clientSecurityGroup`) and waiting (`available`) are yours.
   * @param grantee the principal that mounts
   * @param options what it may do
   */
  grantMount(grantee: iam.IGrantable, options?: GrantMountOptions): iam.Grant;
}

/**
 * How an existing access point is imported.
 */
export interface S3FilesAccessPointAttributes {
  /**
   * The access point id (`fsap-...`). Give this or `accessPointArn`.
   * @default - taken from `accessPointArn`
   */
  readonly accessPointId?: string;
  /**
   * The access point ARN. Give this or `accessPointId`.
   * @default - built from the file system ARN and `accessPointId`
   */
  readonly accessPointArn?: string;
  /** The file system of the access point (created in this app or imported). */
  readonly fileSystem: IS3FilesFileSystem;
}
