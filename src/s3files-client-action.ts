import { CLIENT_MOUNT, CLIENT_ROOT_ACCESS, CLIENT_WRITE } from './private/mount/client-actions';

/**
 * The actions S3 Files authorizes an NFS client with (resource type `file-system`, the one condition
 * key `s3files:AccessPointArn`), for file-system policies and grants of your own. String constants,
 * not an enum: each is the IAM action itself in every language (`S3FilesClientAction.MOUNT` is
 * `"s3files:ClientMount"` in Python, Java and Go too).
 * @see https://docs.aws.amazon.com/AmazonS3/latest/userguide/s3-files-security-iam.html
 */
export class S3FilesClientAction {
  /** Mount and read (`s3files:ClientMount`): what `grantRead` gives. */
  public static readonly MOUNT = CLIENT_MOUNT;
  /** Write (`s3files:ClientWrite`); it mounts nothing without `MOUNT`. */
  public static readonly WRITE = CLIENT_WRITE;
  /** Act as root (`s3files:ClientRootAccess`); assumed from EFS, not yet seen in an account: without it a client's root is squashed. */
  public static readonly ROOT_ACCESS = CLIENT_ROOT_ACCESS;

  private constructor() {}
}
