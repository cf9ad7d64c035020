import * as crypto from 'crypto';
import { CustomResource, Duration, Lazy, RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3files from 'aws-cdk-lib/aws-s3files';
import { Construct, DependencyGroup, IConstruct, IDependable } from 'constructs';
import { checkProps, checkShape } from './private/argument-shapes';
import { findState, stateOf } from './private/construct-state';
import { bucketReplacementInputs, checkBucketLocation, checkBucketUsable, createBucket } from './private/file-system/bucket';
import { createBucketCleaner, createDeleteGuard, createWaiter } from './private/file-system/guard';
import { renderResourcePolicy, validatePolicySize } from './private/file-system/policy';
import { FileSystemRemoval, rejectSnapshot } from './private/file-system/removal-policy';
import { acknowledgeServiceRoleFindings, SERVICE_PRINCIPAL, ServiceRoleFileSystem, serviceRoleStatements } from './private/file-system/service-role';
import { synchronizationConfiguration } from './private/file-system/sync';
import { invalid } from './private/messages';
import { checkSubnetIpFamilies, selectMountTargetSubnets } from './private/mount/az-coverage';
import { createFileSystemNetwork } from './private/mount/network';
import { DEFAULT_AVAILABILITY_TIMEOUT_SECONDS } from './private/provider/custom-resource-contract';
import { S3FilesWaiterProvider } from './private/provider/waiter-provider';
import { validateAvailabilityTimeout, validateBoolean, validatePrefix } from './private/validation';
import { S3FilesAccessPoint, S3FilesAccessPointOptions } from './s3files-access-point';
import { FileSystemGrantsAndMetrics } from './s3files-file-system-base';
import { IS3FilesFileSystem, S3FilesFileSystemAttributes } from './s3files-file-system-contract';
import { ImportedFileSystem } from './s3files-file-system-import';
import { MountTargetIpAddressType, S3FilesFileSystemOptions, S3FilesFileSystemProps } from './s3files-file-system-props';

const BRAND = Symbol.for('cdk-s3files-lambda.S3FilesFileSystem');

/** The state, on a bucket a file system created, that names the bucket's cleaner. */
const BUCKET_CLEANER = 'cdk-s3files-lambda.BucketCleaner';

/**
 * An Amazon S3 Files file system over a general-purpose S3 bucket, with its service role,
 * one mount target per AZ, a mount-target security group and a client security group, a file
 * system policy, a deploy-time waiter that completes only when every mount target (and access
 * point) is available, and a delete guard that keeps unexported writes on deletion.
 *
 * @example
 * declare const vpc: ec2.IVpc;
 *
 * // The bucket's docs/ prefix as a file system; /app on it owned by 1000:1000.
 * const fileSystem = new S3FilesFileSystem(this, 'Docs', { vpc, prefix: 'docs/' });
 * const appDir = fileSystem.addAccessPoint('App', { path: '/app' });
 * new S3FilesMountedFunction(this, 'Writer', {
 *   runtime: lambda.Runtime.NODEJS_24_X,
 *   handler: 'index.handler',
 *   code: lambda.Code.fromAsset('lambda'),
 *   accessPoint: appDir,
 * });
 */
export class S3FilesFileSystem extends FileSystemGrantsAndMetrics implements IS3FilesFileSystem, iam.IResourceWithPolicy {
  /**
   * Imports an existing file system (created elsewhere, in another app or account, or by hand).
   *
   * An imported file system needs no waiter (it exists) and its file-system policy is not this
   * app's to change: grants add identity statements to the grantee. New access points on it (an
   * `S3FilesAccessPoint` given this file system) get a waiter of their own in their stack; existing
   * ones are imported with `S3FilesAccessPoint.fromAccessPointAttributes`.
   * @param scope the scope of the imported construct
   * @param id its id
   * @param attrs what is known of the file system
   */
  public static fromFileSystemAttributes(scope: Construct, id: string, attrs: S3FilesFileSystemAttributes): IS3FilesFileSystem {
    return new ImportedFileSystem(scope, id, attrs);
  }

  /**
   * Whether `x` is a file system created with this class (not imported).
   * @param x any value
   */
  public static isS3FilesFileSystem(x: any): x is S3FilesFileSystem {
    return x !== null && typeof x === 'object' && BRAND in x;
  }

  public readonly fileSystemId: string;
  public readonly fileSystemArn: string;
  /** The contract members the public API types as optional, as this class always has them. */
  private readonly created: { bucket: s3.IBucket; prefix: string; vpc: ec2.IVpc } = {} as { bucket: s3.IBucket; prefix: string; vpc: ec2.IVpc };
  // Optional in type only (the contract's members are optional; jsii lets no implementation narrow
  // them): a created file system always has each.
  /** The bucket the file system presents (always set). */
  public readonly bucket?: s3.IBucket;
  /** The key prefix of the bucket the file system presents ('' = whole bucket; always set). */
  public readonly prefix?: string;
  public readonly bucketEncryptionKey?: kms.IKey;
  /** The role S3 Files assumes to synchronise with the bucket (this generation's: a replacement gets a new one). */
  public readonly serviceRole: iam.IRole;
  /** Network access to the mount targets (default port TCP 2049). */
  public readonly connections: ec2.Connections;
  /**
   * Clients join this security group to reach the mount targets over NFS. The mount-target group
   * has one rule for it, so any number of clients costs no further rules, and clients in other
   * stacks only reference it (no rule in this stack names them).
   */
  public readonly clientSecurityGroup?: ec2.ISecurityGroup;
  /** The VPC of the mount targets (always set). */
  public readonly vpc?: ec2.IVpc;
  /** The availability zones of the mount targets (always set). */
  public readonly mountTargetAvailabilityZones?: string[];
  /** Completes when every mount target and access point of this stack is available and the file system policy is in place. */
  public readonly mountTargetsAvailable: IDependable;
  /** The file system policy resource: depend on it to use the file system only once its policy is in place. */
  public readonly policyDependable: IDependable;

  private readonly resource: s3files.CfnFileSystem;
  private readonly removal: FileSystemRemoval;
  private readonly accessPointIds: string[] = [];
  private readonly resourcePolicyStatements: iam.PolicyStatement[] = [];
  private readonly mountTargetCount: number;
  private readonly availabilityTimeoutSeconds: number;
  private readonly waiter: CustomResource;
  private readonly deleteGuard: CustomResource;

  constructor(scope: Construct, id: string, props: S3FilesFileSystemProps) {
    super(scope, id);
    Object.defineProperty(this, BRAND, { value: true });
    // ---- validate what the props say before building anything
    checkShape('vpc', props.vpc, this, 'vpc', true);
    checkProps(this, props, { bucket: 'bucket', bucketEncryptionKey: 'key', fileSystemEncryptionKey: 'key', securityGroup: 'securityGroup' });
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    rejectSnapshot(this, 'removalPolicy', removalPolicy);
    this.vpc = this.created.vpc = props.vpc;
    this.prefix = this.created.prefix = props.prefix ?? '';
    validatePrefix(this, this.created.prefix);
    this.availabilityTimeoutSeconds = validateAvailabilityTimeout(this,
      props.availabilityTimeout ?? Duration.seconds(DEFAULT_AVAILABILITY_TIMEOUT_SECONDS));
    if (props.bucket && props.noncurrentVersionExpiration) {
      invalid(this, 'noncurrentVersionExpiration', props.noncurrentVersionExpiration,
        'it only applies to a bucket this construct creates, but `bucket` was given', 'configure the lifecycle on your bucket and drop `noncurrentVersionExpiration`');
    }
    const allowMountsWithoutAccessPoint = validateBoolean(this, 'allowMountsWithoutAccessPoint', props.allowMountsWithoutAccessPoint ?? false);
    const ipAddressType = validateIpAddressType(this, props.mountTargetIpAddressType);
    const targets = selectMountTargetSubnets(this, this.created.vpc, props.vpcSubnets);
    if (ipAddressType) targets.forEach(({ subnet }) => checkSubnetIpFamilies(this, subnet, ipAddressType));

    // ---- the bucket, then the service role and the file system
    this.bucketEncryptionKey = props.bucketEncryptionKey ?? props.bucket?.encryptionKey;
    this.bucket = this.created.bucket = props.bucket ?? createBucket(this, this.bucketEncryptionKey, props.noncurrentVersionExpiration);
    checkBucketLocation(this, this.created.bucket);
    checkBucketUsable(this, this.created.bucket);
    const replacement = this.replacementHash(props);
    const { role, policy: rolePolicy } = this.createServiceRole(replacement);
    this.serviceRole = role;
    this.resource = new s3files.CfnFileSystem(this, 'Resource', {
      bucket: this.created.bucket.bucketArn,
      roleArn: this.serviceRole.roleArn,
      prefix: this.created.prefix === '' ? undefined : this.created.prefix,
      kmsKeyId: this.fileSystemKeyId(props.fileSystemEncryptionKey),
      synchronizationConfiguration: synchronizationConfiguration(this, props),
      // Only when set: omitting it keeps the templates of everyone who never asked for it unchanged.
      acceptBucketWarning: this.acceptBucketWarning(props.acceptBucketWarning),
    });
    // Without its S3 and EventBridge rights in place the service fails silently: wait for the policy.
    this.resource.node.addDependency(rolePolicy);
    this.resource.applyRemovalPolicy(removalPolicy);
    this.fileSystemId = this.resource.attrFileSystemId;
    this.fileSystemArn = this.resource.attrFileSystemArn;

    // ---- what the removal policy decides: the role's and a created bucket's fate, the guard's tag
    this.removal = new FileSystemRemoval(this, this.resource);
    this.removal.follow(role.node.defaultChild as iam.CfnRole);
    this.removal.follow(rolePolicy.node.defaultChild as iam.CfnPolicy);
    this.removal.tagForGuards(this.resource.cdkTagManager);
    if (!props.bucket) this.removal.governBucket(this.created.bucket, () => this.retainedUserOfBucket());

    // ---- the delete guard: everything using the file system depends on it, so on deletion it runs
    // after they are gone and deletes the file system itself (DESTROY only), without forceDelete.
    const provider = S3FilesWaiterProvider.getOrCreate(this);
    const logicalId = () => Stack.of(this).resolve(this.resource.logicalId) as string;
    this.deleteGuard = createDeleteGuard(this, provider, {
      fileSystemId: this.fileSystemId,
      fileSystemLogicalId: Lazy.string({ produce: logicalId }),
      replacementHash: replacement,
      destroyOnDelete: () => this.removal.destroys,
    });
    provider.registerGuardedFileSystem({ logicalId, retained: () => !this.removal.destroys });
    if (!props.bucket) {
      const cleaner = createBucketCleaner(this, provider, this.created.bucket, () => this.removal.bucketDestroyed());
      this.deleteGuard.node.addDependency(cleaner);
      stateOf(this.created.bucket, BUCKET_CLEANER, () => cleaner);
    } else {
      // A bucket another file system of this app created: its cleaner runs only once this file
      // system is deleted too (else it would find this one still listed and fail).
      const cleaner = findState<CustomResource>(props.bucket, BUCKET_CLEANER);
      if (cleaner) this.deleteGuard.node.addDependency(cleaner);
    }

    // ---- the network, the mount targets keyed by AZ, and the file system policy
    const network = createFileSystemNetwork(this, this.created.vpc, props.securityGroup);
    this.connections = network.connections;
    this.clientSecurityGroup = network.clientSecurityGroup;
    const mountTargets = targets.map(({ subnet, az }) => new s3files.CfnMountTarget(this, `MountTarget${az.idKey ?? az.key}`, {
      fileSystemId: this.fileSystemId,
      subnetId: subnet.subnetId,
      securityGroups: [network.securityGroup.securityGroupId],
      ipAddressType: ipAddressType?.value,
    }));
    mountTargets.forEach((mt) => mt.node.addDependency(this.deleteGuard));
    this.mountTargetCount = mountTargets.length;
    this.mountTargetAvailabilityZones = targets.map(({ subnet }) => subnet.availabilityZone);
    const rendered = () => renderResourcePolicy(this.fileSystemArn, allowMountsWithoutAccessPoint, this.resourcePolicyStatements);
    const policy = new s3files.CfnFileSystemPolicy(this, 'FileSystemPolicy', {
      fileSystemId: this.fileSystemId,
      policy: Lazy.any({ produce: () => rendered() }),
    });
    policy.node.addDependency(this.deleteGuard);
    this.policyDependable = policy;
    this.node.addValidation({ validate: () => validatePolicySize(this, rendered()) });

    // ---- the waiter: clients wait for it and for the policy, so first mounts meet the policy they are held to
    if (props.bucket) provider.grantVerifyBucketVersioning(this.created.bucket);
    this.waiter = this.createWaiter(this, 'MountTargetsAvailable', provider, Lazy.list({ produce: () => this.accessPointIds }),
      { name: this.created.bucket.bucketName, verifyVersioning: props.bucket !== undefined });
    // It also stands for the NFS rules being in place.
    this.waiter.node.addDependency(...mountTargets, network.securityGroup, network.clientSecurityGroup, ...network.rules);
    const ready = new DependencyGroup();
    ready.add(this.waiter, policy);
    this.mountTargetsAvailable = ready;
  }

  /**
   * Adds an access point to this file system (a child of it, in its stack).
   * @param id construct id of the access point
   * @param options its root directory, POSIX user and creation permissions
   */
  public addAccessPoint(id: string, options: S3FilesAccessPointOptions): S3FilesAccessPoint {
    return new S3FilesAccessPoint(this, id, { ...options, fileSystem: this });
  }

  /**
   * Adds a statement to the file system policy (`AWS::S3Files::FileSystemPolicy`), for example the
   * documented per-role pair (an Allow and a Deny naming a role ARN in `Principal`, conditioned on
   * `s3files:AccessPointArn`) that keeps a role to one access point. The policy's own Denies
   * (no TLS; no access point, unless `allowMountsWithoutAccessPoint`) still apply.
   * @param statement the statement to add
   */
  public addToResourcePolicy(statement: iam.PolicyStatement): iam.AddToResourcePolicyResult {
    this.resourcePolicyStatements.push(checkShape('statement', statement, this, 'statement', true));
    return { statementAdded: true, policyDependable: this.policyDependable };
  }

  /**
   * Sets the removal policy of the file system. The service role, its policy, a created bucket
   * and the delete guard follow it.
   * @param policy RETAIN, RETAIN_ON_UPDATE_OR_DELETE or DESTROY (S3 Files has no snapshots)
   */
  public applyRemovalPolicy(policy: RemovalPolicy): void {
    rejectSnapshot(this, 'applyRemovalPolicy', policy);
    super.applyRemovalPolicy(policy);
  }

  /**
   * Registers an access point of this file system; returns what its clients must wait for. One in
   * this stack joins the file system's waiter; one in another stack (sibling or nested) gets a waiter
   * of its own in its stack: listing it here would make the two stacks reference each other.
   * @internal
   */
  public _registerAccessPoint(accessPoint: IConstruct & { readonly accessPointId: string }): IDependable {
    // Deleted before the delete guard deletes the file system (a stack dependency across stacks).
    accessPoint.node.addDependency(this.deleteGuard);
    if (Stack.of(accessPoint) === Stack.of(this)) {
      this.accessPointIds.push(accessPoint.accessPointId);
      return this.mountTargetsAvailable;
    }
    const own = this.createWaiter(accessPoint, 'Available', S3FilesWaiterProvider.getOrCreate(accessPoint), [accessPoint.accessPointId]);
    const ready = new DependencyGroup();
    ready.add(this.mountTargetsAvailable, own);
    return ready;
  }

  /** The service role and its policy, one pair per generation of the file system (see replacementHash). */
  private createServiceRole(replacement: string): { role: iam.Role; policy: iam.Policy } {
    // Keyed like the delete guard by what replaces the file system: a replacement gets its own pair,
    // and the old file system keeps its pair until it is deleted (DESTROY) or retained with it
    // (RETAIN), so its last writes still reach S3. Updated in place, the old prefix or bucket would
    // lose them first; added to one role, retained policies would pile up against IAM's limit.
    const stack = Stack.of(this);
    const role = new iam.Role(this, `ServiceRole${replacement}`, {
      description: 'Assumed by Amazon S3 Files to synchronise the file system with its bucket',
      assumedBy: new iam.ServicePrincipal(SERVICE_PRINCIPAL).withConditions({
        StringEquals: { 'aws:SourceAccount': stack.account },
        ArnLike: { 'aws:SourceArn': stack.formatArn({ service: 's3files', resource: 'file-system', resourceName: '*' }) },
      }),
    });
    const policy = new iam.Policy(this, `ServiceRolePolicy${replacement}`, { roles: [role], statements: serviceRoleStatements(this, this.serviceRoleView()) });
    acknowledgeServiceRoleFindings(this, this.serviceRoleView(), policy);
    return { role, policy };
  }

  /** What the service role's statements need of this file system. */
  private serviceRoleView(): ServiceRoleFileSystem {
    return { bucket: this.created.bucket, prefix: this.created.prefix, bucketEncryptionKey: this.bucketEncryptionKey };
  }

  /** Another file system of the app on this construct's bucket whose final removal policy keeps it. */
  private retainedUserOfBucket(): IConstruct | undefined {
    return this.node.root.node.findAll().find((c): c is S3FilesFileSystem => S3FilesFileSystem.isS3FilesFileSystem(c) && c !== this
      && (c.created.bucket === this.created.bucket || c.created.bucket.bucketArn === this.created.bucket.bucketArn) && !c.removal.destroys);
  }

  /**
   * A hash of what replaces the file system when it changes (bucket, prefix and, only when set, the
   * bucket's create-only properties, the key and acceptBucketWarning), as CloudFormation sees it
   * (values, or references by logical id), never construct paths: moving the stack into a Stage, or
   * the construct into another scope with the same logical ids, keeps it. The delete guard, the
   * service role and its policy are keyed by it (the role, keyed by it, replaces the file system only
   * when the file system is replaced anyway).
   */
  private replacementHash(props: S3FilesFileSystemOptions): string {
    const key = props.fileSystemEncryptionKey;
    // A bucket of the app is replaced (and the file system with it) when one of these changes.
    const bucketInputs = bucketReplacementInputs(this, this.created.bucket);
    const identity = Stack.of(this).resolve({
      bucket: this.created.bucket.bucketName,
      prefix: this.created.prefix,
      // The other create-only properties, only when set: the ids of everyone else stay.
      ...(Object.keys(bucketInputs).length ? { bucketCreateOnly: bucketInputs } : {}),
      ...(key ? { fileSystemKey: key.keyArn } : {}),
      ...(props.acceptBucketWarning === true ? { acceptBucketWarning: true } : {}),
    });
    return crypto.createHash('sha256').update(JSON.stringify(identity)).digest('hex').slice(0, 8);
  }

  private createWaiter(
    scope: Construct, id: string, provider: S3FilesWaiterProvider, accessPointIds: string[],
    bucket?: { readonly name: string; readonly verifyVersioning: boolean },
  ): CustomResource {
    return createWaiter(scope, id, provider, {
      fileSystemId: this.fileSystemId,
      mountTargetCount: this.mountTargetCount,
      accessPointIds,
      timeoutSeconds: this.availabilityTimeoutSeconds,
      bucket,
    });
  }

  /** The key's ARN; a literal ARN in another region than the stack's is refused (the service needs the file system's region). */
  private fileSystemKeyId(key: kms.IKey | undefined): string | undefined {
    if (!key) return undefined;
    const arn = key.keyArn;
    const region = Stack.of(this).region;
    if (!Token.isUnresolved(arn) && !Token.isUnresolved(region)) {
      const keyRegion = arn.split(':')[3];
      if (keyRegion && keyRegion !== region) {
        invalid(this, 'fileSystemEncryptionKey', arn, `the key is in ${keyRegion} but the file system is in ${region}, and S3 Files needs a key in the file system's region`,
          `use a key (or a multi-Region replica) in ${region}`);
      }
    }
    return arn;
  }

  private acceptBucketWarning(value: unknown): true | undefined {
    if (value === undefined || value === false) return undefined;
    if (value === true || Token.isUnresolved(value)) return value as true;
    return invalid(this, 'acceptBucketWarning', value, 'it must be a boolean', 'pass true to create the file system despite a bucket warning, or omit it');
  }
}

/** A MountTargetIpAddressType, not a string (a JavaScript or Python caller can pass anything). */
function validateIpAddressType(scope: IConstruct, value: MountTargetIpAddressType | undefined): MountTargetIpAddressType | undefined {
  if (value !== undefined && typeof (value as Partial<MountTargetIpAddressType>)?.value !== 'string') {
    invalid(scope, 'mountTargetIpAddressType', value, 'it must be a MountTargetIpAddressType, not a string',
      'use `MountTargetIpAddressType.DUAL_STACK` (or IPV4_ONLY, IPV6_ONLY, or `MountTargetIpAddressType.of()` for a newer value)');
  }
  return value;
}
