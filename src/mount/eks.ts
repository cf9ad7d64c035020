import { Stack, Token } from 'aws-cdk-lib';
import * as autoscaling from 'aws-cdk-lib/aws-autoscaling';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as eks from 'aws-cdk-lib/aws-eks';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct, IConstruct } from 'constructs';
import { S3FilesMountOptions } from './options';
import { CLIENT_READ_WRITE_ACTIONS } from '../private/client-actions';
import { clusterSecurityGroup, clusterVpc, fargateProfileSelection } from '../private/compat';
import { findState, stateOf } from '../private/construct-state';
import { checkSameRegion } from '../private/environment';
import { acknowledgeClientFindings, clientStatement, directReadStatements, efsUtilsTelemetryStatements, grantScoped, ScopedStatement } from '../private/grants';
import { describe, invalid, warnUnresolved } from '../private/messages';
import { checkClientAccount, mountAccessPoint } from '../private/mount-pipeline';
import { acknowledge, findingResource } from '../private/nag';
import { openNfs } from '../private/network';
import { scopeActions } from '../private/s3files-actions';
import { validatePermissions, validatePosixId } from '../private/validation';
import type { IS3FilesAccessPoint } from '../s3files-access-point-contract';
import type { IS3FilesFileSystem } from '../s3files-file-system-contract';

// EKS: the Amazon EFS CSI driver (3.0.0 or later) mounts S3 file systems as persistent volumes.
// Sources, quoted in docs/kubernetes.md: the S3 user guide ("Mounting S3 file systems on Amazon
// EKS"), the EKS user guide ("Use Amazon S3 file system storage with the Amazon EFS CSI driver"),
// the AWS managed policy AmazonS3FilesCSIDriverPolicy, and kubernetes-sigs/aws-efs-csi-driver.

/** The CSI driver's name (every S3 Files example's `provisioner` and `csi.driver`). */
const DRIVER = 'efs.csi.aws.com';
/** The EKS add-on that installs the driver. */
const ADDON = 'aws-efs-csi-driver';
/** The add-on that lets pods use EKS Pod Identity. */
const POD_IDENTITY_AGENT = 'eks-pod-identity-agent';
/** "Amazon S3 Files support in Amazon EFS CSI driver starts from version 3.0.0" (EKS user guide). */
const MIN_DRIVER_VERSION = [3, 0, 0] as const;
/** The driver's service accounts (its Helm chart's values.yaml; the EKS user guide's associations). */
const NAMESPACE = 'kube-system';
const CONTROLLER_SA = 'efs-csi-controller-sa';
const NODE_SA = 'efs-csi-node-sa';
/** The tag the driver puts on every access point it creates (pkg/driver/controller.go DefaultTagKey), which AmazonS3FilesCSIDriverPolicy keys on. */
const CLUSTER_TAG = 'efs.csi.aws.com/cluster';
/** A PersistentVolume's capacity is required by Kubernetes and unused by the driver ("You can specify any valid value"); the driver's examples use 5Gi. */
const PLACEHOLDER_CAPACITY = '5Gi';
/** A DNS-1123 label: namespaces and the claim names given here. */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * How the Amazon EFS CSI driver runs on a cluster (`EksMount.installDriver`): the EKS add-on this
 * library installs, or a driver already there. Either way its two service accounts get roles
 * through EKS Pod Identity ("AWS suggests using EKS Pod Identities").
 * @see https://docs.aws.amazon.com/eks/latest/userguide/s3files-csi.html
 */
export interface EksDriverOptions {
  /**
   * The version of the `aws-efs-csi-driver` EKS add-on to install, 3.0.0 or later, as
   * `aws eks describe-addon-versions --addon-name aws-efs-csi-driver` lists them (e.g.
   * `v3.0.0-eksbuild.1`). Give this or `existingDriverVersion`.
   * @default - none: give `existingDriverVersion`
   */
  readonly addonVersion?: string;

  /**
   * The cluster already runs the Amazon EFS CSI driver (the add-on installed elsewhere, or its
   * Helm chart): its version, 3.0.0 or later (e.g. `3.4.1`). The library installs no add-on.
   * Give this or `addonVersion`.
   * @default - none: give `addonVersion`
   */
  readonly existingDriverVersion?: string;

