import { Duration, Stack, Token } from 'aws-cdk-lib';
import * as autoscaling from 'aws-cdk-lib/aws-autoscaling';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import { IConstruct } from 'constructs';
import { S3FilesMountOptions } from './options';
import { checkShape } from '../private/argument-shapes';
import { autoScalingGroupUserData, launchTemplateConnections } from '../private/compat';
import { stateOf } from '../private/construct-state';
import { invalid, Shown, warn } from '../private/messages';
import { clientActionsLabel } from '../private/mount/client-actions';
import { mountCommand, MOUNT_FUNCTION } from '../private/mount/ec2-user-data';
import { DEFAULT_MOUNT_PATH, mountAccessPoint } from '../private/mount/mount-pipeline';
import { requireAccessPoint } from '../private/mount/shapes';
import { inUnit, validateContainerPath } from '../private/validation';
import type { IS3FilesAccessPoint } from '../s3files-access-point-contract';

/** EC2's limit on user data, in bytes before base64 (EC2 user guide, "User data ... is limited to 16 KB"). */
const MAX_USER_DATA_BYTES = 16 * 1024;
/** A reference in user data (an id or an ARN) is taken at this length once CloudFormation resolves it. */
const REFERENCE_BYTES = 100;
const DEFAULT_MOUNT_TIMEOUT = Duration.minutes(10);
const MAX_MOUNT_TIMEOUT_SECONDS = 3600;

/**
 * How an access point is mounted on EC2 (`Ec2Mount.onInstance`, `onAutoScalingGroup`,
 * `onLaunchTemplate`): user data that installs amazon-efs-utils, writes the fstab line and mounts
 * with `mount -t s3files` through the access point.
 * @see https://docs.aws.amazon.com/AmazonS3/latest/userguide/s3-files-mounting.html
 */
export interface Ec2MountOptions extends S3FilesMountOptions {
  /**
   * Where the instance mounts the file system: not inside another S3 Files mount of the same user data.
   * @default '/mnt/s3files'
   */
  readonly mountPath?: string;

  /**
   * How long the boot script keeps retrying the mount while the mount target is not reachable
   * (at most 1 hour).
   * @default Duration.minutes(10)
   */
  readonly mountTimeout?: Duration;
}

/** What a mount needs of one kind of EC2 compute. */
interface Ec2Target {
  readonly scope: IConstruct;
  readonly what: string;
  readonly userData: ec2.UserData;
  readonly grantee: iam.IGrantable;
  readonly connectable: ec2.IConnectable;
  readonly addSecurityGroup: (group: ec2.ISecurityGroup) => void;
  /** The resource that launches (or describes) the instances: it waits for the waiter. */
  readonly launcher: IConstruct;
  /** The subnet ids it launches into, when the template names them. */
  readonly subnetIds: unknown;
}

/** What the user data of one target already mounts, by mount path (one access point per path). */
type Mounted = Map<string, { readonly accessPoint: string; readonly readOnly: boolean }>;

/**
 * Mounts S3 Files access points on EC2 instances at boot.
 */
export class Ec2Mount {
  /**
   * Mounts an access point on an EC2 instance at boot: user data installs amazon-efs-utils
   * (>= 3.0.0), writes the fstab line and mounts with `mount -t s3files`, retrying while the mount
   * target is not reachable; grants the instance role; lets the instance reach NFS; checks its
   * subnet's AZ has a mount target; and creates the instance only once they are available.
   * @param instance a Linux instance in the file system's VPC
   * @param accessPoint the access point to mount
   * @param options where and how to mount
   */
  public static onInstance(instance: ec2.Instance, accessPoint: IS3FilesAccessPoint, options: Ec2MountOptions = {}): void {
    checkShape('instance', instance, 'Ec2Mount.onInstance()', 'instance', true);
    requireAccessPoint(accessPoint, instance, 'accessPoint');
    if (instance.osType !== ec2.OperatingSystemType.LINUX) notLinux(instance);
    const cfn = instance.instance;
    mountOnEc2({
      scope: instance,
      what: 'the instance',
      userData: instance.userData,
      grantee: instance,
      connectable: instance,
      addSecurityGroup: (sg) => instance.addSecurityGroup(sg),
      launcher: cfn,
      subnetIds: cfn.subnetId === undefined ? undefined : [cfn.subnetId],
    }, accessPoint, options);
  }

