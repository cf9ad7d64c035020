import { Lazy, Stack } from 'aws-cdk-lib';
import * as batch from 'aws-cdk-lib/aws-batch';
import { checkClientAzs, checkSameVpc, fileSystemOf, grantMountingClient, joinSecurityGroup, openNfs, waitForMount } from './client-access';
import { addMountPoint, ContainerMountPoint, DEFAULT_CONTAINER_PATH, volumeName } from './ecs-mount';
import { invalid, validateContainerPath } from './validation';
import type { BatchMountOptions } from '../mount/batch';
import type { S3FilesAccessPointBase } from '../s3files-access-point';

/** Batch compute resources take at most this many security groups. */
const MAX_COMPUTE_SECURITY_GROUPS = 5;

/** The S3 Files volumes and mount points each job definition gets, appended to what the L2 renders. */
const ADDED = new WeakMap<batch.CfnJobDefinition, { volumes: object[]; mountPoints: ContainerMountPoint[]; names: Map<string, string> }>();

/**
 * Adds an S3 Files volume for `accessPoint` to a Fargate job definition and mounts it in its
 * container; grants the job role; the job definition waits until the access point and the mount
 * targets are available. With `computeEnvironment`, also networking, the AZ check and its wait.
 */
export function mountOnJobDefinition(jobDefinition: batch.EcsJobDefinition, accessPoint: S3FilesAccessPointBase, options: BatchMountOptions): string {
  const container = jobDefinition.container;
  if (!(container instanceof batch.EcsFargateContainerDefinition)) {
    invalid(jobDefinition, 'container', container.node.path, 'S3 Files volumes are mounted in Batch jobs on Fargate',
      'use an EcsFargateContainerDefinition (and a Fargate compute environment)');
  }
  if (!container.jobRole) {
    invalid(jobDefinition, 'container.jobRole', undefined, 'the job\'s container has no job role, and S3 Files authorizes the mount with it',
      'create the EcsFargateContainerDefinition with a jobRole (an iam.Role assumed by ecs-tasks.amazonaws.com)');
  }
  const { fs, info } = fileSystemOf(jobDefinition, accessPoint);
  const containerPath = options.containerPath ?? DEFAULT_CONTAINER_PATH;
  validateContainerPath(jobDefinition, containerPath);
  const name = volumeName(jobDefinition, accessPoint, options.volumeName, 'Batch');

  const cfn = jobDefinition.node.defaultChild as batch.CfnJobDefinition;
  let added = ADDED.get(cfn);
  if (!added) {
    const state = { volumes: [] as object[], mountPoints: [] as ContainerMountPoint[], names: new Map<string, string>() };
    added = state;
    ADDED.set(cfn, state);
    // aws-cdk-lib's EcsVolume has no S3 Files kind: append to the volumes and mount points the L2
    // renders (lazily, so volumes the user adds later are kept).
    const rendered = cfn.containerProperties as batch.CfnJobDefinition.ContainerPropertiesProperty;
    const stack = Stack.of(cfn);
    cfn.containerProperties = {
      ...rendered,
      volumes: Lazy.any({ produce: () => [...((stack.resolve(rendered.volumes) ?? []) as object[]), ...state.volumes] }),
      mountPoints: Lazy.any({ produce: () => [...((stack.resolve(rendered.mountPoints) ?? []) as object[]), ...state.mountPoints] }),
    };
  }
  const existing = added.names.get(name);
  if (existing !== undefined && existing !== accessPoint.node.path) {
    invalid(jobDefinition, 'volumeName', name, `the job definition already has an S3 Files volume of that name for ${existing}`, 'give each access point its own volumeName');
  }
  if (existing === undefined) {
    added.names.set(name, accessPoint.node.path);
    added.volumes.push({
      name,
      s3FilesVolumeConfiguration: {
        fileSystemArn: accessPoint.fileSystem.fileSystemArn,
        accessPointArn: accessPoint.accessPointArn,
        transitEncryptionPort: options.transitEncryptionPort,
      },
    });
  }
  // The container's own volumes (rendered by the L2) and the S3 Files mounts added so far.
  const present = [
    ...container.volumes.map((v) => ({ sourceVolume: v.name, containerPath: v.containerPath, readOnly: v.readonly })),
    ...added.mountPoints,
  ];
  const mountPoints = added.mountPoints;
  addMountPoint(jobDefinition, container.node.path, present,
    { sourceVolume: name, containerPath, readOnly: options.readOnly ?? false }, (m) => mountPoints.push(m));

  grantMountingClient(jobDefinition, container.jobRole, accessPoint, options, { what: 'the job', efsUtils: true, readOnlyFlag: true });
  waitForMount(cfn, accessPoint, info);

  const environment = options.computeEnvironment;
  if (environment) {
    const ce = environment.node.defaultChild as batch.CfnComputeEnvironment;
    const resources = Stack.of(ce).resolve(ce.computeResources) as { subnets?: unknown } | undefined;
    checkSameVpc(environment, environment.connections, info.vpc, 'the compute environment', resources?.subnets);
    openNfs(environment, fs, info, environment, (group) => joinSecurityGroup(environment, environment.connections, ce,
      'ComputeResources.SecurityGroupIds', { max: MAX_COMPUTE_SECURITY_GROUPS, service: 'Batch' }, 'the compute environment', group), 'the compute environment');
    checkClientAzs(environment, info, resources?.subnets,
      `The availability zones of the compute environment's subnets are only known at deploy time, so the library cannot check that each has a mount target of ${fs.node.path}.`);
    ce.node.addDependency(accessPoint.available);
  }
  return name;
}
