import * as crypto from 'crypto';
import { Annotations, CfnResource, Lazy, Stack, Token } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct, IConstruct } from 'constructs';
import { CLIENT_READ_ACTIONS, CLIENT_READ_WRITE_ACTIONS, CLIENT_ROOT_ACTIONS } from './client-actions';
import { EFS_UTILS_METRIC_NAMESPACE } from './client-metrics';
import { checkSameRegion } from './environment';
import { grantsByAlias, kmsKeyGrant, kmsKeyWildcard } from './kms';
import { FileSystemMountInfo, NFS_PORT } from './mount-info';
import { acknowledge, findingResource } from './nag';
import { invalid } from './validation';
import type { S3FilesAccessPointBase } from '../s3files-access-point';
import { S3FilesFileSystemBase } from '../s3files-file-system-base';

// What every compute adapter (ECS, Batch, EC2, AgentCore) does the same way: resolve the file
// system, grant the client actions, the service's validation reads and direct reads, and find
// the client's subnets for the AZ check.

/** Options every non-Lambda mount shares. */
export interface ClientAccessOptions {
  readonly readOnly?: boolean;
  readonly rootAccess?: boolean;
  readonly grantDirectReads?: boolean;
}

/** How the client mounts: what the mount helper on its side needs beyond the client actions. */
export interface MountingClient {
  /**
   * The mount helper is amazon-efs-utils (EC2 instances, ECS and Batch tasks): with direct reads
   * it also needs `s3:ListBucket` on the bucket (it keeps read bypass off without it), and it
   * publishes its client metrics (`efs-utils/S3Files`) with the client's credentials.
   */
  readonly efsUtils: boolean;
}

/** The file system of an access point, when it is one of this library's (anything else cannot be mounted). */
export function fileSystemOf(scope: IConstruct, accessPoint: S3FilesAccessPointBase): { fs: S3FilesFileSystemBase; info: FileSystemMountInfo } {
  const fs = accessPoint.fileSystem;
  if (!S3FilesFileSystemBase.isS3FilesFileSystemBase(fs)) {
    invalid(scope, 'accessPoint.fileSystem', fs.node.path, 'it is not a file system of this library',
      'use S3FilesFileSystem or S3FilesFileSystem.fromFileSystemAttributes');
  }
  const info = fs._mountInfo();
  checkSameRegion(scope, fs.node.path, info.region, 'clients mount a file system only from a VPC in its region', 'mount it');
  return { fs, info };
}

/** The client actions for a mount: read, read-write, plus root access when asked. */
export function clientActions(options: ClientAccessOptions): string[] {
  const actions = options.readOnly ? [...CLIENT_READ_ACTIONS] : [...CLIENT_READ_WRITE_ACTIONS];
  if (options.rootAccess) actions.push(CLIENT_ROOT_ACTIONS[2]);
  return actions;
}

/**
 * Everything a mounting principal needs on the file system: the client actions limited to the
 * access point, the two reads ECS and AgentCore validate with
 * (`s3files:GetAccessPoint` on the access point, `s3files:ListMountTargets` on the file system;
 * GetAccessPoint does not carry the access-point condition key, so it is a statement of its own),
 * and, unless turned off, the direct-read grant.
 */
export function grantMountingClient(
  scope: IConstruct, grantee: iam.IGrantable, accessPoint: S3FilesAccessPointBase, options: ClientAccessOptions, client: MountingClient,
): void {
  const { fs, info } = fileSystemOf(scope, accessPoint);
  fs._grantClient(grantee, clientActions(options), accessPoint.accessPointArn);
  grantValidationReads(grantee, accessPoint, fs);
  if (client.efsUtils) grantClientMetrics(grantee, scope);
  if (options.grantDirectReads ?? true) {
    grantDirectReads(scope, grantee, accessPoint, info, {
      prop: 'grantDirectReads',
      value: true,
      fix: 'give bucket (and prefix) to fromFileSystemAttributes, or set grantDirectReads to false and grant the reads yourself',
      listBucket: client.efsUtils,
    });
  }
}

/**
 * Lets amazon-efs-utils publish its client metrics (`S3BucketAccessible`, `S3BucketReachable`):
 * `cloudwatch:PutMetricData`, which has no resource-level permissions, limited to the helper's
 * namespace with the `cloudwatch:namespace` condition key.
 */