  /**
   * The role of the driver's node daemonset (`efs-csi-node-sa`). Given, the library grants it
   * what the mounts need and creates no Pod Identity association for it.
   * @default - a role assumed by `pods.eks.amazonaws.com`, associated with `kube-system/efs-csi-node-sa`
   */
  readonly nodeRole?: iam.IRole;

  /**
   * The role of the driver's controller (`efs-csi-controller-sa`), which only dynamic
   * provisioning (`EksMount.addStorageClass`) uses. Given, the library grants it what a storage
   * class needs and creates no Pod Identity association for it.
   * @default - with a storage class, a role assumed by `pods.eks.amazonaws.com`, associated with `kube-system/efs-csi-controller-sa`
   */
  readonly controllerRole?: iam.IRole;

  /**
   * Install the EKS Pod Identity Agent add-on (`eks-pod-identity-agent`), without which pods get
   * no Pod Identity credentials.
   * @default - true for a `Cluster` of this app that has no such add-on yet; false for an imported cluster
   */
  readonly installPodIdentityAgent?: boolean;
}

/**
 * How an access point becomes a PersistentVolume and its claim (`EksMount.onCluster`).
 * @see https://github.com/kubernetes-sigs/aws-efs-csi-driver/tree/master/examples/kubernetes/s3files/access_points
 */
export interface EksVolumeOptions extends S3FilesMountOptions {
  /**
   * The claim's name, without the access point id the library appends (`<claimName>-<fsap-...>`):
   * Kubernetes never rebinds a claim, so a replaced access point gets a new volume and a new claim.
   * A DNS label: lower-case letters, digits and `-`, at most 63 characters.
   */
  readonly claimName: string;

  /**
   * The namespace of the claim; it must exist (the library does not create or delete namespaces).
   * @default 'default'
   */
  readonly namespace?: string;
}

/** The PersistentVolume and claim `EksMount.onCluster` made. */
export interface EksVolume {
  /** The claim's name (`<claimName>-<access point id>`): what pods put in `persistentVolumeClaim.claimName`. */
  readonly claimName: string;
  /** The claim's namespace. */
  readonly namespace: string;
  /** The PersistentVolume's name. */
  readonly persistentVolumeName: string;
  /** The manifest holding both: make your workloads depend on it. */
  readonly manifest: eks.KubernetesManifest;
}

/**
 * A StorageClass for dynamic provisioning (`EksMount.addStorageClass`): the driver's controller
 * creates an access point per claim (`provisioningMode: s3files-ap`).
 * @see https://github.com/kubernetes-sigs/aws-efs-csi-driver/tree/master/examples/kubernetes/s3files/dynamic_provisioning
 */
export interface EksStorageClassOptions {
  /** The StorageClass's name (what claims put in `storageClassName`). */
  readonly storageClassName: string;

  /**
   * The permissions of each access point's root directory (`directoryPerms`).
   * @default '700'
   */
  readonly directoryPerms?: string;

  /**
   * The directory under which the access points' directories are created (`basePath`).
   * @default - the file system's root
   */
  readonly basePath?: string;

  /**
   * The POSIX user id of every access point (`uid`).
   * @default - one id per access point from the group id range
   */
  readonly uid?: number;

  /**
   * The POSIX group id of every access point (`gid`).
   * @default - one id per access point from the group id range
   */
  readonly gid?: number;

  /**
   * The start of the range the driver takes ids from (`gidRangeStart`); give `gidRangeEnd` too.
   * @default 50000 (the driver's)
   */
  readonly gidRangeStart?: number;

  /**
   * The end of that range (`gidRangeEnd`); give `gidRangeStart` too.
   * @default 7000000 (the driver's)
   */
  readonly gidRangeEnd?: number;

  /**
   * The sub-path pattern of each access point's directory (`subPathPattern`), e.g.
   * `${.PVC.namespace}/${.PVC.name}`.
   * @default - the driver's: `/${.PV.name}`
   */
  readonly subPathPattern?: string;

