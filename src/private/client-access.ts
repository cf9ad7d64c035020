import * as crypto from 'crypto';
import { Annotations, CfnResource, Lazy, Stack, Token } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import { IConstruct } from 'constructs';
import { checkSameRegion } from './environment';
import {
  acknowledgeClientFindings, addToGrantee, clientActions, clientStatement, directReadStatements, efsUtilsTelemetryStatements, readable,
  recordClientGrant, validationReadStatements,
} from './grants';
import { FileSystemMountInfo, NFS_PORT } from './mount-info';
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
  /** What mounts, in messages ("the function", "the task definition"). */
  readonly what: string;
  /**
   * The mount helper is amazon-efs-utils (EC2 instances, ECS and Batch tasks): with direct reads
   * it also needs `s3:ListBucket` on the bucket (as the S3 user guide's compute-role policy grants),
   * and it publishes its metrics and logs with the client's credentials.
   */
  readonly efsUtils: boolean;
  /** The mount itself is read-only when asked (`ro` on EC2, read-only mount points in ECS and Batch); Lambda and AgentCore have no such flag. */
  readonly readOnlyFlag: boolean;
  /** Whether to grant direct reads, when not `options.grantDirectReads` (Lambda decides from directS3Read). */
  readonly directReads?: boolean;
  /** Sid prefix of the direct-read statements (Lambda's S3FilesDirectRead). */
  readonly directReadSid?: string;
  /** How to name the refusal when the bucket is unknown. */
  readonly directReadRefusal?: { readonly prop: string; readonly value: unknown; readonly fix: string };
  /**
   * The service mounts only a file system of its own account, with the documentation's words
   * (Lambda, AgentCore); other clients may mount another account's through its file-system policy.
   */
  readonly sameAccountOnly?: string;
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

/**
 * Everything a mounting principal needs, as one set of statements (so an unmodifiable role's warning
 * lists them all): the client actions limited to the access point; the reads a service validates a
 * mount with; with amazon-efs-utils, its telemetry; and, unless turned off, the direct-read grant.
 */
export function grantMountingClient(
  scope: IConstruct, grantee: iam.IGrantable, accessPoint: S3FilesAccessPointBase, options: ClientAccessOptions, client: MountingClient,
): void {
  const { fs, info } = fileSystemOf(scope, accessPoint);
  const stack = Stack.of(scope);
  checkClientAccount(scope, grantee, accessPoint, info, client, clientActions(options));
  checkAccessPointStack(scope, accessPoint, client.what);
  const statements = [
    clientStatement(fs.fileSystemArn, clientActions(options), accessPoint.accessPointArn),
    ...validationReadStatements(fs.fileSystemArn, accessPoint.accessPointArn),
  ];
  if (client.efsUtils) statements.push(...efsUtilsTelemetryStatements(stack));
  if (client.directReads ?? options.grantDirectReads ?? true) {
    if (!info.bucket) {
      const refusal = client.directReadRefusal ?? {
        prop: 'grantDirectReads',
        value: true,
        fix: 'give bucket (and prefix) to fromFileSystemAttributes, or set grantDirectReads to false and grant the reads yourself',
      };
      invalid(scope, refusal.prop, refusal.value, `the bucket of ${fs.node.path} is not known, so the direct-read grant cannot be made`, refusal.fix);
    }
    statements.push(...directReadStatements(stack, { bucket: info.bucket, prefix: info.prefix, bucketEncryptionKey: info.bucketEncryptionKey },
      { listBucket: client.efsUtils, sid: client.directReadSid }));
  }
  addToGrantee(scope, grantee, statements, `mounting ${accessPoint.node.path}`);
  acknowledgeClientFindings(scope, grantee, statements);
  recordClientGrant(grantee, { fileSystemArn: fs.fileSystemArn, accessPointArn: accessPoint.accessPointArn, write: !options.readOnly },
    options.readOnly ? { scope, what: client.what, readOnlyFlag: client.readOnlyFlag } : undefined);
}

