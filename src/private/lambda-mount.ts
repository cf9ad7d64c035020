import { Annotations, Lazy, Stack, Token } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { CLIENT_READ_ACTIONS, CLIENT_READ_WRITE_ACTIONS, CLIENT_ROOT_ACTIONS } from './client-actions';
import { describeDirectS3Read } from './direct-s3-read';
import { grantsByAlias, kmsKeyGrant, kmsKeyWildcard } from './kms';
import { FileSystemMountInfo } from './mount-info';
import { acknowledge, findingResource } from './nag';
import { invalid, validateMountPath, warnUnresolved } from './validation';
import type { LambdaMountOptions } from '../lambda-mount';
import type { S3FilesAccessPointBase } from '../s3files-access-point';
import { S3FilesFileSystemBase } from '../s3files-file-system';

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
  const fs = accessPoint.fileSystem;
  if (!S3FilesFileSystemBase.isS3FilesFileSystemBase(fs)) {
    invalid(fn, 'accessPoint.fileSystem', fs.node.path, 'it is not a file system of this library',
      'use S3FilesFileSystem or S3FilesFileSystem.fromFileSystemAttributes');
  }
  const info = fs._mountInfo();
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
  cfn.node.addDependency(accessPoint.available);
  if (info.policyDependable) cfn.node.addDependency(info.policyDependable);

  checkSameVpc(fn, info.vpc);
  openNfs(fn, fs, info);
  const subnets = functionSubnets(cfn, info.vpc);
  if (subnets) {
    info.checkAzCoverage(fn, 'vpcSubnets', subnets);
  } else if (info.vpc) {
    Annotations.of(fn).addWarningV2('cdk-s3files-lambda:azCoverageUnknown',
      `The availability zones of the function's subnets are only known at deploy time (subnets imported by id), so the library cannot check that every one has a mount target of ${fs.node.path} in its AZ. A missing one fails the deployment.`);
  }

  const actions = options.readOnly ? [...CLIENT_READ_ACTIONS] : [...CLIENT_READ_WRITE_ACTIONS];
  // readOnly wins over root access: a read-only client acting as root.
  if (options.rootAccess) actions.push(CLIENT_ROOT_ACTIONS[2]);
  fs._grantClient(fn, actions, accessPoint.accessPointArn);

  const grantsDirectRead = directRead.mode !== 'DISABLED' && (options.directS3Read === undefined || directRead.wantsGrant || directRead.mode === 'AUTO');
  if (grantsDirectRead) grantDirectReads(fn, accessPoint, info);

  fn.addEnvironment('MOUNT_PATH', mountPath);

  if (options.readOnly && options.rootAccess) {
    Annotations.of(fn).addWarningV2('cdk-s3files-lambda:readOnlyWithRootAccess',
      'readOnly and rootAccess are both set: root access without write access only widens what can be read. Drop rootAccess unless the function must read root-only entries.');
  }
  // Only for an explicit AUTO: by default, small functions simply read through the file system.
  const memory = cfn.memorySize ?? 128;
  if (options.directS3Read !== undefined && directRead.mode === 'AUTO' && !Token.isUnresolved(memory) && memory < AUTO_DIRECT_READ_MIN_MEMORY_MB) {
    Annotations.of(fn).addWarningV2('cdk-s3files-lambda:autoDirectReadLowMemory',
      `memorySize is ${memory} MB and directS3Read is AUTO: Lambda turns direct S3 reads on only from ${AUTO_DIRECT_READ_MIN_MEMORY_MB} MB, so all reads go through the mount. Use at least ${AUTO_DIRECT_READ_MIN_MEMORY_MB} MB or DirectS3Read.enabled(bucket).`);
  }
}

/** NFS from the function to the mount targets: join the client group, or open the mount targets' groups. */
function openNfs(fn: lambda.Function, fs: S3FilesFileSystemBase, info: FileSystemMountInfo): void {
  if (info.clientSecurityGroup) {
    joinSecurityGroup(fn, info.clientSecurityGroup);
  } else if (fs.connections.securityGroups.length > 0) {
    fs.connections.allowDefaultPortFrom(fn, 'NFS from a mounting Lambda function');
  } else {
    invalid(fn, 'fileSystem', fs.node.path, 'the imported file system has no security group, so the function cannot be let in over NFS',
      'give clientSecurityGroup (a group the mount targets admit) or securityGroups (the mount targets\' groups) to fromFileSystemAttributes');
  }
}