export function grantClientMetrics(grantee: iam.IGrantable, scope: IConstruct): void {
  grantee.grantPrincipal.addToPrincipalPolicy(new iam.PolicyStatement({
    actions: ['cloudwatch:PutMetricData'],
    resources: ['*'],
    conditions: { StringEquals: { 'cloudwatch:namespace': EFS_UTILS_METRIC_NAMESPACE } },
  }));
  const owner = Construct.isConstruct(grantee.grantPrincipal) ? grantee.grantPrincipal : scope;
  acknowledge(owner, 'AwsSolutions-IAM5[Resource::*]',
    `cloudwatch:PutMetricData has no resource-level permissions; the statement is limited to the amazon-efs-utils namespace (${EFS_UTILS_METRIC_NAMESPACE}) by the cloudwatch:namespace condition.`);
}

/**
 * The two reads the services validate a mount with: `s3files:GetAccessPoint` on the access point
 * and `s3files:ListMountTargets` on the file system. GetAccessPoint does not carry the
 * access-point condition key, so each is a statement of its own, without conditions.
 */
export function grantValidationReads(grantee: iam.IGrantable, accessPoint: S3FilesAccessPointBase, fs: S3FilesFileSystemBase): void {
  iam.Grant.addToPrincipal({ grantee, actions: ['s3files:GetAccessPoint'], resourceArns: [accessPoint.accessPointArn] });
  iam.Grant.addToPrincipal({ grantee, actions: ['s3files:ListMountTargets'], resourceArns: [fs.fileSystemArn] });
}

/**
 * Read access to the objects under the access point's directory, for reads the client makes
 * straight from the bucket (Lambda's direct reads; the mount helper's on EC2 and ECS). Without
 * it those reads fall back to the mount, silently. With `listBucket`, also `s3:ListBucket` on the
 * bucket, which amazon-efs-utils needs before it turns direct reads on (FACTS, "EC2 and EKS").
 * Not narrowed with `s3:prefix`: which listing the helper makes is not documented, and a bucket
 * probe without a prefix (HeadBucket needs s3:ListBucket too) would be denied by that condition.
 */
export function grantDirectReads(
  scope: IConstruct, grantee: iam.IGrantable, accessPoint: S3FilesAccessPointBase, info: FileSystemMountInfo,
  refusal: { readonly prop: string; readonly value: unknown; readonly fix: string; readonly sid?: string; readonly listBucket?: boolean },
): void {
  if (!info.bucket) {
    invalid(scope, refusal.prop, refusal.value, `the bucket of ${accessPoint.fileSystem.node.path} is not known, so the direct-read grant cannot be made`, refusal.fix);
  }
  const sid = refusal.sid;
  const path = accessPoint._rootPath();
  // The access point's root directory maps to keys under prefix + path (without the leading '/').
  const relative = path === undefined || Token.isUnresolved(path) ? '' : path.replace(/^\/+/, '').replace(/\/+$/, '');
  const keyPrefix = relative === '' ? info.prefix : `${info.prefix}${relative}/`;
  const objects = info.bucket.arnForObjects(`${keyPrefix}*`);
  grantee.grantPrincipal.addToPrincipalPolicy(new iam.PolicyStatement({
    sid,
    actions: ['s3:GetObject', 's3:GetObjectVersion'],
    resources: [objects],
  }));
  if (refusal.listBucket) {
    grantee.grantPrincipal.addToPrincipalPolicy(new iam.PolicyStatement({
      sid: sid ? `${sid}List` : undefined,
      actions: ['s3:ListBucket'],
      resources: [info.bucket.bucketArn],
    }));
  }
  // The finding is on the grantee's policy: acknowledge it there (a job role lives outside the job definition).
  const owner = Construct.isConstruct(grantee.grantPrincipal) ? grantee.grantPrincipal : scope;
  acknowledge(owner, `AwsSolutions-IAM5[${findingResource(owner, objects)}]`,
    'Direct S3 reads fetch any file under the access point\'s directory, i.e. every object under that key prefix; read-only (s3:GetObject, s3:GetObjectVersion).');
  if (info.bucketEncryptionKey) {
    const stack = Stack.of(scope);
    grantee.grantPrincipal.addToPrincipalPolicy(new iam.PolicyStatement({
      sid: sid ? `${sid}Decrypt` : undefined,
      actions: ['kms:Decrypt'],
      // An alias ARN authorizes nothing: grant the key behind it.
      ...kmsKeyGrant(info.bucketEncryptionKey, { StringEquals: { 'kms:ViaService': `s3.${stack.region}.${stack.urlSuffix}` } }),
    }));
    if (grantsByAlias(info.bucketEncryptionKey)) {
      acknowledge(owner, `AwsSolutions-IAM5[${findingResource(owner, kmsKeyWildcard(stack))}]`,
        'The encryption key was given as an alias: the statement covers only the key that carries this alias (kms:ResourceAliases condition).');
    }
  }
}

/**
 * Lets a client reach NFS: `join` adds the file system's client security group to it when there
 * is one (no rule per client); otherwise the mount targets' groups get a rule from `client`.
 */
