import { posix } from 'path';
import { Stack, Token } from 'aws-cdk-lib';
import * as autoscaling from 'aws-cdk-lib/aws-autoscaling';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as eks from 'aws-cdk-lib/aws-eks';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct, IConstruct } from 'constructs';
import { CLIENT_READ_WRITE_ACTIONS } from './client-actions';
import type { IS3FilesFileSystem } from '../../s3files-file-system-contract';
import { clusterVpc, fargateProfileSelection } from '../compat';
import { findState } from '../construct-state';
import { acknowledgeClientFindings, checkClientAccount, clientStatement, directReadStatements, efsUtilsTelemetryStatements, grantScoped, ScopedStatement } from './grants';
import { describe, invalid, warnUnresolved } from '../messages';
import { acknowledge, findingResource } from '../nag';
import { openNfs } from './network';
import { scopeActions } from './s3files-actions';
import { MAX_ACCESS_POINT_PATH_CHARS, MAX_ACCESS_POINT_PATH_COMPONENTS } from '../validation';

// The plumbing of EksMount: the Amazon EFS CSI driver's (3.0.0 or later) identities and checks, and
// the rights of dynamic provisioning. Sources, quoted in docs/kubernetes.md: the S3 user guide
// ("Mounting S3 file systems on Amazon EKS"), the EKS user guide, AmazonS3FilesCSIDriverPolicy, and
// kubernetes-sigs/aws-efs-csi-driver.

/** The CSI driver's name (every S3 Files example's `provisioner` and `csi.driver`). */
export const DRIVER = 'efs.csi.aws.com';
/** The EKS add-on that installs the driver. */
export const ADDON = 'aws-efs-csi-driver';
/** The add-on that lets pods use EKS Pod Identity. */
export const POD_IDENTITY_AGENT = 'eks-pod-identity-agent';
/** "Amazon S3 Files support in Amazon EFS CSI driver starts from version 3.0.0" (EKS user guide). */
export const MIN_DRIVER_VERSION = [3, 0, 0] as const;
/** The driver's service accounts (its Helm chart's values.yaml; the EKS user guide's associations). */
export const NAMESPACE = 'kube-system';
export const CONTROLLER_SA = 'efs-csi-controller-sa';
export const NODE_SA = 'efs-csi-node-sa';
/** The tag the driver puts on every access point it creates (pkg/driver/controller.go DefaultTagKey), which AmazonS3FilesCSIDriverPolicy keys on. */
export const CLUSTER_TAG = 'efs.csi.aws.com/cluster';
/** A PersistentVolume's capacity is required by Kubernetes and unused by the driver ("You can specify any valid value"); the driver's examples use 5Gi. */
export const PLACEHOLDER_CAPACITY = '5Gi';
/** A DNS-1123 label: namespaces and the claim names given here. */
export const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
export const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** What the library keeps per cluster. */
export interface Driver {
  readonly scope: Construct;
  readonly nodeRole: iam.IRole;
  /** The resources the driver's pods must not start before (Pod Identity associations, the agent). */
  readonly before: IConstruct[];
  /** The driver add-on, when the library installs it. */
  readonly addon?: eks.Addon;
  /** The nodes' network identity: the cluster security group. */
  readonly nodes?: ec2.IConnectable;
  controllerRole?: iam.IRole;
  /** `namespace/claimName` of each volume. */
  readonly volumes: Set<string>;
  readonly storageClasses: Set<string>;
  /** The file systems dynamic provisioning was granted on, with their `grantDirectReads`. */
  readonly fileSystems: Map<string, boolean>;
}

export const STATE = 'cdk-s3files-lambda.EksDriver';

/** A version string of the driver, 3.0.0 or later. */
export function checkDriverVersion(scope: IConstruct, prop: string, version: string, format: RegExp, example: string): void {
  if (Token.isUnresolved(version)) return warnUnresolved(scope, prop);
  const m = typeof version === 'string' ? format.exec(version) : null;
  if (!m) invalid(scope, prop, version, 'it is not a version of the Amazon EFS CSI driver', `use a version such as ${example}`);
  const parts = [Number(m[1]), Number(m[2]), Number(m[3])];
  const below = parts[0] !== MIN_DRIVER_VERSION[0] ? parts[0] < MIN_DRIVER_VERSION[0]
    : parts[1] !== MIN_DRIVER_VERSION[1] ? parts[1] < MIN_DRIVER_VERSION[1] : parts[2] < MIN_DRIVER_VERSION[2];
  if (below) {
    invalid(scope, prop, version, '"Amazon S3 Files support in Amazon EFS CSI driver starts from version 3.0.0" (EKS user guide)',
      `use version 3.0.0 or later (e.g. ${example})${prop === 'existingDriverVersion' ? ', upgrading the driver first' : ''}`);
  }
}

