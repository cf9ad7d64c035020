import { Duration, RemovalPolicy, Size } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';

/**
 * When S3 Files imports object data into the file system's cache.
 */
export class ImportTrigger {
  /** Import small files of a directory when the directory is first accessed (the service default). */
  public static readonly ON_DIRECTORY_FIRST_ACCESS = new ImportTrigger('ON_DIRECTORY_FIRST_ACCESS');
  /** Import a file's data only when that file is accessed. */
  public static readonly ON_FILE_ACCESS = new ImportTrigger('ON_FILE_ACCESS');

  /**
   * Escape hatch for a trigger value newer than this library.
   * @param value the CloudFormation `Trigger` value
   */
  public static of(value: string): ImportTrigger {
    return new ImportTrigger(value);
  }

  /**
   * @param value the CloudFormation `Trigger` value
   */
  private constructor(public readonly value: string) {}
}

/**
 * The IP addresses a mount target gets in its subnet (CloudFormation `IpAddressType`).
 * It must match the subnets: IPv6 needs subnets with an IPv6 CIDR block, IPv4 needs an IPv4 one.
 */
export class MountTargetIpAddressType {
  /** An IPv4 address only (the service default). */
  public static readonly IPV4_ONLY = new MountTargetIpAddressType('IPV4_ONLY');
  /** An IPv6 address only: the subnets need an IPv6 CIDR block. */
  public static readonly IPV6_ONLY = new MountTargetIpAddressType('IPV6_ONLY');
  /** Both an IPv4 and an IPv6 address: the subnets need both kinds of CIDR block. */
  public static readonly DUAL_STACK = new MountTargetIpAddressType('DUAL_STACK');

  /**
   * Escape hatch for a value newer than this library.
   * @param value the CloudFormation `IpAddressType` value
   */
  public static of(value: string): MountTargetIpAddressType {
    return new MountTargetIpAddressType(value);
  }

  /**
   * @param value the CloudFormation `IpAddressType` value
   */
  private constructor(public readonly value: string) {}
}

/**
 * One rule for what S3 Files imports into its cache from the bucket, and when.
 */
export interface ImportDataRule {
  /**
   * The key prefix the rule applies to, as CloudFormation's `ImportDataRule.Prefix` takes it:
   * `''` for everything, else ending with `/`; at most 1,024 characters.
   * @default ''
   */
  readonly prefix?: string;
  /**
   * Files smaller than this are imported: 0 to 52,673,613,135,872 bytes (about 47.9 TiB), the
   * CloudFormation schema's maximum.
   * @default Size.kibibytes(128)
   */
  readonly sizeLessThan?: Size;
  /**
   * When they are imported.
   * @default ImportTrigger.ON_DIRECTORY_FIRST_ACCESS
   */
  readonly trigger?: ImportTrigger;
}

/**
 * Options for an S3 Files file system, everything except the VPC.
 * `S3FilesMountedFunction` accepts these to shape the file system it creates.
 */
export interface S3FilesFileSystemOptions {
  /**
   * Subnets for the mount targets: one mount target per availability zone.
   * Two selected subnets in the same AZ are an error.
   * @default - the VPC's private subnets (PRIVATE_WITH_EGRESS, else PRIVATE_ISOLATED), one per AZ
   */
  readonly vpcSubnets?: ec2.SubnetSelection;

  /**
   * The general-purpose bucket to present as a file system. It must be versioned and encrypted
   * with SSE-S3 or SSE-KMS: a bucket of this app is checked at synth (what its `CfnBucket`
   * renders), an imported bucket's versioning at deploy time.
   * @default - a new bucket: versioned, SSE-S3 (SSE-KMS with `bucketEncryptionKey`), EventBridge
   * delivery on, public access blocked, bucket owner enforced, TLS-only, noncurrent versions expire
   */
  readonly bucket?: s3.IBucket;

  /**
   * Key prefix of the bucket the file system presents: '' (whole bucket) or ending in '/'.
   * @default ''
   */
  readonly prefix?: string;

  /**
   * The bucket's SSE-KMS key. The service role gets the KMS actions it needs
   * (restricted with `kms:ViaService` to S3). For a new bucket, the bucket is encrypted with it.
   * @default - the bucket's own `encryptionKey` if known, else none (SSE-S3)
   */
  readonly bucketEncryptionKey?: kms.IKey;

  /**
   * The customer managed KMS key that encrypts the file system's own storage (file data and
   * metadata at rest in the file system, CloudFormation `KmsKeyId`). It is not the bucket's key:
   * objects in the bucket stay encrypted as the bucket says (`bucketEncryptionKey`). The key must
   * be in the file system's region. Which KMS rights the principal that deploys the stack needs is
   * assumed from EFS, not yet seen in an account: `kms:DescribeKey`,
   * `kms:GenerateDataKeyWithoutPlaintext` and `kms:CreateGrant` on it (a key's default policy lets
   * the account's IAM policies grant them). Create-only: changing it replaces the file system.
   * @see https://docs.aws.amazon.com/AmazonS3/latest/userguide/s3-files-encryption.html
   * @default - an AWS owned key
   */
  readonly fileSystemEncryptionKey?: kms.IKey;

