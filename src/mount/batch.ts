import * as batch from 'aws-cdk-lib/aws-batch';

/**
 * How an access point is mounted in an AWS Batch job (`IS3FilesAccessPoint.mountOnJobDefinition`):
 * an S3 Files volume in a Fargate job definition, mounted in its container, with the job role's
 * grants.
 */
export interface BatchMountOptions {
  /**
   * Where the job's container sees the file system.
   * @default '/mnt/s3files'
   */
  readonly containerPath?: string;

  /**
   * The job definition volume's name.
   * @default - 's3files-' plus a hash of the access point's stack name and logical id (or ARN), stable across deployments and Stage moves
   */
  readonly volumeName?: string;

  /**
   * Mount read-only: the job role gets `s3files:ClientMount` only.
   * @default false
   */
  readonly readOnly?: boolean;

  /**
   * Also grant `s3files:ClientRootAccess` (only matters for an access point whose POSIX user is 0).
   * @default false
   */
  readonly rootAccess?: boolean;

  /**
   * Grant the job role `s3:GetObject`/`s3:GetObjectVersion` under the access point's directory,
   * `s3:ListBucket` on the bucket (amazon-efs-utils keeps direct reads off without it) and
   * `kms:Decrypt` through S3 when the bucket key is known, for reads straight from the bucket.
   * @default true
   */
  readonly grantDirectReads?: boolean;

  /**
   * The port for the TLS tunnel between the host and the mount target.
   * @default - the mount helper's choice
   */
  readonly transitEncryptionPort?: number;

  /**
   * The Fargate compute environment the job runs in: it joins the file system's client security
   * group (or the mount targets admit it), its subnets are checked for mount targets, and it waits
   * until they are available. Without it, let the environment reach TCP 2049 yourself.
   * @default - none
   */
  readonly computeEnvironment?: batch.FargateComputeEnvironment;
}
