import { posix } from 'path';
import { Token } from 'aws-cdk-lib';
import { IConstruct } from 'constructs';
import { DRIVER } from './eks-driver';
import { invalid, warnUnresolved } from '../messages';
import { MAX_ACCESS_POINT_PATH_CHARS, MAX_ACCESS_POINT_PATH_COMPONENTS, validatePermissions, validatePosixId } from '../validation';

// The Kubernetes objects EksMount applies, and the checks of what goes into them: the names, and
// the StorageClass parameters the driver's controller would refuse at run time
// (kubernetes-sigs/aws-efs-csi-driver v3.4.1, pkg/driver/controller.go and pkg/driver/node.go).

/** A PersistentVolume's capacity is required by Kubernetes and unused by the driver ("You can specify any valid value"); the driver's examples use 5Gi. */
export const PLACEHOLDER_CAPACITY = '5Gi';
/** A DNS-1123 label: namespaces and the claim names given here. */
export const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
export const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

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

/** What a static volume is made of. */
export interface VolumeSpec {
  readonly namespace: string;
  readonly claimName: string;
  readonly fileSystemId: string;
  readonly accessPointId: string;
  readonly readOnly: boolean;
  readonly rootAccess: boolean;
}

/**
 * The names of a volume and its claim. A PersistentVolume's source is immutable once created, and a
 * claim's volumeName too; and S3 Files authorizes a client when it mounts, so a pod keeps the
 * rights it mounted with until it remounts: whatever decides what a mount may do (the access point,
 * read-only, root access) is in both names, so a change gives a new pair (kubectl's prune removes
 * the old one) and the pods that follow `claimName` remount. The volume's name joins namespace and
 * claim with ".", which neither can hold: no two clash.
 */
export function volumeNames(spec: VolumeSpec): { claimName: string; persistentVolumeName: string } {
  const claimName = `${spec.claimName}-${spec.accessPointId}${spec.readOnly ? '-ro' : ''}${spec.rootAccess ? '-root' : ''}`;
  return { claimName, persistentVolumeName: `s3files.${spec.namespace}.${claimName}` };
}

/** The PersistentVolume and its claim. */
export function volumeObjects(spec: VolumeSpec): Array<Record<string, unknown>> {
  const { claimName, persistentVolumeName } = volumeNames(spec);
  const { namespace } = spec;
  const persistentVolume = {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: persistentVolumeName },
    spec: {
      capacity: { storage: PLACEHOLDER_CAPACITY },
      volumeMode: 'Filesystem',
      // The driver serves SINGLE_NODE_WRITER and MULTI_NODE_MULTI_WRITER only (pkg/driver/node.go,
      // volumeCapAccessModes): a read-only volume is a read-only mount, not ReadOnlyMany.
      accessModes: ['ReadWriteMany'],
      persistentVolumeReclaimPolicy: 'Retain',
      storageClassName: '',
      claimRef: { namespace, name: claimName },
      // `ro`: kubelet passes a PersistentVolume's mountOptions to the driver as mount flags, which its
      // node plugin appends to the mount (pkg/driver/node.go, NodePublishVolume). `csi.readOnly` alone
      // does not reach the node plugin: kubelet's read-only flag comes from the pod's claim, and the
      // driver has no ControllerPublish (issue #799, "PV with spec.csi.readOnly: true is mounted as
      // writable", closed unfixed). It is kept for what reads it (controllers, tools).
      ...(spec.readOnly ? { mountOptions: ['ro'] } : {}),
      csi: {
        driver: DRIVER,
        volumeHandle: `s3files:${spec.fileSystemId}::${spec.accessPointId}`,
        ...(spec.readOnly ? { readOnly: true } : {}),
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
  return [persistentVolume, claim];
}

/** What a storage class takes (the public `EksStorageClassOptions`, which this module does not import). */
export interface StorageClassParameters {
  readonly directoryPerms?: string;
  readonly basePath?: string;
  readonly uid?: number;
  readonly gid?: number;
  readonly gidRangeStart?: number;
  readonly gidRangeEnd?: number;
  readonly subPathPattern?: string;
}

/**
 * The StorageClass's parameters (the driver's names, as strings), each checked as the driver's
 * controller checks it, since Kubernetes refuses any change to a StorageClass's parameters and the
 * controller answers every CreateVolume of a refused one with an error.
 */
export function storageClassParameters(scope: IConstruct, fileSystemId: string, options: StorageClassParameters): Record<string, string> {
  const parameters: Record<string, string> = { provisioningMode: 's3files-ap', fileSystemId, directoryPerms: options.directoryPerms ?? '700' };
  if (options.directoryPerms !== undefined) validatePermissions(scope, options.directoryPerms);
  checkProvisionedPath(scope, options.basePath, options.subPathPattern);
  if (options.basePath !== undefined) parameters.basePath = options.basePath;
  for (const [prop, value] of [['uid', options.uid], ['gid', options.gid], ['gidRangeStart', options.gidRangeStart], ['gidRangeEnd', options.gidRangeEnd]] as const) {
    if (value === undefined) continue;
    validatePosixId(scope, prop, value);
    parameters[prop] = Token.isUnresolved(value) ? Token.asString(value) : String(value);
  }
  checkGidRange(scope, options.gidRangeStart, options.gidRangeEnd);
  if (options.subPathPattern !== undefined) parameters.subPathPattern = options.subPathPattern;
  return parameters;
}

/**
 * The driver's rule for a group id range (pkg/driver/controller.go, parseAccessPointConstraints):
 * both ends or neither ("Missing gidRangeEnd parameter"), "gidRangeStart must be greater than 0",
 * "gidRangeEnd must be greater than gidRangeStart".
 */
function checkGidRange(scope: IConstruct, start: number | undefined, end: number | undefined): void {
  if ((start === undefined) !== (end === undefined)) {
    invalid(scope, start === undefined ? 'gidRangeEnd' : 'gidRangeStart', start ?? end,
      'the driver takes a custom group id range only with both ends ("If you specify one, the other becomes mandatory")', 'give both `gidRangeStart` and `gidRangeEnd`, or '
        + 'neither');
  }
  if (start === undefined || end === undefined || Token.isUnresolved(start) || Token.isUnresolved(end)) return;
  if (start <= 0) {
    invalid(scope, 'gidRangeStart', start, 'the driver\'s controller answers every claim with "`gidRangeStart` must be greater than 0" (pkg/driver/controller.go), and a '
      + 'StorageClass\'s parameters cannot be changed afterwards', 'start the range at 1 or above (the driver\'s own range is 50000 to 7000000)');
  }
  if (end <= start) {
    invalid(scope, 'gidRangeEnd', end, `it is not greater than \`gidRangeStart\` (${start}), and the driver's controller answers every claim with "\`gidRangeEnd\` must be `
      + 'greater than `gidRangeStart`" (pkg/driver/controller.go); a StorageClass\'s parameters cannot be changed afterwards', `give a \`gidRangeEnd\` above ${start}`);
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
function checkProvisionedPath(scope: IConstruct, basePath: string | undefined, subPathPattern: string | undefined): void {
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
