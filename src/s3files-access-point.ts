import { Annotations, ArnFormat, Fn, IResource, Resource, ResourceProps, Stack, Token, Tokenization } from 'aws-cdk-lib';
import * as autoscaling from 'aws-cdk-lib/aws-autoscaling';
import * as batch from 'aws-cdk-lib/aws-batch';
import * as agentcore from 'aws-cdk-lib/aws-bedrockagentcore';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3files from 'aws-cdk-lib/aws-s3files';
import { Construct, DependencyGroup, IDependable } from 'constructs';
import { AgentCoreMountOptions } from './mount/agentcore';
import { BatchMountOptions } from './mount/batch';
import { Ec2MountOptions } from './mount/ec2';
import { EcsMountOptions } from './mount/ecs';
import { LambdaMountOptions } from './mount/lambda';
import { mountOnAgentCoreRuntime } from './private/agentcore-mount';
import { mountOnJobDefinition } from './private/batch-mount';
import { CLIENT_READ_ACTIONS, CLIENT_READ_WRITE_ACTIONS, CLIENT_ROOT_ACTIONS } from './private/client-actions';
import { mountOnAutoScalingGroup, mountOnInstance, mountOnLaunchTemplate } from './private/ec2-mount';
import { mountOnService, mountOnTaskDefinition } from './private/ecs-mount';
import { grantScoped } from './private/grants';
import { mountOnFunction } from './private/lambda-mount';
import { scopeActions } from './private/s3files-actions';
import {
  validateAccessPointPath, validatePermissions, validatePosixId, validateSecondaryGids, invalid, spelling,
} from './private/validation';
import { IS3FilesFileSystem, S3FilesFileSystemBase } from './s3files-file-system-base';

/**
 * The POSIX identity every NFS operation through an access point runs as.
 */
export interface PosixUser {
  /** User id, 0 to 4294967295. */
  readonly uid: number;
  /** Primary group id, 0 to 4294967295. */
  readonly gid: number;
  /**
   * Secondary group ids (at most 16).
   * @default - none
   */
  readonly secondaryGids?: number[];
}

/**
 * Options for an S3 Files access point.
 */
export interface S3FilesAccessPointOptions {
  /**
   * Root directory of the access point on the file system: absolute, at most 100 characters
   * and 4 components, no component starting with '.'. Created on first use.
   * @default '/lambda'
   */
  readonly path?: string;

  /**
   * The POSIX user the clients act as.
   * @default - uid 1000, gid 1000
   */
  readonly posixUser?: PosixUser;

  /**
   * Octal permissions of the root directory when S3 Files creates it (owner = the POSIX user).
   * @default '755'
   */
  readonly createPermissions?: string;
}

/**
 * Properties of an S3 Files access point.
 */
export interface S3FilesAccessPointProps extends S3FilesAccessPointOptions {
  /**
   * The file system the access point belongs to: one created in this app (`S3FilesFileSystem`),
   * whose waiter also waits for an access point in its own stack, or one imported with
   * `S3FilesFileSystem.fromFileSystemAttributes` in the stack's account and region. An access point
   * in another stack than its file system, or on an imported one, gets a waiter of its own. To use
   * an access point that already exists, import it with `fromAccessPointAttributes` instead.
   */
  readonly fileSystem: IS3FilesFileSystem;
}

/**
 * An S3 Files access point: one created by `S3FilesAccessPoint` or one imported with
 * `S3FilesAccessPoint.fromAccessPointAttributes`.
 */
export interface IS3FilesAccessPoint extends IResource {
  /**
   * The access point id (`fsap-...`).
   * @attribute
   */
  readonly accessPointId: string;
  /**
   * The access point ARN.
   * @attribute
   */
  readonly accessPointArn: string;
  /** The file system of this access point. */
  readonly fileSystem: IS3FilesFileSystem;
  /** Completes when clients can mount through this access point. */
  readonly available: IDependable;