/**
 * A file system of another account (its ARN says so): Lambda and AgentCore refuse it; another
 * client mounts only once the owner's file-system policy allows its role, which this app cannot
 * write (the S3 Files cross-account tutorial: "The mount fails without it"), so the warning gives
 * the statement. An environment-agnostic client stack cannot be compared: a warning says so.
 */
function checkClientAccount(
  scope: IConstruct, grantee: iam.IGrantable, accessPoint: S3FilesAccessPointBase, info: FileSystemMountInfo,
  client: MountingClient, actions: string[],
): void {
  const owner = info.account;
  if (owner === undefined) return;
  const stack = Stack.of(scope);
  const fs = accessPoint.fileSystem;
  if (Token.isUnresolved(stack.account)) {
    Annotations.of(scope).addWarningV2('cdk-s3files-lambda:fileSystemAccountUnchecked',
      `${fs.node.path} is in account ${owner} (its ARN), and ${stack.node.path} is environment-agnostic, so the library cannot check that ${client.what} is deployed in that account. `
      + (client.sameAccountOnly
        ? `${client.sameAccountOnly}. Give the stack env: { account: '${owner}' }.`
        : `From another account it mounts only once the owner's file-system policy allows its role (see the README, "Who can mount"). Give the stack env: { account: '${owner}' }.`));
    return;
  }
  if (stack.account === owner) return;
  if (client.sameAccountOnly) {
    invalid(scope, 'fileSystem', fs.node.path, `it is in account ${owner} (its ARN) and ${client.what} in ${stack.account}: ${client.sameAccountOnly}`,
      `mount a file system of account ${stack.account}, or deploy ${client.what} in account ${owner}`);
  }
  const principal = grantee.grantPrincipal as Partial<iam.IRole>;
  const statement = new iam.PolicyStatement({
    principals: [principal.roleArn ? new iam.ArnPrincipal(principal.roleArn) : grantee.grantPrincipal],
    actions,
    resources: [fs.fileSystemArn],
    conditions: { StringEquals: { 's3files:AccessPointArn': accessPoint.accessPointArn } },
  });
  Annotations.of(scope).addWarningV2('cdk-s3files-lambda:crossAccountFileSystem',
    `${fs.node.path} is in account ${owner} (its ARN) and ${client.what} in ${stack.account}: the mount fails unless the owner's file-system policy allows this role `
    + '(S3 Files evaluates it on every mount; this app grants only the identity side). The owner adds this statement to the file system\'s policy '
    + `(<Id.Attr> stands for that resource's attribute): ${JSON.stringify(readable(stack.resolve(statement.toStatementJson())))}. `
    + 'Direct reads of the bucket also need the owner\'s bucket policy to allow the role.');
}

/** The stack whose template holds a construct's resources across stacks: nested stacks pass values through their parent. */
function topLevelStack(c: IConstruct): Stack {
  let stack = Stack.of(c);
  while (stack.nestedStackParent) stack = stack.nestedStackParent;
  return stack;
}

/**
 * An access point created in another top-level stack than its client reaches the client's stack as
 * an export, which CloudFormation refuses to change or remove while it is imported: replacing the
 * access point (path, posixUser and createPermissions are create-only) or removing it then fails.
 */
function checkAccessPointStack(scope: IConstruct, accessPoint: S3FilesAccessPointBase, what: string): void {
  if (!(accessPoint.node.defaultChild instanceof CfnResource)) return; // imported: no export
  const apStack = topLevelStack(accessPoint);
  const clientStack = topLevelStack(scope);
  if (apStack === clientStack) return;
  Annotations.of(scope).addWarningV2('cdk-s3files-lambda:accessPointInAnotherStack',
    `${accessPoint.node.path} is created in stack ${apStack.node.path} and mounted by ${what} in stack ${clientStack.node.path}, which imports its ARN: `
    + 'CloudFormation refuses to change an export in use, so replacing the access point (a new path, posixUser or createPermissions) or removing it fails. '
    + 'Create the access point in the stack of its clients (the file system can stay where it is), or follow the two deployments in the README (Lifecycle).');
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
