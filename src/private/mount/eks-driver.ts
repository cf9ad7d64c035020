import { Token } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as eks from 'aws-cdk-lib/aws-eks';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct, IConstruct } from 'constructs';
import { EksCluster } from './eks-cluster';
import type { IS3FilesFileSystem } from '../../s3files-file-system-contract';
import { checkProps } from '../argument-shapes';
import { findState, stateOf } from '../construct-state';
import { invalid, warnUnresolved } from '../messages';

// The plumbing of EksMount: the Amazon EFS CSI driver's (3.0.0 or later) identities and what the
// library remembers of each cluster. Sources, quoted in docs/kubernetes.md: the S3 user guide
// ("Mounting S3 file systems on Amazon EKS"), the EKS user guide, AmazonS3FilesCSIDriverPolicy,
// and kubernetes-sigs/aws-efs-csi-driver (v3.4.1).

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

/** What `EksMount.installDriver()` takes (the public `EksDriverOptions`, which this module does not import). */
export interface DriverOptions {
  readonly addonVersion?: string;
  readonly existingDriverVersion?: string;
  readonly nodeRole?: iam.IRole;
  readonly controllerRole?: iam.IRole;
  readonly installPodIdentityAgent?: boolean;
  readonly nodeSecurityGroups?: ec2.ISecurityGroup[];
}

/** What the library keeps per cluster. */
export interface Driver {
  readonly cluster: EksCluster;
  readonly scope: Construct;
  readonly nodeRole: iam.IRole;
  readonly controllerRole: iam.IRole;
  /** The controller's role is the user's (`controllerRole`): no Pod Identity association was made for it. */
  readonly ownControllerRole: boolean;
  /** The driver add-on, when the library installs it. */
  readonly addon?: IConstruct;
  /** The Pod Identity agent add-on the driver waits for, when there is one. */
  readonly agent?: IConstruct;
  readonly installPodIdentityAgent?: boolean;
  /** The nodes' network identity: the cluster security group and `nodeSecurityGroups`; undefined when neither is known. */
  readonly nodes?: ec2.IConnectable;
  readonly nodeSecurityGroups: ec2.ISecurityGroup[];
  /** The namespace of each volume, by `namespace/claimName`. */
  readonly volumes: Map<string, { readonly namespace: string; readonly claimName: string }>;
  readonly storageClasses: Set<string>;
  /** The file systems mounted on the cluster (volumes and storage classes), by construct path. */
  readonly fileSystems: Map<string, IS3FilesFileSystem>;
  /** The file systems dynamic provisioning was granted on, with their `grantDirectReads`. */
  readonly provisioned: Map<string, boolean>;
}

export const STATE = 'cdk-s3files-lambda.EksDriver';

/** The driver declared on the cluster, or an error saying to declare it. */
export function driverOf(cluster: EksCluster): Driver {
  const driver = findState<Driver>(cluster.construct, STATE);
  if (!driver) {
    invalid(cluster.construct, 'cluster', cluster.construct.node.path, 'the library does not know how the Amazon EFS CSI driver (3.0.0 or later) runs on this cluster',
      'call `EksMount.installDriver()` first, with `addonVersion` (the add-on to install) or `existingDriverVersion` (the driver it already runs)');
  }
  return driver;
}

/**
 * The driver on a cluster: the add-on (or the driver already there), and both service accounts'
 * roles with their Pod Identity associations, made before the add-on so that its pods start with
 * credentials (a storage class added in a later deployment then finds the controller's ready).
 */