  /**
   * Grants read access over NFS (`s3files:ClientMount`), only through this access point.
   * @param grantee the principal to grant
   */
  grantRead(grantee: iam.IGrantable): iam.Grant;
  /**
   * Grants read and write access over NFS (`ClientMount`, `ClientWrite`), only through this access point.
   * @param grantee the principal to grant
   */
  grantReadWrite(grantee: iam.IGrantable): iam.Grant;
  /**
   * Grants root access over NFS (`ClientMount`, `ClientWrite`, `ClientRootAccess`), only through this access point.
   * @param grantee the principal to grant
   */
  grantRootAccess(grantee: iam.IGrantable): iam.Grant;
  /**
   * Grants the given `s3files:` actions, only through this access point.
   * @param grantee the principal to grant
   * @param actions the actions, each starting with `s3files:`
   */
  grant(grantee: iam.IGrantable, ...actions: string[]): iam.Grant;
  /**
   * Mounts this access point on a Lambda function of yours (`lambda.Function`, `NodejsFunction`,
   * `PythonFunction`, `DockerImageFunction` ...) created in the file system's VPC: sets the
   * function's file system config, makes it wait until the mount targets and this access point are
   * available, lets it reach the mount targets over NFS, grants the client actions (scoped to this
   * access point) and the direct-read rights, sets `MOUNT_PATH`, and checks that every AZ of its
   * subnets has a mount target. Lambda allows one mount per function.
   * @param fn the function, which must have a VPC
   * @param options where and how to mount
   */
  mountOnFunction(fn: lambda.Function, options?: LambdaMountOptions): void;

  /**
   * Adds an S3 Files volume for this access point to an ECS task definition (Fargate or ECS
   * Managed Instances) and mounts it in its containers; grants the task role the client actions
   * (scoped to this access point), the reads ECS was seen to validate a mount with (a field
   * report, not in the AWS docs) and the direct-read rights; and makes the task definition, so
   * every service and task using it, wait until the mount targets and this access point are
   * available. Networking is the service's: see `mountOnService`.
   * @param taskDefinition the task definition
   * @param options where and how to mount
   * @returns the volume name
   */
  mountOnTaskDefinition(taskDefinition: ecs.TaskDefinition, options?: EcsMountOptions): string;

  /**
   * `mountOnTaskDefinition` on the service's task definition, and lets the service's tasks reach
   * the mount targets over NFS, checks that every AZ of its subnets has a mount target, and makes
   * the service wait until they are available.
   * @param service an awsvpc service (Fargate, or ECS Managed Instances)
   * @param options where and how to mount
   * @returns the volume name
   */
  mountOnService(service: ecs.BaseService, options?: EcsMountOptions): string;

  /**
   * Mounts this access point on an EC2 instance at boot: user data installs amazon-efs-utils
   * (>= 3.0.0), writes the fstab line and mounts with `mount -t s3files`, retrying while the mount
   * target is not reachable; grants the instance role; lets the instance reach NFS; checks its
   * subnet's AZ has a mount target; and creates the instance only once they are available.
   * @param instance a Linux instance in the file system's VPC
   * @param options where and how to mount
   */
  mountOnInstance(instance: ec2.Instance, options?: Ec2MountOptions): void;

  /**
   * `mountOnInstance` for every instance of an Auto Scaling group (one built from a machine image,
   * not from a launch template: mount on the template then).
   * @param group the Auto Scaling group
   * @param options where and how to mount
   */
  mountOnAutoScalingGroup(group: autoscaling.AutoScalingGroup, options?: Ec2MountOptions): void;

  /**
   * `mountOnInstance` for every instance launched from a launch template (which needs user data,
   * a role and a security group). Its AZs are the launcher's: they cannot be checked here.
   * @param template the launch template
   * @param options where and how to mount
   */
  mountOnLaunchTemplate(template: ec2.LaunchTemplate, options?: Ec2MountOptions): void;

  /**
   * Adds an S3 Files volume for this access point to an AWS Batch Fargate job definition and mounts
   * it in its container; grants the job role the client actions scoped to this access point, the
   * reads ECS was seen to validate a mount with (a field report; Batch runs the job on ECS) and
   * direct reads; the job definition waits until the mount targets and this access point are
   * available. Pass `computeEnvironment` to also open NFS from it and check its subnets' AZs.
   * @param jobDefinition a job definition with an `EcsFargateContainerDefinition` that has a job role
   * @param options where and how to mount
   * @returns the volume name
   */
  mountOnJobDefinition(jobDefinition: batch.EcsJobDefinition, options?: BatchMountOptions): string;

  /**
   * Mounts this access point in a Bedrock AgentCore runtime (its `FilesystemConfigurations`, which
   * the L2 has no prop for); grants its execution role the client actions (scoped to this access
   * point), the reads AgentCore was seen to validate a mount with (a field report, not in the AWS
   * docs) and direct reads; lets it reach NFS; checks its subnets' AZs; and creates it only once
   * the mount targets and this access point are available.
   * @param runtime a runtime in VPC mode, in the file system's VPC
   * @param options where and how to mount
   */
  mountOnAgentCoreRuntime(runtime: agentcore.Runtime, options?: AgentCoreMountOptions): void;
}

/**
 * How an existing access point is imported.
 */
