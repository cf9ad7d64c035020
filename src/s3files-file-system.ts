import * as crypto from 'crypto';
import {
  Annotations, AspectPriority, Aspects, Aws, CfnDeletionPolicy, CfnResource, CustomResource, Duration, Lazy, RemovalPolicy, Stack, Token,
} from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3files from 'aws-cdk-lib/aws-s3files';
import { Construct, DependencyGroup, IConstruct, IDependable } from 'constructs';
import { AzCoverage, checkSubnetIpFamilies, selectMountTargetSubnets } from './private/az-coverage';
import { renderResourcePolicy, validatePolicySize } from './private/client-authorization';
import { DEFAULT_AVAILABILITY_TIMEOUT_SECONDS } from './private/custom-resource-contract';
import { createBucketCleaner, createDeleteGuard, createWaiter } from './private/file-system-guard';
import { synchronizationConfiguration } from './private/file-system-sync';
import { ImportedFileSystem } from './private/imported-file-system';
import { FileSystemMountInfo, NFS_PORT } from './private/mount-info';
import { acknowledge } from './private/nag';
import { acknowledgeServiceRoleFindings, SERVICE_PRINCIPAL, serviceRoleStatements } from './private/service-role';
import {
  invalid, validateAvailabilityTimeout, validateBoolean, validatePrefix, validateWholeDays,
} from './private/validation';
import { DELETE_WITH_STACK_TAG, S3FilesWaiterProvider } from './private/waiter-provider';
import { S3FilesAccessPoint } from './s3files-access-point';
import { IS3FilesFileSystem, S3FilesFileSystemAttributes, S3FilesFileSystemBase } from './s3files-file-system-base';
import { MountTargetIpAddressType, S3FilesFileSystemOptions, S3FilesFileSystemProps } from './s3files-file-system-props';

export * from './s3files-file-system-props';
export * from './s3files-file-system-base';

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
 *   fileSystem,
 *   accessPoint: appDir,
 * });
 */
export class S3FilesFileSystem extends S3FilesFileSystemBase implements iam.IResourceWithPolicy {
  /**
   * Imports an existing file system (created elsewhere, in another app or account, or by hand).
   *
   * An imported file system needs no waiter (it exists) and its file-system policy is not this
   * app's to change: grants add identity statements to the grantee.
   * New access points on it (an `S3FilesAccessPoint` given this file system) get a waiter of
   * their own in their stack; existing ones are imported with `fromAccessPointAttributes`.
   * @param scope the scope of the imported construct
   * @param id its id
   * @param attrs what is known of the file system
   */
  public static fromFileSystemAttributes(scope: Construct, id: string, attrs: S3FilesFileSystemAttributes): IS3FilesFileSystem {
    return new ImportedFileSystem(scope, id, attrs);
  }

  /** The file system id (`fs-...`). */
  public readonly fileSystemId: string;
  /** The file system ARN. */
  public readonly fileSystemArn: string;
  /** The bucket the file system presents. */
  public readonly bucket: s3.IBucket;
  /** The key prefix of the bucket the file system presents ('' = whole bucket). */
  public readonly prefix: string;
  /** The bucket's SSE-KMS key, when known. */
  public readonly bucketEncryptionKey?: kms.IKey;
  /** The role S3 Files assumes to synchronise with the bucket. */
  public readonly serviceRole: iam.IRole;
  /** Network access to the mount targets (default port TCP 2049). */
  public readonly connections: ec2.Connections;
  /**
   * Clients join this security group to reach the mount targets over NFS. The mount-target group
   * has one rule for it, so any number of clients costs no further rules, and clients in other
   * stacks only reference it (no rule in this stack names them).
   */
  public readonly clientSecurityGroup: ec2.ISecurityGroup;
  /** The VPC of the mount targets. */
  public readonly vpc: ec2.IVpc;
  /** Completes when every mount target and access point is available. Depend on this, not on the mount targets. */
  public readonly mountTargetsAvailable: IDependable;

  /** Number of mount targets (one per AZ). @internal */
  public readonly _mountTargetCount: number;
  /** The waiter's timeout in seconds (a token when availabilityTimeout is one). @internal */
  public readonly _availabilityTimeoutSeconds: number;