export function installDriver(cluster: EksCluster, options: DriverOptions): Driver {
  const c = cluster.construct;
  if (findState<Driver>(c, STATE)) {
    invalid(c, 'cluster', c.node.path, 'the Amazon EFS CSI driver of this cluster is already declared (`EksMount.installDriver()` runs once per cluster)',
      'call `EksMount.installDriver()` once, before `EksMount.onCluster()` and `EksMount.addStorageClass()`');
  }
  const { addonVersion, existingDriverVersion } = options;
  if ((addonVersion === undefined) === (existingDriverVersion === undefined)) {
    invalid(c, 'addonVersion', addonVersion, 'give either the add-on version to install (`addonVersion`) or the version of the driver the cluster already runs '
      + '(`existingDriverVersion`)',
    'pass `addonVersion` such as "v3.0.0-eksbuild.1" (`aws eks describe-addon-versions --addon-name aws-efs-csi-driver` lists them), or `existingDriverVersion`');
  }
  if (addonVersion !== undefined) checkDriverVersion(c, 'addonVersion', addonVersion, /^v(\d+)\.(\d+)\.(\d+)-eksbuild\.\d+$/, '"v3.0.0-eksbuild.1"');
  if (existingDriverVersion !== undefined) checkDriverVersion(c, 'existingDriverVersion', existingDriverVersion, /^v?(\d+)\.(\d+)\.(\d+)(?:-eksbuild\.\d+)?$/, '"3.4.1"');
  checkProps(c, options, { nodeSecurityGroups: ['securityGroup'], nodeRole: 'role', controllerRole: 'role' });
  const nodeSecurityGroups = options.nodeSecurityGroups ?? [];

  const scope = new Construct(c as unknown as Construct, 'S3FilesCsiDriver');
  const before: IConstruct[] = [];
  const nodeRole = options.nodeRole ?? podIdentityRole(scope, 'NodeRole', 'the Amazon EFS CSI driver\'s node daemonset (efs-csi-node-sa): mounts S3 Files');
  if (!options.nodeRole) before.push(associate(scope, cluster, 'NodeAssociation', NODE_SA, nodeRole));
  const controllerRole = options.controllerRole ?? podIdentityRole(scope, 'ControllerRole',
    'the Amazon EFS CSI driver\'s controller (efs-csi-controller-sa): creates and deletes access points for dynamic provisioning');
  if (!options.controllerRole) before.push(associate(scope, cluster, 'ControllerAssociation', CONTROLLER_SA, controllerRole));
  const agent = podIdentityAgent(scope, cluster, options.installPodIdentityAgent);
  if (agent) before.push(agent);
  let addon: IConstruct | undefined;
  if (addonVersion !== undefined) {
    addon = cluster.addon(scope, 'Addon', ADDON, addonVersion);
    addon.node.addDependency(...before);
  }
  const groups = [...(cluster.securityGroup ? [cluster.securityGroup] : []), ...nodeSecurityGroups];
  return stateOf<Driver>(c, STATE, () => ({
    cluster,
    scope,
    nodeRole,
    controllerRole,
    ownControllerRole: options.controllerRole !== undefined,
    addon,
    agent,
    installPodIdentityAgent: options.installPodIdentityAgent,
    nodes: groups.length > 0 ? { connections: new ec2.Connections({ securityGroups: groups }) } : undefined,
    nodeSecurityGroups,
    volumes: new Map(),
    storageClasses: new Set(),
    fileSystems: new Map(),
    provisioned: new Map(),
  }));
}

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

/** A role for a driver service account, trusted by EKS Pod Identity (the EKS user guide's trust policy: sts:AssumeRole and sts:TagSession). */
function podIdentityRole(scope: Construct, id: string, description: string): iam.Role {
  return new iam.Role(scope, id, { assumedBy: new iam.SessionTagsPrincipal(new iam.ServicePrincipal('pods.eks.amazonaws.com')), description: `Role of ${description}` });
}

function associate(scope: Construct, cluster: EksCluster, id: string, serviceAccount: string, role: iam.IRole): eks.CfnPodIdentityAssociation {
  return new eks.CfnPodIdentityAssociation(scope, id, {
    clusterName: cluster.clusterName, namespace: NAMESPACE, serviceAccount, roleArn: role.roleArn,
  });
}

/**
 * The Pod Identity agent add-on: the cluster's own for a `Cluster` of this app (unless the app has
 * one for it already), and none on EKS Auto Mode unless asked ("You do not need to install the EKS
 * Pod Identity Agent on EKS Auto Mode Clusters", EKS user guide); a new one for an imported
 * cluster only when asked.
 */
function podIdentityAgent(scope: Construct, cluster: EksCluster, install: boolean | undefined): IConstruct | undefined {
  if (cluster.created) {
    const existing = cluster.addons(POD_IDENTITY_AGENT)[0];
    if (existing) return existing;
    if (install === false || (install === undefined && cluster.autoMode)) return undefined;
    return cluster.ownPodIdentityAgent();
  }
  return install ? cluster.addon(scope, 'PodIdentityAgent', POD_IDENTITY_AGENT) : undefined;
}
