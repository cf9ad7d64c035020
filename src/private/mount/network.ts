import * as crypto from 'crypto';
import { Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { Construct, IConstruct } from 'constructs';
import { renderSecurityGroupsLazily } from '../compat';
import { stateOf } from '../construct-state';
import { invalid, warn } from '../messages';

/** NFS port of the mount targets. */
export const NFS_PORT = 2049;

// How a client reaches the mount targets: the file system's client security group, or rules on the
// mount targets' groups; and whether it is in their VPC at all.

/**
 * A created file system's network: the mount targets' group (or the one given), the client group
 * every client joins, and the two rules between them. Fixed ids: the ids Connections.allowTo gives
 * embed the construct path, so a Stage move would recreate them, and EC2 refuses the duplicate
 * before the old one is deleted.
 * @param fileSystem the file system construct (the scope of what is created)
 */
export function createFileSystemNetwork(fileSystem: Construct, vpc: ec2.IVpc, given: ec2.ISecurityGroup | undefined) {
  const securityGroup = given ?? new ec2.SecurityGroup(fileSystem, 'MountTargetSecurityGroup', {
    vpc, description: 'S3 Files mount targets: NFS (TCP 2049) only from the client security group', allowAllOutbound: false,
  });
  const clientSecurityGroup = new ec2.SecurityGroup(fileSystem, 'ClientSecurityGroup', {
    vpc, description: 'S3 Files clients: members reach the mount targets over NFS (TCP 2049)', allowAllOutbound: false,
  });
  const rules = [
    new ec2.CfnSecurityGroupIngress(fileSystem, 'NfsFromClients', {
      groupId: securityGroup.securityGroupId,
      ipProtocol: 'tcp',
      fromPort: NFS_PORT,
      toPort: NFS_PORT,
      sourceSecurityGroupId: clientSecurityGroup.securityGroupId,
      description: 'NFS from the S3 Files client security group',
    }),
    new ec2.CfnSecurityGroupEgress(fileSystem, 'NfsToMountTargets', {
      groupId: clientSecurityGroup.securityGroupId,
      ipProtocol: 'tcp',
      fromPort: NFS_PORT,
      toPort: NFS_PORT,
      destinationSecurityGroupId: securityGroup.securityGroupId,
      description: 'NFS to the S3 Files mount targets',
    }),
  ];
  const connections = new ec2.Connections({ securityGroups: [securityGroup], defaultPort: ec2.Port.tcp(NFS_PORT) });
  return { securityGroup, clientSecurityGroup, rules, connections };
}

/**
 * Lets a client reach NFS: `join` adds the file system's client security group to it when there
 * is one (no rule per client); otherwise the mount targets' groups get a rule from `client`.
 */
export function openNfs(
  scope: IConstruct,
  fileSystem: { readonly node: { readonly path: string }; readonly clientSecurityGroup?: ec2.ISecurityGroup; readonly connections: ec2.Connections },
  client: ec2.IConnectable, join: ((group: ec2.ISecurityGroup) => void) | undefined, what: string,
): void {
  if (fileSystem.clientSecurityGroup && join) {
    join(fileSystem.clientSecurityGroup);
  } else if (fileSystem.connections.securityGroups.length > 0) {
    nfsRules(scope, fileSystem.connections.securityGroups, client, what);
  } else {
    invalid(scope, 'fileSystem', fileSystem.node.path, join
      ? `the file system has no security group the library knows, so ${what} cannot be let in over NFS`
      : `the library knows none of the mount targets' security groups, so ${what} (which cannot join a \`clientSecurityGroup\`) cannot be let in over NFS`,
    join
      ? 'give `clientSecurityGroup` (a group the mount targets admit) or `securityGroups` (the mount targets\' groups) to `S3FilesFileSystem.fromFileSystemAttributes()`'
      : 'give `securityGroups` (the mount targets\' groups) to `S3FilesFileSystem.fromFileSystemAttributes()`');
  }
}

/** The construct, under each stack, that holds the NFS rules made for clients in that stack. */
const RULES = 'cdk-s3files-lambda.NfsRules';
/** The state, on the app, of which stack adds the rule between two groups, and for which client. */
const RULE_OWNERS = 'cdk-s3files-lambda.NfsRuleOwners';

/**
 * TCP 2049 from each of the client's security groups to each mount-target group (and out, where the
 * client's group does not allow all outbound traffic), in the client's stack: one rule per pair of
 * groups in a stack, however many clients share them (EC2 refuses a second identical rule,
 * `InvalidPermission.Duplicate`). They live under one construct of the stack and their ids come from
 * the two groups as CloudFormation sees them, never from a client's path or the order clients were
 * added in: the ids `Connections` gives embed the client's full construct path, so moving its stack
 * into a Stage would recreate the rule, and EC2 refuses the duplicate before the old one is deleted.
 * Two stacks that would each add the same rule are refused, naming both clients.
 */
function nfsRules(scope: IConstruct, targets: ec2.ISecurityGroup[], client: ec2.IConnectable, what: string): void {
  const stack = Stack.of(scope);
  const holder = stack.node.tryFindChild(RULES) ?? new Construct(stack, RULES);
  const owners = stateOf(scope.node.root, RULE_OWNERS, () => new Map<string, { readonly stack: Stack; readonly client: string }>());
  for (const target of targets) {
    for (const source of client.connections.securityGroups) {
      const pair = `${groupIdentity(stack, target)} <- ${groupIdentity(stack, source)}`;
      const owner = owners.get(pair);
      if (owner && owner.stack !== stack) {
        invalid(scope, 'securityGroups', source.node.path, `${what} would add the NFS rule from ${groupIdentity(stack, source)} to ${groupIdentity(stack, target)} in stack `
          + `${stack.node.path}, and ${owner.client} adds the same rule in stack ${owner.stack.node.path}: EC2 refuses a second identical rule (InvalidPermission.Duplicate), `
          + 'so one of the deployments fails', 'mount both clients from one stack, give one of them a security group of its own, or give `clientSecurityGroup` (a group the mount '
          + 'targets admit) to `S3FilesFileSystem.fromFileSystemAttributes()` so that clients join it instead of adding rules');
      }
      if (!owner) owners.set(pair, { stack, client: `${what} ${scope.node.path}` });
      const key = crypto.createHash('sha256').update(JSON.stringify([keyPart(stack, target), keyPart(stack, source)])).digest('hex').slice(0, 8);
      const id = `Nfs${key}`;
      if (!holder.node.tryFindChild(id)) {
        new ec2.CfnSecurityGroupIngress(holder, id, {
          groupId: target.securityGroupId,
          ipProtocol: 'tcp',
          fromPort: NFS_PORT,
          toPort: NFS_PORT,
          sourceSecurityGroupId: source.securityGroupId,
          description: 'NFS from the S3 Files clients in the source security group',
        });
      }
      const egressId = `${id}Egress`;
      if (!source.allowAllOutbound && !holder.node.tryFindChild(egressId)) {
        new ec2.CfnSecurityGroupEgress(holder, egressId, {
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
 * A group as the rule's stack names it: its id resolved there (a literal, or a reference by logical
 * id, which a Stage move keeps), with its own stack when it is another stack's group.
 */
function keyPart(stack: Stack, group: ec2.ISecurityGroup): unknown {
  const id = stack.resolve(group.securityGroupId);
  return typeof id === 'string' || Stack.of(group) === stack ? id : { stack: stackKey(Stack.of(group)), id };
}

/** A stack by what a Stage move keeps: a top-level stack's name; a nested stack's path within its parent's stack after that. */
function stackKey(stack: Stack): string {
  const parent = stack.nestedStackParent;
  if (!parent) return stack.stackName;
  const scopes = stack.node.scopes;
  return `${stackKey(parent)}/${scopes.slice(scopes.indexOf(parent) + 1).map((s) => s.node.id).join('/')}`;
}

/** One group wherever it is used (and in messages): its literal id, or the construct that defines or imports it. */
function groupIdentity(stack: Stack, group: ec2.ISecurityGroup): string {
  const id = stack.resolve(group.securityGroupId);
  return typeof id === 'string' ? id : group.node.path;
}

/**
 * Subnets found among the VPC's subnets by id (compared resolved, so a token and its rendering
 * match), or undefined when any is not one of those (imported by id, or another VPC object): then
 * the AZ check cannot run at synth.
 */
export function subnetsById(scope: IConstruct, ids: unknown, vpc: ec2.IVpc | undefined): ec2.ISubnet[] | undefined {
  if (!vpc) return undefined;
  const stack = Stack.of(scope);
  const resolved = stack.resolve(ids);
  if (!Array.isArray(resolved)) return undefined;
  const known = subnetIdsIn(stack, vpc);
  const subnets = resolved.map((id) => known.get(JSON.stringify(id)));
  return subnets.every((s) => s !== undefined) ? subnets as ec2.ISubnet[] : undefined;
}

const SUBNET_IDS = Symbol.for('cdk-s3files-lambda.SubnetIds');

/**
 * A VPC's subnets by their id as `stack` resolves it, worked out once per VPC and stack (every
 * client of a file system asks: 200 functions would resolve every subnet 200 times). Kept on the VPC
 * object under a global symbol, so another copy of the library finds the same table.
 */
function subnetIdsIn(stack: Stack, vpc: ec2.IVpc): Map<string, ec2.ISubnet> {
  const holder = vpc as unknown as { [SUBNET_IDS]?: Map<Stack, Map<string, ec2.ISubnet>> };
  const byStack = holder[SUBNET_IDS] ?? new Map<Stack, Map<string, ec2.ISubnet>>();
  if (!holder[SUBNET_IDS]) Object.defineProperty(vpc, SUBNET_IDS, { value: byStack, enumerable: false });
  let ids = byStack.get(stack);
  if (!ids) {
    const all = [...vpc.publicSubnets, ...vpc.privateSubnets, ...vpc.isolatedSubnets];
    ids = new Map(all.map((subnet) => [JSON.stringify(stack.resolve(subnet.subnetId)), subnet]));
    byStack.set(stack, ids);
  }
  return ids;
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
      invalid(scope, 'vpc', sg.node.path, `${what}'s security group is in another VPC than the mount targets (${vpc.node.path}), and clients mount only from the mount targets' `
        + 'VPC',
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
  // Resolved here, two VPCs of different stacks with the same construct ids give the same
  // { Ref: <logical id> }: such an id is ambiguous and tells no VPC.
  const owners = new Map<string, Set<ec2.IVpc>>();
  for (const v of vpcs) {
    for (const subnet of [...v.publicSubnets, ...v.privateSubnets, ...v.isolatedSubnets]) {
      const key = JSON.stringify(stack.resolve(subnet.subnetId));
      owners.set(key, (owners.get(key) ?? new Set()).add(v));
    }
  }
  const ownerOf = (id: unknown) => {
    const found = owners.get(JSON.stringify(id));
    return found?.size === 1 ? [...found][0] : undefined;
  };
  return resolved.map((id) => ({ id, vpc: ownerOf(id) }));
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
      warn(scope, 'clientVpcUnchecked',
        `${what}'s subnets are in ${owner.node.path} and the mount targets in ${vpc.node.path}; the library cannot tell whether these are one VPC. Clients mount only from the `
          + 'mount targets\' VPC.');
    }
    return;
  }
}

/**
 * Adds `group` to a client's security groups (`connections`, re-rendered into `cfn` at
 * `propertyPath`), refusing more than the service allows.
 */
export function joinSecurityGroup(
  scope: IConstruct, connections: ec2.Connections, cfn: import('aws-cdk-lib').CfnResource, propertyPath: string,
  limit: { readonly max: number; readonly service: string }, what: string, group: ec2.ISecurityGroup,
): void {
  if (connections.securityGroups.includes(group)) return;
  connections.addSecurityGroup(group);
  if (connections.securityGroups.length > limit.max) {
    invalid(scope, 'securityGroups', connections.securityGroups.map((sg) => sg.node.path),
      `with the file system's client security group ${what} has ${connections.securityGroups.length}, and ${limit.service} allows at most ${limit.max}`,
      `pass at most ${limit.max - 1} security groups`);
  }
  renderSecurityGroupsLazily(cfn, propertyPath, connections);
}
