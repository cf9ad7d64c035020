import { Token } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { S3FilesClientOptions } from './options';
import { checkShape } from '../private/argument-shapes';
import { directS3ReadOf } from '../private/compat';
import { invalid, warn, warnUnresolved } from '../private/messages';
import { clientActionsLabel } from '../private/mount/client-actions';
import { markLambdaMount } from '../private/mount/foreign-mounts';
import { DEFAULT_MOUNT_PATH, mountAccessPoint } from '../private/mount/mount-pipeline';
import { joinSecurityGroup } from '../private/mount/network';
import { requireAccessPoint } from '../private/mount/shapes';
import { validateMountPath } from '../private/validation';
import type { IS3FilesAccessPoint } from '../s3files-access-point-contract';

/** The environment variable that names the mount's client actions (`ClientMount,ClientWrite`). */
const CLIENT_ACTIONS_VARIABLE = 'S3FILES_CLIENT_ACTIONS';
/** Lambda turns AUTO direct reads on only from this memory size. */
const AUTO_DIRECT_READ_MIN_MEMORY_MB = 512;
/** Lambda attaches at most this many security groups to a function. */
const MAX_FUNCTION_SECURITY_GROUPS = 5;

/**
 * How an access point is mounted on a Lambda function (`LambdaMount.onFunction`).
 */
export interface LambdaMountOptions extends S3FilesClientOptions {
  /**
   * Where the file system is mounted in the function: `^/mnt/[a-zA-Z0-9-_.]+$`, at most 160 chars.
   * Exposed to the code as the `MOUNT_PATH` environment variable.
   * @default '/mnt/s3files'
   */
  readonly mountPath?: string;

  /**
   * Whether Lambda reads large files directly from S3 instead of through the mount. The default is
   * the service's, `AUTO`: reads go through the file system (the lowest-latency path) and Lambda
   * reads large files directly from S3 when the function has at least 512 MB; `ENABLED` sends every
   * read, small ones too, to the bucket. The function gets `s3:GetObject`/`s3:GetObjectVersion` on
   * the file system's objects (and `kms:Decrypt` through S3) for `enabled(bucket)`, `auto()` and the
   * default; not for `enabledWithoutGrant()` or `disabled()`. An imported file system's `bucket`
   * must be known to grant.
   * @default - AUTO, with the read grant
   */
  readonly directS3Read?: lambda.DirectS3Read;
}

/**
 * Mounts S3 Files access points on Lambda functions.
 */
