import { CfnResource, Names, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct, IConstruct } from 'constructs';
import { AzCoverage, azRef, subnetLabel } from './az-coverage';
import { clientActions } from './client-actions';
import { checkSameRegion } from '../environment';
import {
  acknowledgeClientFindings, checkClientAccount, clientStatement, directReadStatements, efsUtilsTelemetryStatements, grantScoped, literal,
  ReadOnlyMount, ScopedStatement, validationReadStatements,
} from './grants';
import { subnetAvailabilityZone } from '../compat';
import { noteOf } from '../construct-state';
import { invalid, warn } from '../messages';
import { acknowledge, findingResource } from '../nag';
import { checkSameVpc, openNfs, subnetsById } from './network';
import type { IS3FilesAccessPoint } from '../../s3files-access-point-contract';
import type { IS3FilesFileSystem } from '../../s3files-file-system-contract';
import { registryOf } from '../file-system/access-point-registry';

/** What a client may do (the public `S3FilesClientOptions`, which this module does not import: public modules import private ones, never the reverse). */
export interface ClientOptions {
  readonly readOnly?: boolean;
  readonly rootAccess?: boolean;
}

/** aws-cdk-lib's feature flag for how a stack references another's values (2.254+). */
const CROSS_STACK_REFERENCES = '@aws-cdk/core:defaultCrossStackReferences';

/** Where every compute mounts the file system when no path is given. */
export const DEFAULT_MOUNT_PATH = '/mnt/s3files';

// The one mount pipeline: every compute adapter describes its compute (`Compute`) and patches its
// own CloudFormation property; the steps every mount needs, in one order, are here.

/** What the pipeline needs to know of one compute. */
export interface Compute {
  /** Where its messages go, and where NFS rules are created. */
  readonly scope: IConstruct;
  /** What it is, in messages ("the function"). */
  readonly what: string;
  /** The principal that mounts (the account, region and stack checks and the grants); absent for a network-only part (an ECS service, a Batch compute environment). */
  readonly grantee?: iam.IGrantable;
  /** Its network identity: security groups, for NFS and the same-VPC and AZ checks; absent for a part without one (an ECS task definition). */
  readonly connectable?: ec2.IConnectable;
  /** Adds the file system's client security group to it (its own way); without it, rules let it in. */
  readonly joinSecurityGroup?: (group: ec2.ISecurityGroup) => void;
  /** The resource that starts it (or describes what starts it): it waits until the mount can succeed. */
  readonly launcher: IConstruct;
  /** The subnet ids it runs in, as its template names them (the same-VPC and AZ checks). */
  readonly subnetIds?: unknown;
  /** The warning when its subnets' AZs are only known at deploy time. */
  readonly unknownAzWarning?: string;
  /** The mount helper is amazon-efs-utils: s3:ListBucket with direct reads, and its telemetry. */
  readonly efsUtils: boolean;
  /** The mount itself can be read-only (EC2 `ro`, ECS and Batch read-only mount points). */
  readonly readOnlyFlag: boolean;
  /** Whether direct reads are granted. */
  readonly directReads: boolean;
  /** How to keep a read-only mount read-only when its role is also granted writes (`readOnlySharedRole`), when it is not "a role of its own". */
  readonly sharedRoleFix?: string;
  /**
   * Its role serves mounts the library cannot tell apart (the EFS CSI driver's node role): a
   * read-only mount's role is denied s3files:ClientWrite through the access point, unless it
   * writes through that very access point too, which this text explains (`readOnlySharedRole`).
   */
  readonly readOnlyHolds?: string;
  /** Why direct reads need the bucket, and how to do without, when the bucket is unknown. */
  readonly directReadNeed?: DirectReadNeed;
  /** The service mounts only its own account's file systems: the documentation's words. */
  readonly sameAccountOnly?: string;
  /**
   * Where its parts run, read once the app is complete (parts may be declared after the mount):
   * each part's subnets are checked for the mount targets' AZs, an error naming that part and its
   * prop. Instead of `subnetIds` and `unknownAzWarning`.
   */
  readonly placements?: () => Placement[];
}

/** Where one part of a compute runs (an EKS node group): its subnets, and what chose them. */
export interface Placement {
  /** The part, where its error goes. */
  readonly scope: IConstruct;
  /** What it is, in messages ("node group S/Cluster/NodegroupNodes"). */
  readonly what: string;
  /** The prop of the part that chose the subnets (`subnets`). */
  readonly prop: string;
  /** Its subnet ids, as its template names them. */
  readonly subnetIds: unknown;
}