  /**
   * Grant the driver's node role reads straight from the bucket (as `S3FilesMountOptions`).
   * @default true
   */
  readonly grantDirectReads?: boolean;
}

/** The StorageClass `EksMount.addStorageClass` made. */
export interface EksStorageClass {
  /** The StorageClass's name. */
  readonly storageClassName: string;
  /** Its manifest. */
  readonly manifest: eks.KubernetesManifest;
}

/** What the library keeps per cluster. */
interface Driver {
  readonly scope: Construct;
  readonly nodeRole: iam.IRole;
  readonly options: EksDriverOptions;
  /** The resources the driver's pods must not start before (Pod Identity associations, the agent). */
  readonly before: IConstruct[];
  /** The driver add-on, when the library installs it. */
  readonly addon?: eks.Addon;
  /** The nodes' network identity: the cluster security group. */
  readonly nodes?: ec2.IConnectable;
  controllerRole?: iam.IRole;
  readonly volumes: Set<string>;
  readonly fileSystems: Set<string>;
}

const STATE = 'cdk-s3files-lambda.EksDriver';

/**
 * Mounts S3 Files on Amazon EKS through the Amazon EFS CSI driver (3.0.0 or later): the driver and
 * its IAM (`installDriver`), static volumes from access points (`onCluster`), and storage classes
 * for dynamic provisioning (`addStorageClass`). Not on EKS Fargate, Windows nodes or Hybrid Nodes.
 * @see https://docs.aws.amazon.com/AmazonS3/latest/userguide/s3-files-mounting-eks.html
 */
export class EksMount {
  /**
   * Declares how the Amazon EFS CSI driver runs on the cluster: installs the `aws-efs-csi-driver`
   * add-on at `addonVersion` (or takes the driver already there, `existingDriverVersion`), both
   * 3.0.0 or later; creates the role of its node daemonset and associates it with
   * `kube-system/efs-csi-node-sa` through EKS Pod Identity (the add-on waits for the association,
   * so the driver's pods start with credentials). Once per cluster, before `onCluster` and
   * `addStorageClass`.
   * @param cluster a cluster of this app or an imported one (with a kubectl provider or role)
   * @param options the add-on version, or the version of the driver already there
   */
  public static installDriver(cluster: eks.ICluster, options: EksDriverOptions): void {
    if (findState<Driver>(cluster, STATE)) {
      invalid(cluster, 'cluster', cluster.node.path, 'the Amazon EFS CSI driver of this cluster is already declared (`EksMount.installDriver()` runs once per cluster)',
        'call `EksMount.installDriver()` once, before `EksMount.onCluster()` and `EksMount.addStorageClass()`');
    }
    const { addonVersion, existingDriverVersion } = options;
    if ((addonVersion === undefined) === (existingDriverVersion === undefined)) {
      invalid(cluster, 'addonVersion', addonVersion, 'give either the add-on version to install (`addonVersion`) or the version of the driver the cluster already runs (`existingDriverVersion`)',
        'pass `addonVersion` such as "v3.0.0-eksbuild.1" (`aws eks describe-addon-versions --addon-name aws-efs-csi-driver` lists them), or `existingDriverVersion`');
    }
    if (addonVersion !== undefined) checkDriverVersion(cluster, 'addonVersion', addonVersion, /^v(\d+)\.(\d+)\.(\d+)-eksbuild\.\d+$/, '"v3.0.0-eksbuild.1"');
    if (existingDriverVersion !== undefined) checkDriverVersion(cluster, 'existingDriverVersion', existingDriverVersion, /^v?(\d+)\.(\d+)\.(\d+)(?:-eksbuild\.\d+)?$/, '"3.4.1"');

    const scope = new Construct(cluster as unknown as Construct, 'S3FilesCsiDriver');
    const before: IConstruct[] = [];
    const nodeRole = options.nodeRole ?? podIdentityRole(scope, 'NodeRole', 'the Amazon EFS CSI driver\'s node daemonset (efs-csi-node-sa): mounts S3 Files');
    if (!options.nodeRole) before.push(associate(scope, cluster, 'NodeAssociation', NODE_SA, nodeRole));
    const agent = podIdentityAgent(scope, cluster, options.installPodIdentityAgent);
    if (agent) before.push(agent);
    let addon: eks.Addon | undefined;
    if (addonVersion !== undefined) {
      addon = new eks.Addon(scope, 'Addon', { cluster, addonName: ADDON, addonVersion });
      addon.node.addDependency(...before);
    }
    const group = clusterSecurityGroup(cluster);
    stateOf<Driver>(cluster, STATE, () => ({
      scope,
      nodeRole,
      options,
      before,
      addon,
      nodes: group ? { connections: new ec2.Connections({ securityGroups: [group] }) } : undefined,
      controllerRole: options.controllerRole,
      volumes: new Set(),
      fileSystems: new Set(),
    }));
    scope.node.addValidation({ validate: () => topologyErrors(cluster) });
  }

