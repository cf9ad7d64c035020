import * as crypto from 'crypto';
import { Annotations, Lazy, Stack, Token } from 'aws-cdk-lib';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import { IConstruct } from 'constructs';
import { checkClientAzs, checkSameVpc, fileSystemOf, grantMountingClient, joinSecurityGroup, openNfs, waitForMount } from './client-access';
import { describe, invalid, validateContainerPath } from './validation';
import type { EcsMountOptions } from '../mount/ecs';
import type { S3FilesAccessPointBase } from '../s3files-access-point';

/** Where containers see the file system when no path is given. */
export const DEFAULT_CONTAINER_PATH = '/mnt/s3files';
/** ECS attaches at most this many security groups to a task (awsvpc). */
const MAX_TASK_SECURITY_GROUPS = 5;

/** The S3 Files volume configurations of each task definition, by volume name. */
interface S3FilesVolume { readonly accessPoint: string; readonly config: ecs.CfnTaskDefinition.S3FilesVolumeConfigurationProperty }
const S3FILES_VOLUMES = new WeakMap<ecs.CfnTaskDefinition, Map<string, S3FilesVolume>>();

/**
 * The name of an access point's volume in a task or job definition: the given one, checked, or a
 * hash of the access point as CloudFormation sees it (its stack's name and its ARN resolved there: a
 * logical id, or a literal), not its construct path, which a Stage move changes; the task definition
 * would be replaced for it.
 */
export function volumeName(scope: IConstruct, accessPoint: S3FilesAccessPointBase, given: string | undefined, service: string): string {
  const home = Stack.of(accessPoint);
  const identity = JSON.stringify([home.resolve(home.stackName), home.resolve(accessPoint.accessPointArn)]);
  const name = given ?? `s3files-${crypto.createHash('sha256').update(identity).digest('hex').slice(0, 12)}`;
  if (!Token.isUnresolved(name) && !/^[A-Za-z0-9_-]{1,255}$/.test(name)) {
    invalid(scope, 'volumeName', name, `${service} volume names are 1-255 letters, digits, hyphens and underscores`, 'use a name such as "shared-data"');
  }
  return name;
}

/**
 * Adds an S3 Files volume for `accessPoint` to a task definition and mounts it in its containers;
 * grants the task role; makes the task definition (so every service or task that uses it) wait
 * until the access point and the mount targets are available. Returns the volume name.
 */
export function mountOnTaskDefinition(taskDefinition: ecs.TaskDefinition, accessPoint: S3FilesAccessPointBase, options: EcsMountOptions): string {
  if (!taskDefinition.isFargateCompatible && !taskDefinition.isManagedInstancesCompatible) {
    invalid(taskDefinition, 'compatibility', ecs.Compatibility[taskDefinition.compatibility],
      'ECS mounts S3 Files volumes only in tasks on Fargate or ECS Managed Instances; with the EC2 launch type the task fails at launch',
      'use a FargateTaskDefinition, or compatibility FARGATE or MANAGED_INSTANCES; on EC2 container instances mount on the instances (mountOnInstance) and use a bind mount');
  }
  if (taskDefinition.isEc2Compatible) {
    Annotations.of(taskDefinition).addWarningV2('cdk-s3files-lambda:ecsEc2LaunchType',
      `${taskDefinition.node.path} is also EC2-compatible, but its S3 Files volume works only when the task runs on Fargate or ECS Managed Instances: launched with the EC2 launch type it fails.`);
  }
  const cfn = taskDefinition.node.defaultChild as ecs.CfnTaskDefinition;
  const { info } = fileSystemOf(taskDefinition, accessPoint);
  const containerPath = options.containerPath ?? DEFAULT_CONTAINER_PATH;
  validateContainerPath(taskDefinition, containerPath);
  const name = volumeName(taskDefinition, accessPoint, options.volumeName, 'ECS');

  let volumes = S3FILES_VOLUMES.get(cfn);
  if (!volumes) {
    volumes = new Map();
    S3FILES_VOLUMES.set(cfn, volumes);
    // aws-cdk-lib's TaskDefinition has no S3 Files volume type: its rendered volumes get the L1
    // S3FilesVolumeConfiguration by name, whatever else is added to the task definition later.
    const rendered = cfn.volumes;
    const known = volumes;
    cfn.volumes = Lazy.any({
      produce: () => ((Stack.of(cfn).resolve(rendered) ?? []) as Array<{ name?: string }>)
        .map((v) => (v.name !== undefined && known.has(v.name) ? { ...v, s3FilesVolumeConfiguration: known.get(v.name)!.config } : v)),
    });
  }
  const existing = volumes.get(name);
  if (existing && existing.accessPoint !== accessPoint.node.path) {
    invalid(taskDefinition, 'volumeName', name, `the task definition already has an S3 Files volume of that name for ${existing.accessPoint}`, 'give each access point its own volumeName');
  }
  if (existing && options.transitEncryptionPort !== undefined && existing.config.transitEncryptionPort !== options.transitEncryptionPort) {
    invalid(taskDefinition, 'transitEncryptionPort', options.transitEncryptionPort,
      `the task definition's volume ${name} was already added with transitEncryptionPort ${describe(existing.config.transitEncryptionPort)}`,
      'give the same transitEncryptionPort every time this access point is mounted on the task definition (or leave it out after the first)');
  }
  if (!existing) {
    taskDefinition.addVolume({ name });
    volumes.set(name, {
      accessPoint: accessPoint.node.path,
      config: {
        fileSystemArn: accessPoint.fileSystem.fileSystemArn,
        accessPointArn: accessPoint.accessPointArn,
        transitEncryptionPort: options.transitEncryptionPort,
      },
    });
  }

  const containers = options.containers ?? (taskDefinition.defaultContainer ? [taskDefinition.defaultContainer] : []);
  if (containers.length === 0) {
    invalid(taskDefinition, 'containers', [], 'the task definition has no essential container yet, so there is nothing to mount the volume in',
      'add the container before mounting, or pass containers');
  }
  for (const container of containers) {
    if (container.taskDefinition !== taskDefinition) {
      invalid(taskDefinition, 'containers', container.node.path, `the container belongs to ${container.taskDefinition.node.path}, not to this task definition`,
        'pass containers of the task definition being mounted on');
    }
    addMountPoint(taskDefinition, container.node.path, container.mountPoints,
      { sourceVolume: name, containerPath, readOnly: options.readOnly ?? false }, (m) => container.addMountPoints(m));
  }

  grantMountingClient(taskDefinition, taskDefinition.taskRole, accessPoint, options, { what: 'the task definition', efsUtils: true, readOnlyFlag: true });
  // Every service and task that uses this task definition references it, so they are created only
  // once the access point and the mount targets are available (not merely created).
  waitForMount(cfn, accessPoint, info);
  return name;
}

