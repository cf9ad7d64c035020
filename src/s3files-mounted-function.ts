import { Annotations, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct, IConstruct } from 'constructs';
import { lambdaAutoSecurityGroup } from './private/compat';
import { DEFAULT_MOUNT_PATH } from './private/lambda-mount';
import { acknowledge, BASIC_EXECUTION_POLICY, VPC_ACCESS_POLICY } from './private/nag';
import { asNestedProp, invalid, setKeys, Shown, validateMountPath } from './private/validation';
import { IS3FilesAccessPoint, S3FilesAccessPoint, S3FilesAccessPointBase, S3FilesAccessPointOptions } from './s3files-access-point';
import { S3FilesFileSystem } from './s3files-file-system';
import { IS3FilesFileSystem, S3FilesFileSystemBase } from './s3files-file-system-base';
import { S3FilesFileSystemOptions } from './s3files-file-system-props';

/**
 * Properties of a Lambda function with an S3 Files file system mounted.
 */
export interface S3FilesMountedFunctionProps extends lambda.FunctionProps {
  /**
   * A file system to share with other functions. Cannot be combined with `bucket` or
   * `fileSystemOptions`, which configure a new file system.
   * @default - the access point's file system if `accessPoint` is given, else a new file system
   */
  readonly fileSystem?: IS3FilesFileSystem;

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
  readonly accessPoint?: IS3FilesAccessPoint;

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
   * Whether Lambda reads large files directly from S3 instead of through the mount. The default is
   * the service's, `AUTO`: reads go through the file system (the lowest-latency path) and Lambda
   * reads large files directly from S3 when the function has at least 512 MB; `ENABLED` sends every
   * read, small ones too, to the bucket.
   * The library grants `s3:GetObject`/`s3:GetObjectVersion` on the bucket objects under the
   * access point's directory (and `kms:Decrypt` via S3 when the key is known) for
   * `enabled(bucket)`, `auto()` and the default; not for `enabledWithoutGrant()` or `disabled()`.
   * @default - AUTO, with the read grant
   */
  readonly directS3Read?: lambda.DirectS3Read;
}

/** Everything built before `super()`. */
interface MountPlan {
  readonly functionProps: lambda.FunctionProps;
  readonly fileSystem: IS3FilesFileSystem;
  readonly accessPoint: IS3FilesAccessPoint;
  readonly mountPath: string;
  /** The VPC made for this function, if any. */
  readonly createdVpc?: ec2.Vpc;
  /** The file system and access point made for this function (siblings of it in the tree). */
  readonly created: Construct[];
}

/**
 * A Lambda function with an Amazon S3 Files file system mounted through an access point.
 *
 * Without `vpc` and `fileSystem` it creates a VPC without NAT (isolated subnets in two AZs and
 * an S3 gateway endpoint), a hardened bucket (or uses `bucket`), a file system and an access
 * point. The function depends on the mount-target waiter, so it is created only once the
 * mount targets are available.
 *
 * @example
 * // Everything made for it: a VPC without NAT, a bucket, the file system, an access point.
 * const fn = new S3FilesMountedFunction(this, 'Reader', {
 *   runtime: lambda.Runtime.NODEJS_24_X,
 *   handler: 'index.handler',
 *   code: lambda.Code.fromAsset('lambda'),
 * });
 * // The handler finds the bucket's lambda/ prefix at process.env.MOUNT_PATH (fn.mountPath).
 */
export class S3FilesMountedFunction extends lambda.Function {
  /** The mounted file system. */
  public readonly fileSystem: IS3FilesFileSystem;
  /** The access point the function mounts. */
  public readonly accessPoint: IS3FilesAccessPoint;
  /** The mount path inside the function (also in the `MOUNT_PATH` environment variable). */
  public readonly mountPath: string;