export function openNfs(
  scope: IConstruct, fs: S3FilesFileSystemBase, info: FileSystemMountInfo, client: ec2.IConnectable,
  join: (group: ec2.ISecurityGroup) => void, what: string,
): void {
  if (info.clientSecurityGroup) {
    join(info.clientSecurityGroup);
  } else if (fs.connections.securityGroups.length > 0) {
    nfsRules(scope, fs.connections.securityGroups, client, what);
  } else {
    invalid(scope, 'fileSystem', fs.node.path, `the imported file system has no security group, so ${what} cannot be let in over NFS`,
      'give clientSecurityGroup (a group the mount targets admit) or securityGroups (the mount targets\' groups) to fromFileSystemAttributes');
  }
}

/**
 * TCP 2049 from each of the client's security groups to each mount-target group (and out, where the
 * client's group does not allow all outbound traffic), in the client's stack. The ids come from
 * the two groups as CloudFormation sees them: the ids `Connections` gives embed the client's full
 * construct path, so moving its stack into a Stage would recreate the rule, and EC2 refuses a
 * duplicate before the old one is deleted. The same pair twice adds nothing.
 */
function nfsRules(scope: IConstruct, targets: ec2.ISecurityGroup[], client: ec2.IConnectable, what: string): void {
  const stack = Stack.of(scope);
  for (const target of targets) {
    for (const source of client.connections.securityGroups) {
      const key = crypto.createHash('sha256').update(JSON.stringify(stack.resolve([target.securityGroupId, source.securityGroupId]))).digest('hex').slice(0, 8);
      const id = `S3FilesNfs${key}`;
      if (scope.node.tryFindChild(id)) continue;
      new ec2.CfnSecurityGroupIngress(scope, id, {
        groupId: target.securityGroupId,
        ipProtocol: 'tcp',
        fromPort: NFS_PORT,
        toPort: NFS_PORT,
        sourceSecurityGroupId: source.securityGroupId,
        description: `NFS from ${what}`,
      });
      if (!source.allowAllOutbound) {
        new ec2.CfnSecurityGroupEgress(scope, `${id}Egress`, {
          groupId: source.securityGroupId,
          ipProtocol: 'tcp',
          fromPort: NFS_PORT,
          toPort: NFS_PORT,
          destinationSecurityGroupId: target.securityGroupId,
          description: 'NFS to the S3 Files mount targets',
        });
      }
    }
  }
}

/**
 * The AZ check of a client: an error when one of its subnets is in an AZ without a mount target;
 * `unknownWarning` when its subnets cannot be found among the VPC's at synth (imported by id).
 */
export function checkClientAzs(scope: IConstruct, info: FileSystemMountInfo, subnetIds: unknown, unknownWarning: string): void {
  const subnets = subnetsById(scope, subnetIds, info.vpc);
  if (subnets) {
    info.checkAzCoverage(scope, 'vpcSubnets', subnets);
  } else if (info.vpc) {
    Annotations.of(scope).addWarningV2('cdk-s3files-lambda:azCoverageUnknown', unknownWarning);
  }
}

/**
 * Makes the resource that mounts (or launches what mounts) wait for the access point and the mount
 * targets to be available, not merely created, and for the file system policy, so first mounts
 * meet the policy they will be held to.
 */
export function waitForMount(resource: IConstruct, accessPoint: S3FilesAccessPointBase, info: FileSystemMountInfo): void {
  resource.node.addDependency(accessPoint.available);
  if (info.policyDependable) resource.node.addDependency(info.policyDependable);
}

/**
 * Subnets found among the VPC's subnets by id (compared resolved, so a token and its rendering
 * match), or undefined when any is not one of those (imported by id, or another VPC object): then
 * the AZ check cannot run at synth.
 */
function subnetsById(scope: IConstruct, ids: unknown, vpc: ec2.IVpc | undefined): ec2.ISubnet[] | undefined {
  if (!vpc) return undefined;
  const stack = Stack.of(scope);
  const resolved = stack.resolve(ids);
  if (!Array.isArray(resolved)) return undefined;
  const known = [...vpc.publicSubnets, ...vpc.privateSubnets, ...vpc.isolatedSubnets]
    .map((subnet) => ({ subnet, id: JSON.stringify(stack.resolve(subnet.subnetId)) }));
  const subnets = resolved.map((id) => known.find((k) => k.id === JSON.stringify(id))?.subnet);
  return subnets.every((s) => s !== undefined) ? subnets as ec2.ISubnet[] : undefined;
}

/**
 * A client must be in the mount targets' VPC: compared through the VPC id of the client's own
 * security group (when it has one created in this app) and the file system's VPC; when all its
 * groups are imported, through its subnets (`subnetIds`), when they belong to a VPC of this app.
 */