  /**
   * Makes an access point a PersistentVolume of the cluster (`volumeHandle`
   * `s3files:<file system id>::<access point id>`; never the file system's root, which the
   * library's file-system policy denies) and a claim bound to it in `namespace`; grants the
   * driver's node role what mounting it needs (scoped to the access point, with direct reads and
   * amazon-efs-utils' telemetry); lets the nodes (the cluster security group) reach the mount
   * targets (one rule per cluster); checks the VPC, region and the node groups' AZs; and creates
   * both only once the access point and the mount targets are available.
   * @param cluster a cluster with `EksMount.installDriver()` declared
   * @param accessPoint the access point to mount
   * @param options the claim's name and namespace, and what the pods may do
   * @returns the claim, the volume and their manifest
   */
  public static onCluster(cluster: eks.ICluster, accessPoint: IS3FilesAccessPoint, options: EksVolumeOptions): EksVolume {
    const driver = driverOf(cluster);
    const fs = accessPoint.fileSystem;
    const namespace = options.namespace ?? 'default';
    checkName(cluster, 'namespace', namespace, DNS_LABEL, 63, '"default" or "my-app"');
    checkName(cluster, 'claimName', options.claimName, DNS_LABEL, 63, '"data"');
    const key = `${namespace}/${options.claimName}`;
    if (driver.volumes.has(key)) {
      invalid(cluster, 'claimName', options.claimName, `the cluster already has an S3 Files claim of that name in namespace ${namespace}`, 'give each volume its own `claimName` (or `namespace`)');
    }
    driver.volumes.add(key);
    checkClusterVpc(cluster, fs);
    const readOnly = options.readOnly ?? false;
    const claimName = `${options.claimName}-${accessPoint.accessPointId}`;
    const persistentVolumeName = `s3files-${namespace}-${claimName}`;
    const persistentVolume = {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: persistentVolumeName },
      spec: {
        capacity: { storage: PLACEHOLDER_CAPACITY },
        volumeMode: 'Filesystem',
        // The driver serves SINGLE_NODE_WRITER and MULTI_NODE_MULTI_WRITER only (pkg/driver/node.go):
        // a read-only volume is a read-only mount (csi.readOnly), not ReadOnlyMany.
        accessModes: ['ReadWriteMany'],
        persistentVolumeReclaimPolicy: 'Retain',
        storageClassName: '',
        claimRef: { namespace, name: claimName },
        csi: {
          driver: DRIVER,
          volumeHandle: `s3files:${fs.fileSystemId}::${accessPoint.accessPointId}`,
          ...(readOnly ? { readOnly: true } : {}),
        },
        // "The Amazon EFS CSI driver isn't compatible with Windows-based container images": pods
        // using the claim are scheduled on Linux nodes only.
        nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/os', operator: 'In', values: ['linux'] }] }] } },
      },
    };
    const claim = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: claimName, namespace },
      spec: {
        accessModes: ['ReadWriteMany'],
        storageClassName: '',
        volumeName: persistentVolumeName,
        resources: { requests: { storage: PLACEHOLDER_CAPACITY } },
      },
    };
    const manifest = new eks.KubernetesManifest(driver.scope, `Volume:${namespace}:${options.claimName}`, { cluster, manifest: [persistentVolume, claim] });
    if (driver.addon) manifest.node.addDependency(driver.addon);
    driver.scope.node.addValidation({ validate: () => fargateNamespaceErrors(cluster, namespace, options.claimName) });

    mountAccessPoint(accessPoint, {
      scope: driver.scope,
      what: 'the cluster',
      grantee: driver.nodeRole,
      connectable: driver.nodes ?? refuseNoClusterSecurityGroup(cluster),
      launcher: manifest,
      subnetIds: nodeSubnetIds(cluster),
      unknownAzWarning: `The availability zones of ${cluster.node.path}'s nodes are not known at synth time (no managed node group of this app), so the library cannot check that each has a mount target of ${fs.node.path}. `
        + 'A pod on a node in an AZ without one cannot mount.',
      efsUtils: true,
      readOnlyFlag: true,
      directReads: options.grantDirectReads ?? true,
    }, options);
    return { claimName, namespace, persistentVolumeName, manifest };
  }

  /**
   * Adds a StorageClass for dynamic provisioning on the file system (`provisioningMode:
   * s3files-ap`): the driver's controller creates an access point per claim, tagged
   * `efs.csi.aws.com/cluster`, and deletes it with the volume. Grants the controller's role
   * AmazonS3FilesCSIDriverPolicy's statements scoped to this file system where their resource
   * types allow (creating access points on it, deleting its tagged ones; listing and tagging at
   * creation stay on `*`), and the node role the client actions through any access point of the
   * file system, with direct reads and amazon-efs-utils' telemetry; lets the nodes reach the
   * mount targets.
   * @param cluster a cluster with `EksMount.installDriver()` declared
   * @param fileSystem the file system the access points are created on
   * @param options the StorageClass's name and parameters
   * @returns the StorageClass and its manifest
   */
  public static addStorageClass(cluster: eks.ICluster, fileSystem: IS3FilesFileSystem, options: EksStorageClassOptions): EksStorageClass {
    const driver = driverOf(cluster);
    const name = options.storageClassName;
    checkName(cluster, 'storageClassName', name, DNS_SUBDOMAIN, 253, '"s3files"');
    checkSameRegion(driver.scope, fileSystem.node.path, regionOf(fileSystem), 'clients mount a file system only from a VPC in its region', 'mount it');
    checkClusterVpc(cluster, fileSystem);
    const parameters: Record<string, string> = {
      provisioningMode: 's3files-ap',
      fileSystemId: fileSystem.fileSystemId,
      directoryPerms: options.directoryPerms ?? '700',
    };
    if (options.directoryPerms !== undefined) validatePermissions(cluster, options.directoryPerms);
    if (options.basePath !== undefined) parameters.basePath = options.basePath;
    for (const [prop, value] of [['uid', options.uid], ['gid', options.gid], ['gidRangeStart', options.gidRangeStart], ['gidRangeEnd', options.gidRangeEnd]] as const) {
      if (value === undefined) continue;
      validatePosixId(cluster, prop, value);
      parameters[prop] = Token.isUnresolved(value) ? Token.asString(value) : String(value);
    }
    if ((options.gidRangeStart === undefined) !== (options.gidRangeEnd === undefined)) {
      invalid(cluster, options.gidRangeStart === undefined ? 'gidRangeEnd' : 'gidRangeStart', options.gidRangeStart ?? options.gidRangeEnd,
        'the driver takes a custom group id range only with both ends ("If you specify one, the other becomes mandatory")', 'give both `gidRangeStart` and `gidRangeEnd`, or neither');
    }
    if (options.subPathPattern !== undefined) parameters.subPathPattern = options.subPathPattern;
    const storageClass = { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name }, provisioner: DRIVER, parameters };
    const manifest = new eks.KubernetesManifest(driver.scope, `StorageClass:${name}`, { cluster, manifest: [storageClass] });
    manifest.node.addDependency(fileSystem.mountTargetsAvailable);
    if (driver.addon) manifest.node.addDependency(driver.addon);

    if (!driver.fileSystems.has(fileSystem.node.path)) {
      driver.fileSystems.add(fileSystem.node.path);
      grantDynamicProvisioning(cluster, driver, fileSystem, options.grantDirectReads ?? true);
    }
    return { storageClassName: name, manifest };
  }
}