export interface S3FilesAccessPointAttributes {
  /**
   * The access point id (`fsap-...`). Give this or `accessPointArn`.
   * @default - taken from `accessPointArn`
   */
  readonly accessPointId?: string;
  /**
   * The access point ARN. Give this or `accessPointId`.
   * @default - built from the file system ARN and `accessPointId`
   */
  readonly accessPointArn?: string;
  /** The file system of the access point (created in this app or imported). */
  readonly fileSystem: IS3FilesFileSystem;
  /**
   * The access point's root directory: the direct-read grant of a Lambda mount covers the bucket
   * keys under the file system's prefix plus this path.
   * @default - unknown: the direct-read grant covers the whole file-system prefix
   */
  readonly path?: string;
}

/**
 * What grants and mounts need of an access point, owned or imported.
 */
export abstract class S3FilesAccessPointBase extends Resource implements IS3FilesAccessPoint {
  public abstract readonly accessPointId: string;
  public abstract readonly accessPointArn: string;
  public abstract readonly fileSystem: IS3FilesFileSystem;
  public abstract readonly available: IDependable;

  constructor(scope: Construct, id: string, props: ResourceProps = {}) {
    super(scope, id, props);
    // aws-cdk-lib's lambda.FileSystem.fromS3FilesAccessPoint reads `accessPointRef` (an L1's) and
    // then looks for the L1s of the file system and mount targets: this library's access points are
    // mounted with mountOnFunction, which also waits for the waiter. Say so instead of a TypeError.
    Object.defineProperty(this, 'accessPointRef', {
      enumerable: false,
      get: () => invalid(this, 'ap', this.node.path,
        'aws-cdk-lib\'s S3 Files helpers (lambda.FileSystem.fromS3FilesAccessPoint) take its CfnAccessPoint, not an access point of this library',
        'mount it with accessPoint.mountOnFunction(fn, { mountPath, directS3Read }) instead of the function\'s filesystem prop (or use S3FilesMountedFunction); '
        + 'for its ARN use accessPoint.accessPointArn'),
    });
  }

  /** The root directory of this access point, when known (the direct-read grant uses it). @internal */
  public abstract _rootPath(): string | undefined;

  public grantRead(grantee: iam.IGrantable): iam.Grant {
    return this.scopedGrant(grantee, CLIENT_READ_ACTIONS);
  }

  public grantReadWrite(grantee: iam.IGrantable): iam.Grant {
    return this.scopedGrant(grantee, CLIENT_READ_WRITE_ACTIONS);
  }

  public grantRootAccess(grantee: iam.IGrantable): iam.Grant {
    return this.scopedGrant(grantee, CLIENT_ROOT_ACTIONS);
  }

  public grant(grantee: iam.IGrantable, ...actions: string[]): iam.Grant {
    return this.scopedGrant(grantee, actions);
  }

  public mountOnFunction(fn: lambda.Function, options: LambdaMountOptions = {}): void {
    mountOnFunction(fn, this, options);
  }

  public mountOnTaskDefinition(taskDefinition: ecs.TaskDefinition, options: EcsMountOptions = {}): string {
    return mountOnTaskDefinition(taskDefinition, this, options);
  }

  public mountOnService(service: ecs.BaseService, options: EcsMountOptions = {}): string {
    return mountOnService(service, this, options);
  }

  public mountOnInstance(instance: ec2.Instance, options: Ec2MountOptions = {}): void {
    mountOnInstance(instance, this, options);
  }

  public mountOnAutoScalingGroup(group: autoscaling.AutoScalingGroup, options: Ec2MountOptions = {}): void {
    mountOnAutoScalingGroup(group, this, options);
  }

  public mountOnLaunchTemplate(template: ec2.LaunchTemplate, options: Ec2MountOptions = {}): void {
    mountOnLaunchTemplate(template, this, options);
  }

  public mountOnJobDefinition(jobDefinition: batch.EcsJobDefinition, options: BatchMountOptions = {}): string {
    return mountOnJobDefinition(jobDefinition, this, options);
  }

  public mountOnAgentCoreRuntime(runtime: agentcore.Runtime, options: AgentCoreMountOptions = {}): void {
    mountOnAgentCoreRuntime(runtime, this, options);
  }

  private scopedGrant(grantee: iam.IGrantable, actions: string[]): iam.Grant {
    const fs = this.fileSystem;
    if (S3FilesFileSystemBase.isS3FilesFileSystemBase(fs)) return fs._grant(grantee, actions, this.accessPointArn, this);
    // Another implementation of the interface: the same statements.
    const target = { fileSystemArn: fs.fileSystemArn, accessPointArn: this.accessPointArn };
    return grantScoped(this, grantee, scopeActions(this, actions, target), `${actions.join(', ')} through ${this.node.path}`, target);
  }
}