export function checkSameVpc(scope: IConstruct, connections: ec2.Connections, vpc: ec2.IVpc | undefined, what: string, subnetIds?: unknown): void {
  if (!vpc) return;
  const stack = Stack.of(scope);
  for (const sg of connections.securityGroups) {
    const l1 = sg.node.defaultChild;
    if (!(l1 instanceof ec2.CfnSecurityGroup) || l1.vpcId === undefined) continue;
    if (JSON.stringify(stack.resolve(l1.vpcId)) !== JSON.stringify(stack.resolve(vpc.vpcId))) {
      invalid(scope, 'vpc', sg.node.path, `${what}'s security group is in another VPC than the mount targets (${vpc.node.path}), and clients mount only from the mount targets' VPC`,
        `create ${what} with the file system's VPC`);
    }
    return;
  }
  checkSubnetsVpc(scope, vpc, what, subnetIds);
}

/** The VPC of each of `subnetIds` among the VPCs of the app (undefined for a subnet none of them has). */
function vpcsOfSubnets(scope: IConstruct, subnetIds: unknown): Array<{ id: unknown; vpc: ec2.IVpc | undefined }> {
  const stack = Stack.of(scope);
  const resolved = stack.resolve(subnetIds);
  if (!Array.isArray(resolved)) return [];
  const vpcs = scope.node.root.node.findAll().filter(isVpc);
  const owners = new Map<string, ec2.IVpc>();
  for (const v of vpcs) {
    for (const subnet of [...v.publicSubnets, ...v.privateSubnets, ...v.isolatedSubnets]) {
      const key = JSON.stringify(stack.resolve(subnet.subnetId));
      if (!owners.has(key)) owners.set(key, v);
    }
  }
  return resolved.map((id) => ({ id, vpc: owners.get(JSON.stringify(id)) }));
}

function isVpc(c: IConstruct): c is ec2.IVpc & IConstruct {
  const v = c as Partial<ec2.IVpc>;
  return typeof v.vpcId === 'string' && Array.isArray(v.publicSubnets) && Array.isArray(v.privateSubnets) && Array.isArray(v.isolatedSubnets);
}

/**
 * A client whose security groups are all imported: its subnets tell its VPC. Two VPCs created in
 * this app are two VPCs, and so are two literal VPC ids that differ: an error. A VPC object of
 * another kind (imported by a token id) may be the same VPC: a warning.
 */
function checkSubnetsVpc(scope: IConstruct, vpc: ec2.IVpc, what: string, subnetIds: unknown): void {
  const stack = Stack.of(scope);
  for (const { id, vpc: owner } of vpcsOfSubnets(scope, subnetIds)) {
    if (!owner || owner === vpc) continue;
    const ours = stack.resolve(vpc.vpcId);
    const theirs = stack.resolve(owner.vpcId);
    const bothCreated = owner instanceof ec2.Vpc && vpc instanceof ec2.Vpc;
    const bothLiteral = typeof ours === 'string' && typeof theirs === 'string';
    if (bothCreated || (bothLiteral && ours !== theirs)) {
      invalid(scope, 'vpcSubnets', id, `${what}'s subnet is in ${owner.node.path}, and the mount targets in ${vpc.node.path}: clients mount only from the mount targets' VPC`,
        `place ${what} in subnets of ${vpc.node.path}`);
    }
    if (!bothLiteral) {
      Annotations.of(scope).addWarningV2('cdk-s3files-lambda:clientVpcUnchecked',
        `${what}'s subnets are in ${owner.node.path} and the mount targets in ${vpc.node.path}; the library cannot tell whether these are one VPC. Clients mount only from the mount targets' VPC.`);
    }
    return;
  }
}

/**
 * Adds `group` to a client's security groups. aws-cdk-lib renders a client's security groups into
 * its L1 once, at construction: the L1 property at `propertyPath` is re-rendered lazily from the
 * client's connections, so later additions count too.
 */
export function joinSecurityGroup(
  scope: IConstruct, connections: ec2.Connections, cfn: CfnResource, propertyPath: string,
  limit: { readonly max: number; readonly service: string }, what: string, group: ec2.ISecurityGroup,
): void {
  const max = limit.max;
  if (connections.securityGroups.includes(group)) return;
  connections.addSecurityGroup(group);
  if (connections.securityGroups.length > max) {
    invalid(scope, 'securityGroups', connections.securityGroups.map(sg => sg.node.path),
      `with the file system's client security group ${what} has ${connections.securityGroups.length}, and ${limit.service} allows at most ${max}`,
      `pass at most ${max - 1} security groups`);
  }
  cfn.addPropertyOverride(propertyPath, Lazy.list({ produce: () => connections.securityGroups.map(sg => sg.securityGroupId) }));
}
