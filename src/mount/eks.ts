import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { aws_eks as eksRefs } from 'aws-cdk-lib/interfaces';
import { IConstruct } from 'constructs';
import { S3FilesMountOptions } from './options';
import { EksCluster } from '../private/mount/eks-cluster';
import { addStorageClass, addVolume, declareDriver } from '../private/mount/eks-mount';
import { requireAccessPoint, requireFileSystem } from '../private/mount/shapes';
import type { IS3FilesAccessPoint } from '../s3files-access-point-contract';
import type { IS3FilesFileSystem } from '../s3files-file-system-contract';

// EKS: the Amazon EFS CSI driver (3.0.0 or later) mounts S3 file systems as persistent volumes.
// Sources, quoted in docs/kubernetes.md: the S3 user guide ("Mounting S3 file systems on Amazon
// EKS"), the EKS user guide ("Use Amazon S3 file system storage with the Amazon EFS CSI driver"),
// the AWS managed policy AmazonS3FilesCSIDriverPolicy, and kubernetes-sigs/aws-efs-csi-driver.
// Clusters of aws-eks and aws-eks-v2 alike (src/private/mount/eks-cluster.ts); the driver's
// identities, the checks and the objects: src/private/mount/eks-*.ts.

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
   * @default - a role assumed by `pods.eks.amazonaws.com`, associated with `kube-system/efs-csi-controller-sa` before the add-on starts (rights come with a storage class)
   */
  readonly controllerRole?: iam.IRole;

  /**
   * Install the EKS Pod Identity Agent add-on (`eks-pod-identity-agent`), without which pods get
   * no Pod Identity credentials (EKS Auto Mode has it built in).
   * @default - true for a `Cluster` of this app that has no such add-on yet, except on EKS Auto Mode; false for an imported cluster
   */
  readonly installPodIdentityAgent?: boolean;

  /**
   * Security groups of the nodes, let in to the mount targets over NFS besides the cluster security
   * group: those of nodes that do not carry the cluster security group (a managed node group whose
   * launch template sets security groups, Karpenter's `EC2NodeClass`, an EKS Auto Mode `NodeClass`
   * with `securityGroupSelectorTerms`). Needed for an imported cluster given without
   * `clusterSecurityGroupId`.
   * @default - the cluster security group only
   */
  readonly nodeSecurityGroups?: ec2.ISecurityGroup[];
}

/**
 * How an access point becomes a PersistentVolume and its claim (`EksMount.onCluster`).
 * @see https://github.com/kubernetes-sigs/aws-efs-csi-driver/tree/master/examples/kubernetes/s3files/access_points
 */
export interface EksVolumeOptions extends S3FilesMountOptions {
  /**
   * The claim's name, without what the library appends (`<claimName>-<fsap-...>`, `-ro` for a
   * read-only volume, `-root` with `rootAccess`): Kubernetes never rebinds a claim nor changes a
   * volume's source, and a pod keeps the rights it mounted with until it remounts, so a replaced
   * access point or a change of `readOnly` or `rootAccess` gets a new volume and a new claim.
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
  /** The claim's name (`<claimName>-<access point id>`, then `-ro` when read-only and `-root` with root access): what pods put in `persistentVolumeClaim.claimName`. */
  readonly claimName: string;
  /** The claim's namespace. */
  readonly namespace: string;
  /** The PersistentVolume's name (`s3files.<namespace>.<claim's name>`: volumes are cluster-wide). */
  readonly persistentVolumeName: string;
  /** The manifest holding both (the cluster module's `KubernetesManifest`): make your workloads depend on it. */
  readonly manifest: IConstruct;
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
   * The end of that range (`gidRangeEnd`), greater than `gidRangeStart` (the driver's controller
   * refuses every claim otherwise; checked at synth, as `gidRangeStart` above 0).
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
  /** Its manifest (the cluster module's `KubernetesManifest`). */
  readonly manifest: IConstruct;
}

