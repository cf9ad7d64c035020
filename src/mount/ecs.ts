import * as ecs from 'aws-cdk-lib/aws-ecs';

/**
 * How an access point is mounted in an ECS task (`IS3FilesAccessPoint.mountOnTaskDefinition` and
 * `mountOnService`). ECS mounts S3 Files on Fargate and on ECS Managed Instances, with TLS and IAM
 * always on, using the task role.
 * @see https://docs.aws.amazon.com/AmazonECS/latest/developerguide/s3files-volumes.html
 */
export interface EcsMountOptions {
  /**
   * Where the containers see the file system.
   * @default '/mnt/s3files'
   */
  readonly containerPath?: string;

  /**
   * The containers that get the mount point.
   * @default - the task definition's default container (its first essential container)
   */
  readonly containers?: ecs.ContainerDefinition[];

  /**
   * The task volume's name (what the containers' mount points refer to).
   * @default - 's3files-' plus a hash of the access point's stack name and logical id (or ARN), stable across deployments and Stage moves
   */
  readonly volumeName?: string;

  /**
   * Mount read-only: the task role gets `s3files:ClientMount` only, and the mount points are read-only.
   * @default false
   */
  readonly readOnly?: boolean;

  /**
   * Also grant `s3files:ClientRootAccess` (only matters for an access point whose POSIX user is 0).
   * @default false
   */
  readonly rootAccess?: boolean;

  /**
   * Grant the task role `s3:GetObject`/`s3:GetObjectVersion` on the objects under the access point's
   * directory, `s3:ListBucket` on the bucket (amazon-efs-utils keeps direct reads off without it)
   * and `kms:Decrypt` through S3 when the bucket key is known, so the mount helper may read large
   * files straight from the bucket. Without it those reads go through the mount.
   * For an imported file system, its `bucket` must be known.
   * @default true
   */
  readonly grantDirectReads?: boolean;

  /**
   * The port for the TLS tunnel between the host and the mount target.
   * @default - the mount helper's choice
   */
  readonly transitEncryptionPort?: number;
}