/** What a compute mounts: an access point, or (dynamic provisioning) any access point of the file system, created at run time. */
export interface MountTarget {
  readonly fileSystem: IS3FilesFileSystem;
  /** The access point; undefined for any access point of the file system (never its root). */
  readonly accessPoint?: IS3FilesAccessPoint;
}

/**
 * Mounts `accessPoint` on a compute: the account, region and stack checks, the grants, NFS, the
 * same-VPC and AZ checks, and the wait for the mount targets, the access point and the file-system
 * policy. The adapter has already put the mount into the compute's own property.
 */
export function mountAccessPoint(accessPoint: IS3FilesAccessPoint, compute: Compute, options: ClientOptions): void {
  mount({ fileSystem: accessPoint.fileSystem, accessPoint }, compute, options);
}

/** Mounts `target` on a compute: every step `mountAccessPoint()` names, for an access point or for any access point of a file system. */
export function mount(target: MountTarget, compute: Compute, options: ClientOptions): void {
  const { fileSystem: fs, accessPoint } = target;
  const { scope, what } = compute;
  // The region first: another region's file system is the error, whatever it was imported with.
  if (compute.grantee) checkSameRegion(scope, fs.node.path, literal(fs.env?.region), 'clients mount a file system only from a VPC in its region', 'mount it');
  refuseMissingAttributes(scope, fs, what, {
    network: compute.connectable !== undefined && !(fs.clientSecurityGroup && compute.joinSecurityGroup),
    joins: compute.joinSecurityGroup !== undefined,
    directReads: compute.grantee && compute.directReads ? compute.directReadNeed ?? GRANT_DIRECT_READS : undefined,
  });
  if (compute.grantee) {
    checkClientAccount(scope, what, compute.grantee, fs, clientActions(options), accessPoint?.accessPointArn, compute.sameAccountOnly);
    if (accessPoint) checkAccessPointStack(scope, accessPoint, what);
    grantTarget(scope, compute.grantee, target, options,
      { efsUtils: compute.efsUtils, directReads: compute.directReads, directReadNeed: compute.directReadNeed },
      options.readOnly ? readOnlyMount(compute) : undefined);
    if (options.readOnly && options.rootAccess) {
      warn(scope, 'readOnlyWithRootAccess',
        '`readOnly` and `rootAccess` are both set: root access without write access only widens what can be read. Drop `rootAccess` unless the client must read root-only '
          + 'entries.');
    }
  }
  if (compute.connectable) {
    checkSameVpc(scope, compute.connectable.connections, fs.vpc, what, compute.subnetIds);
    openNfs(scope, fs, compute.connectable, compute.joinSecurityGroup, what);
    if (compute.placements) checkPlacementsLater(scope, fs, compute.placements);
    else checkClientAzs(scope, fs, compute.subnetIds, compute.unknownAzWarning);
  }
  // The access point and the mount targets available, not merely created (it includes the file
  // system's policy, so first mounts meet the policy they are held to); for any access point, the
  // mount targets (the access points are created at run time, after the file system's policy).
  compute.launcher.node.addDependency(accessPoint ? accessPoint.available : fs.mountTargetsAvailable);
}

/** A read-only mount of the compute, as the grants record it. */
function readOnlyMount(compute: Compute): ReadOnlyMount {
  const { scope, what, readOnlyFlag, sharedRoleFix: fix, readOnlyHolds } = compute;
  return { scope, what, readOnlyFlag, fix, holds: readOnlyHolds ? { shared: readOnlyHolds } : undefined };
}

/** Why a mount's direct-read grant needs the file system's bucket, and how to do without it. */
export interface DirectReadNeed {
  /** What asks for the grant ("`grantDirectReads` (true by default)"). */
  readonly reason: string;
  /** The other way out ("set `grantDirectReads` to false and grant the reads yourself"). */
  readonly without: string;
}

const GRANT_DIRECT_READS: DirectReadNeed = {
  reason: 'the direct-read grant, which `grantDirectReads` (true by default) asks for',
  without: 'set `grantDirectReads` to false (and grant the reads yourself)',
};

/** What a mount grants, for `grantMount()` and the pipeline. */
export interface MountGrant {
  readonly efsUtils: boolean;
  readonly directReads: boolean;
  readonly directReadNeed?: DirectReadNeed;
}

/**
 * Everything a mounting principal needs, granted together (an unmodifiable role's warning lists it
 * all): the client actions limited to the access point; the reads a service validates a mount with;
 * with amazon-efs-utils, its telemetry; and, when asked, the direct-read grant.
 */
