import * as lambda from 'aws-cdk-lib/aws-lambda';

/**
 * How an access point is mounted on a Lambda function (`IS3FilesAccessPoint.mountOnFunction`).
 */
export interface LambdaMountOptions {
  /**
   * Where the file system is mounted in the function: `^/mnt/[a-zA-Z0-9-_.]+$`, at most 160 chars.
   * Exposed to the code as the `MOUNT_PATH` environment variable.
   * @default '/mnt/s3files'
   */
  readonly mountPath?: string;

  /**
   * Mount read-only: the function gets `s3files:ClientMount` only, no `s3files:ClientWrite`.
   * @default false
   */
  readonly readOnly?: boolean;

  /**
   * Also grant `s3files:ClientRootAccess` (without it, a client acting as root is squashed). It
   * matters only for a client acting as uid 0, i.e. with an access point whose POSIX user is 0: it
   * does not let a non-root access point user act on root-owned (S3-born) entries.
   * @default false
   */
  readonly rootAccess?: boolean;

  /**
   * Whether Lambda reads large files directly from S3 instead of through the mount. The default is
   * the service's, `AUTO`: reads go through the file system (the lowest-latency path) and Lambda
   * reads large files directly from S3 when the function has at least 512 MB; `ENABLED` sends every
   * read, small ones too, to the bucket.
   * The library grants `s3:GetObject`/`s3:GetObjectVersion` on the bucket objects under the
   * access point's directory (and `kms:Decrypt` via S3 when the key is known) for
   * `enabled(bucket)`, `auto()` and the default; not for `enabledWithoutGrant()` or `disabled()`.
   * For an imported file system the bucket must be known (`fromFileSystemAttributes` `bucket`) to grant.
   * @default - AUTO, with the read grant
   */
  readonly directS3Read?: lambda.DirectS3Read;
}
