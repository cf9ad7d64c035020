import {
  Annotations, CustomResource, Duration, Lazy, RemovalPolicy, Resource, Size, Stack, Token, Tokenization,
} from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3files from 'aws-cdk-lib/aws-s3files';
import { Construct, IDependable } from 'constructs';
import { acknowledge, findingResource } from './private/nag';
import {
  invalid, validateAvailabilityTimeout, validateImportSizeThreshold, validatePrefix, validateWholeDays,
} from './private/validation';
import { DELETE_GUARD_RESOURCE_TYPE, S3FilesWaiterProvider, WAITER_RESOURCE_TYPE } from './private/waiter-provider';
import { S3FilesAccessPoint, S3FilesAccessPointOptions } from './s3files-access-point';

/** NFS port of the mount targets. */
const NFS_PORT = 2049;
/** The principal S3 Files uses to assume the service role (S3 Files is built on EFS). */
const SERVICE_PRINCIPAL = 'elasticfilesystem.amazonaws.com';
/** How long the delete guard retries while the service reports a pending export (30 export cycles). */
const DELETE_TIMEOUT_SECONDS = 1800;

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
   * The general-purpose bucket to present as a file system. Versioning must be enabled;
   * for an imported bucket it is verified at deploy time.
   * @default - a new bucket: versioned, SSE-S3 (SSE-KMS with `encryptionKey`), public access
   * blocked, bucket owner enforced, TLS-only, noncurrent versions expire
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
  readonly encryptionKey?: kms.IKey;

  /**
   * Objects smaller than this are imported into the file system cache; larger reads are
   * served directly from S3.
   * @default Size.kibibytes(128)
   */
  readonly importSizeThreshold?: Size;

  /**
   * When data is imported into the cache.
   * @default ImportTrigger.ON_DIRECTORY_FIRST_ACCESS
   */
  readonly importTrigger?: ImportTrigger;

  /**
   * Cached data not accessed for this long is dropped from the file system (it stays in S3).
   * Whole days, 1 to 365.
   * @default Duration.days(30)
   */
  readonly expireAfterLastAccess?: Duration;

  /**
   * Noncurrent object versions in the created bucket expire after this period.
   * Only valid when this construct creates the bucket.
   * @default Duration.days(30)
   */
  readonly noncurrentVersionExpiration?: Duration;

  /**
   * Security group for the mount targets. The library only adds TCP 2049 ingress from the
   * security groups of granted functions.
   * @default - a new security group with no ingress and no egress
   */
  readonly securityGroup?: ec2.ISecurityGroup;

  /**
   * What happens to the file system (and a bucket this construct creates) on stack deletion.
   * With DESTROY, a delete guard deletes the file system once its mount targets and access
   * points are gone, retrying (up to 30 minutes) while the service reports writes pending export
   * to S3, so the last writes are not lost; a created bucket is emptied only after that.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;

  /**
   * How long the deployment waits for the mount targets and access points to become available.
   * 1 minute to 2 hours.
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

/** One client grant recorded for the file system policy. */
interface ClientGrant {
  readonly principal: iam.IPrincipal;
  readonly accessPointArn?: string;
  readonly actions: Set<string>;
}

/**
 * An Amazon S3 Files file system over a general-purpose S3 bucket, with its service role,
 * one mount target per AZ, a mount-target security group, a file system policy and a
 * deploy-time waiter that completes only when every mount target (and access point) is available.
 */
export class S3FilesFileSystem extends Resource implements ec2.IConnectable, iam.IResourceWithPolicy {
  /** The file system id (`fs-...`). */
  public readonly fileSystemId: string;
  /** The file system ARN. */
  public readonly fileSystemArn: string;
  /** The bucket the file system presents. */
  public readonly bucket: s3.IBucket;
  /** The key prefix of the bucket the file system presents ('' = whole bucket). */
  public readonly prefix: string;
  /** The bucket's SSE-KMS key, when known. */
  public readonly encryptionKey?: kms.IKey;
  /** The role S3 Files assumes to synchronise with the bucket. */
  public readonly serviceRole: iam.IRole;
  /** Network access to the mount targets (default port TCP 2049). */
  public readonly connections: ec2.Connections;
  /** The VPC of the mount targets. */
  public readonly vpc: ec2.IVpc;
  /** Completes when every mount target and access point is available. Depend on this, not on the mount targets. */
  public readonly mountTargetsAvailable: IDependable;