  constructor(scope: Construct, id: string, props: S3FilesMountedFunctionProps) {
    const plan = planMount(scope, id, props);
    super(scope, id, plan.functionProps);
    this.fileSystem = plan.fileSystem;
    this.accessPoint = plan.accessPoint;
    this.mountPath = plan.mountPath;

    // The same call any function can make: this class only creates what the mount needs.
    this.accessPoint.mountOnFunction(this, {
      mountPath: this.mountPath,
      readOnly: props.readOnly,
      rootAccess: props.rootAccess,
      directS3Read: props.directS3Read,
    });

    // The group lambda.Function made names the full construct path, which a Stage move changes:
    // name it by the function's path in its stack, which the move keeps.
    const sg = lambdaAutoSecurityGroup(this);
    if (sg) sg.groupDescription = `Automatic security group for Lambda Function ${pathInStack(this)}`;

    if (!props.role) {
      acknowledge(this, `AwsSolutions-IAM4[${BASIC_EXECUTION_POLICY}]`,
        'lambda.Function attaches this AWS managed policy to the role it creates so the function can write its own CloudWatch logs. Pass `role` to use your own policies.');
      acknowledge(this, `AwsSolutions-IAM4[${VPC_ACCESS_POLICY}]`,
        'A mounted function must run in the VPC of the mount targets; Lambda needs the ENI actions of this AWS managed policy (ec2:CreateNetworkInterface etc. only work on Resource "*"). Pass `role` to use your own policies.');
    }
    // The library's warnings about what it made for this function sit on those siblings, where
    // Annotations.of(fn).acknowledgeWarning() would not reach them: they move to the function.
    for (const made of plan.created) moveWarnings(made, this);
    if (plan.createdVpc) {
      acknowledge(plan.createdVpc, 'AwsSolutions-VPC7',
        'Convenience VPC with isolated subnets only (no internet route): it carries NFS to the mount targets and S3 gateway traffic. Pass your own `vpc` with flow logs where traffic must be audited.');
    }
  }
}

/** Validates the props and creates the VPC, file system and access point the function needs. */
function planMount(scope: Construct, id: string, props: S3FilesMountedFunctionProps): MountPlan {
  const path = scope.node.path ? `${scope.node.path}/${id}` : id;
  if (props.filesystem) {
    // Lambda's own `filesystem` prop sits next to our `fileSystem` (Python: filesystem= / file_system=,
    // Java: .filesystem() / .fileSystem()): name the one that was meant.
    const given: unknown = props.filesystem;
    if (S3FilesFileSystemBase.isS3FilesFileSystemBase(given)) {
      invalid(path, 'filesystem', given.node.path, 'this is Lambda\'s own mount setting (a lambda.FileSystem); an S3 Files file system goes in fileSystem',
        'pass it as fileSystem (Python: file_system=, Java: .fileSystem()) and leave filesystem unset');
    }
    if (given instanceof S3FilesAccessPointBase) {
      invalid(path, 'filesystem', given.node.path, 'this is Lambda\'s own mount setting (a lambda.FileSystem); an S3 Files access point goes in accessPoint',
        'pass it as accessPoint (Python: access_point=, Java: .accessPoint()) and leave filesystem unset');
    }
    invalid(path, 'filesystem', new Shown('(a lambda.FileSystem)'), 'S3FilesMountedFunction builds its own S3 Files mount and Lambda allows one mount per function',
      'use fileSystem or accessPoint for S3 Files, or a plain lambda.Function for another kind of mount');
  }
  if (props.fileSystem !== undefined && !S3FilesFileSystemBase.isS3FilesFileSystemBase(props.fileSystem)) {
    const given: unknown = props.fileSystem;
    const shown = Construct.isConstruct(given) ? given.node.path : new Shown(`(${typeof given})`);
    if (typeof (given as Partial<s3.IBucket>).bucketArn === 'string' && typeof (given as Partial<s3.IBucket>).bucketName === 'string') {
      invalid(path, 'fileSystem', shown, 'it is an S3 bucket, not an S3 Files file system',
        'pass the bucket as bucket (the function then gets a file system over it), or an S3FilesFileSystem as fileSystem');
    }
    invalid(path, 'fileSystem', shown, 'it is not an S3 Files file system of this library',
      'pass an S3FilesFileSystem, or one imported with S3FilesFileSystem.fromFileSystemAttributes');
  }
  if (props.accessPoint && props.accessPointOptions) {
    invalid(path, 'accessPointOptions', setKeys(props.accessPointOptions), 'it configures a new access point, but accessPoint shares an existing one',
      'drop accessPointOptions (set the options on the shared access point) or drop accessPoint');
  }
  if (props.accessPoint && props.fileSystem && props.accessPoint.fileSystem !== props.fileSystem) {
    invalid(path, 'accessPoint', props.accessPoint.node.path, `it belongs to file system ${props.accessPoint.fileSystem.node.path}, not to fileSystem ${props.fileSystem.node.path}`,
      'pass an access point of fileSystem, or omit fileSystem');
  }
  if (props.bucket && props.fileSystemOptions?.bucket) {
    invalid(path, 'bucket', [props.bucket.node.path, props.fileSystemOptions.bucket.node.path], 'both bucket and fileSystemOptions.bucket are set',
      'set only one of them');
  }
  const shared = props.fileSystem ?? props.accessPoint?.fileSystem;
  const sharedVpc = shared && S3FilesFileSystemBase.isS3FilesFileSystemBase(shared) ? shared._mountInfo().vpc : undefined;
  if (shared) {
    if (props.bucket || props.fileSystemOptions) {
      invalid(path, props.bucket ? 'bucket' : 'fileSystemOptions', props.bucket ? props.bucket.node.path : setKeys(props.fileSystemOptions!), 'it configures a new file system, but fileSystem (or accessPoint) shares an existing one',
        'configure the shared S3FilesFileSystem instead, or drop fileSystem/accessPoint');
    }
    if (props.vpc && sharedVpc && props.vpc !== sharedVpc) {
      invalid(path, 'vpc', props.vpc.node.path, `it differs from the VPC of the shared file system (${sharedVpc.node.path}); the function must be in the mount targets' VPC`,
        'omit vpc (it defaults to the file system\'s VPC) or pass fileSystem.vpc');
    }
    if (!props.vpc && !sharedVpc) {
      invalid(path, 'vpc', undefined, `the VPC of ${shared.node.path} is not known (an imported file system without vpc)`,
        'pass vpc (the VPC of the mount targets), or give vpc to fromFileSystemAttributes');
    }
  }

  const mountPath = props.mountPath ?? DEFAULT_MOUNT_PATH;
  validateMountPath(path, mountPath);

  const createdVpc = props.vpc ?? sharedVpc ? undefined : new ec2.Vpc(scope, `${id}Vpc`, {
    maxAzs: 2,
    natGateways: 0,
    subnetConfiguration: [{ name: 'Isolated', subnetType: ec2.SubnetType.PRIVATE_ISOLATED, cidrMask: 24 }],
    // The S3 API without NAT: the S3-API handlers and the service's direct reads use it.
    gatewayEndpoints: { S3: { service: ec2.GatewayVpcEndpointAwsService.S3 } },
  });
  const vpc = props.vpc ?? sharedVpc ?? createdVpc!;
  const fileSystem = shared ?? asNestedProp('fileSystemOptions', () => new S3FilesFileSystem(scope, `${id}FileSystem`, {
    ...props.fileSystemOptions,
    bucket: props.bucket ?? props.fileSystemOptions?.bucket,
    vpc,
  }), ['vpc', 'bucket']);
  // Beside the function, named after it: its logical id does not depend on the other functions
  // of a shared file system, and it lives in the function's stack.
  const accessPoint = props.accessPoint
    ?? asNestedProp('accessPointOptions', () => new S3FilesAccessPoint(scope, `${id}AccessPoint`, { ...props.accessPointOptions, fileSystem }), ['fileSystem']);

  return {
    functionProps: { ...props, vpc },
    fileSystem,
    accessPoint,
    mountPath,
    createdVpc,
    created: [...(shared ? [] : [fileSystem]), ...(props.accessPoint ? [] : [accessPoint])],
  };
}

