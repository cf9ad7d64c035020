import { Annotations, Token } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { checkClientAzs, checkSameVpc, fileSystemOf, grantMountingClient, joinSecurityGroup, openNfs, waitForMount } from './client-access';
import { describeDirectS3Read } from './direct-s3-read';
import { invalid, spelling, validateMountPath, warnUnresolved } from './validation';
import type { LambdaMountOptions } from '../mount/lambda';
import type { S3FilesAccessPointBase } from '../s3files-access-point';

/** Default mount path inside the function. */
export const DEFAULT_MOUNT_PATH = '/mnt/s3files';
/** The direct-read mode when none is given: the service's default. */
export const DEFAULT_DIRECT_S3_READ = 'AUTO';
/** Lambda turns AUTO direct reads on only from this memory size. */
const AUTO_DIRECT_READ_MIN_MEMORY_MB = 512;
/** Lambda attaches at most this many security groups to a function. */
const MAX_FUNCTION_SECURITY_GROUPS = 5;

/**
 * Everything a function needs to mount `accessPoint`, applied to a function that already exists
 * (so it works for any lambda.Function subclass): the L1 file system config, the dependency on
 * the access point's readiness (the waiter, not merely the mount targets) and on the file system
 * policy, NFS reachability, scoped client grants, the direct-read grant, MOUNT_PATH and the AZ check.
 */
export function mountOnFunction(fn: lambda.Function, accessPoint: S3FilesAccessPointBase, options: LambdaMountOptions): void {
  const cfn = fn.node.defaultChild;
  if (!(cfn instanceof lambda.CfnFunction)) {
    invalid(fn, 'function', fn.node.path, 'it has no AWS::Lambda::Function resource of its own (an imported function cannot be changed)',
      'mount on a function defined in this app');
  }
  if (!fn.isBoundToVpc) {
    invalid(fn, 'vpc', 'none', 'a function mounts S3 Files only from inside the VPC of the mount targets',
      'create the function with the file system\'s VPC (vpc) and subnets in AZs that have mount targets (vpcSubnets)');
  }
  if (cfn.fileSystemConfigs !== undefined) {
    invalid(fn, 'filesystem', 'already set', 'Lambda allows one file system mount per function, and this function already has one',
      'mount one access point per function (share the access point between functions instead)');
  }
  const { fs, info } = fileSystemOf(fn, accessPoint);
  const mountPath = options.mountPath ?? DEFAULT_MOUNT_PATH;
  validateMountPath(fn, mountPath);
  if (Token.isUnresolved(mountPath)) warnUnresolved(fn, 'mountPath');

  // Default AUTO, the service's own: reads go through the file system (the lowest-latency path,
  // FACTS: 64 KiB in 10.8 ms vs 55 ms from the bucket) and Lambda turns direct reads on for large
  // reads from 512 MB of memory. ENABLED would send every read, small ones too, to the bucket.
  const directRead = options.directS3Read ? describeDirectS3Read(options.directS3Read) : { mode: DEFAULT_DIRECT_S3_READ, wantsGrant: true };
  cfn.fileSystemConfigs = [{
    arn: accessPoint.accessPointArn,
    localMountPath: mountPath,
    s3FilesConfig: { directS3Read: directRead.mode },
  }];
  // The waiter, not the mount targets: CloudFormation reports a mount target created minutes
  // before it is available. The file system policy: first invocations must already find the
  // client Deny satisfied by this role's tag. Only the L1 depends, not the role and security
  // group (the policy names neither, but the waiter's rules reference the client group).
  waitForMount(cfn, accessPoint, info);

  checkSameVpc(fn, fn.connections, info.vpc, 'the function', (cfn.vpcConfig as lambda.CfnFunction.VpcConfigProperty | undefined)?.subnetIds);
  openNfs(fn, fs, info, fn, (group) => joinSecurityGroup(fn, fn.connections, cfn, 'VpcConfig.SecurityGroupIds', { max: MAX_FUNCTION_SECURITY_GROUPS, service: 'Lambda' }, 'the function', group),
    'a mounting Lambda function');
  checkClientAzs(fn, info, (cfn.vpcConfig as lambda.CfnFunction.VpcConfigProperty | undefined)?.subnetIds,
    `The availability zones of the function's subnets are only known at deploy time (subnets imported by id), so the library cannot check that every one has a mount target of ${fs.node.path} in its AZ. A missing one fails the deployment.`);

  // What every other compute gets, scoped the same way (the validation reads: documented for
  // AgentCore, seen for ECS, unknown for Lambda and free to grant); direct reads as directS3Read says.
  grantMountingClient(fn, fn, accessPoint, options, {
    what: 'the function',
    sameAccountOnly: 'Lambda mounts only "an Amazon S3 file system and mount targets in available state in the same account and AWS Region as your Lambda function" (Lambda developer guide)',
    efsUtils: false,
    readOnlyFlag: false,
    directReads: directRead.mode !== 'DISABLED' && (options.directS3Read === undefined || directRead.wantsGrant || directRead.mode === 'AUTO'),
    directReadSid: 'S3FilesDirectRead',
    directReadRefusal: {
      prop: 'directS3Read',
      value: 'ENABLED or AUTO',
      fix: 'give bucket (and prefix) to fromFileSystemAttributes, or use DirectS3Read.enabledWithoutGrant() and grant the reads yourself, or DirectS3Read.disabled()',
    },
  });

  fn.addEnvironment('MOUNT_PATH', mountPath);

  if (options.readOnly && options.rootAccess) {
    Annotations.of(fn).addWarningV2('cdk-s3files-lambda:readOnlyWithRootAccess',
      `readOnly and rootAccess are both set: root access without write access only widens what can be read. Drop rootAccess unless the function must read root-only entries.${spelling(['readOnly', 'rootAccess'])}`);
  }
  // Only for an explicit AUTO: by default, small functions simply read through the file system.
  const memory = cfn.memorySize ?? 128;
  if (options.directS3Read !== undefined && directRead.mode === 'AUTO' && !Token.isUnresolved(memory) && memory < AUTO_DIRECT_READ_MIN_MEMORY_MB) {
    Annotations.of(fn).addWarningV2('cdk-s3files-lambda:autoDirectReadLowMemory',
      `memorySize is ${memory} MB and directS3Read is AUTO: Lambda turns direct S3 reads on only from ${AUTO_DIRECT_READ_MIN_MEMORY_MB} MB, so all reads go through the mount. Use at least ${AUTO_DIRECT_READ_MIN_MEMORY_MB} MB or DirectS3Read.enabled(bucket).${spelling(['memorySize', 'directS3Read'])}`);
  }
}
