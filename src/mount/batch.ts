import { Stack } from 'aws-cdk-lib';
import * as batch from 'aws-cdk-lib/aws-batch';
import { S3FilesMountOptions } from './options';
import { checkShape } from '../private/argument-shapes';
import { appendJobDefinitionVolumes } from '../private/compat';
import { stateOf } from '../private/construct-state';
import { invalid } from '../private/messages';
import { addMountPoint, checkSameVolume, ContainerMountPoint, S3FilesVolume, volumeConfig, volumeName } from '../private/mount/container-volumes';
import { DEFAULT_MOUNT_PATH, mountAccessPoint } from '../private/mount/mount-pipeline';
import { joinSecurityGroup } from '../private/mount/network';
import { requireAccessPoint } from '../private/mount/shapes';
import { validateContainerPath } from '../private/validation';
import type { IS3FilesAccessPoint } from '../s3files-access-point-contract';

/** Batch compute resources take at most this many security groups. */
const MAX_COMPUTE_SECURITY_GROUPS = 5;

/**
 * How an access point is mounted in an AWS Batch job (`BatchMount.onJobDefinition`): an S3 Files
 * volume in a Fargate job definition, mounted in its container, with the job role's grants.
 */
export interface BatchMountOptions extends S3FilesMountOptions {
  /**
   * Where the job's container sees the file system.
   * @default '/mnt/s3files'
   */
  readonly containerPath?: string;

  /**
   * The job definition volume's name.
   * @default - 's3files-' plus a hash of the access point's stack name and logical id (or ARN), stable across deployments and Stage moves
   */
  readonly volumeName?: string;

  /**
   * The port for the TLS tunnel between the host and the mount target.
   * @default - the mount helper's choice
   */
  readonly transitEncryptionPort?: number;

  /**
   * The Fargate compute environment the job runs in: it joins the file system's client security
   * group (or the mount targets admit it), its subnets are checked for mount targets, and it waits
   * until they are available. Without it, let the environment reach TCP 2049 yourself.
   * @default - none
   */
  readonly computeEnvironment?: batch.FargateComputeEnvironment;
}

/** What the library added to a job definition beyond what its L2 renders. */
interface JobVolumes {
  readonly volumes: Map<string, S3FilesVolume>;
  readonly mountPoints: ContainerMountPoint[];
}

/**
 * Mounts S3 Files access points in AWS Batch jobs.
 */
export class BatchMount {
  /**
   * Adds an S3 Files volume for an access point to a Batch Fargate job definition and mounts it in
   * its container; grants the job role what the mount needs (scoped to the access point) and the
   * direct reads; the job definition waits until the mount targets and the access point are
   * available. Pass `computeEnvironment` to also open NFS from it and check its subnets' AZs.
   * @param jobDefinition a job definition with an `EcsFargateContainerDefinition` that has a job role
   * @param accessPoint the access point to mount
   * @param options where and how to mount
   * @returns the volume name
   */
  public static onJobDefinition(jobDefinition: batch.EcsJobDefinition, accessPoint: IS3FilesAccessPoint, options: BatchMountOptions = {}): string {
    options = options ?? {}; // JavaScript may pass null
    checkShape('jobDefinition', jobDefinition, 'BatchMount.onJobDefinition()', 'jobDefinition', true);
    requireAccessPoint(accessPoint, jobDefinition, 'accessPoint');
    checkShape('computeEnvironment', options.computeEnvironment, jobDefinition, 'computeEnvironment');
    const container = jobDefinition.container;
    if (!(container instanceof batch.EcsFargateContainerDefinition)) {
      invalid(jobDefinition, 'container', container.node.path, 'S3 Files volumes are mounted in Batch jobs on Fargate',
        'use an `EcsFargateContainerDefinition` (and a Fargate compute environment)');
    }
    if (!container.jobRole) {
      invalid(jobDefinition, 'container.jobRole', undefined, 'the job\'s container has no job role, and S3 Files authorizes the mount with it',
        'create the `EcsFargateContainerDefinition` with a `jobRole` (an iam.Role assumed by ecs-tasks.amazonaws.com)');
    }
    const containerPath = options.containerPath ?? DEFAULT_MOUNT_PATH;
    validateContainerPath(jobDefinition, containerPath);
    const name = volumeName(jobDefinition, accessPoint, options.volumeName, 'Batch');

    const cfn = jobDefinition.node.defaultChild as batch.CfnJobDefinition;
    const added = stateOf<JobVolumes>(cfn, 'cdk-s3files-lambda.Volumes', () => {
      const state: JobVolumes = { volumes: new Map(), mountPoints: [] };
      appendJobDefinitionVolumes(cfn,
        () => [...state.volumes.entries()].map(([volume, v]) => ({ name: volume, s3FilesVolumeConfiguration: v.config })),
        () => state.mountPoints);
      return state;
    });
    const existing = added.volumes.get(name);
    checkSameVolume(jobDefinition, name, existing, accessPoint, options.transitEncryptionPort, 'job definition');
    if (!existing) added.volumes.set(name, { accessPoint: accessPoint.node.path, config: volumeConfig(accessPoint, options.transitEncryptionPort) });
    // The container's own volumes (rendered by the L2) and the S3 Files mounts added so far.
    const present = [
      ...container.volumes.map((v) => ({ sourceVolume: v.name, containerPath: v.containerPath, readOnly: v.readonly })),
      ...added.mountPoints,
    ];
    addMountPoint(jobDefinition, container.node.path, present,
      { sourceVolume: name, containerPath, readOnly: options.readOnly ?? false }, (m) => added.mountPoints.push(m));

    mountAccessPoint(accessPoint, {
      scope: jobDefinition,
      what: 'the job',
      grantee: container.jobRole,
      launcher: cfn,
      efsUtils: true,
      readOnlyFlag: true,
      directReads: options.grantDirectReads ?? true,
    }, options);

    const environment = options.computeEnvironment;
    if (environment) {
      const ce = environment.node.defaultChild as batch.CfnComputeEnvironment;
      const resources = Stack.of(ce).resolve(ce.computeResources) as { subnets?: unknown } | undefined;
      mountAccessPoint(accessPoint, {
        scope: environment,
        what: 'the compute environment',
        connectable: environment,
        joinSecurityGroup: (group) => joinSecurityGroup(environment, environment.connections, ce,
          'ComputeResources.SecurityGroupIds', { max: MAX_COMPUTE_SECURITY_GROUPS, service: 'Batch' }, 'the compute environment', group),
        launcher: ce,
        subnetIds: resources?.subnets,
        unknownAzWarning: 'The availability zones of the compute environment\'s subnets are only known at deploy time, so the library cannot check that each has a mount target '
          + `of ${accessPoint.fileSystem.node.path}.`,
        efsUtils: true,
        readOnlyFlag: true,
        directReads: false,
      }, options);
    }
    return name;
  }

  // Static methods only: no instances (as aws-cdk-lib's `Names` or `Fn`).
  private constructor() {}
}
