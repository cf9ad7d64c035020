import { Duration } from 'aws-cdk-lib';

/**
 * How an access point is mounted on EC2 (`IS3FilesAccessPoint.mountOnInstance`,
 * `mountOnAutoScalingGroup`, `mountOnLaunchTemplate`): user data that installs amazon-efs-utils,
 * writes the fstab line and mounts with `mount -t s3files` through the access point.
 * @see https://docs.aws.amazon.com/AmazonS3/latest/userguide/s3-files-mounting.html
 */
export interface Ec2MountOptions {
  /**
   * Where the instance mounts the file system.
   * @default '/mnt/s3files'
   */
  readonly mountPath?: string;

  /**
   * Mount read-only (`ro`): the role gets `s3files:ClientMount` only.
   * @default false
   */
  readonly readOnly?: boolean;

  /**
   * Also grant `s3files:ClientRootAccess`. Without it root on the instance is squashed; it only
   * matters for an access point whose POSIX user is 0.
   * @default false
   */
  readonly rootAccess?: boolean;

  /**
   * Grant the role `s3:GetObject`/`s3:GetObjectVersion` on the objects under the access point's
   * directory, `s3:ListBucket` on the bucket (amazon-efs-utils keeps direct reads off without it)
   * and `kms:Decrypt` through S3 when the bucket key is known, so the mount helper may read large
   * files straight from the bucket. For an imported file system its `bucket` must be known.
   * @default true
   */
  readonly grantDirectReads?: boolean;

  /**
   * How long the boot script keeps retrying the mount while the mount target is not reachable
   * (at most 1 hour).
   * @default Duration.minutes(10)
   */
  readonly mountTimeout?: Duration;
}