/**
 * Mounts S3 Files on Amazon EKS through the Amazon EFS CSI driver (3.0.0 or later): the driver and
 * its IAM (`installDriver`), static volumes from access points (`onCluster`), and storage classes
 * for dynamic provisioning (`addStorageClass`). Takes a cluster of aws-eks or aws-eks-v2, created
 * in this app or imported (with a kubectl handler for the Kubernetes objects). Not on EKS Fargate,
 * Windows nodes or Hybrid Nodes.
 * @see https://docs.aws.amazon.com/AmazonS3/latest/userguide/s3-files-mounting-eks.html
 */
export class EksMount {
  /**
   * Declares how the Amazon EFS CSI driver runs on the cluster: installs the `aws-efs-csi-driver`
   * add-on at `addonVersion` (or takes the driver already there, `existingDriverVersion`), both
   * 3.0.0 or later; creates the roles of its node daemonset and its controller and associates them
   * with `kube-system/efs-csi-node-sa` and `kube-system/efs-csi-controller-sa` through EKS Pod
   * Identity (the add-on waits for the associations, so the driver's pods start with credentials).
   * Once per cluster, before `onCluster` and `addStorageClass`. Only `AWS::EKS::` resources: no
   * kubectl handler needed.
   * @param cluster an aws-eks or aws-eks-v2 cluster of this app, or an imported one
   * @param options the add-on version, or the version of the driver already there
   */
  public static installDriver(cluster: eksRefs.IClusterRef, options: EksDriverOptions): void {
    declareDriver(EksCluster.of(cluster, 'EksMount.installDriver', 'cluster'), options ?? {});
  }

  /**
   * Makes an access point a PersistentVolume of the cluster (`volumeHandle`
   * `s3files:<file system id>::<access point id>`; never the file system's root, which the
   * library's file-system policy denies) and a claim bound to it in `namespace`; grants the
   * driver's node role what mounting it needs (scoped to the access point, with direct reads and
   * amazon-efs-utils' telemetry; read-only: `ro` in the volume's mount options, and a Deny of
   * s3files:ClientWrite through the access point unless a read-write volume of the cluster uses
   * it); lets the nodes (the cluster security group, `nodeSecurityGroups`) reach the mount targets;
   * checks the account, VPC, region and, once the app is complete, the node groups' AZs and where
   * the claim's pods can run; and creates both once the access point and the mount targets are
   * available.
   * @param cluster a cluster with `EksMount.installDriver()` declared, and a kubectl handler
   * @param accessPoint the access point to mount
   * @param options the claim's name and namespace, and what the pods may do
   * @returns the claim, the volume and their manifest
   */
  public static onCluster(cluster: eksRefs.IClusterRef, accessPoint: IS3FilesAccessPoint, options: EksVolumeOptions): EksVolume {
    const c = EksCluster.of(cluster, 'EksMount.onCluster', 'cluster');
    requireAccessPoint(accessPoint, c.construct, 'accessPoint');
    return addVolume(c, accessPoint, options);
  }

  /**
   * Adds a StorageClass for dynamic provisioning on the file system (`provisioningMode:
   * s3files-ap`): the driver's controller creates an access point per claim, tagged
   * `efs.csi.aws.com/cluster`, and deletes it with the volume. Grants the controller's role
   * AmazonS3FilesCSIDriverPolicy's statements scoped to this file system where their resource
   * types allow (creating access points on it, deleting its tagged ones; listing and tagging at
   * creation stay on `*`). The nodes go through the same steps as a static volume's, for any
   * access point of the file system: the client actions, the reads that validate a mount, direct
   * reads, amazon-efs-utils' telemetry, NFS, and the account, region, VPC and AZ checks.
   * @param cluster a cluster with `EksMount.installDriver()` declared, and a kubectl handler
   * @param fileSystem the file system the access points are created on
   * @param options the StorageClass's name and parameters
   * @returns the StorageClass and its manifest
   */
  public static addStorageClass(cluster: eksRefs.IClusterRef, fileSystem: IS3FilesFileSystem, options: EksStorageClassOptions): EksStorageClass {
    const c = EksCluster.of(cluster, 'EksMount.addStorageClass', 'cluster');
    requireFileSystem(fileSystem, c.construct, 'fileSystem');
    return addStorageClass(c, fileSystem, options);
  }

  // Static methods only: no instances (as aws-cdk-lib's `Names` or `Fn`).
  private constructor() {}
}