export function checkName(scope: IConstruct, prop: string, value: string, format: RegExp, max: number, example: string): void {
  if (typeof value !== 'string') invalid(scope, prop, value, 'it must be a string', `use a name such as ${example}`);
  if (Token.isUnresolved(value)) {
    invalid(scope, prop, value, 'it becomes part of Kubernetes object names, which the library checks and derives at synth', `use a literal such as ${example}`);
  }
  if (value.length > max || !format.test(value)) {
    invalid(scope, prop, value, `Kubernetes names are lower-case letters, digits and "-"${format === DNS_SUBDOMAIN ? ' or "."' : ''}, starting and ending with a letter or `
      + `digit, at most ${max} characters`,
    `use a name such as ${example}`);
  }
}

/** The variables a `subPathPattern` may hold (pkg/driver/controller.go, subPathPatternComponents). */
const SUB_PATH_VARIABLES = ['${.PVC.name}', '${.PVC.namespace}', '${.PV.name}'];
/** What the driver appends to the last component: "-" and a UUID after a `subPathPattern`; the PV's name (`pvc-<UUID>`) without one. */
const UNIQUE_SUFFIX = 37;
const PV_NAME = 40;

/**
 * The directory of each access point dynamic provisioning creates is `path.Join("/", basePath,
 * <subPathPattern or the PV's name>)` (pkg/driver/controller.go); S3 Files takes at most 4
 * components of 100 characters in all, none hidden (the access point's own rules). What can be
 * known at synth is checked here, so that claims do not stay Pending on a refused CreateAccessPoint.
 */
export function checkProvisionedPath(scope: IConstruct, basePath: string | undefined, subPathPattern: string | undefined): void {
  // Whether the prop is known at synth (a literal; hidden components refused), or left to deploy time.
  const literal = (prop: string, value: string | undefined): boolean => {
    if (value === undefined) return true;
    if (typeof value !== 'string') invalid(scope, prop, value, 'it must be a string', 'use a path such as "/dynamic"');
    if (Token.isUnresolved(value)) {
      warnUnresolved(scope, prop);
      return false;
    }
    const hidden = value.split('/').find((c) => c.startsWith('.'));
    if (hidden !== undefined) {
      invalid(scope, prop, value, `component "${hidden}" starts with "." (S3 Files refuses hidden, "." and ".." components in an access point's path)`, 'rename the component so '
        + 'it does not start with "."');
    }
    return true;
  };
  const baseKnown = literal('basePath', basePath);
  const patternKnown = literal('subPathPattern', subPathPattern);
  /** The pattern with each variable replaced by `by`. */
  const substituted = (pattern: string, by: string) => SUB_PATH_VARIABLES.reduce((text, v) => text.split(v).join(by), pattern);
  if (subPathPattern !== undefined && patternKnown) {
    const left = substituted(subPathPattern, '');
    if (left.includes('${') || left.includes('}')) {
      invalid(scope, 'subPathPattern', subPathPattern, `the driver replaces only ${SUB_PATH_VARIABLES.join(', ')}, and refuses a pattern with anything else in "\${…}"`,
        'use only those variables, e.g. "${.PVC.namespace}/${.PVC.name}"');
    }
  }
  if (!baseKnown || !patternKnown) return;
  // As the driver builds it, path.Join("/", basePath, <pattern>-<36-character id>, or the PV's
  // name), with each variable one character: the shortest directory a claim can get.
  const shortest = subPathPattern === undefined ? 'x'.repeat(PV_NAME) : `${substituted(subPathPattern, 'x')}-${'x'.repeat(UNIQUE_SUFFIX - 1)}`;
  const dir = posix.join('/', basePath ?? '', shortest);
  const components = dir.split('/').filter((c) => c !== '');
  const what = `"${posix.join('/', basePath ?? '', subPathPattern === undefined ? '<PV name>' : `${subPathPattern}-<id>`)}"`;
  const prop = basePath !== undefined ? 'basePath' : 'subPathPattern';
  if (components.length > MAX_ACCESS_POINT_PATH_COMPONENTS) {
    invalid(scope, prop, basePath ?? subPathPattern, `each access point's directory would be ${what}, ${components.length} components, and S3 Files allows at most `
      + `${MAX_ACCESS_POINT_PATH_COMPONENTS}`,
    'use fewer components in `basePath` and `subPathPattern` together');
  }
  if (dir.length > MAX_ACCESS_POINT_PATH_CHARS) {
    invalid(scope, prop, basePath ?? subPathPattern, `each access point's directory would be ${what}, at least ${dir.length} characters `
      + `(${subPathPattern === undefined ? 'a PV\'s name is 40' : 'the id is 36'}), and S3 Files allows ${MAX_ACCESS_POINT_PATH_CHARS}`, 'shorten `basePath` or `subPathPattern`');
  }
}