  /**
   * `onInstance` for every instance of an Auto Scaling group (one built from a machine image, not
   * from a launch template: mount on the template then).
   * @param group the Auto Scaling group
   * @param accessPoint the access point to mount
   * @param options where and how to mount
   */
  public static onAutoScalingGroup(group: autoscaling.AutoScalingGroup, accessPoint: IS3FilesAccessPoint, options: Ec2MountOptions = {}): void {
    checkShape('autoScalingGroup', group, 'Ec2Mount.onAutoScalingGroup()', 'group', true);
    requireAccessPoint(accessPoint, group, 'accessPoint');
    if (group.osType !== ec2.OperatingSystemType.LINUX) notLinux(group);
    const userData = autoScalingGroupUserData(group);
    if (!userData) {
      invalid(group, 'autoScalingGroup', group.node.path, 'it was created from a launch template, whose user data it cannot change',
        'mount on the launch template instead (`Ec2Mount.onLaunchTemplate()`), before creating the group');
    }
    const cfn = group.node.defaultChild as autoscaling.CfnAutoScalingGroup;
    if (!cfn.cfnOptions.updatePolicy?.autoScalingRollingUpdate && !cfn.cfnOptions.updatePolicy?.autoScalingReplacingUpdate) {
      warn(group, 'asgNoUpdatePolicy',
        `${group.node.path} has no update policy, so a later change of the mount (access point, path, \`readOnly\`, file system) reaches only new instances; running ones keep `
          + 'the old mount, '
        + 'which the role may no longer be allowed. Give the group `updatePolicy`: `autoscaling.UpdatePolicy.rollingUpdate()` (or `autoscaling.UpdatePolicy.replacingUpdate()`).');
    }
    mountOnEc2({
      scope: group,
      what: 'the Auto Scaling group',
      userData,
      grantee: group,
      connectable: group,
      addSecurityGroup: (sg) => group.addSecurityGroup(sg),
      launcher: cfn,
      subnetIds: cfn.vpcZoneIdentifier,
    }, accessPoint, options);
  }

  /**
   * `onInstance` for every instance launched from a launch template (which needs user data, a role
   * and a security group). Its AZs are the launcher's: they cannot be checked here.
   * @param template the launch template
   * @param accessPoint the access point to mount
   * @param options where and how to mount
   */
  public static onLaunchTemplate(template: ec2.LaunchTemplate, accessPoint: IS3FilesAccessPoint, options: Ec2MountOptions = {}): void {
    checkShape('launchTemplate', template, 'Ec2Mount.onLaunchTemplate()', 'template', true);
    requireAccessPoint(accessPoint, template, 'accessPoint');
    if (!template.userData) {
      invalid(template, 'userData', undefined, 'the launch template has no user data to add the mount to',
        'create the launch template with `userData`: `ec2.UserData.forLinux()`');
    }
    if (!template.role) {
      invalid(template, 'role', undefined, 'the launch template has no role, so its instances cannot be granted the client actions',
        'create the launch template with a `role` (iam.Role assumed by ec2.amazonaws.com)');
    }
    if (!launchTemplateConnections(template)) {
      invalid(template, 'securityGroup', undefined, 'the launch template has no security group, so its instances cannot be let in over NFS',
        'create the launch template with a `securityGroup`');
    }
    mountOnEc2({
      scope: template,
      what: 'the launch template\'s instances',
      userData: template.userData,
      grantee: template.role,
      connectable: template,
      addSecurityGroup: (sg) => template.addSecurityGroup(sg),
      launcher: template.node.defaultChild as ec2.CfnLaunchTemplate,
      subnetIds: undefined,
    }, accessPoint, options);
  }

  // Static methods only: no instances (as aws-cdk-lib's `Names` or `Fn`).
  private constructor() {}
}

function notLinux(scope: IConstruct): never {
  invalid(scope, 'machineImage', 'Windows', 'the S3 Files mount helper (amazon-efs-utils) runs on Linux only',
    'use a Linux AMI (Amazon Linux 2023 or 2, RHEL 8/9, Ubuntu 20.04-24.04, SLES 15)');
}

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

/** The user data must be a bash script (the per-boot script reads its s3files_mount lines back). */
function checkUserData(scope: IConstruct, userData: ec2.UserData): void {
  if (userData instanceof ec2.MultipartUserData || userData.render().startsWith('Content-Type: multipart')) {
    invalid(scope, 'userData', new Shown('ec2.MultipartUserData'), 'the boot script installs a per-boot script that reads the user data back from the instance metadata service '
      + 'on every boot '
      + 'and runs its s3files_mount lines as a shell script; in a MIME multipart body they are base64-encoded inside a part, where it would not find them, '
      + 'so a later change of the mount would never reach a running instance',
    'use `ec2.UserData.forLinux()` and put the commands of the other parts into it (`userData.addCommands()`; a cloud-config part as the shell commands that do the same)');
  }
  if (!userData.render().startsWith('#!/bin/bash')) {
    invalid(scope, 'userData', userData.render().split('\n')[0], 'the mount is a bash script, and this user data is not one', 'use `ec2.UserData.forLinux()`');
  }
}

