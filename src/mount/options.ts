/**
 * What a client may do through an access point: the options every mount and `grantMount()` share.
 */
export interface S3FilesClientOptions {
  /**
   * Grant `s3files:ClientMount` only, no `s3files:ClientWrite`. ECS, Batch and EC2 also mount
   * read-only; Lambda and AgentCore have no read-only mount, so there the role decides: a role that
   * another mount or grant lets write through the same access point can write (a warning says so).
   * @default false
   */
  readonly readOnly?: boolean;

  /**
   * Also grant `s3files:ClientRootAccess`. Assumed from EFS, not yet seen in an account: without it
   * a client acting as root is squashed, and it matters only for a client acting as uid 0 (through
   * an access point whose POSIX user is 0); it does not let a non-root access point user act on
   * root-owned (S3-born) entries.
   * @default false
   */
  readonly rootAccess?: boolean;
}

/**
 * Options of the computes whose mount helper is amazon-efs-utils (ECS, Batch, EC2, EKS), and of
 * AgentCore: whether direct reads are granted.
 */
export interface S3FilesMountOptions extends S3FilesClientOptions {
  /**
   * Grant reads of the file system's objects straight from the bucket: `s3:GetObject` and
   * `s3:GetObjectVersion` on the objects under the file system's prefix (as the S3 user guide's
   * compute-role policy grants; the mount helper probes the prefix before it reads), `kms:Decrypt`
   * through S3 for them, and with amazon-efs-utils `s3:ListBucket` on the bucket. Without them those
   * reads go through the mount, silently. The bucket must be known (an imported file system's `bucket`).
   * @default true
   */
  readonly grantDirectReads?: boolean;
}

/**
 * What `grantMount()` grants: everything a principal needs to mount through an access point.
 */
export interface GrantMountOptions extends S3FilesMountOptions {
  /**
   * The client mounts with amazon-efs-utils (EC2, ECS, Batch, EKS nodes): with direct reads also
   * `s3:ListBucket`, and what it publishes by default (its metrics in `efs-utils/S3Files` and
   * `efs-utils/EFS`, its log in `/aws/efs/utils`).
   * @default false
   */
  readonly amazonEfsUtils?: boolean;
}
