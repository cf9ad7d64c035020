import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { IConstruct, IDependable } from 'constructs';

/** NFS port of the mount targets. */
export const NFS_PORT = 2049;

/** What a mount needs of a file system beyond `IS3FilesFileSystem` (owned or imported). */
export interface FileSystemMountInfo {
  /** The VPC of the mount targets, when known. */
  readonly vpc?: ec2.IVpc;
  /** A group clients join to reach the mount targets (else they are let in through `connections`). */
  readonly clientSecurityGroup?: ec2.ISecurityGroup;
  /** The bucket, for direct-read grants, when known. */
  readonly bucket?: s3.IBucket;
  /** The file system's key prefix in the bucket. */
  readonly prefix: string;
  readonly bucketEncryptionKey?: kms.IKey;
  /** What first invocations must find in place besides the mount targets (the file system policy). */
  readonly policyDependable?: IDependable;
  /** The region of an imported file system, when its ARN names it literally (clients mount only there). */
  readonly region?: string;
  /** The account of an imported file system, when its ARN names it literally. */
  readonly account?: string;
  /** Throws when a client subnet is in an AZ without a mount target (warns when unknown). */
  checkAzCoverage(scope: IConstruct, prop: string, subnets: ec2.ISubnet[]): void;
}