  private readonly resource: s3files.CfnFileSystem;
  private readonly ownsBucket: boolean;
  private readonly mountTargetAzs: AzCoverage;
  private readonly accessPoints: S3FilesAccessPoint[] = [];
  private readonly resourcePolicyStatements: iam.PolicyStatement[] = [];
  private readonly policyResource: s3files.CfnFileSystemPolicy;
  private readonly allowMountsWithoutAccessPoint: boolean;
  private readonly waiter: CustomResource;
  private readonly deleteGuard: CustomResource;

  constructor(scope: Construct, id: string, props: S3FilesFileSystemProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    rejectSnapshot(this, 'removalPolicy', removalPolicy);

    this.vpc = props.vpc;
    this.prefix = props.prefix ?? '';
    validatePrefix(this, this.prefix);
    this._availabilityTimeoutSeconds = validateAvailabilityTimeout(this,
      props.availabilityTimeout ?? Duration.seconds(DEFAULT_AVAILABILITY_TIMEOUT_SECONDS));

    // ---- bucket
    const importedBucket = props.bucket !== undefined;
    this.ownsBucket = !importedBucket;
    if (importedBucket && props.noncurrentVersionExpiration) {
      invalid(this, 'noncurrentVersionExpiration', props.noncurrentVersionExpiration,
        'it only applies to a bucket this construct creates, but `bucket` was given', 'configure the lifecycle on your bucket and drop noncurrentVersionExpiration');
    }
    this.bucketEncryptionKey = props.bucketEncryptionKey ?? props.bucket?.encryptionKey;
    this.bucket = props.bucket ?? this.createBucket(props);
    this.checkBucketLocation();

    // ---- service role and its policy, one pair per generation of the file system (keyed like the
    // delete guard by what replaces it): a replacement gets its own, and the old file system keeps
    // its pair until it is deleted (DESTROY) or retained with it (RETAIN), so its last writes still
    // reach S3. Updated in place, the old prefix or bucket would lose them first; added to one role,
    // retained policies would pile up against IAM's 10,240 characters per role.
    const replacement = this.replacementHash(props);
    const role = new iam.Role(this, `ServiceRole${replacement}`, {
      description: 'Assumed by Amazon S3 Files to synchronise the file system with its bucket',
      assumedBy: new iam.ServicePrincipal(SERVICE_PRINCIPAL).withConditions({
        StringEquals: { 'aws:SourceAccount': stack.account },
        ArnLike: { 'aws:SourceArn': stack.formatArn({ service: 's3files', resource: 'file-system', resourceName: '*' }) },
      }),
    });
    this.serviceRole = role;
    const rolePolicy = new iam.Policy(this, `ServiceRolePolicy${replacement}`, {
      roles: [role],
      statements: serviceRoleStatements(this),
    });
    acknowledgeServiceRoleFindings(this, rolePolicy);

    // ---- file system
    this.resource = new s3files.CfnFileSystem(this, 'Resource', {
      bucket: this.bucket.bucketArn,
      roleArn: role.roleArn,
      prefix: this.prefix === '' ? undefined : this.prefix,
      kmsKeyId: this.fileSystemKeyId(props.fileSystemEncryptionKey),
      synchronizationConfiguration: synchronizationConfiguration(this, props),
      // Only when set: omitting it keeps the templates of everyone who never asked for it unchanged.
      acceptBucketWarning: this.acceptBucketWarning(props.acceptBucketWarning),
    });
    // Without its S3 and EventBridge rights in place the service fails silently: wait for the policy.
    this.resource.node.addDependency(rolePolicy);
    this.resource.applyRemovalPolicy(removalPolicy);
    // A retained file system keeps exporting and importing only while its role and the role's
    // policy exist; a created bucket keeps the data. They follow the *final* policy of the file
    // system, however it was set (prop, applyRemovalPolicy, RemovalPolicies.of, an aspect).
    for (const follower of [role.node.defaultChild, rolePolicy.node.defaultChild]) {
      if (follower instanceof CfnResource) this.followRemovalPolicy(follower);
    }
    // A created bucket follows too, unless it was given a removal policy of its own
    // (bucket.applyRemovalPolicy, RemovalPolicies.of): then that one counts, and the cleaner empties
    // it only if it is deleted. Decided after every mutating aspect has run.
    if (this.ownsBucket) {
      const bucketCfn = this.bucket.node.defaultChild as CfnResource;
      Aspects.of(this.bucket).add({
        visit: (node) => {
          if (!(node instanceof CfnResource) || (node !== bucketCfn && node !== this.bucket.policy?.node.defaultChild)) return;
          const own = bucketCfn.cfnOptions;
          const fs = this.resource.cfnOptions;
          // A RETAIN file system on this bucket keeps using it after this one is deleted: the cleaner
          // would wait for it in vain, so the bucket is kept too.
          const destroyed = own.deletionPolicy === undefined && fs.deletionPolicy === CfnDeletionPolicy.DELETE;
          const keptFor = destroyed ? this.retainedUserOfBucket() : undefined;
          if (keptFor) {
            node.cfnOptions.deletionPolicy = CfnDeletionPolicy.RETAIN;
            node.cfnOptions.updateReplacePolicy = CfnDeletionPolicy.RETAIN;
            if (node === bucketCfn) {
              Annotations.of(this).addWarningV2('cdk-s3files-lambda:bucketKeptForRetainedFileSystem',
                `the bucket this file system created is kept, although its removal policy is DESTROY: ${keptFor.node.path} uses it too and is retained (RemovalPolicy.RETAIN), `
                + 'so the bucket is still in use when this stack is deleted. To delete the bucket with the stack, give that file system RemovalPolicy.DESTROY, or its own bucket.');
            }
            return;
          }
          node.cfnOptions.deletionPolicy = own.deletionPolicy ?? fs.deletionPolicy;
          node.cfnOptions.updateReplacePolicy = own.updateReplacePolicy ?? fs.updateReplacePolicy;
        },
      }, { priority: AspectPriority.DEFAULT + 100 });
    }
    this.node.addValidation({ validate: () => this.validateFinalRemovalPolicy() });
    this.fileSystemId = this.resource.attrFileSystemId;
    this.fileSystemArn = this.resource.attrFileSystemArn;

    // ---- delete guard: everything using the file system depends on it, so on deletion it runs
    // after they are gone and deletes the file system itself (DESTROY only), without forceDelete.
    const provider = S3FilesWaiterProvider.getOrCreate(this);
    const logicalId = () => Stack.of(this).resolve(this.resource.logicalId) as string;
    this.deleteGuard = createDeleteGuard(this, provider, {
      fileSystemId: this.fileSystemId,
      fileSystemLogicalId: Lazy.string({ produce: logicalId }),
      replacementHash: replacement,
      destroyOnDelete: () => this.destroyOnDelete,
    });
    provider.registerGuardedFileSystem({ logicalId, retained: () => !this.destroyOnDelete });
    // The guards may delete a file system only while it carries this stack's id (DESTROY).
    this.resource.cdkTagManager.setTag(DELETE_WITH_STACK_TAG, Lazy.string({ produce: () => (this.destroyOnDelete ? Aws.STACK_ID : 'false') }), 1000);
    if (this.ownsBucket) this.deleteGuard.node.addDependency(createBucketCleaner(this, provider, this.bucket, () => this.emptiesBucket));

    // ---- network: one client group; one rule on the mount-target group, whatever the number of clients
    const securityGroup = props.securityGroup ?? new ec2.SecurityGroup(this, 'MountTargetSecurityGroup', {
      vpc: this.vpc,
      description: 'S3 Files mount targets: NFS (TCP 2049) only from the client security group',
      allowAllOutbound: false,
    });
    this.connections = new ec2.Connections({ securityGroups: [securityGroup], defaultPort: ec2.Port.tcp(NFS_PORT) });
    const clientSecurityGroup = new ec2.SecurityGroup(this, 'ClientSecurityGroup', {
      vpc: this.vpc,
      description: 'S3 Files clients: members reach the mount targets over NFS (TCP 2049)',
      allowAllOutbound: false,
    });
    // Explicit rules with fixed ids: the ids Connections.allowTo gives embed the construct path, so a
    // Stage move would recreate them, and EC2 refuses the duplicate before the old one is deleted.
    const nfsRules = [
      new ec2.CfnSecurityGroupIngress(this, 'NfsFromClients', {
        groupId: securityGroup.securityGroupId,
        ipProtocol: 'tcp',
        fromPort: NFS_PORT,
        toPort: NFS_PORT,
        sourceSecurityGroupId: clientSecurityGroup.securityGroupId,
        description: 'NFS from the S3 Files client security group',
      }),
      new ec2.CfnSecurityGroupEgress(this, 'NfsToMountTargets', {
        groupId: clientSecurityGroup.securityGroupId,
        ipProtocol: 'tcp',
        fromPort: NFS_PORT,
        toPort: NFS_PORT,
        destinationSecurityGroupId: securityGroup.securityGroupId,
        description: 'NFS to the S3 Files mount targets',
      }),
    ];
    this.clientSecurityGroup = clientSecurityGroup;

    // ---- mount targets, keyed by AZ: dropping one AZ leaves the others' logical ids alone
    const targets = selectMountTargetSubnets(this, this.vpc, props.vpcSubnets);
    this.mountTargetAzs = new AzCoverage(targets.map(t => t.az));
    const ipAddressType = props.mountTargetIpAddressType;
    if (ipAddressType !== undefined && typeof (ipAddressType as Partial<MountTargetIpAddressType>)?.value !== 'string') {
      invalid(this, 'mountTargetIpAddressType', ipAddressType, 'it must be a MountTargetIpAddressType, not a string',
        'use MountTargetIpAddressType.DUAL_STACK (or IPV4_ONLY, IPV6_ONLY, or MountTargetIpAddressType.of(value) for a newer value)');
    }
    if (ipAddressType) targets.forEach(({ subnet }) => checkSubnetIpFamilies(this, subnet, ipAddressType));
    const mountTargets = targets.map(({ subnet, az }) => {
      const mt = new s3files.CfnMountTarget(this, `MountTarget${az.idKey ?? az.key}`, {
        fileSystemId: this.fileSystemId,
        subnetId: subnet.subnetId,
        securityGroups: [securityGroup.securityGroupId],
        ipAddressType: ipAddressType?.value,
      });
      mt.node.addDependency(this.deleteGuard);
      return mt;
    });
    this._mountTargetCount = mountTargets.length;

    // ---- file system policy: TLS only; client mounts only through an access point (unless allowed)
    this.allowMountsWithoutAccessPoint = validateBoolean(this, 'allowMountsWithoutAccessPoint', props.allowMountsWithoutAccessPoint ?? false);
    this.policyResource = new s3files.CfnFileSystemPolicy(this, 'FileSystemPolicy', {
      fileSystemId: this.fileSystemId,
      policy: Lazy.any({ produce: () => this.renderResourcePolicy() }),
    });
    this.policyResource.node.addDependency(this.deleteGuard);
    this.node.addValidation({ validate: () => validatePolicySize(this, this.renderResourcePolicy()) });

    // ---- waiter (its read rights are in the per-file-system handler policy, with the guard's)
    if (importedBucket) provider.grantVerifyBucketVersioning(this.bucket);
    this.waiter = this.createWaiter(this, 'MountTargetsAvailable', provider,
      Lazy.list({ produce: () => this.accessPoints.map(ap => ap.accessPointId) }),
      { name: this.bucket.bucketName, verifyVersioning: importedBucket });
    // Clients wait for this, so it also stands for the NFS rules being in place.
    this.waiter.node.addDependency(...mountTargets, securityGroup, clientSecurityGroup, ...nfsRules);
    this.mountTargetsAvailable = this.waiter;
  }

