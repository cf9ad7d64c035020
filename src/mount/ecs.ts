import { Stack } from 'aws-cdk-lib';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import { S3FilesMountOptions } from './options';
import { checkShape, checkShapes } from '../private/argument-shapes';
import { patchTaskDefinitionVolumes } from '../private/compat';
import { findState, stateOf } from '../private/construct-state';
import { invalid, warn } from '../private/messages';
import { clientActionsLabel } from '../private/mount/client-actions';
import { addMountPoint, checkSameVolume, S3FilesVolume, volumeConfig, volumeName } from '../private/mount/container-volumes';
import { markEcsServiceMount, unmountedLaunchers } from '../private/mount/foreign-mounts';
import { DEFAULT_MOUNT_PATH, mountAccessPoint } from '../private/mount/mount-pipeline';
import { joinSecurityGroup } from '../private/mount/network';
import { requireAccessPoint } from '../private/mount/shapes';
import { validateContainerPath } from '../private/validation';
import type { IS3FilesAccessPoint } from '../s3files-access-point-contract';

/** ECS attaches at most this many security groups to a task (awsvpc). */
const MAX_TASK_SECURITY_GROUPS = 5;

/**
 * How an access point is mounted in an ECS task (`EcsMount.onTaskDefinition`, `EcsMount.onService`).
 * ECS mounts S3 Files on Fargate and on ECS Managed Instances, with TLS and IAM always on, using the
 * task role.
 * @see https://docs.aws.amazon.com/AmazonECS/latest/developerguide/s3files-volumes.html
 */
export interface EcsMountOptions extends S3FilesMountOptions {
  /**
   * Where the containers see the file system.
   * @default '/mnt/s3files'
   */
  readonly containerPath?: string;

  /**
   * The containers that get the mount point.
   * @default - the task definition's default container (its first essential container)
   */
  readonly containers?: ecs.ContainerDefinition[];

  /**
   * The task volume's name (what the containers' mount points refer to).
   * @default - 's3files-' plus a hash of the access point's stack name and logical id (or ARN), stable across deployments and Stage moves
   */
  readonly volumeName?: string;

  /**
   * The port for the TLS tunnel between the host and the mount target.
   * @default - the mount helper's choice
   */
  readonly transitEncryptionPort?: number;
}

/**
 * Mounts S3 Files access points in ECS tasks.
 */
export class EcsMount {
  /**
   * Adds an S3 Files volume for an access point to a task definition (Fargate or ECS Managed
   * Instances) and mounts it in its containers; grants the task role what the mount needs (scoped
   * to the access point) and the direct reads; and makes the task definition, so every service and
   * task using it, wait until the mount targets and the access point are available. Networking is
   * the service's: see `onService`.
   * @param taskDefinition the task definition
   * @param accessPoint the access point to mount
   * @param options where and how to mount
   * @returns the volume name
   */
  public static onTaskDefinition(taskDefinition: ecs.TaskDefinition, accessPoint: IS3FilesAccessPoint, options: EcsMountOptions = {}): string {
    options = options ?? {}; // JavaScript may pass null
    checkShape('taskDefinition', taskDefinition, 'EcsMount.onTaskDefinition()', 'taskDefinition', true);
    requireAccessPoint(accessPoint, taskDefinition, 'accessPoint');
    checkShapes('container', options.containers, taskDefinition, 'containers');
    const earlier = stateOf(taskDefinition, 'cdk-s3files-lambda.MountOptions', () => new Map<string, EcsMountOptions>());
    if (!earlier.has(accessPoint.node.path)) earlier.set(accessPoint.node.path, options);
    if (!taskDefinition.isFargateCompatible && !taskDefinition.isManagedInstancesCompatible) {
      invalid(taskDefinition, 'compatibility', ecs.Compatibility[taskDefinition.compatibility],
        'ECS mounts S3 Files volumes only in tasks on Fargate or ECS Managed Instances; with the EC2 launch type the task fails at launch',
        'use a `FargateTaskDefinition`, or compatibility FARGATE or MANAGED_INSTANCES; on EC2 container instances mount on the instances (`Ec2Mount.onAutoScalingGroup()`) and '
          + 'use a bind mount');
    }
    if (taskDefinition.isEc2Compatible) {
      warn(taskDefinition, 'ecsEc2LaunchType',
        `${taskDefinition.node.path} is also EC2-compatible, but its S3 Files volume works only when the task runs on Fargate or ECS Managed Instances: launched with the EC2 `
          + 'launch type it fails.');
    }
    const cfn = taskDefinition.node.defaultChild as ecs.CfnTaskDefinition;
    const containerPath = options.containerPath ?? DEFAULT_MOUNT_PATH;
    validateContainerPath(taskDefinition, containerPath);
    const name = volumeName(taskDefinition, accessPoint, options.volumeName, 'ECS');

    const volumes = stateOf(cfn, 'cdk-s3files-lambda.Volumes', () => {
      const known = new Map<string, S3FilesVolume>();
      patchTaskDefinitionVolumes(cfn, (volume) => known.get(volume)?.config);
      return known;
    });
    const existing = volumes.get(name);
    checkSameVolume(taskDefinition, name, existing, accessPoint, options.transitEncryptionPort, 'task definition');
    if (!existing) {
      taskDefinition.addVolume({ name });
      volumes.set(name, { accessPoint: accessPoint.node.path, config: volumeConfig(accessPoint, options.transitEncryptionPort) });
    }
    const containers = options.containers ?? (taskDefinition.defaultContainer ? [taskDefinition.defaultContainer] : []);
    if (containers.length === 0) {
      invalid(taskDefinition, 'containers', [], 'the task definition has no essential container yet, so there is nothing to mount the volume in',
        'add the container before mounting, or pass `containers`');
    }
    for (const container of containers) {
      if (container.taskDefinition !== taskDefinition) {
        invalid(taskDefinition, 'containers', container.node.path, `the container belongs to ${container.taskDefinition.node.path}, not to this task definition`,
          'pass containers of the task definition being mounted on');
      }
      addMountPoint(taskDefinition, container.node.path, container.mountPoints,
        { sourceVolume: name, containerPath, readOnly: options.readOnly ?? false }, (m) => container.addMountPoints(m));
      // A change of what the mount may do makes a new revision: a service replaces its tasks, which mount anew.
      // The label holds what every mount of the volume in this container may do (the union of the calls).
      const label = `cdk-s3files-lambda.client-actions.${name}`;
      const mounts = stateOf(container, 'cdk-s3files-lambda.ClientActions', () => new Map<string, { readOnly: boolean; rootAccess: boolean }>());
      const before = mounts.get(label);
      const union = { readOnly: (before?.readOnly ?? true) && !!options.readOnly, rootAccess: !!before?.rootAccess || !!options.rootAccess };
      mounts.set(label, union);
      container.addDockerLabel(label, clientActionsLabel(union));
    }
    launchersChecked(taskDefinition);
    // Every service and task that uses this task definition references it, so they start only once
    // the access point and the mount targets are available.
    mountAccessPoint(accessPoint, {
      scope: taskDefinition,
      what: 'the task definition',
      grantee: taskDefinition.taskRole,
      launcher: cfn,
      efsUtils: true,
      readOnlyFlag: true,
      directReads: options.grantDirectReads ?? true,
    }, options);
    return name;
  }