/** A version string of the driver, 3.0.0 or later. */
function checkDriverVersion(scope: IConstruct, prop: string, version: string, format: RegExp, example: string): void {
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

function checkName(scope: IConstruct, prop: string, value: string, format: RegExp, max: number, example: string): void {
  if (typeof value !== 'string') invalid(scope, prop, value, 'it must be a string', `use a name such as ${example}`);
  if (Token.isUnresolved(value)) {
    invalid(scope, prop, value, 'it becomes part of Kubernetes object names, which the library checks and derives at synth', `use a literal such as ${example}`);
  }
  if (value.length > max || !format.test(value)) {
    invalid(scope, prop, value, `Kubernetes names are lower-case letters, digits and "-"${format === DNS_SUBDOMAIN ? ' or "."' : ''}, starting and ending with a letter or digit, at most ${max} characters`,
      `use a name such as ${example}`);
  }
}

/** The driver declared on the cluster, or an error saying to declare it. */
function driverOf(cluster: eks.ICluster): Driver {
  const driver = findState<Driver>(cluster, STATE);
  if (!driver) {
    invalid(cluster, 'cluster', cluster.node.path, 'the library does not know how the Amazon EFS CSI driver (3.0.0 or later) runs on this cluster',
      'call `EksMount.installDriver()` first, with `addonVersion` (the add-on to install) or `existingDriverVersion` (the driver it already runs)');
  }
  return driver;
}

/** A role for a driver service account, trusted by EKS Pod Identity (the EKS user guide's trust policy: sts:AssumeRole and sts:TagSession). */
function podIdentityRole(scope: Construct, id: string, description: string): iam.Role {
  return new iam.Role(scope, id, { assumedBy: new iam.SessionTagsPrincipal(new iam.ServicePrincipal('pods.eks.amazonaws.com')), description: `Role of ${description}` });
}

function associate(scope: Construct, cluster: eks.ICluster, id: string, serviceAccount: string, role: iam.IRole): eks.CfnPodIdentityAssociation {
  return new eks.CfnPodIdentityAssociation(scope, id, {
    clusterName: cluster.clusterName, namespace: NAMESPACE, serviceAccount, roleArn: role.roleArn,
  });
}

/** The Pod Identity agent add-on: aws-eks's own for a Cluster of this app (unless one exists), a new one for an imported cluster only when asked. */
function podIdentityAgent(scope: Construct, cluster: eks.ICluster, install: boolean | undefined): IConstruct | undefined {
  if (cluster instanceof eks.Cluster) {
    // (aws-eks allows one Cluster per stack: an agent add-on anywhere in its stack is this cluster's)
    const existing = Stack.of(cluster).node.findAll().find((c) => c instanceof eks.CfnAddon && c.addonName === POD_IDENTITY_AGENT);
    if (existing) return existing;
    return install === false ? undefined : cluster.eksPodIdentityAgent;
  }
  return install ? new eks.Addon(scope, 'PodIdentityAgent', { cluster, addonName: POD_IDENTITY_AGENT }) : undefined;
}

function refuseNoClusterSecurityGroup(cluster: eks.ICluster): never {
  invalid(cluster, 'clusterSecurityGroupId', undefined, 'the nodes reach the mount targets through the cluster security group, which this imported cluster was given without',
    'give `clusterSecurityGroupId` to `Cluster.fromClusterAttributes()`');
}

/** "Your EKS cluster must be in the same VPC as your mount target" (S3 user guide). */
function checkClusterVpc(cluster: eks.ICluster, fs: IS3FilesFileSystem): void {
  const ours = clusterVpc(cluster);
  if (!ours || !fs.vpc || ours === fs.vpc) return;
  const stack = Stack.of(cluster);
  const a = stack.resolve(ours.vpcId);
  const b = stack.resolve(fs.vpc.vpcId);
  const bothCreated = ours instanceof ec2.Vpc && fs.vpc instanceof ec2.Vpc;
  const bothLiteral = typeof a === 'string' && typeof b === 'string';
  if (bothCreated || (bothLiteral && a !== b)) {
    invalid(cluster, 'vpc', ours.node.path, `the cluster is in another VPC than the mount targets of ${fs.node.path} (${fs.vpc.node.path}): "Your EKS cluster must be in the same VPC as your mount target" (S3 user guide)`,
      'create the cluster in the file system\'s `vpc`, or give the file system mount targets in the cluster\'s VPC');
  }
}

function regionOf(fs: IS3FilesFileSystem): string | undefined {
  const region = fs.env?.region;
  return region === undefined || Token.isUnresolved(region) ? undefined : region;
}

/** The managed node groups of this app on the cluster. */
function nodegroupsOf(cluster: eks.ICluster): eks.Nodegroup[] {
  return cluster.node.root.node.findAll().filter((c): c is eks.Nodegroup => c instanceof eks.Nodegroup && c.cluster === cluster);
}

/** The subnets of the cluster's managed node groups (the AZ check), when there are any. */
function nodeSubnetIds(cluster: eks.ICluster): unknown {
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
function topologyErrors(cluster: eks.ICluster): string[] {
  if (!(cluster instanceof eks.Cluster)) return [];
  const nodegroups = nodegroupsOf(cluster);
  const windows = nodegroups.filter((ng) => String((ng.node.defaultChild as eks.CfnNodegroup).amiType ?? '').startsWith('WINDOWS_'));
  // Self-managed capacity: the default EC2 capacity, or groups added with `addAutoScalingGroupCapacity()` (children of the cluster).
  const selfManaged = cluster.defaultCapacity !== undefined || cluster.node.findAll().some((c) => c instanceof autoscaling.AutoScalingGroup);
  return asErrors(() => {
    if (nodegroups.length === 0 && !selfManaged && (cluster instanceof eks.FargateCluster || fargateProfilesOf(cluster).length > 0)) {
      invalid(cluster, 'cluster', cluster.node.path, 'its pods run on Fargate only, and "EKS Fargate doesn\'t support S3 Files" (EKS user guide)',
        'give the cluster a managed node group of Linux nodes (`cluster.addNodegroupCapacity()`) for the pods that mount S3 Files');
    }
    if (nodegroups.length > 0 && windows.length === nodegroups.length && !selfManaged) {
      const ng = windows[0].node.defaultChild as eks.CfnNodegroup;
      invalid(windows[0], 'amiType', ng.amiType, 'the cluster\'s managed node groups are all Windows, and "The Amazon EFS CSI driver isn\'t compatible with Windows-based container images" (EKS user guide)',
        'add a node group with a Linux AMI type (the volumes\' node affinity keeps their pods on Linux nodes)');
    }
  });
}

/** A claim in a namespace a Fargate profile selects without labels: its pods all run on Fargate, where S3 Files does not mount. */
function fargateNamespaceErrors(cluster: eks.ICluster, namespace: string, claimName: string): string[] {
  return asErrors(() => {
    for (const profile of fargateProfilesOf(cluster)) {
      const selector = profile.selectors.find((s) => s.namespace === namespace && (s.labels === undefined || Object.keys(s.labels).length === 0));
      if (!selector) continue;
      invalid(cluster, 'namespace', namespace, `the Fargate profile ${profile.path} selects every pod of it, so the pods of claim ${describe(claimName)} run on Fargate, and "EKS Fargate doesn't support S3 Files" (EKS user guide)`,
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
function grantDynamicProvisioning(cluster: eks.ICluster, driver: Driver, fs: IS3FilesFileSystem, directReads: boolean): void {
  const scope = driver.scope;
  if (!driver.controllerRole) {
    const role = podIdentityRole(scope, 'ControllerRole', 'the Amazon EFS CSI driver\'s controller (efs-csi-controller-sa): creates and deletes access points for dynamic provisioning');
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
    'DeleteAccessPoint on the access points of this file system that carry the efs.csi.aws.com/cluster tag the driver gives the ones it creates (AmazonS3FilesCSIDriverPolicy\'s condition).');

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