/** The driver declared on the cluster, or an error saying to declare it. */
export function driverOf(cluster: eks.ICluster): Driver {
  const driver = findState<Driver>(cluster, STATE);
  if (!driver) {
    invalid(cluster, 'cluster', cluster.node.path, 'the library does not know how the Amazon EFS CSI driver (3.0.0 or later) runs on this cluster',
      'call `EksMount.installDriver()` first, with `addonVersion` (the add-on to install) or `existingDriverVersion` (the driver it already runs)');
  }
  return driver;
}

/** A role for a driver service account, trusted by EKS Pod Identity (the EKS user guide's trust policy: sts:AssumeRole and sts:TagSession). */
export function podIdentityRole(scope: Construct, id: string, description: string): iam.Role {
  return new iam.Role(scope, id, { assumedBy: new iam.SessionTagsPrincipal(new iam.ServicePrincipal('pods.eks.amazonaws.com')), description: `Role of ${description}` });
}

export function associate(
  scope: Construct, cluster: eks.ICluster, id: string, serviceAccount: string, role: iam.IRole,
): eks.CfnPodIdentityAssociation {
  return new eks.CfnPodIdentityAssociation(scope, id, {
    clusterName: cluster.clusterName, namespace: NAMESPACE, serviceAccount, roleArn: role.roleArn,
  });
}

/** The Pod Identity agent add-on: aws-eks's own for a Cluster of this app (unless one exists), a new one for an imported cluster only when asked. */
export function podIdentityAgent(scope: Construct, cluster: eks.ICluster, install: boolean | undefined): IConstruct | undefined {
  if (cluster instanceof eks.Cluster) {
    // An agent add-on of this cluster declared elsewhere in the app (the stack may hold an
    // imported cluster's too: compared by the cluster's name as the template has it).
    const existing = addonsOf(cluster, POD_IDENTITY_AGENT)[0];
    if (existing) return existing;
    return install === false ? undefined : cluster.eksPodIdentityAgent;
  }
  return install ? new eks.Addon(scope, 'PodIdentityAgent', { cluster, addonName: POD_IDENTITY_AGENT }) : undefined;
}

/**
 * The add-ons named `name` of the cluster, declared anywhere in the app: their cluster name is the
 * cluster's own token (any stack), renders the same in the cluster's stack, or is the same literal.
 */
export function addonsOf(cluster: eks.ICluster, name: string): eks.CfnAddon[] {
  const stack = Stack.of(cluster);
  const rendered = JSON.stringify(stack.resolve(cluster.clusterName));
  const same = (c: eks.CfnAddon) => c.clusterName === cluster.clusterName
    || (Stack.of(c) === stack && JSON.stringify(stack.resolve(c.clusterName)) === rendered);
  return cluster.node.root.node.findAll().filter((c): c is eks.CfnAddon => c instanceof eks.CfnAddon && c.addonName === name && same(c));
}

export function refuseNoClusterSecurityGroup(cluster: eks.ICluster): never {
  invalid(cluster, 'clusterSecurityGroupId', undefined, 'the nodes reach the mount targets through the cluster security group, which this imported cluster was given without',
    'give `clusterSecurityGroupId` to `Cluster.fromClusterAttributes()`');
}