  private readonly resource: s3files.CfnFileSystem;
  private readonly mountTargets: s3files.CfnMountTarget[] = [];
  private readonly accessPoints: S3FilesAccessPoint[] = [];
  private readonly clientGrants: ClientGrant[] = [];
  private readonly resourcePolicyStatements: iam.PolicyStatement[] = [];
  private readonly policyResource: s3files.CfnFileSystemPolicy;
  private readonly waiter: CustomResource;
  private readonly deleteGuard: CustomResource;

  constructor(scope: Construct, id: string, props: S3FilesFileSystemProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    if (removalPolicy === RemovalPolicy.SNAPSHOT) {
      invalid(this, 'removalPolicy', 'SNAPSHOT', 'S3 Files file systems have no snapshots', 'use RemovalPolicy.RETAIN or RemovalPolicy.DESTROY');
    }
    const destroy = removalPolicy === RemovalPolicy.DESTROY;

    this.vpc = props.vpc;
    this.prefix = props.prefix ?? '';
    validatePrefix(this, this.prefix);
    const timeoutSeconds = validateAvailabilityTimeout(this, props.availabilityTimeout ?? Duration.minutes(20));

    // ---- bucket
    const importedBucket = props.bucket !== undefined;
    if (importedBucket && props.noncurrentVersionExpiration) {
      invalid(this, 'noncurrentVersionExpiration', props.noncurrentVersionExpiration,
        'it only applies to a bucket this construct creates, but `bucket` was given', 'configure the lifecycle on your bucket and drop noncurrentVersionExpiration');
    }
    this.encryptionKey = props.encryptionKey ?? props.bucket?.encryptionKey;
    this.bucket = props.bucket ?? this.createBucket(props, destroy);
    this.checkBucketLocation();

    // ---- service role (its policy is a separate resource the file system depends on)
    const role = new iam.Role(this, 'ServiceRole', {
      description: 'Assumed by Amazon S3 Files to synchronise the file system with its bucket',
      assumedBy: new iam.ServicePrincipal(SERVICE_PRINCIPAL).withConditions({
        StringEquals: { 'aws:SourceAccount': stack.account },
        ArnLike: { 'aws:SourceArn': stack.formatArn({ service: 's3files', resource: 'file-system', resourceName: '*' }) },
      }),
    });
    this.serviceRole = role;
    const rolePolicy = new iam.Policy(this, 'ServiceRolePolicy', {
      roles: [role],
      statements: this.serviceRoleStatements(),
    });
    this.acknowledgeServiceRoleFindings(rolePolicy);

    // ---- file system
    this.resource = new s3files.CfnFileSystem(this, 'Resource', {
      bucket: this.bucket.bucketArn,
      roleArn: role.roleArn,
      prefix: this.prefix === '' ? undefined : this.prefix,
      synchronizationConfiguration: this.synchronizationConfiguration(props),
    });
    // Without its S3 and EventBridge rights in place the service fails silently: wait for the policy.
    this.resource.node.addDependency(rolePolicy);
    this.resource.applyRemovalPolicy(removalPolicy);
    if (destroy && !importedBucket) {
      // Empty the bucket only after the file system is gone (it may still export on delete).
      const autoDelete = this.bucket.node.tryFindChild('AutoDeleteObjectsCustomResource');
      if (autoDelete) this.resource.node.addDependency(autoDelete);
    }
    this.fileSystemId = this.resource.attrFileSystemId;
    this.fileSystemArn = this.resource.attrFileSystemArn;

    // ---- delete guard: everything using the file system depends on it, so on stack deletion it
    // runs after they are gone and deletes the file system itself, without forceDelete, retrying
    // while writes are pending export. CloudFormation's own delete then finds the file system gone.
    const provider = S3FilesWaiterProvider.getOrCreate(this);
    if (destroy) provider.grantDeleteFileSystem(this.fileSystemArn);
    this.deleteGuard = new CustomResource(this, 'DeleteGuard', {
      serviceToken: provider.serviceToken,
      resourceType: DELETE_GUARD_RESOURCE_TYPE,
      properties: {
        FileSystemId: this.fileSystemId,
        // Always present, so switching DESTROY -> RETAIN is an Update (no-op), never a Delete that deletes.
        DeleteFileSystem: destroy ? 'true' : 'false',
        DeleteTimeoutSeconds: String(DELETE_TIMEOUT_SECONDS),
      },
    });

    // ---- mount targets
    const securityGroup = props.securityGroup ?? new ec2.SecurityGroup(this, 'MountTargetSecurityGroup', {
      vpc: this.vpc,
      description: 'S3 Files mount targets: NFS (TCP 2049) only from granted clients',
      allowAllOutbound: false,
    });
    this.connections = new ec2.Connections({ securityGroups: [securityGroup], defaultPort: ec2.Port.tcp(NFS_PORT) });
    this.selectMountTargetSubnets(props.vpcSubnets).forEach((subnet, i) => {
      this.mountTargets.push(new s3files.CfnMountTarget(this, `MountTarget${i + 1}`, {
        fileSystemId: this.fileSystemId,
        subnetId: subnet.subnetId,
        securityGroups: [securityGroup.securityGroupId],
      }));
    });
    this.mountTargets.forEach(mt => mt.node.addDependency(this.deleteGuard));

    // ---- file system policy: TLS only, plus the principals the library granted
    this.policyResource = new s3files.CfnFileSystemPolicy(this, 'FileSystemPolicy', {
      fileSystemId: this.fileSystemId,
      policy: Lazy.any({ produce: () => this.renderResourcePolicy() }),
    });
    this.policyResource.node.addDependency(this.deleteGuard);

    // ---- waiter
    provider.grantReadFileSystem(this.fileSystemArn);
    if (importedBucket) provider.grantVerifyBucketVersioning(this.bucket);
    this.waiter = new CustomResource(this, 'MountTargetsAvailable', {
      serviceToken: provider.serviceToken,
      resourceType: WAITER_RESOURCE_TYPE,
      properties: {
        FileSystemId: this.fileSystemId,
        ExpectedMountTargetCount: String(this.mountTargets.length),
        AccessPointIds: Lazy.list({ produce: () => this.accessPoints.map(ap => ap.accessPointId) }),
        TimeoutSeconds: Tokenization.stringifyNumber(timeoutSeconds),
        VerifyBucketVersioning: importedBucket ? 'true' : 'false',
        BucketName: this.bucket.bucketName,
      },
    });
    this.waiter.node.addDependency(...this.mountTargets);
    this.mountTargetsAvailable = this.waiter;
  }

