import { Annotations, CfnResource, Duration, Stack, Token } from 'aws-cdk-lib';
import * as autoscaling from 'aws-cdk-lib/aws-autoscaling';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import { IConstruct } from 'constructs';
import { checkClientAzs, checkSameVpc, fileSystemOf, grantMountingClient, openNfs, waitForMount } from './client-access';
import { mountCommand, MOUNT_FUNCTION } from './ec2-user-data';
import { inUnit, invalid, Shown, spelling, validateContainerPath } from './validation';
import type { Ec2MountOptions } from '../mount/ec2';
import type { S3FilesAccessPointBase } from '../s3files-access-point';

/** EC2's limit on user data, in bytes before base64 (EC2 user guide, "User data ... is limited to 16 KB"). */
const MAX_USER_DATA_BYTES = 16 * 1024;
/** A reference in user data (an id or an ARN) is taken at this length once CloudFormation resolves it. */
const REFERENCE_BYTES = 100;

/** The user data's size once resolved, references taken at their longest likely length. */
function userDataBytes(scope: IConstruct, userData: ec2.UserData): number {
  const flat = (value: unknown): string => {
    if (typeof value === 'string') return value;
    if (Array.isArray(value)) return value.map(flat).join('');
    const obj = value as Record<string, unknown> | undefined;
    const join = obj?.['Fn::Join'] as [string, unknown[]] | undefined;
    if (join) return join[1].map(flat).join(join[0]);
    return 'x'.repeat(REFERENCE_BYTES);
  };
  return Buffer.byteLength(flat(Stack.of(scope).resolve(userData.render())), 'utf8');
}

/** Where an instance mounts the file system when no path is given. */
export const DEFAULT_EC2_MOUNT_PATH = '/mnt/s3files';
const DEFAULT_MOUNT_TIMEOUT = Duration.minutes(10);
const MAX_MOUNT_TIMEOUT_SECONDS = 3600;

/** Security groups each EC2 target already joined (a second mount must not add one twice). */
const JOINED = new WeakMap<IConstruct, Set<ec2.ISecurityGroup>>();

/** User data that already defines `s3files_mount` (defined once, however many mounts). */
const DEFINES_FUNCTION = new WeakSet<ec2.UserData>();

/** What each user data already mounts, by mount path (one access point per path). */
const MOUNTED = new WeakMap<ec2.UserData, Map<string, { readonly accessPoint: string; readonly readOnly: boolean }>>();

/** What a mount needs of one kind of EC2 compute. */
interface Ec2Target {
  readonly scope: IConstruct;
  readonly what: string;
  readonly userData: ec2.UserData | undefined;
  readonly grantee: iam.IGrantable | undefined;
  readonly connectable: ec2.IConnectable;
  readonly addSecurityGroup: (group: ec2.ISecurityGroup) => void;
  readonly connections: ec2.Connections | undefined;
  /** The resource that launches (or describes) the instances: it waits for the waiter. */
  readonly launcher: CfnResource;
  /** The subnet ids it launches into, when the template names them. */
  readonly subnetIds: unknown;
}

export function mountOnInstance(instance: ec2.Instance, accessPoint: S3FilesAccessPointBase, options: Ec2MountOptions): void {
  if (instance.osType !== ec2.OperatingSystemType.LINUX) notLinux(instance);
  const cfn = instance.instance;
  mountOnEc2({
    scope: instance,
    what: 'the instance',
    userData: instance.userData,
    grantee: instance,
    connectable: instance,
    addSecurityGroup: (sg) => instance.addSecurityGroup(sg),
    connections: instance.connections,
    launcher: cfn,
    subnetIds: cfn.subnetId === undefined ? undefined : [cfn.subnetId],
  }, accessPoint, options);
}

export function mountOnAutoScalingGroup(group: autoscaling.AutoScalingGroup, accessPoint: S3FilesAccessPointBase, options: Ec2MountOptions): void {
  if (group.osType !== ec2.OperatingSystemType.LINUX) notLinux(group);
  let userData: ec2.UserData;
  try {
    userData = group.userData;
  } catch {
    invalid(group, 'autoScalingGroup', group.node.path, 'it was created from a launch template, whose user data it cannot change',
      'mount on the launch template instead (mountOnLaunchTemplate), before creating the group');
  }
  const cfn = group.node.defaultChild as autoscaling.CfnAutoScalingGroup;
  if (!cfn.cfnOptions.updatePolicy?.autoScalingRollingUpdate && !cfn.cfnOptions.updatePolicy?.autoScalingReplacingUpdate) {
    Annotations.of(group).addWarningV2('cdk-s3files-lambda:asgNoUpdatePolicy',
      `${group.node.path} has no update policy, so a later change of the mount (access point, path, readOnly, file system) reaches only new instances; running ones keep the old mount, which the role may no longer be allowed. Give the group updatePolicy: autoscaling.UpdatePolicy.rollingUpdate() (or replacingUpdate()).${spelling(['updatePolicy'])}`);
  }
  mountOnEc2({
    scope: group,
    what: 'the Auto Scaling group',
    userData,
    grantee: group,
    connectable: group,
    addSecurityGroup: (sg) => group.addSecurityGroup(sg),
    connections: group.connections,
    launcher: cfn,
    subnetIds: cfn.vpcZoneIdentifier,
  }, accessPoint, options);
}