/**
 * One mount path inside another of the same user data: the inner mount point is a directory of the
 * outer access point, on which chattr fails, so it cannot refuse writes while nothing is mounted
 * there; and when the outer one is dropped, the inner one has to be made in its immutable directory.
 */
function checkNotNested(
  scope: IConstruct, what: string, mounted: Map<string, { readonly accessPoint: string }>, pathKey: string, mountPath: string,
): void {
  const problem = 'a mount point inside another mount is a directory of the outer access point, which cannot be made immutable, so while nothing is mounted there writes land in '
    + 'the outer access point';
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

function mountOnEc2(target: Ec2Target, accessPoint: IS3FilesAccessPoint, options: Ec2MountOptions): void {
  const { scope } = target;
  const mountPath = options.mountPath ?? DEFAULT_MOUNT_PATH;
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
  const userData = target.userData;
  checkUserData(scope, userData);
  const readOnly = options.readOnly ?? false;
  const mounted = stateOf<Mounted>(scope, 'cdk-s3files-lambda.Mounts', () => new Map());
  // '/data' and '/data/' are one directory.
  const pathKey = Token.isUnresolved(mountPath) ? mountPath : mountPath.replace(/(.)\/+$/, '$1');
  const taken = mounted.get(pathKey);
  if (taken && taken.accessPoint !== accessPoint.node.path) {
    invalid(scope, 'mountPath', mountPath, `the user data of ${target.what} already mounts ${taken.accessPoint} there (the boot script would mount one and leave the other in `
      + '/etc/fstab)',
    'give each access point its own `mountPath`');
  }
  if (taken && taken.readOnly !== readOnly) {
    invalid(scope, 'readOnly', readOnly, `the user data of ${target.what} already mounts this access point at ${mountPath} ${taken.readOnly ? 'read-only' : 'read-write'}`,
      'mount an access point with the same `readOnly` setting every time, or at another `mountPath`');
  }
  if (!taken && !Token.isUnresolved(pathKey)) checkNotNested(scope, target.what, mounted, pathKey, mountPath);
  if (!taken) {
    mounted.set(pathKey, { accessPoint: accessPoint.node.path, readOnly });
    // The function once per user data, however many mounts (and targets) share it.
    if (!userData.render().includes('s3files_mount() (')) {
      userData.addCommands(MOUNT_FUNCTION);
      // EC2 refuses user data over 16 KB (raw, before base64), at launch: say so at synth.
      scope.node.addValidation({
        validate: () => {
          const bytes = userDataBytes(scope, userData);
          return bytes <= MAX_USER_DATA_BYTES ? [] : [`${scope.node.path}: invalid userData: with the S3 Files mount it is about ${bytes} bytes, and EC2 accepts at most `
            + `${MAX_USER_DATA_BYTES} (16 KB, before base64). Fix: move the rest of the user data into a script the instance downloads (from S3, or an SSM document) and keep `
              + 'only the call in the user data.'];
        },
      });
    }
    userData.addCommands(mountCommand({
      fileSystemId: accessPoint.fileSystem.fileSystemId,
      accessPointId: accessPoint.accessPointId,
      mountPath,
      readOnly,
      timeoutSeconds,
      clientActions: clientActionsLabel(options),
    }));
  }
  mountAccessPoint(accessPoint, {
    scope,
    what: target.what,
    grantee: target.grantee,
    connectable: target.connectable,
    joinSecurityGroup: (group) => {
      // The instance's and launch template's addSecurityGroup do not reach their `connections`: remember what was joined.
      const joined = stateOf<Set<ec2.ISecurityGroup>>(scope, 'cdk-s3files-lambda.JoinedGroups', () => new Set());
      if (joined.has(group) || target.connectable.connections.securityGroups.includes(group)) return;
      joined.add(group);
      target.addSecurityGroup(group);
    },
    // Instances boot only once the access point and the mount targets are available, so the first
    // mount attempt can succeed; the retry loop covers what remains (DNS, the role's propagation).
    launcher: target.launcher,
    subnetIds: target.subnetIds,
    unknownAzWarning: `The availability zones ${target.what} launch into are not known at synth time, so the library cannot check that each has a mount target of `
      + `${accessPoint.fileSystem.node.path}. `
      + 'An instance in an AZ without one cannot mount (the boot script gives up after its `mountTimeout`).',
    efsUtils: true,
    readOnlyFlag: true,
    directReads: options.grantDirectReads ?? true,
  }, options);
}