  /** @internal */
  public _mountInfo(): FileSystemMountInfo {
    return {
      vpc: this.vpc,
      clientSecurityGroup: this.clientSecurityGroup,
      bucket: this.bucket,
      prefix: this.prefix,
      bucketEncryptionKey: this.bucketEncryptionKey,
      policyDependable: this.policyResource,
      checkAzCoverage: (scope, prop, subnets) => this._checkAzCoverage(scope, prop, subnets),
    };
  }

  /**
   * The file system policy resource: depend on it to use the file system only once its policy is in place.
   */
  public get policyDependable(): IDependable {
    return this.policyResource;
  }

  /**
   * Adds a statement to the file system policy (`AWS::S3Files::FileSystemPolicy`), for example the
   * documented per-role pair (an Allow and a Deny naming a role ARN in `Principal`, conditioned on
   * `s3files:AccessPointArn`) that keeps a role to one access point. The policy's own Denies
   * (no TLS; no access point, unless `allowMountsWithoutAccessPoint`) still apply.
   * @param statement the statement to add
   */
  public addToResourcePolicy(statement: iam.PolicyStatement): iam.AddToResourcePolicyResult {
    this.resourcePolicyStatements.push(statement);
    return { statementAdded: true, policyDependable: this.policyResource };
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
   * Registers an access point of this file system; returns what its clients must wait for.
   * An access point in this stack joins the file system's waiter. One in another stack (sibling
   * or nested) gets a waiter of its own in its stack: listing it in this stack's waiter would
   * make the two stacks reference each other.
   * @internal
   */
  public _registerAccessPoint(accessPoint: S3FilesAccessPoint): IDependable {
    // Deleted before the delete guard deletes the file system (a stack dependency across stacks).
    accessPoint.node.addDependency(this.deleteGuard);
    if (Stack.of(accessPoint) === Stack.of(this)) {
      this.accessPoints.push(accessPoint);
      return this.waiter;
    }
    const provider = S3FilesWaiterProvider.getOrCreate(accessPoint);
    const own = this.createWaiter(accessPoint, 'Available', provider, [accessPoint.accessPointId]);
    const ready = new DependencyGroup();
    ready.add(this.waiter, own);
    return ready;
  }