export class LambdaMount {
  /**
   * Mounts an access point on a function of yours (`lambda.Function`, `NodejsFunction`,
   * `PythonFunction`, `DockerImageFunction` ...) created in the file system's VPC: sets the
   * function's file system config, makes it wait until the mount targets and the access point are
   * available, lets it reach the mount targets over NFS, grants what the mount needs (scoped to the
   * access point) and the direct reads, sets `MOUNT_PATH`, and checks that every AZ of its subnets
   * has a mount target. Lambda allows one mount per function.
   * @param fn the function, which must have a VPC
   * @param accessPoint the access point to mount
   * @param options where and how to mount
   */
  public static onFunction(fn: lambda.Function, accessPoint: IS3FilesAccessPoint, options: LambdaMountOptions = {}): void {
    options = options ?? {}; // JavaScript may pass null
    checkShape('lambdaFunction', fn, 'LambdaMount.onFunction()', 'fn', true);
    requireAccessPoint(accessPoint, fn, 'accessPoint');
    checkShape('directS3Read', options.directS3Read, fn, 'directS3Read');
    const cfn = fn.node.defaultChild as lambda.CfnFunction;
    if (!fn.isBoundToVpc) {
      invalid(fn, 'vpc', 'none', 'a function mounts S3 Files only from inside the VPC of the mount targets',
        'create the function with the file system\'s VPC (`vpc`) and subnets in AZs that have mount targets (`vpcSubnets`)');
    }
    if (cfn.fileSystemConfigs !== undefined) {
      invalid(fn, 'filesystem', 'already set', 'Lambda allows one file system mount per function, and this function already has one',
        'mount one access point per function (share the access point between functions instead)');
    }
    const mountPath = options.mountPath ?? DEFAULT_MOUNT_PATH;
    validateMountPath(fn, mountPath);
    if (Token.isUnresolved(mountPath)) warnUnresolved(fn, 'mountPath');

    // Default AUTO, the service's own: reads go through the file system (the lowest-latency path)
    // and Lambda turns direct reads on for large reads from 512 MB of memory.
    const directRead = options.directS3Read ? directS3ReadOf(options.directS3Read) : { mode: 'AUTO', wantsGrant: true };
    cfn.fileSystemConfigs = [{ arn: accessPoint.accessPointArn, localMountPath: mountPath, s3FilesConfig: { directS3Read: directRead.mode } }];
    markLambdaMount(cfn);
    fn.addEnvironment('MOUNT_PATH', mountPath);
    // A change of what the mount may do changes the configuration: new execution environments mount anew.
    fn.addEnvironment(CLIENT_ACTIONS_VARIABLE, clientActionsLabel(options));

    const subnetIds = (cfn.vpcConfig as lambda.CfnFunction.VpcConfigProperty | undefined)?.subnetIds;
    mountAccessPoint(accessPoint, {
      scope: fn,
      what: 'the function',
      grantee: fn,
      connectable: fn,
      joinSecurityGroup: (group) => joinSecurityGroup(fn, fn.connections, cfn, 'VpcConfig.SecurityGroupIds',
        { max: MAX_FUNCTION_SECURITY_GROUPS, service: 'Lambda' }, 'the function', group),
      // Only the L1: the role and security group need not wait (nothing they hold names the waiter).
      launcher: cfn,
      subnetIds,
      unknownAzWarning: 'The availability zones of the function\'s subnets are only known at deploy time (subnets imported by id), so the library cannot check that every one has '
        + `a mount target of ${accessPoint.fileSystem.node.path} in its AZ. A missing one fails the deployment.`,
      efsUtils: false,
      readOnlyFlag: false,
      directReads: directRead.mode !== 'DISABLED' && (options.directS3Read === undefined || directRead.wantsGrant || directRead.mode === 'AUTO'),
      directReadNeed: {
        reason: options.directS3Read === undefined
          ? 'the grant of the default `directS3Read` (AUTO: Lambda reads large files straight from the bucket)'
          : 'the grant `directS3Read` asks for',
        without: 'pass `directS3Read`: `lambda.DirectS3Read.enabledWithoutGrant()` (and grant the reads yourself) or `lambda.DirectS3Read.disabled()`',
      },
      sameAccountOnly: 'Lambda mounts only "an Amazon S3 file system and mount targets in available state in the same account and AWS Region as your Lambda function" (Lambda '
        + 'developer guide)',
    }, options);

    // Only for an explicit AUTO: by default, small functions simply read through the file system.
    const memory = cfn.memorySize ?? 128;
    if (options.directS3Read !== undefined && directRead.mode === 'AUTO' && !Token.isUnresolved(memory) && memory < AUTO_DIRECT_READ_MIN_MEMORY_MB) {
      warn(fn, 'autoDirectReadLowMemory',
        `\`memorySize\` is ${memory} MB and \`directS3Read\` is AUTO: Lambda turns direct S3 reads on only from ${AUTO_DIRECT_READ_MIN_MEMORY_MB} MB, so all reads go through `
          + 'the mount. '
        + `Use at least ${AUTO_DIRECT_READ_MIN_MEMORY_MB} MB or \`lambda.DirectS3Read.enabled()\`.`);
    }
  }

  // Static methods only: no instances (as aws-cdk-lib's `Names` or `Fn`).
  private constructor() {}
}
