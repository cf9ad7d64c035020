import { Annotations, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct, IConstruct } from 'constructs';
import { LambdaMount, LambdaMountOptions } from './mount/lambda';
import { checkProps as checkPropShapes, checkShape } from './private/argument-shapes';
import { lambdaAutoSecurityGroup, warningsOf } from './private/compat';
import { note } from './private/construct-state';
import { asNestedProp, invalid, setKeys, Shown, spelled } from './private/messages';
import { DEFAULT_MOUNT_PATH, SUBNETS_PROP } from './private/mount/mount-pipeline';
import { requireAccessPoint, requireFileSystem } from './private/mount/shapes';
import { acknowledge, BASIC_EXECUTION_POLICY, VPC_ACCESS_POLICY } from './private/nag';
import { S3FilesAccessPoint, S3FilesAccessPointOptions } from './s3files-access-point';
import { IS3FilesAccessPoint } from './s3files-access-point-contract';
import { S3FilesFileSystem } from './s3files-file-system';
import { IS3FilesFileSystem } from './s3files-file-system-contract';
import { S3FilesFileSystemOptions } from './s3files-file-system-props';

/** The access point path of the L3's own access point. */
const DEFAULT_ACCESS_POINT_PATH = '/lambda';

/**
 * Properties of a Lambda function with an S3 Files file system mounted.
 */
export interface S3FilesMountedFunctionProps extends lambda.FunctionProps, LambdaMountOptions {
  /**
   * An S3 file system to share with other functions (this library's name for it, beside Lambda's own
   * `filesystem`, which this construct sets itself). Cannot be combined with `bucket` or
   * `s3FileSystemOptions`, which configure a new file system.
   * @default - the access point's file system if `accessPoint` is given, else a new file system
   */
  readonly s3FileSystem?: IS3FilesFileSystem;

  /**
   * Bucket for a new file system (sharing one with `s3FileSystem` or `accessPoint` and passing a
   * bucket too is an error).
   * @default - a new hardened bucket
   */
  readonly bucket?: s3.IBucket;

  /**
   * Further options for a new file system (prefix, encryption key, import settings, removal policy,
   * mount-target subnets, ...). Cannot be combined with `s3FileSystem`.
   * @default - S3FilesFileSystem defaults
   */
  readonly s3FileSystemOptions?: S3FilesFileSystemOptions;

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
}

/** Everything built before `super()`. */
interface MountPlan {
  readonly functionProps: lambda.FunctionProps;
  readonly fileSystem: IS3FilesFileSystem;
  readonly accessPoint: IS3FilesAccessPoint;
  /** The VPC made for this function, if any. */
  readonly createdVpc?: ec2.Vpc;
  /** The file system and access point made for this function (siblings of it in the tree), and the prop that configured each. */
  readonly created: Array<[Construct, string]>;
}

/**
 * A Lambda function with an Amazon S3 Files file system mounted through an access point.
 *
 * Without `vpc` and `s3FileSystem` it creates a VPC without NAT (isolated subnets in two AZs and
 * an S3 gateway endpoint), a hardened bucket (or uses `bucket`), a file system and an access
 * point at `/lambda`. It then mounts the access point with `LambdaMount.onFunction()`, the call
 * any function of yours can make: the function is created only once the mount targets are available.
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
  public readonly s3FileSystem: IS3FilesFileSystem;
  /** The access point the function mounts. */
  public readonly accessPoint: IS3FilesAccessPoint;
  /** The mount path inside the function (also in the `MOUNT_PATH` environment variable). */
  public readonly mountPath: string;

  constructor(scope: Construct, id: string, props: S3FilesMountedFunctionProps) {
    const plan = planMount(scope, id, props);
    super(scope, id, plan.functionProps);
    this.s3FileSystem = plan.fileSystem;
    this.accessPoint = plan.accessPoint;

    LambdaMount.onFunction(this, this.accessPoint, {
      mountPath: props.mountPath,
      readOnly: props.readOnly,
      rootAccess: props.rootAccess,
      directS3Read: props.directS3Read,
    });
    this.mountPath = props.mountPath ?? DEFAULT_MOUNT_PATH;

    // The group lambda.Function made names the full construct path, which a Stage move changes:
    // name it by the function's path in its stack, which the move keeps.
    const sg = lambdaAutoSecurityGroup(this);
    if (sg) sg.groupDescription = `Automatic security group for Lambda Function ${pathInStack(this)}`;

    if (!props.role) {
      acknowledge(this, `AwsSolutions-IAM4[${BASIC_EXECUTION_POLICY}]`,
        'lambda.Function attaches this AWS managed policy to the role it creates so the function can write its own CloudWatch logs. Pass `role` to use your own policies.');
      acknowledge(this, `AwsSolutions-IAM4[${VPC_ACCESS_POLICY}]`,
        'A mounted function must run in the VPC of the mount targets; Lambda needs the ENI actions of this AWS managed policy (ec2:CreateNetworkInterface etc. only work on '
          + 'Resource "*"). Pass `role` to use your own policies.');
    }
    // The library's warnings about what it made for this function sit on those siblings, where
    // Annotations.of(fn).acknowledgeWarning() would not reach them: they move to the function.
    for (const [made, prefix] of plan.created) moveWarnings(made, this, prefix);
    if (plan.createdVpc) {
      acknowledge(plan.createdVpc, 'AwsSolutions-VPC7',
        'Convenience VPC with isolated subnets only (no internet route): it carries NFS to the mount targets and S3 gateway traffic. Pass your own `vpc` with flow logs where '
          + 'traffic must be audited.');
    }
  }
}