/** "Your EKS cluster must be in the same VPC as your mount target" (S3 user guide). */
export function checkClusterVpc(cluster: eks.ICluster, fs: IS3FilesFileSystem): void {
  const ours = clusterVpc(cluster);
  if (!ours || !fs.vpc || ours === fs.vpc) return;
  const stack = Stack.of(cluster);
  const a = stack.resolve(ours.vpcId);
  const b = stack.resolve(fs.vpc.vpcId);
  const bothCreated = ours instanceof ec2.Vpc && fs.vpc instanceof ec2.Vpc;
  const bothLiteral = typeof a === 'string' && typeof b === 'string';
  if (bothCreated || (bothLiteral && a !== b)) {
    invalid(cluster, 'vpc', ours.node.path, `the cluster is in another VPC than the mount targets of ${fs.node.path} (${fs.vpc.node.path}): "Your EKS cluster must be in the `
      + 'same VPC as your mount target" (S3 user guide)',
    'create the cluster in the file system\'s `vpc`, or give the file system mount targets in the cluster\'s VPC');
  }
}

export function regionOf(fs: IS3FilesFileSystem): string | undefined {
  const region = fs.env?.region;
  return region === undefined || Token.isUnresolved(region) ? undefined : region;
}

/** The managed node groups of this app on the cluster. */
function nodegroupsOf(cluster: eks.ICluster): eks.Nodegroup[] {
  return cluster.node.root.node.findAll().filter((c): c is eks.Nodegroup => c instanceof eks.Nodegroup && c.cluster === cluster);
}

/** The subnets of the cluster's managed node groups (the AZ check), when there are any. */
export function nodeSubnetIds(cluster: eks.ICluster): unknown {
  const ids = nodegroupsOf(cluster).flatMap((ng) => {
    const subnets = (ng.node.defaultChild as eks.CfnNodegroup).subnets;
    return Array.isArray(subnets) ? subnets : [];
  });
  return ids.length > 0 ? ids : undefined;
}

/** The Fargate profiles of the cluster and what they select. */
function fargateProfilesOf(cluster: eks.ICluster): Array<{ readonly path: string; readonly selectors: eks.Selector[] }> {
  const stack = Stack.of(cluster);
  const name = JSON.stringify(stack.resolve(cluster.clusterName));
  const out: Array<{ path: string; selectors: eks.Selector[] }> = [];
  for (const c of cluster.node.root.node.findAll()) {
    if (!(c instanceof eks.FargateProfile)) continue;
    const selection = fargateProfileSelection(c);
    if (selection && JSON.stringify(stack.resolve(selection.clusterName)) === name) out.push({ path: c.node.path, selectors: selection.selectors });
  }
  return out;
}

/** Errors of the deferred validation: a message as `invalid()` words it. */
function asErrors(check: () => void): string[] {
  try {
    check();
    return [];
  } catch (e) {
    return [e instanceof Error ? e.message : String(e)];
  }
}

/**
 * "EKS Fargate doesn't support S3 Files" and "The Amazon EFS CSI driver isn't compatible with
 * Windows-based container images" (EKS user guide): a cluster of this app with no Linux node to
 * mount on (Fargate only, or only Windows managed node groups) is refused at synth, when its node
 * groups and profiles are all known.
 */
export function topologyErrors(cluster: eks.ICluster): string[] {
  if (!(cluster instanceof eks.Cluster)) return [];
  const nodegroups = nodegroupsOf(cluster);
  const windows = nodegroups.filter((ng) => String((ng.node.defaultChild as eks.CfnNodegroup).amiType ?? '').startsWith('WINDOWS_'));
  // Self-managed capacity: the default EC2 capacity, groups added with `addAutoScalingGroupCapacity()`,
  // or groups of the app it may run on (`connectAutoScalingGroupCapacity()` leaves no link to read): any
  // Auto Scaling group of the app counts, so the refusal never meets a cluster that has EC2 nodes.
  const selfManaged = cluster.defaultCapacity !== undefined
    || cluster.node.root.node.findAll().some((c) => c instanceof autoscaling.AutoScalingGroup);
  return asErrors(() => {
    if (nodegroups.length === 0 && !selfManaged && (cluster instanceof eks.FargateCluster || fargateProfilesOf(cluster).length > 0)) {
      invalid(cluster, 'cluster', cluster.node.path, 'its pods run on Fargate only, and "EKS Fargate doesn\'t support S3 Files" (EKS user guide)',
        'give the cluster a managed node group of Linux nodes (`cluster.addNodegroupCapacity()`) for the pods that mount S3 Files');
    }
    if (nodegroups.length > 0 && windows.length === nodegroups.length && !selfManaged) {
      const ng = windows[0].node.defaultChild as eks.CfnNodegroup;
      invalid(windows[0], 'amiType', ng.amiType, 'the cluster\'s managed node groups are all Windows, and "The Amazon EFS CSI driver isn\'t compatible with Windows-based '
        + 'container images" (EKS user guide)',
      'add a node group with a Linux AMI type (the volumes\' node affinity keeps their pods on Linux nodes)');
    }
  });
}