export function mountOnLaunchTemplate(template: ec2.LaunchTemplate, accessPoint: S3FilesAccessPointBase, options: Ec2MountOptions): void {
  if (!template.userData) {
    invalid(template, 'userData', undefined, 'the launch template has no user data to add the mount to',
      'create the launch template with userData: ec2.UserData.forLinux()');
  }
  if (!template.role) {
    invalid(template, 'role', undefined, 'the launch template has no role, so its instances cannot be granted the client actions',
      'create the launch template with a role (iam.Role assumed by ec2.amazonaws.com)');
  }
  let connections: ec2.Connections | undefined;
  try {
    connections = template.connections;
  } catch {
    invalid(template, 'securityGroup', undefined, 'the launch template has no security group, so its instances cannot be let in over NFS',
      'create the launch template with a securityGroup');
  }
  mountOnEc2({
    scope: template,
    what: 'the launch template\'s instances',
    userData: template.userData,
    grantee: template.role,
    connectable: template,
    addSecurityGroup: (sg) => template.addSecurityGroup(sg),
    connections,
    launcher: template.node.defaultChild as ec2.CfnLaunchTemplate,
    subnetIds: undefined,
  }, accessPoint, options);
}

function notLinux(scope: IConstruct): never {
  invalid(scope, 'machineImage', 'Windows', 'the S3 Files mount helper (amazon-efs-utils) runs on Linux only',
    'use a Linux AMI (Amazon Linux 2023 or 2, RHEL 8/9, Ubuntu 20.04-24.04, SLES 15)');
}

/**
 * One mount path inside another of the same user data: the inner mount point is a directory of the
 * outer access point, on which chattr fails, so it cannot refuse writes while nothing is mounted
 * there; and when the outer one is dropped, the inner one has to be made in its immutable directory.
 */
function checkNotNested(
  scope: IConstruct, what: string, mounted: Map<string, { readonly accessPoint: string }>, pathKey: string, mountPath: string,
): void {
  const problem = 'a mount point inside another mount is a directory of the outer access point, which cannot be made immutable, so while nothing is mounted there writes land in the outer access point';
  const fix = 'give each mount a directory of its own, none inside another (e.g. "/mnt/data" and "/mnt/logs")';
  const norm = (p: string) => p.replace(/\/+/g, '/');
  const inside = (inner: string, outer: string) => norm(inner).startsWith(`${norm(outer)}/`);
  for (const [other, { accessPoint }] of mounted) {
    if (Token.isUnresolved(other)) continue;
    if (inside(pathKey, other)) {
      invalid(scope, 'mountPath', mountPath, `it lies under ${other}, where the user data of ${what} already mounts ${accessPoint}: ${problem}`, fix);
    }
    if (inside(other, pathKey)) {
      invalid(scope, 'mountPath', mountPath, `the user data of ${what} already mounts ${accessPoint} at ${other}, which lies under it: ${problem}`, fix);
    }
  }
}