  /**
   * Fails when a client's subnets are in an AZ without a mount target (Lambda rejects such a
   * function at deploy time). Warns when the AZs are only known at deploy time.
   * @internal
   */
  public _checkAzCoverage(scope: IConstruct, prop: string, subnets: ec2.ISubnet[]): void {
    this.mountTargetAzs.check(scope, prop, subnets, this.node.path, ', or add those AZs to the file system\'s vpcSubnets');
  }


  private createWaiter(
    scope: Construct, id: string, provider: S3FilesWaiterProvider, accessPointIds: string[],
    bucket?: { readonly name: string; readonly verifyVersioning: boolean },
  ): CustomResource {
    return createWaiter(scope, id, provider, {
      fileSystemId: this.fileSystemId,
      mountTargetCount: this._mountTargetCount,
      accessPointIds,
      timeoutSeconds: this._availabilityTimeoutSeconds,
      bucket,
    });
  }

  /** The key's ARN; a literal ARN in another region than the stack's is refused (the service needs the file system's region). */
  private fileSystemKeyId(key: kms.IKey | undefined): string | undefined {
    if (!key) return undefined;
    const arn: unknown = (key as Partial<kms.IKey>).keyArn;
    if (typeof arn !== 'string') {
      invalid(this, 'fileSystemEncryptionKey', key, 'it must be a KMS key object, not its id or ARN', 'pass kms.Key.fromKeyArn(scope, \'Key\', keyArn), or a key this app creates');
    }
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

  private createBucket(props: S3FilesFileSystemProps): s3.IBucket {
    const noncurrentDays = validateWholeDays(this, 'noncurrentVersionExpiration', props.noncurrentVersionExpiration ?? Duration.days(30), 1, 36500);
    const bucket = new s3.Bucket(this, 'Bucket', {
      versioned: true,
      encryption: this.bucketEncryptionKey ? s3.BucketEncryption.KMS : s3.BucketEncryption.S3_MANAGED,
      encryptionKey: this.bucketEncryptionKey,
      bucketKeyEnabled: this.bucketEncryptionKey ? true : undefined,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      lifecycleRules: [{
        id: 'ExpireNoncurrentVersionsAndAbortUploads',
        noncurrentVersionExpiration: Duration.days(noncurrentDays),
        abortIncompleteMultipartUploadAfter: Duration.days(7),
      }],
      // Follows the file system's final removal policy unless given its own (the aspect in the constructor).
      // With DESTROY its cleaner empties it, only once no file system lists it.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    // Unset, so a removal policy the user gives the bucket later is recognised as theirs.
    const cfn = bucket.node.defaultChild as CfnResource;
    cfn.cfnOptions.deletionPolicy = undefined;
    cfn.cfnOptions.updateReplacePolicy = undefined;
    acknowledge(bucket, 'AwsSolutions-S1',
      'Server access logs need a second bucket the owner chooses; object access through the file system is audited with CloudTrail data events. Pass your own bucket (with logging) as `bucket` to log it.');
    return bucket;
  }

  /** Copies the file system's final DeletionPolicy/UpdateReplacePolicy onto `resource` at synthesis. */
  private followRemovalPolicy(resource: CfnResource): void {
    resource.addOverride('DeletionPolicy', Lazy.string({ produce: () => this.resource.cfnOptions.deletionPolicy }));
    resource.addOverride('UpdateReplacePolicy', Lazy.string({ produce: () => this.resource.cfnOptions.updateReplacePolicy }));
  }

  /** True when a created bucket's final removal policy deletes it (then its cleaner empties it). */
  private get emptiesBucket(): boolean {
    return this.ownsBucket && (this.bucket.node.defaultChild as CfnResource).cfnOptions.deletionPolicy === CfnDeletionPolicy.DELETE;
  }

  /**
   * A hash of what replaces the file system when it changes (bucket, prefix and, only when set, the
   * key and acceptBucketWarning), as CloudFormation sees it (values, or references by logical id),
   * never construct paths: moving the stack into a Stage, or the construct into another scope with
   * the same logical ids, keeps it. The delete guard, the service role and its policy are keyed by it
   * (the role, keyed by it, replaces the file system only when the file system is replaced anyway).
   */
  private replacementHash(props: S3FilesFileSystemOptions): string {
    const key = props.fileSystemEncryptionKey;
    const identity = Stack.of(this).resolve({
      bucket: this.bucket.bucketName,
      prefix: this.prefix,
      // The other create-only properties, only when set: the ids of everyone else stay.
      ...(key ? { fileSystemKey: key.keyArn } : {}),
      ...(props.acceptBucketWarning === true ? { acceptBucketWarning: true } : {}),
    });
    return crypto.createHash('sha256').update(JSON.stringify(identity)).digest('hex').slice(0, 8);
  }

  /** Another file system of the app on this construct's bucket whose final removal policy keeps it. */
  private retainedUserOfBucket(): S3FilesFileSystem | undefined {
    return this.node.root.node.findAll().find((c): c is S3FilesFileSystem => c instanceof S3FilesFileSystem && c !== this
      && (c.bucket === this.bucket || c.bucket.bucketArn === this.bucket.bucketArn) && !c.destroyOnDelete);
  }

  /** True when the file system's final removal policy deletes it. */
  private get destroyOnDelete(): boolean {
    return this.resource.cfnOptions.deletionPolicy === CfnDeletionPolicy.DELETE;
  }

  private validateFinalRemovalPolicy(): string[] {
    const policy = this.resource.cfnOptions.deletionPolicy;
    return policy === CfnDeletionPolicy.SNAPSHOT
      ? [`${this.node.path}: invalid removal policy SNAPSHOT (set on the file system after construction): S3 Files file systems have no snapshots. Fix: use RemovalPolicy.RETAIN or RemovalPolicy.DESTROY.`]
      : [];
  }

  /** S3 Files needs the bucket in the file system's region; warn on a foreign account. */
  private checkBucketLocation(): void {
    const stack = Stack.of(this);
    const { region, account } = this.bucket.env;
    if (!Token.isUnresolved(region) && !Token.isUnresolved(stack.region) && region !== stack.region) {
      invalid(this, 'bucket', this.bucket.bucketName, `the bucket is in ${region} but the file system is in ${stack.region}`, 'use a bucket in the same region as the stack');
    }
    if (!Token.isUnresolved(account) && !Token.isUnresolved(stack.account) && account !== stack.account) {
      Annotations.of(this).addWarningV2('cdk-s3files-lambda:crossAccountBucket',
        `bucket is owned by account ${account}, not ${stack.account}: its bucket policy must allow the service role, and versioning is only checked at deploy time.`);
    }
  }

  private renderResourcePolicy(): iam.PolicyDocument {
    return renderResourcePolicy(this.fileSystemArn, this.allowMountsWithoutAccessPoint, this.resourcePolicyStatements);
  }
}

function rejectSnapshot(scope: IConstruct, prop: string, policy: RemovalPolicy): void {
  if (policy === RemovalPolicy.SNAPSHOT) {
    invalid(scope, prop, 'SNAPSHOT', 'S3 Files file systems have no snapshots', 'use RemovalPolicy.RETAIN or RemovalPolicy.DESTROY');
  }
}
