import { Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { Construct, IConstruct } from 'constructs';
import { clusterErrors } from './eks-checks';
import { EksCluster } from './eks-cluster';
import { Driver, DRIVER, DriverOptions, driverOf, installDriver } from './eks-driver';
import { checkName, DNS_LABEL, DNS_SUBDOMAIN, StorageClassParameters, storageClassParameters, volumeNames, volumeObjects } from './eks-objects';
import { grantScoped, ScopedStatement } from './grants';
import { Compute, mount, Placement } from './mount-pipeline';
import { scopeActions } from './s3files-actions';
import type { IS3FilesAccessPoint } from '../../s3files-access-point-contract';
import type { IS3FilesFileSystem } from '../../s3files-file-system-contract';
import { clusterVpc } from '../compat';
import { invalid } from '../messages';
import { acknowledge, findingResource } from '../nag';

// EksMount's three calls, over the one mount pipeline: a static volume mounts its access point, a
// storage class any access point of its file system (the driver's controller creates them at run
// time); both are a compute whose grantee is the driver's node role, whose network identity is
// the nodes' security groups and whose placements are the cluster's node groups.

/** The tag the driver puts on every access point it creates (pkg/driver/controller.go DefaultTagKey), which AmazonS3FilesCSIDriverPolicy keys on. */
export const CLUSTER_TAG = 'efs.csi.aws.com/cluster';

/** "Cross account mount (Amazon EFS only)": the driver's docs, and its node plugin refuses it for S3 Files. */
const SAME_ACCOUNT_ONLY = 'the Amazon EFS CSI driver mounts another account\'s file system for Amazon EFS only ("Cross account mount (Amazon EFS only)", its docs/README.md; '
  + 'for S3 Files its node plugin answers "Cross-account mounting is not supported for S3 Files file system", pkg/driver/node.go)';

/** `EksMount.installDriver()`. */
export function declareDriver(cluster: EksCluster, options: DriverOptions): void {
  const driver = installDriver(cluster, options);
  driver.scope.node.addValidation({ validate: () => clusterErrors(driver) });
}

/** What `EksMount.onCluster()` takes (the public `EksVolumeOptions`). */
export interface VolumeOptions {
  readonly claimName: string;
  readonly namespace?: string;
  readonly readOnly?: boolean;
  readonly rootAccess?: boolean;
  readonly grantDirectReads?: boolean;
}

/** `EksMount.onCluster()`: the volume, its claim and their manifest. */
export function addVolume(cluster: EksCluster, accessPoint: IS3FilesAccessPoint, options: VolumeOptions) {
  const driver = driverOf(cluster);
  const c = cluster.construct;
  const namespace = options.namespace ?? 'default';
  checkName(c, 'namespace', namespace, DNS_LABEL, 63, '"default" or "my-app"');
  checkName(c, 'claimName', options.claimName, DNS_LABEL, 63, '"data"');
  const key = `${namespace}/${options.claimName}`;
  if (driver.volumes.has(key)) {
    invalid(c, 'claimName', options.claimName, `the cluster already has an S3 Files claim of that name in namespace ${namespace}`, 'give each volume its own `claimName` '
      + '(or `namespace`)');
  }
  cluster.requireKubectl('a PersistentVolume and its claim are Kubernetes objects');
  checkClusterVpc(cluster, accessPoint.fileSystem);
  driver.volumes.set(key, { namespace, claimName: options.claimName });
  driver.fileSystems.set(accessPoint.fileSystem.node.path, accessPoint.fileSystem);
  const spec = {
    namespace,
    claimName: options.claimName,
    fileSystemId: accessPoint.fileSystem.fileSystemId,
    accessPointId: accessPoint.accessPointId,
    readOnly: options.readOnly ?? false,
    rootAccess: options.rootAccess ?? false,
  };
  const manifest = cluster.manifest(driver.scope, `Volume:${namespace}:${options.claimName}`, volumeObjects(spec));
  if (driver.addon) manifest.node.addDependency(driver.addon);
  mount({ fileSystem: accessPoint.fileSystem, accessPoint }, compute(driver, manifest, options.grantDirectReads ?? true), options);
  return { ...volumeNames(spec), namespace, manifest };
}

/** `EksMount.addStorageClass()`: the StorageClass and its manifest. */
export function addStorageClass(cluster: EksCluster, fileSystem: IS3FilesFileSystem, options: StorageClassParameters & {
  readonly storageClassName: string; readonly grantDirectReads?: boolean;
}) {
  const driver = driverOf(cluster);
  const c = cluster.construct;
  const name = options.storageClassName;
  checkName(c, 'storageClassName', name, DNS_SUBDOMAIN, 253, '"s3files"');
  if (driver.storageClasses.has(name)) {
    invalid(c, 'storageClassName', name, 'the cluster already has an S3 Files StorageClass of that name (StorageClasses are cluster-wide)', 'give each storage class its '
      + 'own `storageClassName`');
  }
  const parameters = storageClassParameters(c, fileSystem.fileSystemId, options);
  // One node role mounts every storage class's volumes: one `grantDirectReads` per file system.
  const directReads = options.grantDirectReads ?? true;
  const granted = driver.provisioned.get(fileSystem.node.path);
  if (granted !== undefined && granted !== directReads) {
    invalid(c, 'grantDirectReads', directReads, `another storage class of ${fileSystem.node.path} on this cluster has \`grantDirectReads\` ${granted}, and one node role `
      + '(the driver\'s) mounts the volumes of both',
    'give every storage class of one file system on one cluster the same `grantDirectReads`');
  }
  cluster.requireKubectl('a StorageClass is a Kubernetes object');
  checkClusterVpc(cluster, fileSystem);
  driver.storageClasses.add(name);
  driver.fileSystems.set(fileSystem.node.path, fileSystem);
  const storageClass = { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name }, provisioner: DRIVER, parameters };
  const manifest = cluster.manifest(driver.scope, `StorageClass:${name}`, [storageClass]);
  if (driver.addon) manifest.node.addDependency(driver.addon);
  // The nodes: the pipeline, through any access point of the file system.
  mount({ fileSystem }, compute(driver, manifest, directReads), {});
  if (granted === undefined) {
    driver.provisioned.set(fileSystem.node.path, directReads);
    grantController(driver, fileSystem);
  }
  return { storageClassName: name, manifest };
}