  /**
   * Adds an access point to this file system.
   * @param id construct id of the access point (a child of this file system)
   * @param options POSIX user, root directory and its creation permissions
   */
  public addAccessPoint(id: string, options: S3FilesAccessPointOptions = {}): S3FilesAccessPoint {
    return new S3FilesAccessPoint(this, id, { ...options, fileSystem: this });
  }

  /**
   * Grants `s3files:ClientMount` (read access over NFS) on this file system through any access
   * point. Prefer `S3FilesAccessPoint.grantMount`, which is limited to one access point.
   * @param grantee the principal to grant
   */
  public grantMount(grantee: iam.IGrantable): iam.Grant {
    return this._grantClient(grantee, ['s3files:ClientMount']);
  }

  /**
   * Grants `s3files:ClientWrite` on this file system through any access point.
   * Prefer `S3FilesAccessPoint.grantWrite`.
   * @param grantee the principal to grant
   */
  public grantWrite(grantee: iam.IGrantable): iam.Grant {
    return this._grantClient(grantee, ['s3files:ClientWrite']);
  }

  /**
   * Grants `s3files:ClientRootAccess` on this file system through any access point: lets a
   * non-root user act on root-owned (S3-born) entries. Prefer `S3FilesAccessPoint.grantRootAccess`.
   * @param grantee the principal to grant
   */
  public grantRootAccess(grantee: iam.IGrantable): iam.Grant {
    return this._grantClient(grantee, ['s3files:ClientRootAccess']);
  }

  /**
   * The file system policy resource: depend on it to use the file system only once its policy is in place.
   */
  public get policyDependable(): IDependable {
    return this.policyResource;
  }

  /**
   * Adds a statement to the file system policy (`AWS::S3Files::FileSystemPolicy`).
   * @param statement the statement to add
   */
  public addToResourcePolicy(statement: iam.PolicyStatement): iam.AddToResourcePolicyResult {
    this.resourcePolicyStatements.push(statement);
    return { statementAdded: true, policyDependable: this.policyResource };
  }