/**
 * The function's subnets, found among the file system VPC's subnets by id (the same tokens), or
 * undefined when any of them is not one of those (imported by id, or another VPC object).
 */
function functionSubnets(cfn: lambda.CfnFunction, vpc: ec2.IVpc | undefined): ec2.ISubnet[] | undefined {
  const config = cfn.vpcConfig as lambda.CfnFunction.VpcConfigProperty | undefined;
  const ids = config?.subnetIds ?? [];
  if (!vpc || Token.isUnresolved(ids)) return undefined;
  const known = [...vpc.publicSubnets, ...vpc.privateSubnets, ...vpc.isolatedSubnets];
  const subnets = ids.map((id) => known.find((s) => s.subnetId === id));
  return subnets.every((s) => s !== undefined) ? subnets as ec2.ISubnet[] : undefined;
}

/**
 * The function must be in the mount targets' VPC: compared through the VPC id of the function's
 * own security group (when it has one created in this app) and the file system's VPC.
 */
function checkSameVpc(fn: lambda.Function, vpc: ec2.IVpc | undefined): void {
  if (!vpc) return;
  const stack = Stack.of(fn);
  for (const sg of fn.connections.securityGroups) {
    const l1 = sg.node.defaultChild;
    if (!(l1 instanceof ec2.CfnSecurityGroup) || l1.vpcId === undefined) continue;
    if (JSON.stringify(stack.resolve(l1.vpcId)) !== JSON.stringify(stack.resolve(vpc.vpcId))) {
      invalid(fn, 'vpc', sg.node.path, `the function's security group is in another VPC than the mount targets (${vpc.node.path}), and a function mounts only from the mount targets' VPC`,
        'create the function with the file system\'s VPC');
    }
    return;
  }
}

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

/** Read access to the objects under the access point's directory, for direct S3 reads. */
function grantDirectReads(fn: lambda.Function, accessPoint: S3FilesAccessPointBase, info: FileSystemMountInfo): void {
  if (!info.bucket) {
    invalid(fn, 'directS3Read', 'ENABLED or AUTO', `the bucket of ${accessPoint.fileSystem.node.path} is not known, so the direct-read grant cannot be made`,
      'give bucket (and prefix) to fromFileSystemAttributes, or use DirectS3Read.enabledWithoutGrant() and grant the reads yourself, or DirectS3Read.disabled()');
  }
  const path = accessPoint._rootPath();
  // The access point's root directory maps to keys under prefix + path (without the leading '/').
  const relative = path === undefined || Token.isUnresolved(path) ? '' : path.replace(/^\/+/, '').replace(/\/+$/, '');
  const keyPrefix = relative === '' ? info.prefix : `${info.prefix}${relative}/`;
  fn.addToRolePolicy(new iam.PolicyStatement({
    sid: 'S3FilesDirectRead',
    actions: ['s3:GetObject', 's3:GetObjectVersion'],
    resources: [info.bucket.arnForObjects(`${keyPrefix}*`)],
  }));
  acknowledge(fn, `AwsSolutions-IAM5[${findingResource(fn, info.bucket.arnForObjects(`${keyPrefix}*`))}]`,
    'Direct S3 reads fetch any file under the access point\'s directory, i.e. every object under that key prefix; read-only (s3:GetObject, s3:GetObjectVersion).');
  if (info.bucketEncryptionKey) {
    const stack = Stack.of(fn);
    fn.addToRolePolicy(new iam.PolicyStatement({
      sid: 'S3FilesDirectReadDecrypt',
      actions: ['kms:Decrypt'],
      // An alias ARN authorizes nothing: grant the key behind it.
      ...kmsKeyGrant(info.bucketEncryptionKey, { StringEquals: { 'kms:ViaService': `s3.${stack.region}.${stack.urlSuffix}` } }),
    }));
    if (grantsByAlias(info.bucketEncryptionKey)) {
      acknowledge(fn, `AwsSolutions-IAM5[${findingResource(fn, kmsKeyWildcard(stack))}]`,
        'The encryption key was given as an alias: the statement covers only the key that carries this alias (kms:ResourceAliases condition).');
    }
  }
}