function mountOnEc2(target: Ec2Target, accessPoint: S3FilesAccessPointBase, options: Ec2MountOptions): void {
  const { scope } = target;
  const { fs, info } = fileSystemOf(scope, accessPoint);
  const mountPath = options.mountPath ?? DEFAULT_EC2_MOUNT_PATH;
  validateContainerPath(scope, mountPath, 'mountPath');
  if (!Token.isUnresolved(mountPath) && !/^[A-Za-z0-9/._-]+$/.test(mountPath)) {
    invalid(scope, 'mountPath', mountPath, 'it is written into /etc/fstab and a shell command, so only letters, digits, "/", ".", "_" and "-" are allowed',
      'use a path such as "/mnt/s3files"');
  }
  const timeout = options.mountTimeout ?? DEFAULT_MOUNT_TIMEOUT;
  const timeoutSeconds = inUnit(scope, 'mountTimeout', () => timeout.toSeconds(), 'seconds', 'Duration.seconds(n)');
  if (!Token.isUnresolved(timeoutSeconds) && (timeoutSeconds < 1 || timeoutSeconds > MAX_MOUNT_TIMEOUT_SECONDS)) {
    invalid(scope, 'mountTimeout', timeout, 'the boot script retries the mount for 1 second to 1 hour', 'use e.g. Duration.minutes(10)');
  }

  const userData = target.userData!;
  if (userData instanceof ec2.MultipartUserData || userData.render().startsWith('Content-Type: multipart')) {
    invalid(scope, 'userData', new Shown('ec2.MultipartUserData'), 'the boot script installs a per-boot script that reads the user data back from the instance metadata service on every boot '
      + 'and runs its s3files_mount lines as a shell script; in a MIME multipart body they are base64-encoded inside a part, where it would not find them, '
      + 'so a later change of the mount would never reach a running instance',
    'use ec2.UserData.forLinux() and put the commands of the other parts into it (userData.addCommands(...); a cloud-config part as the shell commands that do the same)');
  }
  if (!userData.render().startsWith('#!/bin/bash')) {
    invalid(scope, 'userData', userData.render().split('\n')[0], 'the mount is a bash script, and this user data is not one', 'use ec2.UserData.forLinux()');
  }
  const readOnly = options.readOnly ?? false;
  const mounted = MOUNTED.get(userData) ?? new Map<string, { readonly accessPoint: string; readonly readOnly: boolean }>();
  MOUNTED.set(userData, mounted);
  // '/data' and '/data/' are one directory.
  const pathKey = Token.isUnresolved(mountPath) ? mountPath : mountPath.replace(/(.)\/+$/, '$1');
  const taken = mounted.get(pathKey);
  if (taken && taken.accessPoint !== accessPoint.node.path) {
    invalid(scope, 'mountPath', mountPath, `the user data of ${target.what} already mounts ${taken.accessPoint} there (the boot script would mount one and leave the other in /etc/fstab)`,
      'give each access point its own mountPath');
  }
  if (taken && taken.readOnly !== readOnly) {
    invalid(scope, 'readOnly', readOnly, `the user data of ${target.what} already mounts this access point at ${mountPath} ${taken.readOnly ? 'read-only' : 'read-write'}`,
      'mount an access point with the same readOnly setting every time, or at another mountPath');
  }
  if (!taken && !Token.isUnresolved(pathKey)) checkNotNested(scope, target.what, mounted, pathKey, mountPath);
  if (!taken) {
    mounted.set(pathKey, { accessPoint: accessPoint.node.path, readOnly });
    if (!DEFINES_FUNCTION.has(userData)) {
      userData.addCommands(MOUNT_FUNCTION);
      DEFINES_FUNCTION.add(userData);
      // EC2 refuses user data over 16 KB (raw, before base64), at launch: say so at synth.
      scope.node.addValidation({
        validate: () => {
          const bytes = userDataBytes(scope, userData);
          return bytes <= MAX_USER_DATA_BYTES ? [] : [`${scope.node.path}: invalid userData: with the S3 Files mount it is about ${bytes} bytes, and EC2 accepts at most `
            + `${MAX_USER_DATA_BYTES} (16 KB, before base64). Fix: move the rest of the user data into a script the instance downloads (from S3, or an SSM document) and keep only the call in the user data.`];
        },
      });
    }
    userData.addCommands(mountCommand({
      fileSystemId: accessPoint.fileSystem.fileSystemId,
      accessPointId: accessPoint.accessPointId,
      mountPath,
      readOnly,
      timeoutSeconds,
    }));
  }

  if (!target.grantee) throw new Error('unreachable: every EC2 target has a grantee');
  grantMountingClient(scope, target.grantee, accessPoint, options, { what: target.what, efsUtils: true, readOnlyFlag: true });
  if (target.connections) checkSameVpc(scope, target.connections, info.vpc, target.what, target.subnetIds);
  const joined = JOINED.get(scope) ?? new Set<ec2.ISecurityGroup>();
  JOINED.set(scope, joined);
  openNfs(scope, fs, info, target.connectable, (group) => {
    if (joined.has(group)) return;
    joined.add(group);
    target.addSecurityGroup(group);
  }, target.what);

  checkClientAzs(scope, info, target.subnetIds,
    `The availability zones ${target.what} launch into are not known at synth time, so the library cannot check that each has a mount target of ${fs.node.path}. An instance in an AZ without one cannot mount (the boot script gives up after its mountTimeout).`);
  // Instances boot only once the access point and the mount targets are available, so the first
  // mount attempt can succeed; the retry loop covers what remains (DNS, the role's propagation).
  waitForMount(target.launcher, accessPoint, info);
}
