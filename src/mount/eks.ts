import { Token } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as eks from 'aws-cdk-lib/aws-eks';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct, IConstruct } from 'constructs';
import { S3FilesMountOptions } from './options';
import { clusterSecurityGroup } from '../private/compat';
import { findState, stateOf } from '../private/construct-state';
import { checkSameRegion } from '../private/environment';
import { invalid } from '../private/messages';
import {
  ADDON, associate, checkClusterVpc, checkDriverVersion, checkName, checkProvisionedPath, DNS_LABEL, DNS_SUBDOMAIN, Driver, DRIVER,
  driverOf, duplicateAddonErrors, fargateNamespaceErrors, grantDynamicProvisioning, NODE_SA, nodeSubnetIds, PLACEHOLDER_CAPACITY,
  podIdentityAgent, podIdentityRole, refuseNoClusterSecurityGroup, regionOf, STATE, topologyErrors,
} from '../private/mount/eks-driver';
import { mountAccessPoint } from '../private/mount/mount-pipeline';
import { requireAccessPoint, requireFileSystem } from '../private/mount/shapes';
import { validatePermissions, validatePosixId } from '../private/validation';
import type { IS3FilesAccessPoint } from '../s3files-access-point-contract';
import type { IS3FilesFileSystem } from '../s3files-file-system-contract';

