import { Annotations, Lazy, Stack, Token } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { CLIENT_READ_ACTIONS, CLIENT_READ_WRITE_ACTIONS, CLIENT_ROOT_ACTIONS } from './private/client-actions';
import { describeDirectS3Read, DirectS3ReadInfo } from './private/direct-s3-read';
import { grantsByAlias, kmsKeyGrant, kmsKeyWildcard } from './private/kms';
import { acknowledge, BASIC_EXECUTION_POLICY, findingResource, VPC_ACCESS_POLICY } from './private/nag';
import { invalid, validateMountPath, warnUnresolved } from './private/validation';
import { S3FilesAccessPoint, S3FilesAccessPointOptions } from './s3files-access-point';
import { S3FilesFileSystem, S3FilesFileSystemOptions } from './s3files-file-system';

/** Default mount path inside the function. */
const DEFAULT_MOUNT_PATH = '/mnt/s3files';
/** Lambda turns AUTO direct reads on only from this memory size. */
const AUTO_DIRECT_READ_MIN_MEMORY_MB = 512;

/**
 * Properties of a Lambda function with an S3 Files file system mounted.
 */
export interface S3FilesMountedFunctionProps extends lambda.FunctionProps {
  /**
   * A file system to share with other functions. Cannot be combined with `bucket` or
   * `fileSystemOptions`, which configure a new file system.
   * @default - the access point's file system if `accessPoint` is given, else a new file system
   */
  readonly fileSystem?: S3FilesFileSystem;

  /**
   * Bucket for a new file system (ignored when sharing one: passing both is an error).
   * @default - a new hardened bucket
   */
  readonly bucket?: s3.IBucket;

  /**
   * Further options for a new file system (prefix, encryption key, import settings,
   * removal policy, ...). Cannot be combined with `fileSystem`.
   * @default - S3FilesFileSystem defaults
   */
  readonly fileSystemOptions?: S3FilesFileSystemOptions;

  /**
   * Where the file system is mounted in the function: `^/mnt/[a-zA-Z0-9-_.]+$`, at most 160 chars.
   * Exposed to the code as the `MOUNT_PATH` environment variable.
   * @default '/mnt/s3files'
   */
  readonly mountPath?: string;

  /**
   * An access point to share with other functions. Cannot be combined with `accessPointOptions`.
   * @default - a new access point for this function
   */
  readonly accessPoint?: S3FilesAccessPoint;

  /**
   * Options of the access point created for this function.
   * @default - path '/lambda', POSIX user 1000:1000, permissions '755'
   */
  readonly accessPointOptions?: S3FilesAccessPointOptions;

  /**
   * Mount read-only: the function gets no `s3files:ClientWrite` anywhere.
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
   * Whether Lambda reads large files directly from S3 instead of through the mount.
   * The library grants `s3:GetObject`/`s3:GetObjectVersion` on the bucket objects under the
   * access point's directory (and `kms:Decrypt` via S3 when the key is known) for
   * `enabled(bucket)`, `auto()` and the default; not for `enabledWithoutGrant()` or `disabled()`.
   * @default - ENABLED, with the read grant
   */
  readonly directS3Read?: lambda.DirectS3Read;
}

/** Everything built before `super()`. */
interface MountPlan {
  readonly functionProps: lambda.FunctionProps;
  readonly fileSystem: S3FilesFileSystem;
  readonly accessPoint: S3FilesAccessPoint;
  readonly mountPath: string;
  readonly directRead: DirectS3ReadInfo;
  readonly defaultDirectRead: boolean;
  /** The VPC made for this function, if any. */
  readonly createdVpc?: ec2.Vpc;
}

/**
 * `lambda.FileSystem`'s constructor is protected: a subclass is the public way to build a
 * mount from our own config (aws-cdk-lib's `fromS3FilesAccessPoint` cannot be shared by two
 * functions and always grants ClientWrite).
 */
class S3FilesMount extends lambda.FileSystem {
  constructor(config: lambda.FileSystemConfig) {
    super(config);
  }
}