  /**
   * `onTaskDefinition` on the service's task definition, and lets the service's tasks reach the
   * mount targets over NFS, checks that every AZ of its subnets has a mount target, and makes the
   * service wait until they are available.
   * @param service an awsvpc service (Fargate, or ECS Managed Instances)
   * @param accessPoint the access point to mount
   * @param options where and how to mount; when `onTaskDefinition` already mounted this access point on
   * the service's task definition, an option left unset is the one that call used (so a read-only
   * mount stays read-only)
   * @returns the volume name
   */
  public static onService(service: ecs.BaseService, accessPoint: IS3FilesAccessPoint, options: EcsMountOptions = {}): string {
    options = options ?? {}; // JavaScript may pass null
    checkShape('service', service, 'EcsMount.onService()', 'service', true);
    markEcsServiceMount(service);
    requireAccessPoint(accessPoint, service, 'accessPoint');
    // A service of a task definition mounted earlier mounts what that call mounted, not a second default
    // mount point (read-write at '/mnt/s3files') beside it.
    const earlier = findState<Map<string, EcsMountOptions>>(service.taskDefinition, 'cdk-s3files-lambda.MountOptions')?.get(accessPoint.node.path);
    const given = Object.fromEntries(Object.entries(options ?? {}).filter(([, v]) => v !== undefined && v !== null)) as EcsMountOptions;
    options = { ...earlier, ...given };
    const name = EcsMount.onTaskDefinition(service.taskDefinition, accessPoint, options);
    const cfn = service.node.defaultChild as ecs.CfnService;
    // The L2 renders its network configuration lazily: read what it will render.
    const network = Stack.of(service).resolve(cfn.networkConfiguration) as { awsvpcConfiguration?: { subnets?: unknown } } | undefined;
    const awsvpc = network?.awsvpcConfiguration;
    if (!awsvpc) {
      invalid(service, 'networkMode', 'not awsvpc', 'an S3 Files volume needs the task in the VPC of the mount targets (awsvpc networking)',
        'use a `FargateService`, or a task definition with `NetworkMode.AWS_VPC`');
    }
    mountAccessPoint(accessPoint, {
      scope: service,
      what: 'the ECS service',
      connectable: service,
      joinSecurityGroup: (group) => joinSecurityGroup(service, service.connections, cfn,
        'NetworkConfiguration.AwsvpcConfiguration.SecurityGroups', { max: MAX_TASK_SECURITY_GROUPS, service: 'ECS' }, 'the service', group),
      launcher: service,
      subnetIds: awsvpc.subnets,
      unknownAzWarning: 'The availability zones of the service\'s subnets are only known at deploy time, so the library cannot check that every one has a mount target of '
        + `${accessPoint.fileSystem.node.path}. A task placed in an AZ without one fails to start.`,
      efsUtils: true,
      readOnlyFlag: true,
      directReads: false,
    }, options);
    return name;
  }

  // Static methods only: no instances (as aws-cdk-lib's `Names` or `Fn`).
  private constructor() {}
}

/**
 * Once per mounted task definition, at synth: a service of the app that runs it without
 * `EcsMount.onService()` is refused (its tasks cannot reach the mount targets); anything else that
 * launches it (a rule, a schedule, a state machine) is named in a warning.
 */
function launchersChecked(taskDefinition: ecs.TaskDefinition): void {
  stateOf(taskDefinition, 'cdk-s3files-lambda.LaunchersChecked', () => {
    taskDefinition.node.addValidation({
      validate: () => {
        const { errors, others } = unmountedLaunchers(taskDefinition);
        if (others.length > 0) {
          warn(taskDefinition, 'ecsTaskLaunchedElsewhere',
            `${others.join(', ')} ${others.length > 1 ? 'launch' : 'launches'} tasks of ${taskDefinition.node.path}, whose S3 Files volume the library mounted: their `
            + 'network settings are their own, so give those tasks the file system\'s `clientSecurityGroup` (or a security group the mount targets admit on TCP 2049) '
            + 'and subnets in AZs that have a mount target, or they fail at launch. A service gets all of it from `EcsMount.onService()`.');
        }
        return errors;
      },
    });
    return true;
  });
}
