import { IResource } from 'aws-cdk-lib';
import { IDependable } from 'constructs';
import { IS3FilesFileSystem } from './s3files-file-system-contract';

/**
 * An S3 Files access point: one created by `S3FilesAccessPoint`, one imported with
 * `S3FilesAccessPoint.fromAccessPointAttributes`, or your own (extend `S3FilesAccessPointBase`).
 * Mount it with the compute's adapter (the classes whose names end in `Mount`), or grant a client
 * of your own what a mount needs with `S3FilesAccessPointGrants.fromAccessPoint(accessPoint).mount()`.
 *
 * It holds what every mount needs and nothing else (grants are on the classes and on
 * `S3FilesAccessPointGrants`).
 * @subclassable
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