/** The cluster as the pipeline sees it: the driver's node role mounts, from the nodes' security groups, on the node groups' subnets. */
function compute(driver: Driver, launcher: IConstruct, directReads: boolean): Compute {
  const { cluster } = driver;
  return {
    scope: driver.scope,
    what: 'the cluster',
    grantee: driver.nodeRole,
    connectable: driver.nodes ?? refuseNoNodeSecurityGroups(cluster),
    launcher,
    placements: () => placements(cluster),
    efsUtils: true,
    readOnlyFlag: true,
    directReads,
    sameAccountOnly: SAME_ACCOUNT_ONLY,
    readOnlyHolds: 'The volume mounts read-only (`ro` in its mount options), but the driver\'s node role mounts every S3 Files volume of the cluster, so any other '
      + 'PersistentVolume on this access point (one a cluster user with rights to create volumes writes) mounts read-write.',
    sharedRoleFix: 'Mount the read-only data through an access point no read-write volume of this cluster uses: the library then denies the node role s3files:ClientWrite '
      + 'through it.',
  };
}

/** Where the cluster's nodes run, as the app shows them: its managed node groups (their `subnets`) and its own Auto Scaling groups (`vpcSubnets`). */
function placements(cluster: EksCluster): Placement[] {
  return [
    ...cluster.nodegroups().map((ng) => ({ scope: ng.construct, what: `node group ${ng.construct.node.path}`, prop: 'subnets', subnetIds: ng.subnets })),
    ...cluster.autoScalingGroups().map((asg) => ({
      scope: asg, what: `Auto Scaling group ${asg.node.path}`, prop: 'vpcSubnets', subnetIds: (asg.node.defaultChild as { vpcZoneIdentifier?: unknown }).vpcZoneIdentifier,
    })),
  ];
}

function refuseNoNodeSecurityGroups(cluster: EksCluster): never {
  invalid(cluster.construct, 'clusterSecurityGroupId', undefined, 'the nodes reach the mount targets through the cluster security group, which this imported cluster was '
    + 'given without, and no `nodeSecurityGroups` were given',
  'give `clusterSecurityGroupId` to `Cluster.fromClusterAttributes()`, or the nodes\' groups in `nodeSecurityGroups` of `EksMount.installDriver()`');
}

/** "Your EKS cluster must be in the same VPC as your mount target" (S3 user guide). */
function checkClusterVpc(cluster: EksCluster, fs: IS3FilesFileSystem): void {
  const ours = clusterVpc(cluster.construct);
  if (!ours || !fs.vpc || ours === fs.vpc) return;
  const stack = Stack.of(cluster.construct);
  const a = stack.resolve(ours.vpcId);
  const b = stack.resolve(fs.vpc.vpcId);
  const bothCreated = ours instanceof ec2.Vpc && fs.vpc instanceof ec2.Vpc;
  const bothLiteral = typeof a === 'string' && typeof b === 'string';
  if (bothCreated || (bothLiteral && a !== b)) {
    invalid(cluster.construct, 'vpc', ours.node.path, `the cluster is in another VPC than the mount targets of ${fs.node.path} (${fs.vpc.node.path}): "Your EKS cluster must be `
      + 'in the same VPC as your mount target" (S3 user guide)',
    'create the cluster in the file system\'s `vpc`, or give the file system mount targets in the cluster\'s VPC');
  }
}

/**
 * Dynamic provisioning's controller rights: AmazonS3FilesCSIDriverPolicy's four statements, each
 * action on its documented resource type where one exists (the library's `grant()` table):
 * CreateAccessPoint on this file system and DeleteAccessPoint on its access points, with the
 * policy's tag conditions; ListAccessPoints and ListFileSystems, which the driver calls without
 * naming a resource it could be scoped to, and TagResource, allowed only inside a
 * CreateAccessPoint (s3files:CreateAction) that is itself scoped, on `*` as the policy has them.
 */
function grantController(driver: Driver, fs: IS3FilesFileSystem): void {
  const scope = driver.scope;
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
  grantScoped(scope, driver.controllerRole, controller, `dynamic provisioning on ${fs.node.path}`, { fileSystemArn: fs.fileSystemArn, write: false });
  const owner = Construct.isConstruct(driver.controllerRole) ? driver.controllerRole : scope;
  acknowledge(owner, 'AwsSolutions-IAM5[Resource::*]',
    'AmazonS3FilesCSIDriverPolicy\'s own resources: the driver lists file systems and access points without naming one, and TagResource is allowed '
    + 'only inside CreateAccessPoint (s3files:CreateAction), which is scoped to the file system and the efs.csi.aws.com/cluster tag.');
  acknowledge(owner, `AwsSolutions-IAM5[${findingResource(owner, remove.resources[0])}]`,
    'DeleteAccessPoint on the access points of this file system that carry the efs.csi.aws.com/cluster tag the driver gives the ones it creates (AmazonS3FilesCSIDriverPolicy\'s '
      + 'condition).');
}