/** Whether `x` looks like an S3 Files access point (any implementation of the interface). */
function isAccessPoint(x: unknown): x is IS3FilesAccessPoint {
  const ap = x as Partial<IS3FilesAccessPoint> | undefined;
  return typeof ap?.accessPointArn === 'string' && typeof ap.fileSystem === 'object';
}

/**
 * Every option of `s3FileSystemOptions` (the compiler holds the list to the interface) but `bucket`,
 * which the L3 also takes at the top: a message naming one names it there.
 */
const FILE_SYSTEM_OPTIONS = Object.keys({
  vpcSubnets: 0,
  bucket: 0,
  prefix: 0,
  bucketEncryptionKey: 0,
  fileSystemEncryptionKey: 0,
  mountTargetIpAddressType: 0,
  importDataRules: 0,
  expireAfterLastAccess: 0,
  noncurrentVersionExpiration: 0,
  securityGroup: 0,
  removalPolicy: 0,
  acceptBucketWarning: 0,
  allowMountsWithoutAccessPoint: 0,
  availabilityTimeout: 0,
} satisfies Record<keyof S3FilesFileSystemOptions, 0>).filter((name) => name !== 'bucket');

/** Whether `x` looks like an S3 bucket. */
function isBucket(x: unknown): boolean {
  return typeof (x as Partial<s3.IBucket>).bucketArn === 'string' && typeof (x as Partial<s3.IBucket>).bucketName === 'string';
}

/** Whether `x` looks like an S3 Files file system (any implementation of the interface). */
function isFileSystem(x: unknown): x is IS3FilesFileSystem {
  const fs = x as Partial<IS3FilesFileSystem> | undefined;
  return typeof fs?.fileSystemArn === 'string' && typeof fs.fileSystemId === 'string' && fs.mountTargetsAvailable !== undefined;
}