// EKS: the Amazon EFS CSI driver (3.0.0 or later) mounts S3 file systems as persistent volumes.
// Sources, quoted in docs/kubernetes.md: the S3 user guide ("Mounting S3 file systems on Amazon
// EKS"), the EKS user guide ("Use Amazon S3 file system storage with the Amazon EFS CSI driver"),
// the AWS managed policy AmazonS3FilesCSIDriverPolicy, and kubernetes-sigs/aws-efs-csi-driver.
// The driver's identities, checks and the rights of dynamic provisioning: src/private/eks-driver.ts.

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
   * The claim's name, without the access point id the library appends (`<claimName>-<fsap-...>`,
   * and `-ro` for a read-only volume): Kubernetes never rebinds a claim nor changes a volume's
   * source, so a replaced access point or a change of `readOnly` gets a new volume and a new claim.
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
  /** The claim's name (`<claimName>-<access point id>`, `-ro` appended when read-only): what pods put in `persistentVolumeClaim.claimName`. */
  readonly claimName: string;
  /** The claim's namespace. */
  readonly namespace: string;
  /** The PersistentVolume's name (`s3files.<namespace>.<claim's name>`: volumes are cluster-wide). */
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
  /**
   * The StorageClass's name (what claims put in `storageClassName`). Kubernetes refuses any change
   * to a StorageClass's parameters: to change the options below, or to move the class to another
   * (or a replaced) file system, give a new name in the same deployment (the new class is created,
   * then the old one deleted; existing volumes keep working).
   */
  readonly storageClassName: string;

  /**
   * The permissions of each access point's root directory (`directoryPerms`).
   * @default '700'
   */
  readonly directoryPerms?: string;

  /**
   * The directory under which the access points' directories are created (`basePath`). With
   * the directory the driver adds below it (`subPathPattern`, or the volume's name), at most 4
   * components and 100 characters, none starting with "." (checked at synth).
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
   * `${.PVC.namespace}/${.PVC.name}`; only `${.PVC.name}`, `${.PVC.namespace}` and `${.PV.name}`
   * are replaced, and the driver appends "-" and a 36-character id to it.
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
      invalid(cluster, 'addonVersion', addonVersion, 'give either the add-on version to install (`addonVersion`) or the version of the driver the cluster already runs '
        + '(`existingDriverVersion`)',
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
      before,
      addon,
      nodes: group ? { connections: new ec2.Connections({ securityGroups: [group] }) } : undefined,
      controllerRole: options.controllerRole,
      volumes: new Set(),
      storageClasses: new Set(),
      fileSystems: new Map(),
    }));
    scope.node.addValidation({ validate: () => [...topologyErrors(cluster), ...duplicateAddonErrors(cluster, addon, agent)] });
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
    requireAccessPoint(accessPoint, cluster, 'accessPoint');
    const driver = driverOf(cluster);
    const fs = accessPoint.fileSystem;
    const namespace = options.namespace ?? 'default';
    checkName(cluster, 'namespace', namespace, DNS_LABEL, 63, '"default" or "my-app"');
    checkName(cluster, 'claimName', options.claimName, DNS_LABEL, 63, '"data"');
    const key = `${namespace}/${options.claimName}`;
    if (driver.volumes.has(key)) {
      invalid(cluster, 'claimName', options.claimName, `the cluster already has an S3 Files claim of that name in namespace ${namespace}`, 'give each volume its own `claimName` '
        + '(or `namespace`)');
    }
    driver.volumes.add(key);
    checkClusterVpc(cluster, fs);
    const readOnly = options.readOnly ?? false;
    // A PersistentVolume's source is immutable once created, and a claim's volumeName too: whatever
    // they are made of (the access point, read-only or not) is in both names, so a change gives a
    // new pair (kubectl's prune removes the old one) instead of an update Kubernetes refuses. The
    // volume's name joins namespace and claim with ".", which neither can hold: no two clash.
    const claimName = `${options.claimName}-${accessPoint.accessPointId}${readOnly ? '-ro' : ''}`;
    const persistentVolumeName = `s3files.${namespace}.${claimName}`;
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
    // prune: true whatever the cluster's setting, so that a renamed pair replaces the old one.
    const manifest = new eks.KubernetesManifest(driver.scope, `Volume:${namespace}:${options.claimName}`, { cluster, manifest: [persistentVolume, claim], prune: true });
    if (driver.addon) manifest.node.addDependency(driver.addon);
    driver.scope.node.addValidation({ validate: () => fargateNamespaceErrors(cluster, namespace, options.claimName) });

    mountAccessPoint(accessPoint, {
      scope: driver.scope,
      what: 'the cluster',
      grantee: driver.nodeRole,
      connectable: driver.nodes ?? refuseNoClusterSecurityGroup(cluster),
      launcher: manifest,
      subnetIds: nodeSubnetIds(cluster),
      unknownAzWarning: `The availability zones of ${cluster.node.path}'s nodes are not known at synth time (no managed node group of this app), so the library cannot check `
        + `that each has a mount target of ${fs.node.path}. `
        + 'A pod on a node in an AZ without one cannot mount.',
      efsUtils: true,
      readOnlyFlag: true,
      directReads: options.grantDirectReads ?? true,
      sharedRoleFix: 'The driver\'s node role mounts every S3 Files volume of the cluster: keep read-write volumes and storage classes of this access point (and of its file '
        + 'system) off this cluster, '
        + 'or mount the read-only data through an access point of its own.',
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
    requireFileSystem(fileSystem, cluster, 'fileSystem');
    const driver = driverOf(cluster);
    const name = options.storageClassName;
    checkName(cluster, 'storageClassName', name, DNS_SUBDOMAIN, 253, '"s3files"');
    if (driver.storageClasses.has(name)) {
      invalid(cluster, 'storageClassName', name, 'the cluster already has an S3 Files StorageClass of that name (StorageClasses are cluster-wide)', 'give each storage class its '
        + 'own `storageClassName`');
    }
    driver.storageClasses.add(name);
    checkSameRegion(driver.scope, fileSystem.node.path, regionOf(fileSystem), 'clients mount a file system only from a VPC in its region', 'mount it');
    checkClusterVpc(cluster, fileSystem);
    const parameters: Record<string, string> = {
      provisioningMode: 's3files-ap',
      fileSystemId: fileSystem.fileSystemId,
      directoryPerms: options.directoryPerms ?? '700',
    };
    if (options.directoryPerms !== undefined) validatePermissions(cluster, options.directoryPerms);
    checkProvisionedPath(cluster, options.basePath, options.subPathPattern);
    if (options.basePath !== undefined) parameters.basePath = options.basePath;
    for (const [prop, value] of [['uid', options.uid], ['gid', options.gid], ['gidRangeStart', options.gidRangeStart], ['gidRangeEnd', options.gidRangeEnd]] as const) {
      if (value === undefined) continue;
      validatePosixId(cluster, prop, value);
      parameters[prop] = Token.isUnresolved(value) ? Token.asString(value) : String(value);
    }
    if ((options.gidRangeStart === undefined) !== (options.gidRangeEnd === undefined)) {
      invalid(cluster, options.gidRangeStart === undefined ? 'gidRangeEnd' : 'gidRangeStart', options.gidRangeStart ?? options.gidRangeEnd,
        'the driver takes a custom group id range only with both ends ("If you specify one, the other becomes mandatory")', 'give both `gidRangeStart` and `gidRangeEnd`, or '
          + 'neither');
    }
    if (options.subPathPattern !== undefined) parameters.subPathPattern = options.subPathPattern;
    const storageClass = { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name }, provisioner: DRIVER, parameters };
    const manifest = new eks.KubernetesManifest(driver.scope, `StorageClass:${name}`, { cluster, manifest: [storageClass], prune: true });
    manifest.node.addDependency(fileSystem.mountTargetsAvailable);
    if (driver.addon) manifest.node.addDependency(driver.addon);

    // One node role mounts every storage class's volumes: the file system's grant is made once.
    const directReads = options.grantDirectReads ?? true;
    const granted = driver.fileSystems.get(fileSystem.node.path);
    if (granted === undefined) {
      driver.fileSystems.set(fileSystem.node.path, directReads);
      grantDynamicProvisioning(cluster, driver, fileSystem, directReads);
    } else if (granted !== directReads) {
      invalid(cluster, 'grantDirectReads', directReads, `another storage class of ${fileSystem.node.path} on this cluster has \`grantDirectReads\` ${granted}, and one node role `
        + '(the driver\'s) mounts the volumes of both',
      'give every storage class of one file system on one cluster the same `grantDirectReads`');
    }
    return { storageClassName: name, manifest };
  }

  // Static methods only: no instances (as aws-cdk-lib's `Names` or `Fn`).
  private constructor() {}
}