/**
 * Whether a Fargate selector's namespace matches: "you're allowed to use `*` and `?` in the selector
 * criteria for namespaces", `*` for "none, one, or multiple characters", `?` for exactly one (EKS
 * user guide, "Fargate profile wildcards").
 */
export function selects(pattern: string, namespace: string): boolean {
  if (Token.isUnresolved(pattern)) return false;
  const regex = pattern.split('').map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('');
  return new RegExp(`^${regex}$`).test(namespace);
}

/**
 * EKS installs an add-on once per cluster: the library's driver add-on, or the Pod Identity agent
 * it added, beside another one of the app fails at deploy (checked once the app is complete: the
 * other may be declared after `installDriver()`).
 */
export function duplicateAddonErrors(cluster: eks.ICluster, ours: eks.Addon | undefined, agent: IConstruct | undefined): string[] {
  const mine = (c: eks.CfnAddon, of: IConstruct | undefined) => of !== undefined && (c === of || c.node.scope === of);
  const otherDriver = ours ? addonsOf(cluster, ADDON).find((c) => !mine(c, ours)) : undefined;
  const agents = addonsOf(cluster, POD_IDENTITY_AGENT);
  const otherAgent = agent && agents.some((c) => mine(c, agent)) ? agents.find((c) => !mine(c, agent)) : undefined;
  return asErrors(() => {
    if (otherDriver) {
      invalid(cluster, 'addonVersion', (ours!.node.defaultChild as eks.CfnAddon).addonVersion, `the app already declares the ${ADDON} add-on of this cluster `
        + `(${otherDriver.node.path}), and a cluster has each add-on once`,
      'pass `existingDriverVersion` (that add-on\'s version) instead of `addonVersion`, or remove the other add-on');
    }
    if (otherAgent) {
      invalid(cluster, 'installPodIdentityAgent', true, `the app declares the ${POD_IDENTITY_AGENT} add-on of this cluster (${otherAgent.node.path}) besides the one `
        + '`EksMount.installDriver()` added, and a cluster has each add-on once',
      'declare your agent add-on before `EksMount.installDriver()` in the same stack (the library then uses it), or pass `installPodIdentityAgent` false');
    }
  });
}

/** A claim in a namespace a Fargate profile selects without labels: its pods all run on Fargate, where S3 Files does not mount. */
export function fargateNamespaceErrors(cluster: eks.ICluster, namespace: string, claimName: string): string[] {
  return asErrors(() => {
    for (const profile of fargateProfilesOf(cluster)) {
      const unlabelled = (s: eks.Selector) => s.labels === undefined || Object.keys(s.labels).length === 0;
      const selector = profile.selectors.find((s) => selects(s.namespace, namespace) && unlabelled(s));
      if (!selector) continue;
      invalid(cluster, 'namespace', namespace, `the Fargate profile ${profile.path} selects every pod of it, so the pods of claim ${describe(claimName)} run on Fargate, and `
        + '"EKS Fargate doesn\'t support S3 Files" (EKS user guide)',
      'put the claim in a namespace no Fargate profile selects, or give that profile\'s selector labels the pods that mount S3 Files do not carry');
    }
  });
}

/**
 * Dynamic provisioning's rights. The controller: AmazonS3FilesCSIDriverPolicy's four statements,
 * each action on its documented resource type where one exists (the library's `grant()` table):
 * CreateAccessPoint on this file system and DeleteAccessPoint on its access points, with the
 * policy's tag conditions; ListAccessPoints and ListFileSystems, which the driver calls without
 * naming a resource it could be scoped to, and TagResource, allowed only inside a
 * CreateAccessPoint (s3files:CreateAction) that is itself scoped, on `*` as the policy has them.
 * The nodes: the client actions through any access point of the file system (the driver creates
 * them at run time), direct reads and amazon-efs-utils' telemetry. The nodes' network, as for volumes.
 */