/**
 * An access point of an S3 Files file system: a fixed POSIX identity and root directory.
 * Any number of functions may mount one access point. It may live in another stack than its
 * file system (next to the functions that use it), sibling or nested.
 *
 * @example
 * declare const fileSystem: S3FilesFileSystem;
 * declare const fn: lambda.Function;
 * declare const taskDefinition: ecs.FargateTaskDefinition;
 *
 * // One directory for a function and a Fargate task; the task only reads.
 * const shared = new S3FilesAccessPoint(this, 'Shared', { fileSystem, path: '/shared' });
 * shared.mountOnFunction(fn);
 * shared.mountOnTaskDefinition(taskDefinition, { containerPath: '/data', readOnly: true });
 */
export class S3FilesAccessPoint extends S3FilesAccessPointBase {
  /**
   * Imports an existing access point (of a file system created in this app or imported).
   * It exists, so clients wait only for what its file system needs.
   * @param scope the scope of the imported construct
   * @param id its id
   * @param attrs what is known of the access point
   */
  public static fromAccessPointAttributes(scope: Construct, id: string, attrs: S3FilesAccessPointAttributes): IS3FilesAccessPoint {
    return new ImportedAccessPoint(scope, id, attrs);
  }

  /** The access point id (`fsap-...`). */
  public readonly accessPointId: string;
  /** The access point ARN. */
  public readonly accessPointArn: string;
  /** The file system of this access point. */
  public readonly fileSystem: IS3FilesFileSystem;
  /** The root directory of this access point. */
  public readonly path: string;
  /** The POSIX user of this access point. */
  public readonly posixUser: PosixUser;
  /**
   * Completes when this access point and the file system's mount targets are available.
   * Clients of this access point depend on this. For an access point in another stack than its
   * file system, it includes a waiter of its own in this access point's stack.
   */
  public readonly available: IDependable;

  constructor(scope: Construct, id: string, props: S3FilesAccessPointProps) {
    super(scope, id);
    const fileSystem = props.fileSystem;
    if (!S3FilesFileSystemBase.isS3FilesFileSystemBase(fileSystem)) {
      invalid(this, 'fileSystem', fileSystem.node.path, 'an access point needs a file system of this library, whose waiter can wait for it',
        'pass an S3FilesFileSystem, or one imported with S3FilesFileSystem.fromFileSystemAttributes');
    }
    this.fileSystem = fileSystem;
    this.path = props.path ?? '/lambda';
    this.posixUser = props.posixUser ?? { uid: 1000, gid: 1000 };
    const permissions = props.createPermissions ?? '755';

    validateAccessPointPath(this, this.path);
    validatePosixId(this, 'posixUser.uid', this.posixUser.uid);
    validatePosixId(this, 'posixUser.gid', this.posixUser.gid);
    validateSecondaryGids(this, this.posixUser.secondaryGids ?? []);
    validatePermissions(this, permissions);
    if (this.posixUser.uid === 0) {
      Annotations.of(this).addWarningV2('cdk-s3files-lambda:posixUserRoot',
        `posixUser.uid is 0 (root): every client of this access point acts as root on the file system. Use a non-root uid such as 1000 unless root is required.${spelling(['posixUser.uid'])}`);
    }

    const uid = Tokenization.stringifyNumber(this.posixUser.uid);
    const gid = Tokenization.stringifyNumber(this.posixUser.gid);
    const secondaryGids = this.posixUser.secondaryGids?.map(g => Tokenization.stringifyNumber(g));
    const resource = new s3files.CfnAccessPoint(this, 'Resource', {
      fileSystemId: this.fileSystem.fileSystemId,
      posixUser: { uid, gid, secondaryGids: secondaryGids?.length ? secondaryGids : undefined },
      rootDirectory: {
        path: this.path,
        creationPermissions: { ownerUid: uid, ownerGid: gid, permissions },
      },
    });
    this.accessPointId = resource.attrAccessPointId;
    this.accessPointArn = resource.attrAccessPointArn;
    this.available = fileSystem._registerAccessPoint(this);
  }

  /** @internal */
  public _rootPath(): string {
    return this.path;
  }
}

/** An access point imported with `S3FilesAccessPoint.fromAccessPointAttributes`. */
class ImportedAccessPoint extends S3FilesAccessPointBase {
  public readonly accessPointId: string;
  public readonly accessPointArn: string;
  public readonly fileSystem: IS3FilesFileSystem;
  public readonly available: IDependable;
  private readonly path?: string;

