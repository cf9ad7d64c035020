/**
 * The actions S3 Files authorizes an NFS client with (resource type `file-system`, the one condition
 * key `s3files:AccessPointArn`), for file-system policies and grants of your own.
 * @see https://docs.aws.amazon.com/AmazonS3/latest/userguide/s3-files-security-iam.html
 */
export enum S3FilesClientAction {
  /** Mount and read (`s3files:ClientMount`): what `grantRead` gives. */
  MOUNT = 's3files:ClientMount',
  /** Write (`s3files:ClientWrite`); it mounts nothing without `MOUNT`. */
  WRITE = 's3files:ClientWrite',
  /** Act as root (`s3files:ClientRootAccess`); assumed from EFS, not yet seen in an account: without it a client's root is squashed. */
  ROOT_ACCESS = 's3files:ClientRootAccess',
}