export function grantDynamicProvisioning(cluster: eks.ICluster, driver: Driver, fs: IS3FilesFileSystem, directReads: boolean): void {
  const scope = driver.scope;
  if (!driver.controllerRole) {
    const role = podIdentityRole(scope, 'ControllerRole', 'the Amazon EFS CSI driver\'s controller (efs-csi-controller-sa): creates and deletes access points for dynamic '
      + 'provisioning');
    driver.controllerRole = role;
    const association = associate(scope, cluster, 'ControllerAssociation', CONTROLLER_SA, role);
    driver.addon?.node.addDependency(association);
  }
  const target = { fileSystemArn: fs.fileSystemArn };
  const [create] = scopeActions(scope, ['s3files:CreateAccessPoint'], target);
  const [remove] = scopeActions(scope, ['s3files:DeleteAccessPoint'], target);
  const requestTag = {
    'Null': { [`aws:RequestTag/${CLUSTER_TAG}`]: 'false' },
    'ForAllValues:StringEquals': { 'aws:TagKeys': CLUSTER_TAG },
  };
  const controller: ScopedStatement[] = [
    { actions: ['s3files:ListAccessPoints', 's3files:ListFileSystems'], resources: ['*'] },
    { ...create, conditions: requestTag },
    { actions: ['s3files:TagResource'], resources: ['*'], conditions: { StringEquals: { 's3files:CreateAction': 'CreateAccessPoint' }, ...requestTag } },
    { ...remove, conditions: { Null: { [`aws:ResourceTag/${CLUSTER_TAG}`]: 'false' } } },
  ];
  const stack = Stack.of(scope);
  checkClientAccount(scope, 'the cluster', driver.nodeRole, fs, CLIENT_READ_WRITE_ACTIONS);
  grantScoped(scope, driver.controllerRole, controller, `dynamic provisioning on ${fs.node.path}`, { fileSystemArn: fs.fileSystemArn, write: false });
  const owner = Construct.isConstruct(driver.controllerRole) ? driver.controllerRole : scope;
  acknowledge(owner, 'AwsSolutions-IAM5[Resource::*]',
    'AmazonS3FilesCSIDriverPolicy\'s own resources: the driver lists file systems and access points without naming one, and TagResource is allowed '
    + 'only inside CreateAccessPoint (s3files:CreateAction), which is scoped to the file system and the efs.csi.aws.com/cluster tag.');
  acknowledge(owner, `AwsSolutions-IAM5[${findingResource(owner, remove.resources[0])}]`,
    'DeleteAccessPoint on the access points of this file system that carry the efs.csi.aws.com/cluster tag the driver gives the ones it creates (AmazonS3FilesCSIDriverPolicy\'s '
      + 'condition).');

  // Any access point of the file system: the driver creates them at run time.
  const anyAccessPoint = `${fs.fileSystemArn}/access-point/*`;
  const client = clientStatement(fs.fileSystemArn, CLIENT_READ_WRITE_ACTIONS);
  const nodes: ScopedStatement[] = [
    { ...client, conditions: { ArnLike: { 's3files:AccessPointArn': anyAccessPoint } } },
    ...efsUtilsTelemetryStatements(stack),
  ];
  if (directReads) {
    if (!fs.bucket) {
      invalid(scope, 'fileSystem', fs.node.path, 'the nodes\' direct-read grant needs the file system\'s bucket, which it was imported without',
        'give `bucket` (and `prefix`) to `S3FilesFileSystem.fromFileSystemAttributes()`, or set `grantDirectReads` to false');
    }
    nodes.push(...directReadStatements(stack, { bucket: fs.bucket, prefix: fs.prefix ?? '', bucketEncryptionKey: fs.bucketEncryptionKey }, { listBucket: true }));
  }
  grantScoped(scope, driver.nodeRole, nodes, `mounting the access points dynamic provisioning creates on ${fs.node.path}`,
    { fileSystemArn: fs.fileSystemArn, accessPointArn: undefined, write: true });
  acknowledgeClientFindings(scope, driver.nodeRole, nodes);
  if (!driver.nodes) refuseNoClusterSecurityGroup(cluster);
  openNfs(scope, fs, driver.nodes, undefined, 'the cluster');
}