/** A container's mount point, as ECS and Batch render it. */
export interface ContainerMountPoint { readonly sourceVolume: string; readonly containerPath: string; readonly readOnly: boolean }

/**
 * Adds a mount point unless the container already has it (mounting a task definition, then its
 * service, or two services sharing it, mounts the same volume at the same path again: a duplicate
 * entry CloudFormation rejects). Refuses a path another volume already takes, and the same mount
 * with the other readOnly setting.
 */
export function addMountPoint(
  scope: IConstruct, container: string, existing: ReadonlyArray<{ sourceVolume?: string; containerPath?: string; readOnly?: boolean }>,
  mountPoint: ContainerMountPoint, add: (mountPoint: ContainerMountPoint) => void,
): void {
  // '/data' and '/data/' are one directory in the container.
  const normal = (path: string | undefined) => (path === undefined || Token.isUnresolved(path) ? path : path.replace(/(.)\/+$/, '$1'));
  const taken = existing.find((m) => normal(m.containerPath) === normal(mountPoint.containerPath));
  if (!taken) {
    add(mountPoint);
    return;
  }
  if (taken.sourceVolume !== mountPoint.sourceVolume) {
    invalid(scope, 'containerPath', mountPoint.containerPath, `the container ${container} already mounts the volume ${taken.sourceVolume} there`,
      'give each access point (or volume) its own containerPath');
  }
  if ((taken.readOnly ?? false) !== mountPoint.readOnly) {
    invalid(scope, 'readOnly', mountPoint.readOnly, `the container ${container} already mounts the volume ${mountPoint.sourceVolume} at ${mountPoint.containerPath} ${taken.readOnly ? 'read-only' : 'read-write'}`,
      'mount an access point with the same readOnly setting every time, or at another containerPath');
  }
}

/**
 * `mountOnTaskDefinition` on the service's task definition, plus what only the service knows: its
 * security groups reach NFS, its subnets are in AZs with mount targets, and it waits.
 */
export function mountOnService(service: ecs.BaseService, accessPoint: S3FilesAccessPointBase, options: EcsMountOptions): string {
  const name = mountOnTaskDefinition(service.taskDefinition, accessPoint, options);
  const { fs, info } = fileSystemOf(service, accessPoint);
  const cfn = service.node.defaultChild as ecs.CfnService;
  // The L2 renders its network configuration lazily: read what it will render.
  const network = Stack.of(service).resolve(cfn.networkConfiguration) as { awsvpcConfiguration?: { subnets?: unknown } } | undefined;
  const awsvpc = network?.awsvpcConfiguration;
  if (!awsvpc) {
    invalid(service, 'networkMode', 'not awsvpc', 'an S3 Files volume needs the task in the VPC of the mount targets (awsvpc networking)',
      'use a FargateService, or a task definition with NetworkMode.AWS_VPC');
  }
  checkSameVpc(service, service.connections, info.vpc, 'the service', awsvpc.subnets);
  openNfs(service, fs, info, service, (group) => joinSecurityGroup(service, service.connections, cfn,
    'NetworkConfiguration.AwsvpcConfiguration.SecurityGroups', { max: MAX_TASK_SECURITY_GROUPS, service: 'ECS' }, 'the service', group), 'the ECS service');
  checkClientAzs(service, info, awsvpc.subnets,
    `The availability zones of the service's subnets are only known at deploy time, so the library cannot check that every one has a mount target of ${fs.node.path}. A task placed in an AZ without one fails to start.`);
  service.node.addDependency(accessPoint.available);
  return name;
}