/**
 * A Lambda function with an Amazon S3 Files file system mounted through an access point.
 *
 * Without `vpc` and `fileSystem` it creates a VPC without NAT (isolated subnets in two AZs and
 * an S3 gateway endpoint), a hardened bucket (or uses `bucket`), a file system and an access
 * point. The function depends on the mount-target waiter, so it is created only once the
 * mount targets are available.
 */
export class S3FilesMountedFunction extends lambda.Function {
  /** The mounted file system. */
  public readonly fileSystem: S3FilesFileSystem;
  /** The access point the function mounts. */
  public readonly accessPoint: S3FilesAccessPoint;
  /** The mount path inside the function (also in the `MOUNT_PATH` environment variable). */
  public readonly mountPath: string;

  constructor(scope: Construct, id: string, props: S3FilesMountedFunctionProps) {
    const plan = planMount(scope, id, props);
    super(scope, id, plan.functionProps);
    this.fileSystem = plan.fileSystem;
    this.accessPoint = plan.accessPoint;
    this.mountPath = plan.mountPath;

    // aws-cdk-lib renders the DirectS3Read mode only from an @internal config field, so we
    // set the (public) L1 property ourselves.
    const cfn = this.node.defaultChild as lambda.CfnFunction;
    // The waiter, not the mount targets: CloudFormation reports a mount target created minutes
    // before it is available. It also stands for the NFS rules and, for an access point in
    // another stack, that access point's own waiter. The policy: first invocations must already
    // find the client Deny satisfied by this role's tag.
    cfn.node.addDependency(this.accessPoint.available, this.fileSystem.policyDependable);
    cfn.fileSystemConfigs = [{
      arn: this.accessPoint.accessPointArn,
      localMountPath: this.mountPath,
      s3FilesConfig: { directS3Read: plan.directRead.mode },
    }];

    joinSecurityGroup(this, this.fileSystem.clientSecurityGroup);
    this.fileSystem._checkAzCoverage(this, 'vpcSubnets', plan.functionProps.vpc!.selectSubnets(props.vpcSubnets).subnets);

    // ClientRootAccess without ClientWrite: a read-only client acting as root (readOnly wins).
    const actions = props.readOnly ? [...CLIENT_READ_ACTIONS] : [...CLIENT_READ_WRITE_ACTIONS];
    if (props.rootAccess) actions.push(CLIENT_ROOT_ACTIONS[2]);
    this.fileSystem._grantClient(this, actions, this.accessPoint);

    if (plan.directRead.mode !== 'DISABLED' && (plan.defaultDirectRead || plan.directRead.wantsGrant || plan.directRead.mode === 'AUTO')) {
      this.grantDirectReads();
    }

    if (Token.isUnresolved(this.mountPath)) warnUnresolved(this, 'mountPath');
    if (!props.role) {
      acknowledge(this, `AwsSolutions-IAM4[${BASIC_EXECUTION_POLICY}]`,
        'lambda.Function attaches this AWS managed policy to the role it creates so the function can write its own CloudWatch logs. Pass `role` to use your own policies.');
      acknowledge(this, `AwsSolutions-IAM4[${VPC_ACCESS_POLICY}]`,
        'A mounted function must run in the VPC of the mount targets; Lambda needs the ENI actions of this AWS managed policy (ec2:CreateNetworkInterface etc. only work on Resource "*"). Pass `role` to use your own policies.');
    }
    if (plan.createdVpc) {
      acknowledge(plan.createdVpc, 'AwsSolutions-VPC7',
        'Convenience VPC with isolated subnets only (no internet route): it carries NFS to the mount targets and S3 gateway traffic. Pass your own `vpc` with flow logs where traffic must be audited.');
    }

    if (props.readOnly && props.rootAccess) {
      Annotations.of(this).addWarningV2('cdk-s3files-lambda:readOnlyWithRootAccess',
        'readOnly and rootAccess are both set: root access without write access only widens what can be read. Drop rootAccess unless the function must read root-only entries.');
    }
    const memory = props.memorySize ?? 128;
    if (plan.directRead.mode === 'AUTO' && !Token.isUnresolved(memory) && memory < AUTO_DIRECT_READ_MIN_MEMORY_MB) {
      Annotations.of(this).addWarningV2('cdk-s3files-lambda:autoDirectReadLowMemory',
        `memorySize is ${memory} MB and directS3Read is AUTO: Lambda turns direct S3 reads on only from ${AUTO_DIRECT_READ_MIN_MEMORY_MB} MB, so all reads go through the mount. Use at least ${AUTO_DIRECT_READ_MIN_MEMORY_MB} MB or DirectS3Read.enabled(bucket).`);
    }
  }

