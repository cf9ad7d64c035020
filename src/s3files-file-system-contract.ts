import { IResource } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { IDependable } from 'constructs';

/**
 * An S3 Files file system: one created by `S3FilesFileSystem`, one imported with
 * `S3FilesFileSystem.fromFileSystemAttributes`, or your own (extend `S3FilesFileSystemBase`).
 *
 * It holds what every mount needs and nothing else: grants are on the classes and on
 * `S3FilesFileSystemGrants`, metrics on the classes and on `S3FilesFileSystemMetrics`, for any
 * implementation.
 * @subclassable
 */
export interface IS3FilesFileSystem extends IResource, ec2.IConnectable {
  /**
   * The file system id (`fs-...`).
   * @attribute
   */
  readonly fileSystemId: string;
  /**
   * The file system ARN.
   * @attribute
   */
  readonly fileSystemArn: string;
  /**
   * Completes when the file system can be mounted: for a file system created in this app, when
   * every mount target (and access point) is available and its file-system policy is in place; for
   * an imported one, at once (it exists). Everything that mounts depends on it.
   */
  readonly mountTargetsAvailable: IDependable;

  /**
   * The VPC of the mount targets: clients mount only from it.
   * @default - unknown: the same-VPC and AZ checks do not run
   */
  readonly vpc?: ec2.IVpc;

  /**
   * A security group the mount targets admit on TCP 2049: clients join it (no rule per client).
   * @default - none: clients are let in through `connections` (a rule on the mount targets' groups per client)
   */
  readonly clientSecurityGroup?: ec2.ISecurityGroup;

  /**
   * The bucket the file system presents (direct reads of its objects are granted on it).
   * @default - unknown: direct reads cannot be granted
   */
  readonly bucket?: s3.IBucket;

  /**
   * The key prefix of the bucket the file system presents (`''` or ending with `/`).
   * @default ''
   */
  readonly prefix?: string;

  /**
   * The bucket's SSE-KMS key, when it is another account's (the account's own keys are covered).
   * @default - the bucket's `encryptionKey`, if any
   */
  readonly bucketEncryptionKey?: kms.IKey;

  /**
   * The availability zones the file system has mount targets in: a client whose subnets are in
   * another AZ cannot mount (a synth-time error).
   * @default - unknown: the AZ check does not run
   */
  readonly mountTargetAvailabilityZones?: string[];
}

/**
 * How an existing file system is imported.
 */
export interface S3FilesFileSystemAttributes {
  /**
   * The file system id (`fs-...`). Give this or `fileSystemArn`.
   * @default - taken from `fileSystemArn`
   */
  readonly fileSystemId?: string;
  /**
   * The file system ARN. Give this or `fileSystemId`.
   * @default - built from `fileSystemId` in this stack's account and region
   */
  readonly fileSystemArn?: string;
  /**
   * The VPC of the file system's mount targets: functions that mount it must be in it, and their
   * subnets are checked against `availabilityZones`.
   * @default - not checked
   */
  readonly vpc?: ec2.IVpc;
  /**
   * The availability zones the file system has mount targets in. A client needs a mount target in
   * every AZ of its subnets: with this, a subnet in another AZ is a synth-time error.
   * @default - not checked
   */
  readonly mountTargetAvailabilityZones?: string[];
  /**
   * A security group the mount targets already admit on TCP 2049 (for a file system created by
   * this library in another app: its `clientSecurityGroup`). Clients join it, which adds no rule.
   * @default - clients are let in through `securityGroups` instead
   */
  readonly clientSecurityGroup?: ec2.ISecurityGroup;
  /**
   * The mount targets' security groups. Each client security group gets an inbound TCP 2049 rule on
   * them in its client's stack, one that the clients of a stack in the same group share (two stacks
   * that would add the same rule are refused at synth), so they must be mutable imports.
   * @default - none: give `clientSecurityGroup` or this, or mounting fails with an error
   */
  readonly securityGroups?: ec2.ISecurityGroup[];
  /**
   * The bucket the file system presents: needed for the direct-read grants of mounts.
   * @default - unknown: direct reads must be turned off or granted by you (`grantDirectReads: false`, `DirectS3Read.enabledWithoutGrant()`)
   */
  readonly bucket?: s3.IBucket;
  /**
   * The key prefix of the bucket the file system presents (`''` or ending with `/`).
   * @default ''
   */
  readonly prefix?: string;
  /**
   * The bucket's SSE-KMS key, for the `kms:Decrypt` part of the direct-read grant.
   * @default - the bucket's `encryptionKey`, if any
   */
  readonly bucketEncryptionKey?: kms.IKey;
}