export function grantMount(
  scope: IConstruct, grantee: iam.IGrantable, accessPoint: IS3FilesAccessPoint, options: ClientOptions, grant: MountGrant,
  readOnly?: ReadOnlyMount,
): iam.Grant {
  return grantTarget(scope, grantee, { fileSystem: accessPoint.fileSystem, accessPoint }, options, grant, readOnly);
}

/** `grantMount()` for a target: through its access point, or (`ArnLike`) through any access point of the file system, never its root. */
function grantTarget(
  scope: IConstruct, grantee: iam.IGrantable, target: MountTarget, options: ClientOptions, grant: MountGrant, readOnly?: ReadOnlyMount,
): iam.Grant {
  const { fileSystem: fs, accessPoint } = target;
  const stack = Stack.of(scope);
  const anyAccessPoint = `${fs.fileSystemArn}/access-point/*`;
  const client = accessPoint
    ? clientStatement(fs.fileSystemArn, clientActions(options), accessPoint.accessPointArn)
    : { ...clientStatement(fs.fileSystemArn, clientActions(options)), conditions: { ArnLike: { 's3files:AccessPointArn': anyAccessPoint } } };
  const statements: ScopedStatement[] = [client, ...validationReadStatements(fs.fileSystemArn, accessPoint?.accessPointArn ?? anyAccessPoint)];
  if (grant.efsUtils) statements.push(...efsUtilsTelemetryStatements(stack));
  if (grant.directReads) {
    refuseMissingAttributes(scope, fs, 'it', { directReads: grant.directReadNeed ?? GRANT_DIRECT_READS });
    statements.push(...directReadStatements(stack, { bucket: fs.bucket!, prefix: fs.prefix ?? '', bucketEncryptionKey: fs.bucketEncryptionKey }, { listBucket: grant.efsUtils }));
  }
  const result = grantScoped(scope, grantee, statements, accessPoint ? `mounting ${accessPoint.node.path}` : `mounting any access point of ${fs.node.path}`,
    { fileSystemArn: fs.fileSystemArn, accessPointArn: accessPoint?.accessPointArn, write: !options.readOnly }, readOnly, fs);
  acknowledgeClientFindings(scope, grantee, statements);
  if (!accessPoint) {
    const owner = Construct.isConstruct(grantee.grantPrincipal) ? grantee.grantPrincipal : scope;
    acknowledge(owner, `AwsSolutions-IAM5[${findingResource(owner, anyAccessPoint)}]`,
      's3files:GetAccessPoint on the access points of this file system, which dynamic provisioning creates at run time (their ids are not known before), to validate a mount.');
  }
  return result;
}

/**
 * A file system imported without what a mount needs: every missing attribute in one error (the
 * user learns them all at once, not one per synth).
 */