/** The props that name the wrong thing, or two things at once. */
function checkProps(path: string, props: S3FilesMountedFunctionProps): void {
  // Before anything reads them (lambda.Function too): what an untyped caller passes is named.
  checkPropShapes(path, props, { vpc: 'vpc', bucket: 'bucket', directS3Read: 'directS3Read' });
  checkShape('bucket', props.s3FileSystemOptions?.bucket, path, 's3FileSystemOptions.bucket');
  // The access point's name for it, easily spread in from shared props: not silently ignored.
  const misnamed = (props as { fileSystem?: unknown }).fileSystem;
  if (misnamed !== undefined) {
    invalid(path, 'fileSystem', Construct.isConstruct(misnamed) ? misnamed.node.path : new Shown(`(${typeof misnamed})`),
      'S3FilesMountedFunction has no such prop (it would be ignored, and the function would get a file system of its own)', 'pass it as `s3FileSystem`');
  }
  if (props.filesystem) {
    // Lambda's own `filesystem` prop sits next to `s3FileSystem`: name the one that was meant.
    const given: unknown = props.filesystem;
    if (isFileSystem(given)) {
      invalid(path, 'filesystem', given.node.path, 'this is Lambda\'s own mount setting (a `lambda.FileSystem`); an S3 Files file system goes in `s3FileSystem`',
        'pass it as `s3FileSystem` and leave `filesystem` unset');
    }
    if (isAccessPoint(given)) {
      invalid(path, 'filesystem', given.node.path, 'this is Lambda\'s own mount setting (a `lambda.FileSystem`); an S3 Files access point goes in `accessPoint`',
        'pass it as `accessPoint` and leave `filesystem` unset');
    }
    invalid(path, 'filesystem', new Shown('(a lambda.FileSystem)'), 'S3FilesMountedFunction builds its own S3 Files mount and Lambda allows one mount per function',
      'use `s3FileSystem` or `accessPoint` for S3 Files, or a plain `lambda.Function` for another kind of mount');
  }
  if (props.s3FileSystem !== undefined && !isFileSystem(props.s3FileSystem) && isBucket(props.s3FileSystem)) {
    const given: unknown = props.s3FileSystem;
    invalid(path, 's3FileSystem', Construct.isConstruct(given) ? given.node.path : new Shown(`(${typeof given})`), 'it is an S3 bucket, not an S3 Files file system',
      'pass the bucket as `bucket` (the function then gets a file system over it), or an `S3FilesFileSystem` as `s3FileSystem`');
  }
  // Any other value (an aws-efs file system or access point from Python, say) is named for what it is.
  if (props.s3FileSystem !== undefined) requireFileSystem(props.s3FileSystem, path, 's3FileSystem');
  if (props.accessPoint !== undefined) requireAccessPoint(props.accessPoint, path, 'accessPoint');
  if (props.accessPoint && props.accessPointOptions) {
    invalid(path, 'accessPointOptions', setKeys(props.accessPointOptions), 'it configures a new access point, but `accessPoint` shares an existing one',
      'drop `accessPointOptions` (set the options on the shared access point) or drop `accessPoint`');
  }
  if (props.accessPoint && props.s3FileSystem && props.accessPoint.fileSystem !== props.s3FileSystem) {
    invalid(path, 'accessPoint', props.accessPoint.node.path, `it belongs to file system ${props.accessPoint.fileSystem.node.path}, not to \`s3FileSystem\` `
      + `${props.s3FileSystem.node.path}`,
    'pass an access point of `s3FileSystem`, or omit `s3FileSystem`');
  }
  if (props.bucket && props.s3FileSystemOptions?.bucket) {
    invalid(path, 'bucket', [props.bucket.node.path, props.s3FileSystemOptions.bucket.node.path], 'both `bucket` and `s3FileSystemOptions.bucket` are set',
      'set only one of them');
  }
  const shared = props.s3FileSystem ?? props.accessPoint?.fileSystem;
  if (shared) {
    if (props.bucket || props.s3FileSystemOptions) {
      invalid(path, props.bucket ? 'bucket' : 's3FileSystemOptions', props.bucket ? props.bucket.node.path : setKeys(props.s3FileSystemOptions!),
        'it configures a new file system, but `s3FileSystem` (or `accessPoint`) shares an existing one',
        'configure the shared `S3FilesFileSystem` instead, or drop `s3FileSystem`/`accessPoint`');
    }
    if (props.vpc && shared.vpc && props.vpc !== shared.vpc) {
      invalid(path, 'vpc', props.vpc.node.path, `it differs from the VPC of the shared file system (${shared.vpc.node.path}); the function must be in the mount targets' VPC`,
        'omit `vpc` (it defaults to the file system\'s VPC) or pass the file system\'s `vpc`');
    }
    if (!props.vpc && !shared.vpc) {
      invalid(path, 'vpc', undefined, `the VPC of ${shared.node.path} is not known (an imported file system without \`vpc\`)`,
        'pass `vpc` (the VPC of the mount targets), or give `vpc` to `S3FilesFileSystem.fromFileSystemAttributes()`');
    }
  }
}