  /** Read access to the objects under the access point's directory, for direct S3 reads. */
  private grantDirectReads(): void {
    const fs = this.fileSystem;
    const path = this.accessPoint.path;
    // The access point's root directory maps to keys under prefix + path (without the leading '/').
    const relative = Token.isUnresolved(path) ? '' : path.replace(/^\/+/, '').replace(/\/+$/, '');
    const keyPrefix = relative === '' ? fs.prefix : `${fs.prefix}${relative}/`;
    this.addToRolePolicy(new iam.PolicyStatement({
      sid: 'S3FilesDirectRead',
      actions: ['s3:GetObject', 's3:GetObjectVersion'],
      resources: [fs.bucket.arnForObjects(`${keyPrefix}*`)],
    }));
    acknowledge(this, `AwsSolutions-IAM5[${findingResource(this, fs.bucket.arnForObjects(`${keyPrefix}*`))}]`,
      'Direct S3 reads fetch any file under the access point\'s directory, i.e. every object under that key prefix; read-only (s3:GetObject, s3:GetObjectVersion).');
    if (fs.encryptionKey) {
      const stack = Stack.of(this);
      this.addToRolePolicy(new iam.PolicyStatement({
        sid: 'S3FilesDirectReadDecrypt',
        actions: ['kms:Decrypt'],
        // An alias ARN authorizes nothing: grant the key behind it.
        ...kmsKeyGrant(fs.encryptionKey, { StringEquals: { 'kms:ViaService': `s3.${stack.region}.${stack.urlSuffix}` } }),
      }));
      if (grantsByAlias(fs.encryptionKey)) {
        acknowledge(this, `AwsSolutions-IAM5[${findingResource(this, kmsKeyWildcard(stack))}]`,
          'The encryption key was given as an alias: the statement covers only the key that carries this alias (kms:ResourceAliases condition).');
      }
    }
  }
}