function refuseMissingAttributes(
  scope: IConstruct, fs: IS3FilesFileSystem, what: string, needs: { network?: boolean; joins?: boolean; directReads?: DirectReadNeed },
): void {
  const missing: string[] = [];
  const without: string[] = [];
  if (needs.network && fs.connections.securityGroups.length === 0) {
    missing.push(needs.joins
      ? `\`clientSecurityGroup\` (a group the mount targets admit) or \`securityGroups\` (the mount targets' groups), to let ${what} in over NFS`
      : `\`securityGroups\` (the mount targets' groups), to let ${what} in over NFS (it cannot join a \`clientSecurityGroup\`: the library adds a rule to the mount targets' `
        + 'groups instead)');
  }
  if (needs.directReads && !fs.bucket) {
    missing.push(`\`bucket\` (and \`prefix\`), for ${needs.directReads.reason}`);
    without.push(needs.directReads.without);
  }
  if (missing.length === 0) return;
  invalid(scope, 'fileSystem', fs.node.path, `mounting it needs what it was imported without: ${missing.join('; ')}`,
    `give ${missing.length > 1 ? 'them' : 'it'} to \`S3FilesFileSystem.fromFileSystemAttributes()\`${without.length ? `, or ${without.join(', ')}` : ''}`);
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
function checkAccessPointStack(scope: IConstruct, accessPoint: IS3FilesAccessPoint, what: string): void {
  if (!(accessPoint.node.defaultChild instanceof CfnResource)) return; // imported: no export
  const apStack = topLevelStack(accessPoint);
  const clientStack = topLevelStack(scope);
  if (apStack === clientStack) return;
  // aws-cdk-lib 2.254+: the consumer's flag decides between exports (strong, the default) and
  // Fn::GetStackOutput (weak; "both" makes the consumer read outputs too).
  const reference = clientStack.node.tryGetContext(CROSS_STACK_REFERENCES);
  const weak = reference === 'weak' || reference === 'both';
  warn(scope, 'accessPointInAnotherStack',
    `${accessPoint.node.path} is created in stack ${apStack.node.path} and mounted by ${what} in stack ${clientStack.node.path}, which `
    + (weak
      ? `reads its ARN from that stack's outputs (\`${CROSS_STACK_REFERENCES}\` is "${reference}"): CloudFormation lets the access point be replaced (a new `
        + '`path`, `posixUser` or `createPermissions`) or removed, and this stack keeps the old ARN until it is deployed itself, so its mounts fail in between. '
      : 'imports its ARN: CloudFormation refuses to change an export in use, so replacing the access point (a new `path`, `posixUser` or `createPermissions`) '
        + 'or removing it fails. ')
    + 'Create the access point in the stack of its clients (the file system can stay where it is), or follow the two deployments in docs/lifecycle.md, "Lifecycle".');
}

/** The key under which a file system keeps where its subnets are set when not its own `vpcSubnets` (the L3's `s3FileSystemOptions.vpcSubnets`). */
export const SUBNETS_PROP = 'cdk-s3files-lambda.SubnetsProp';

/** The fix's second half: a file system of this app can get mount targets in more AZs, by the prop its creator set. */
function moreAzsFix(fs: IS3FilesFileSystem): string {
  return registryOf(fs) ? `, or add those AZs to ${noteOf(fs, SUBNETS_PROP) ?? `the \`vpcSubnets\` of ${fs.node.path}`}` : '';
}

/**
 * The AZ check of a client: an error when one of its subnets is in an AZ without a mount target;
 * `unknownWarning` when its subnets cannot be found among the VPC's at synth (imported by id).
 */
function checkClientAzs(scope: IConstruct, fs: IS3FilesFileSystem, subnetIds: unknown, unknownWarning: string | undefined): void {
  const subnets = subnetsById(scope, subnetIds, fs.vpc);
  const azs = fs.mountTargetAvailabilityZones;
  if (subnets) {
    const stack = Stack.of(scope);
    // A file system of this app can get mount targets in more AZs.
    const more = moreAzsFix(fs);
    if (azs) new AzCoverage(azs.map((az) => azRef(stack, az))).check(scope, 'vpcSubnets', subnets, fs.node.path, more);
  } else if (fs.vpc && unknownWarning) {
    warn(scope, 'azCoverageUnknown', unknownWarning);
  }
}

/**
 * The AZ check of a compute's parts, run once the app is complete (once per scope and file
 * system): an error for each part with subnets in an AZ without a mount target, naming the part,
 * its prop and those subnets.
 */
function checkPlacementsLater(scope: IConstruct, fs: IS3FilesFileSystem, placements: () => Placement[]): void {
  const id = `cdk-s3files-lambda.Placements.${Names.uniqueId(fs)}`;
  if (scope.node.tryFindChild(id)) return;
  const marker = new Construct(scope as Construct, id);
  marker.node.addValidation({ validate: () => placementErrors(scope, fs, placements()) });
}

function placementErrors(scope: IConstruct, fs: IS3FilesFileSystem, placements: Placement[]): string[] {
  const azs = fs.mountTargetAvailabilityZones;
  if (!azs) return [];
  const stack = Stack.of(scope);
  const coverage = new AzCoverage(azs.map((az) => azRef(stack, az)));
  const more = moreAzsFix(fs);
  const errors: string[] = [];
  for (const p of placements) {
    const subnets = subnetsById(scope, p.subnetIds, fs.vpc);
    if (!subnets) continue;
    const missing = coverage.missing(stack, subnets);
    if (missing.unknown || missing.azs.length === 0) continue;
    const outside = subnets.filter((s) => {
      const az = subnetAvailabilityZone(s);
      return az !== undefined && missing.azs.includes(azRef(stack, az).label);
    });
    try {
      invalid(p.scope, p.prop, outside.map(subnetLabel), `${p.what} has subnets in ${missing.azs.join(', ')}, where ${fs.node.path} has no mount target (it has mount targets in `
        + `${coverage.labels.join(', ')}), and a pod on a node there cannot mount`, `give ${p.what} subnets in ${coverage.labels.join(', ')} only${more}`);
    } catch (e) {
      errors.push((e as Error).message);
    }
  }
  return errors;
}