/** The library's ids in warning messages (`[ack: cdk-s3files-lambda:...]`, as aws-cdk-lib writes them). */
const LIBRARY_WARNING = / \[ack: (cdk-s3files-lambda:[A-Za-z0-9]+)\]$/;

/**
 * Moves the library's warnings on `from` (not its children) to `to`, with `from`'s path in front,
 * through public APIs only: each is acknowledged on `from` and added again on `to`.
 */
function moveWarnings(from: Construct, to: Construct): void {
  const moved: Array<{ id: string; text: string }> = [];
  for (const m of from.node.metadata) {
    const match = m.type === 'aws:cdk:warning' && typeof m.data === 'string' ? LIBRARY_WARNING.exec(m.data) : null;
    if (match) moved.push({ id: match[1], text: (m.data as string).slice(0, match.index) });
  }
  for (const { id, text } of moved) {
    Annotations.of(from).acknowledgeWarning(id, `moved to ${to.node.path}`);
    Annotations.of(to).addWarningV2(id, `${from.node.path}: ${text}`);
  }
}

/** A construct's path within its stack (what a Stage move, or a stack given env, keeps). */
function pathInStack(c: IConstruct): string {
  const stack = Stack.of(c);
  return c.node.scopes.slice(c.node.scopes.indexOf(stack) + 1).map((s) => s.node.id).join('/');
}