  /**
   * A CloudWatch metric of this file system.
   *
   * Namespace `AWS/S3/Files`, dimension `FileSystemId` — from the S3 user guide page
   * "Monitoring S3 Files with Amazon CloudWatch" (s3-files-monitoring-cloudwatch.html), as used by
   * public projects alarming on e.g. `PendingExports`, `ImportFailures`, `DataReadBytes`.
   * @param metricName e.g. `PendingExports`, `ImportFailures`
   * @param props period, statistic and other options
   */
  public metric(metricName: string, props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: 'AWS/S3/Files',
      metricName,
      dimensionsMap: { FileSystemId: this.fileSystemId },
      ...props,
    });
  }

  /**
   * Records a client grant: an identity-policy statement on the grantee and an allow in the
   * file system policy, both limited to the access point when one is given.
   * @internal
   */
  public _grantClient(grantee: iam.IGrantable, actions: string[], accessPoint?: S3FilesAccessPoint): iam.Grant {
    const accessPointArn = accessPoint?.accessPointArn;
    const conditions = accessPointArn ? { ArnEquals: { 's3files:AccessPointArn': accessPointArn } } : undefined;
    const grant = iam.Grant.addToPrincipal({ grantee, actions, resourceArns: [this.fileSystemArn], conditions });
    const principal = grantee.grantPrincipal;
    if (Construct.isConstruct(principal) && Stack.of(principal) !== Stack.of(this)) {
      // Naming a role of another stack here while that stack references this file system
      // would make the two stacks depend on each other.
      Annotations.of(this).addWarningV2('cdk-s3files-lambda:crossStackGrantee',
        `${principal.node.path} is in another stack, so it is not added to the file system policy. Add it with addToResourcePolicy using its role ARN if the policy must allow it.`);
    } else if (canBeResourcePolicyPrincipal(principal)) {
      let entry = this.clientGrants.find(g => g.principal === principal && g.accessPointArn === accessPointArn);
      if (!entry) {
        entry = { principal, accessPointArn, actions: new Set() };
        this.clientGrants.push(entry);
      }
      actions.forEach(a => entry!.actions.add(a));
    }
    return grant;
  }

  /**
   * Called by each access point of this file system so the waiter includes it.
   * @internal
   */
  public _registerAccessPoint(accessPoint: S3FilesAccessPoint): void {
    // The waiter already references every access point id; the access point must be deleted
    // before the delete guard deletes the file system.
    this.accessPoints.push(accessPoint);
    accessPoint.node.addDependency(this.deleteGuard);
  }

  private createBucket(props: S3FilesFileSystemProps, destroy: boolean): s3.IBucket {
    const noncurrentDays = validateWholeDays(this, 'noncurrentVersionExpiration', props.noncurrentVersionExpiration ?? Duration.days(30), 1, 36500);
    const bucket = new s3.Bucket(this, 'Bucket', {
      versioned: true,
      encryption: this.encryptionKey ? s3.BucketEncryption.KMS : s3.BucketEncryption.S3_MANAGED,
      encryptionKey: this.encryptionKey,
      bucketKeyEnabled: this.encryptionKey ? true : undefined,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      lifecycleRules: [{
        id: 'ExpireNoncurrentVersionsAndAbortUploads',
        noncurrentVersionExpiration: Duration.days(noncurrentDays),
        abortIncompleteMultipartUploadAfter: Duration.days(7),
      }],
      removalPolicy: destroy ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
      autoDeleteObjects: destroy,
    });
    acknowledge(bucket, 'AwsSolutions-S1',
      'Server access logs need a second bucket the owner chooses; object access through the file system is audited with CloudTrail data events. Pass your own bucket (with logging) as `bucket` to log it.');
    return bucket;
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

  /** The service role's documented rights are wildcards by design; say why, on the policy only. */
  private acknowledgeServiceRoleFindings(policy: iam.Policy): void {
    const stack = Stack.of(this);
    for (const action of ['s3:GetObject*', 's3:PutObject*', 's3:DeleteObject*']) {
      acknowledge(policy, `AwsSolutions-IAM5[Action::${action}]`,
        'S3 Files synchronises objects with their versions, tags and ACL-free metadata; these are the action families AWS documents for the file system role, limited to the objects under the prefix and the bucket account.');
    }
    acknowledge(policy, `AwsSolutions-IAM5[${findingResource(this, this.bucket.arnForObjects(`${this.prefix}*`))}]`,
      'The file system presents every object under its prefix, so the service role needs all of them (and only them).');
    acknowledge(policy, `AwsSolutions-IAM5[${findingResource(this, `arn:${stack.partition}:events:*:*:rule/DO-NOT-DELETE-S3-Files*`)}]`,
      'The service names its EventBridge rules DO-NOT-DELETE-S3-Files*; the statement also requires events:ManagedBy = elasticfilesystem.amazonaws.com.');
    acknowledge(policy, `AwsSolutions-IAM5[${findingResource(this, `arn:${stack.partition}:events:*:*:rule/*`)}]`,
      'Read-only: the service lists and describes rules to find its own; the EventBridge List* calls do not support narrower resources. Without it S3-side changes silently never reach the file system.');
  }

  private serviceRoleStatements(): iam.PolicyStatement[] {
    const stack = Stack.of(this);
    const inBucketAccount = { StringEquals: { 'aws:ResourceAccount': this.bucket.env.account } };
    const statements = [
      new iam.PolicyStatement({
        sid: 'S3BucketAccess',
        actions: ['s3:ListBucket', 's3:ListBucketVersions', 's3:GetBucketLocation', 's3:GetBucketVersioning'],
        resources: [this.bucket.bucketArn],
        conditions: inBucketAccount,
      }),
      new iam.PolicyStatement({
        sid: 'S3ObjectAccess',
        actions: ['s3:GetObject*', 's3:PutObject*', 's3:DeleteObject*', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'],
        resources: [this.bucket.arnForObjects(`${this.prefix}*`)],
        conditions: inBucketAccount,
      }),
      // Missing EventBridge rights fail silently: S3-side changes would never reach the mount.
      new iam.PolicyStatement({
        sid: 'EventBridgeManageS3FilesRules',
        actions: ['events:PutRule', 'events:PutTargets', 'events:DeleteRule', 'events:DisableRule', 'events:EnableRule', 'events:RemoveTargets'],
        resources: [`arn:${stack.partition}:events:*:*:rule/DO-NOT-DELETE-S3-Files*`],
        conditions: { StringEquals: { 'events:ManagedBy': SERVICE_PRINCIPAL } },
      }),
      new iam.PolicyStatement({
        sid: 'EventBridgeReadRules',
        actions: ['events:DescribeRule', 'events:ListRules', 'events:ListRuleNamesByTarget', 'events:ListTargetsByRule'],
        resources: [`arn:${stack.partition}:events:*:*:rule/*`],
      }),
    ];
    if (this.encryptionKey) {
      statements.push(new iam.PolicyStatement({
        sid: 'KmsForBucketEncryption',
        actions: ['kms:GenerateDataKey', 'kms:Encrypt', 'kms:Decrypt', 'kms:ReEncryptFrom', 'kms:ReEncryptTo'],
        resources: [this.encryptionKey.keyArn],
        conditions: { StringEquals: { 'kms:ViaService': `s3.${stack.region}.${stack.urlSuffix}` } },
      }));
    }
    return statements;
  }

  private synchronizationConfiguration(props: S3FilesFileSystemOptions): s3files.CfnFileSystem.SynchronizationConfigurationProperty | undefined {
    if (props.importSizeThreshold === undefined && props.importTrigger === undefined && props.expireAfterLastAccess === undefined) {
      return undefined; // service defaults
    }
    const sizeLessThan = validateImportSizeThreshold(this, props.importSizeThreshold ?? Size.kibibytes(128));
    const days = validateWholeDays(this, 'expireAfterLastAccess', props.expireAfterLastAccess ?? Duration.days(30), 1, 365);
    const trigger = (props.importTrigger ?? ImportTrigger.ON_DIRECTORY_FIRST_ACCESS).value;
    if (typeof trigger !== 'string') {
      invalid(this, 'importTrigger', props.importTrigger, 'it must be an ImportTrigger', 'use ImportTrigger.ON_DIRECTORY_FIRST_ACCESS or ImportTrigger.ON_FILE_ACCESS');
    }
    if (!Token.isUnresolved(trigger) && !/^[A-Z][A-Z_]*$/.test(trigger)) {
      invalid(this, 'importTrigger', trigger, 'CloudFormation expects an upper-case value such as ON_FILE_ACCESS',
        'use ImportTrigger.ON_DIRECTORY_FIRST_ACCESS or ImportTrigger.ON_FILE_ACCESS');
    }
    return {
      importDataRules: [{ prefix: '', sizeLessThan, trigger }],
      expirationDataRules: [{ daysAfterLastAccess: days }],
    };
  }

  /** Default: private subnets (isolated ones count), one per AZ. Explicit: must already be one per AZ. */
  private selectMountTargetSubnets(selection?: ec2.SubnetSelection): ec2.ISubnet[] {
    let subnets: ec2.ISubnet[];
    if (selection) {
      try {
        subnets = this.vpc.selectSubnets(selection).subnets;
      } catch (e) {
        invalid(this, 'vpcSubnets', { ...selection, subnets: selection.subnets?.map(sn => sn.subnetId) },
          `the VPC cannot satisfy it (${(e as Error).message.split('\n')[0]})`, 'select subnet groups that exist in the VPC');
      }
    } else {
      const hasPrivate = this.vpc.privateSubnets.length > 0;
      if (!hasPrivate && this.vpc.isolatedSubnets.length === 0) {
        invalid(this, 'vpc', this.vpc.vpcId, 'it has no private or isolated subnets for the mount targets',
          'add PRIVATE_ISOLATED or PRIVATE_WITH_EGRESS subnets to the VPC, or pass vpcSubnets explicitly');
      }
      subnets = this.vpc.selectSubnets({
        subnetType: hasPrivate ? ec2.SubnetType.PRIVATE_WITH_EGRESS : ec2.SubnetType.PRIVATE_ISOLATED,
        onePerAz: true,
      }).subnets;
    }
    if (subnets.length === 0) {
      invalid(this, 'vpcSubnets', 'selection', 'it selects no subnets, so there would be no mount target', 'select at least one subnet');
    }
    const stack = Stack.of(this);
    const byAz = new Map<string, ec2.ISubnet>();
    for (const subnet of subnets) {
      let az: string;
      try {
        az = subnet.availabilityZone;
      } catch {
        invalid(this, 'vpcSubnets', subnet.subnetId, 'the subnet was imported without its availability zone, so one mount target per AZ cannot be enforced',
          'import it with ec2.Subnet.fromSubnetAttributes({ subnetId, availabilityZone }) or import the VPC with availabilityZones');
      }
      const key = Token.isUnresolved(az) ? JSON.stringify(stack.resolve(az)) : az;
      const other = byAz.get(key);
      if (other) {
        invalid(this, 'vpcSubnets', [other.subnetId, subnet.subnetId], `both subnets are in availability zone ${Token.isUnresolved(az) ? key : az}, and S3 Files allows one mount target per AZ`,
          'select one subnet per AZ (for example add onePerAz: true)');
      }
      byAz.set(key, subnet);
    }
    return subnets;
  }

  private renderResourcePolicy(): iam.PolicyDocument {
    const doc = new iam.PolicyDocument();
    doc.addStatements(new iam.PolicyStatement({
      sid: 'DenyInsecureTransport',
      effect: iam.Effect.DENY,
      principals: [new iam.AnyPrincipal()],
      actions: ['s3files:*'],
      resources: [this.fileSystemArn],
      conditions: { Bool: { 'aws:SecureTransport': 'false' } },
    }));
    this.clientGrants.forEach((grant) => {
      doc.addStatements(new iam.PolicyStatement({
        principals: [grant.principal],
        actions: [...grant.actions].sort(),
        resources: [this.fileSystemArn],
        conditions: grant.accessPointArn ? { ArnEquals: { 's3files:AccessPointArn': grant.accessPointArn } } : undefined,
      }));
    });
    doc.addStatements(...this.resourcePolicyStatements);
    return doc;
  }
}

/** Only principals with an AWS/ARN identity can be named in the file system policy. */
function canBeResourcePolicyPrincipal(principal: iam.IPrincipal): boolean {
  try {
    return Object.keys(principal.policyFragment.principalJson).length > 0;
  } catch {
    return false;
  }
}