/** Validates the props and creates the VPC, file system and access point the function needs. */
function planMount(scope: Construct, id: string, props: S3FilesMountedFunctionProps): MountPlan {
  const path = scope.node.path ? `${scope.node.path}/${id}` : id;
  if (props.filesystem) {
    invalid(path, 'filesystem', 'lambda.FileSystem', 'S3FilesMountedFunction builds its own S3 Files mount and Lambda allows one mount per function',
      'use fileSystem / accessPoint instead, or a plain lambda.Function for other mounts');
  }
  if (props.accessPoint && props.accessPointOptions) {
    invalid(path, 'accessPointOptions', 'given', 'it configures a new access point, but accessPoint shares an existing one',
      'drop accessPointOptions (set the options on the shared access point) or drop accessPoint');
  }
  if (props.accessPoint && props.fileSystem && props.accessPoint.fileSystem !== props.fileSystem) {
    invalid(path, 'accessPoint', props.accessPoint.node.path, `it belongs to file system ${props.accessPoint.fileSystem.node.path}, not to fileSystem ${props.fileSystem.node.path}`,
      'pass an access point of fileSystem, or omit fileSystem');
  }
  if (props.bucket && props.fileSystemOptions?.bucket) {
    invalid(path, 'bucket', 'given twice', 'both bucket and fileSystemOptions.bucket are set', 'set only one of them');
  }
  const shared = props.fileSystem ?? props.accessPoint?.fileSystem;
  if (shared) {
    if (props.bucket || props.fileSystemOptions) {
      invalid(path, props.bucket ? 'bucket' : 'fileSystemOptions', 'given', 'it configures a new file system, but fileSystem (or accessPoint) shares an existing one',
        'configure the shared S3FilesFileSystem instead, or drop fileSystem/accessPoint');
    }
    if (props.vpc && props.vpc !== shared.vpc) {
      invalid(path, 'vpc', props.vpc.node.path, `it differs from the VPC of the shared file system (${shared.vpc.node.path}); the function must be in the mount targets' VPC`,
        'omit vpc (it defaults to the file system\'s VPC) or pass fileSystem.vpc');
    }
  }

  const mountPath = props.mountPath ?? DEFAULT_MOUNT_PATH;
  validateMountPath(path, mountPath);

  const createdVpc = props.vpc ?? shared?.vpc ? undefined : new ec2.Vpc(scope, `${id}Vpc`, {
    maxAzs: 2,
    natGateways: 0,
    subnetConfiguration: [{ name: 'Isolated', subnetType: ec2.SubnetType.PRIVATE_ISOLATED, cidrMask: 24 }],
    // The S3 API without NAT: the S3-API handlers and the service's direct reads use it.
    gatewayEndpoints: { S3: { service: ec2.GatewayVpcEndpointAwsService.S3 } },
  });
  const vpc = props.vpc ?? shared?.vpc ?? createdVpc!;
  const fileSystem = shared ?? new S3FilesFileSystem(scope, `${id}FileSystem`, {
    ...props.fileSystemOptions,
    bucket: props.bucket ?? props.fileSystemOptions?.bucket,
    vpc,
  });
  // Beside the function, named after it: its logical id does not depend on the other functions
  // of a shared file system, and it lives in the function's stack.
  const accessPoint = props.accessPoint
    ?? new S3FilesAccessPoint(scope, `${id}AccessPoint`, { ...props.accessPointOptions, fileSystem });

  const directRead = props.directS3Read ? describeDirectS3Read(props.directS3Read) : { mode: 'ENABLED', wantsGrant: true };
  const mount = new S3FilesMount({
    arn: accessPoint.accessPointArn,
    localMountPath: mountPath,
    // No `dependency` here: lambda.Function would make the whole construct (role and security
    // group included) wait for it, and the file system policy names that role -> cycle.
    // The CfnFunction alone depends on the waiter below. No `connections` either: the function
    // opens NFS itself (allowNfsToMountTargets) without a pointless egress rule.
  });

  return {
    functionProps: {
      ...props,
      vpc,
      filesystem: mount,
      environment: { ...props.environment, MOUNT_PATH: mountPath },
    },
    fileSystem,
    accessPoint,
    mountPath,
    directRead,
    defaultDirectRead: props.directS3Read === undefined,
    createdVpc,
  };
}

/** Lambda attaches at most this many security groups to a function. */
const MAX_FUNCTION_SECURITY_GROUPS = 5;

/**
 * Adds `group` to a function's security groups. lambda.Function renders its VpcConfig once, at
 * construction, so the L1 property is re-rendered lazily from the function's connections.
 */
function joinSecurityGroup(fn: lambda.Function, group: ec2.ISecurityGroup): void {
  if (fn.connections.securityGroups.includes(group)) return;
  fn.connections.addSecurityGroup(group);
  if (fn.connections.securityGroups.length > MAX_FUNCTION_SECURITY_GROUPS) {
    invalid(fn, 'securityGroups', fn.connections.securityGroups.map(sg => sg.node.path),
      `with the file system's client security group the function has ${fn.connections.securityGroups.length}, and Lambda allows at most ${MAX_FUNCTION_SECURITY_GROUPS}`,
      `pass at most ${MAX_FUNCTION_SECURITY_GROUPS - 1} security groups`);
  }
  const cfn = fn.node.defaultChild as lambda.CfnFunction;
  cfn.addPropertyOverride('VpcConfig.SecurityGroupIds', Lazy.list({ produce: () => fn.connections.securityGroups.map(sg => sg.securityGroupId) }));
}