/** The props `lambda.Function` does not know: they stay out of its props. */
const OWN_PROPS: ReadonlyArray<keyof S3FilesMountedFunctionProps> = [
  's3FileSystem', 'bucket', 's3FileSystemOptions', 'accessPoint', 'accessPointOptions', 'mountPath', 'readOnly', 'rootAccess', 'directS3Read',
];

/** Validates the props and creates the VPC, file system and access point the function needs. */
function planMount(scope: Construct, id: string, props: S3FilesMountedFunctionProps): MountPlan {
  const path = scope.node.path ? `${scope.node.path}/${id}` : id;
  checkProps(path, props);
  const shared = props.s3FileSystem ?? props.accessPoint?.fileSystem;

  const createdVpc = props.vpc ?? shared?.vpc ? undefined : new ec2.Vpc(scope, `${id}Vpc`, {
    maxAzs: 2,
    natGateways: 0,
    subnetConfiguration: [{ name: 'Isolated', subnetType: ec2.SubnetType.PRIVATE_ISOLATED, cidrMask: 24 }],
    // The S3 API without NAT: the S3-API handlers and the service's direct reads use it.
    gatewayEndpoints: { S3: { service: ec2.GatewayVpcEndpointAwsService.S3 } },
  });
  const vpc = props.vpc ?? shared?.vpc ?? createdVpc!;
  const fileSystem = shared ?? asNestedProp('s3FileSystemOptions', () => new S3FilesFileSystem(scope, `${id}FileSystem`, {
    ...props.s3FileSystemOptions,
    bucket: props.bucket ?? props.s3FileSystemOptions?.bucket,
    vpc,
  }), ['vpc', 'bucket'], FILE_SYSTEM_OPTIONS);
  // Its mount targets' subnets are this construct's `s3FileSystemOptions.vpcSubnets`: the AZ check's fix names that.
  if (!shared) note(fileSystem, SUBNETS_PROP, `the \`s3FileSystemOptions.vpcSubnets\` of ${path}, which created the file system`);
  // Beside the function, named after it: its logical id does not depend on the other functions
  // of a shared file system, and it lives in the function's stack.
  const accessPoint = props.accessPoint ?? asNestedProp('accessPointOptions', () => new S3FilesAccessPoint(scope, `${id}AccessPoint`, {
    path: DEFAULT_ACCESS_POINT_PATH,
    ...props.accessPointOptions,
    fileSystem,
  }), ['fileSystem']);

  const functionProps: Record<string, unknown> = { ...props, vpc };
  for (const key of OWN_PROPS) delete functionProps[key];
  return {
    functionProps: functionProps as unknown as lambda.FunctionProps,
    fileSystem,
    accessPoint,
    createdVpc,
    created: [
      ...(shared ? [] : [[fileSystem, 's3FileSystemOptions'] as [Construct, string]]),
      ...(props.accessPoint ? [] : [[accessPoint, 'accessPointOptions'] as [Construct, string]]),
    ],
  };
}

/** Props of the made constructs that the user gave at the top level of the function's props. */
const TOP_LEVEL = new Set(['vpc', 'bucket', 'fileSystem']);

/**
 * Moves the library's warnings on `from` (not its children) to `to`, with `from`'s path in front
 * and the props it names as the user wrote them (`posixUser.uid` is `accessPointOptions.posixUser.uid`):
 * each is acknowledged on `from` and added again on `to`.
 */
function moveWarnings(from: Construct, to: Construct, prefix: string): void {
  for (const { id, text } of warningsOf(from, 'cdk-s3files-lambda:')) {
    const renamed = text.replace(/ \(Python: .*\.\)$/, '')
      .replace(/`([a-z][A-Za-z0-9]*)((?:\.[a-z][A-Za-z0-9]*)*)`/g, (all, head: string, rest: string) => (TOP_LEVEL.has(head) ? all : `\`${prefix}.${head}${rest}\``));
    Annotations.of(from).acknowledgeWarning(id, `moved to ${to.node.path}`);
    Annotations.of(to).addWarningV2(id, spelled(`${from.node.path}: ${renamed}`));
  }
}

/** A construct's path within its stack (what a Stage move, or a stack given env, keeps). */
function pathInStack(c: IConstruct): string {
  const stack = Stack.of(c);
  return c.node.scopes.slice(c.node.scopes.indexOf(stack) + 1).map((s) => s.node.id).join('/');
}