  /**
   * The IP addresses of the mount targets. Checked against the subnets this app defines (an IPv6
   * mount target needs a subnet with an IPv6 CIDR block); imported subnets are checked at deploy
   * time. Create-only: changing it replaces the mount targets.
   * @default MountTargetIpAddressType.IPV4_ONLY
   */
  readonly mountTargetIpAddressType?: MountTargetIpAddressType;

  /**
   * Up to 10 import rules, each for its own key prefix: which objects are imported into the file
   * system's cache (those smaller than `sizeLessThan`; larger reads are served from S3) and when.
   * S3 Files requires exactly one rule for the root directory (prefix `''`): without it synthesis
   * fails (S3 user guide, "Customizing synchronization for S3 Files").
   * @default - the service's (one rule: prefix '', 128 KiB, ON_DIRECTORY_FIRST_ACCESS); that rule once `expireAfterLastAccess` is set
   */
  readonly importDataRules?: ImportDataRule[];

  /**
   * Cached data not accessed for this long is dropped from the file system (it stays in S3).
   * Whole days, 1 to 365. Without this and the import props the library writes no synchronization
   * configuration and the service's defaults apply; once either is set, CloudFormation needs
   * the one expiration rule, and it is 30 days unless given here. Removing all of them later drops
   * the configuration from the template, and what the service then keeps is not documented: set the
   * values you want instead of removing them.
   * @default - the service's; 30 days once another synchronization prop is set
   */
  readonly expireAfterLastAccess?: Duration;

  /**
   * Noncurrent object versions in the created bucket expire after this period.
   * Only valid when this construct creates the bucket.
   * @default Duration.days(30)
   */
  readonly noncurrentVersionExpiration?: Duration;

  /**
   * Security group for the mount targets. The library adds one rule to it: TCP 2049 from the
   * file system's client security group (`clientSecurityGroup`), which every client joins.
   * @default - a new security group with no other ingress and no egress
   */
  readonly securityGroup?: ec2.ISecurityGroup;

  /**
   * What happens to the file system when it leaves the stack (stack deletion, removal from the
   * app, replacement). Everything a retained file system needs to keep synchronising (its service
   * role and the role's policy) and a bucket this construct creates follow the same policy, and so
   * do they when the policy is changed later with `applyRemovalPolicy` or `RemovalPolicies.of(scope)`.
   * With DESTROY, a delete guard deletes the file system once its mount targets and access points
   * are gone, retrying (up to 30 minutes) while the service reports writes pending export to S3,
   * so the last writes are not lost; a created bucket is emptied and deleted by its own cleaner,
   * only when no file system lists it (never on a file system's replacement). SNAPSHOT is not supported.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;

  /**
   * Create the file system even when S3 Files warns about the bucket (the documented case: so many
   * objects under the prefix, around 12 million, that a directory rename could take hours). It
   * waives nothing else. Off by default so such a bucket fails the deployment with the service's
   * explanation instead of producing a slow file system unnoticed. Create-only: changing it later
   * replaces the file system (a new id; the old one is retained or deleted per `removalPolicy`).
   * @default false
   */
  readonly acceptBucketWarning?: boolean;

  /**
   * Let clients mount the file system's root, not only through an access point. By default the
   * file system policy denies `s3files:ClientMount`, `ClientWrite` and `ClientRootAccess` to every
   * principal when the mount carries no `s3files:AccessPointArn` (the condition key S3 Files
   * evaluates on every mount), so a role with `s3files:Client*` on `*` (an AWS managed client
   * policy, say) can still not bypass the access points' POSIX user and root directory. Set this
   * for administrators who mount the whole file system (`mount -t s3files fs-...:/ ...`), and grant
   * them with `grantRead`/`grantReadWrite`/`grantRootAccess` on the file system.
   * @default false
   */
  readonly allowMountsWithoutAccessPoint?: boolean;

  /**
   * How long the deployment waits for the mount targets and access points to become available.
   * 1 to 55 minutes: CloudFormation gives a custom resource at most one hour, and the waiter's
   * `ServiceTimeout` is set to this plus five minutes.
   * @default Duration.minutes(20)
   */
  readonly availabilityTimeout?: Duration;
}

/**
 * Properties of an S3 Files file system.
 */
export interface S3FilesFileSystemProps extends S3FilesFileSystemOptions {
  /**
   * The VPC of the mount targets (all mount targets of a file system live in one VPC).
   */
  readonly vpc: ec2.IVpc;
}