  constructor(scope: Construct, id: string, attrs: S3FilesAccessPointAttributes) {
    super(scope, id);
    if (!attrs.accessPointId && !attrs.accessPointArn) {
      invalid(this, 'accessPointId', undefined, 'an imported access point needs its id or its ARN', 'give accessPointId (fsap-...) or accessPointArn');
    }
    this.fileSystem = attrs.fileSystem;
    if (attrs.accessPointArn !== undefined && !Token.isUnresolved(attrs.accessPointArn)) {
      checkAccessPointArn(this, attrs.accessPointArn, attrs.accessPointId, attrs.fileSystem);
    }
    // ARN: <file system ARN>/access-point/<id>
    this.accessPointArn = attrs.accessPointArn ?? `${attrs.fileSystem.fileSystemArn}/access-point/${attrs.accessPointId}`;
    this.accessPointId = attrs.accessPointId ?? (Token.isUnresolved(this.accessPointArn)
      ? Fn.select(3, Fn.split('/', Stack.of(this).splitArn(this.accessPointArn, ArnFormat.NO_RESOURCE_NAME).resource))
      : this.accessPointArn.split('/').pop()!);
    // The API and the CloudFormation schemas: 17 to 40 hex digits after fsap-.
    if (!Token.isUnresolved(this.accessPointId) && !/^fsap-[0-9a-f]{17,40}$/.test(this.accessPointId)) {
      invalid(this, attrs.accessPointId ? 'accessPointId' : 'accessPointArn', attrs.accessPointId ?? attrs.accessPointArn,
        'an S3 Files access point id looks like fsap-0123456789abcdef0 (fsap- and 17 to 40 hex digits)', 'pass the id (or ARN) of the access point as the S3 Files console or CLI shows it');
    }
    if (attrs.path !== undefined) validateAccessPointPath(this, attrs.path);
    this.path = attrs.path;
    // It exists; its file system's readiness is all there is to wait for.
    const ready = new DependencyGroup();
    ready.add(attrs.fileSystem.mountTargetsAvailable);
    this.available = ready;
  }

  /** @internal */
  public _rootPath(): string | undefined {
    return this.path;
  }
}

/**
 * A literal access point ARN must be well formed, name the given id (if any) and belong to the
 * given file system: compared with its ARN when that is literal, else with its id; a warning when
 * both are tokens (a file system created in this app): the match is known only at deploy time.
 */
function checkAccessPointArn(scope: Construct, arn: string, accessPointId: string | undefined, fileSystem: IS3FilesFileSystem): void {
  const m = /^(arn:aws[-a-z]*:s3files:[a-z0-9-]+:\d{12}:file-system\/(fs-[0-9a-f]{17,40}))\/access-point\/(fsap-[0-9a-f]{17,40})$/.exec(arn);
  if (!m) {
    invalid(scope, 'accessPointArn', arn,
      'an S3 Files access point ARN looks like arn:aws:s3files:us-east-1:111122223333:file-system/fs-0123456789abcdef0/access-point/fsap-0123456789abcdef0',
      'pass the ARN as the S3 Files console or CLI shows it (or accessPointId)');
  }
  const [, fileSystemArn, fileSystemId, id] = m;
  if (accessPointId !== undefined && !Token.isUnresolved(accessPointId) && accessPointId !== id) {
    invalid(scope, 'accessPointId', accessPointId, `accessPointArn names another access point (${id})`, 'give the id and the ARN of one access point, or only one of them');
  }
  const given = !Token.isUnresolved(fileSystem.fileSystemArn) ? { what: 'ARN', value: fileSystem.fileSystemArn, ours: fileSystemArn }
    : !Token.isUnresolved(fileSystem.fileSystemId) ? { what: 'id', value: fileSystem.fileSystemId, ours: fileSystemId }
      : undefined;
  if (!given) {
    Annotations.of(scope).addWarningV2('cdk-s3files-lambda:accessPointFileSystemUnchecked',
      `accessPointArn belongs to ${fileSystemId}, and the id of ${fileSystem.node.path} is only known at deploy time, so the library cannot check that they match. `
      + `An access point mounts only with its own file system: import the file system it belongs to.${spelling(['accessPointArn'])}`);
  } else if (given.value !== given.ours) {
    invalid(scope, 'accessPointArn', arn, `it is an access point of ${fileSystemArn}, and fileSystem (${fileSystem.node.path}) has the ${given.what} ${given.value}`,
      'pass the file system the access point belongs to as fileSystem');
  }
}
