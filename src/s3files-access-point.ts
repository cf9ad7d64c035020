import { ArnFormat, Fn, Stack, Token, Tokenization } from 'aws-cdk-lib';
import * as s3files from 'aws-cdk-lib/aws-s3files';
import { Construct, DependencyGroup, IDependable } from 'constructs';
import { checkSameRegion } from './private/environment';
import { registryOf } from './private/file-system/access-point-registry';
import { createWaiter } from './private/file-system/guard';
import { invalid, warn } from './private/messages';
import { requireFileSystem } from './private/mount/shapes';
import { DEFAULT_AVAILABILITY_TIMEOUT_SECONDS } from './private/provider/custom-resource-contract';
import { S3FilesWaiterProvider } from './private/provider/waiter-provider';
import { validateAccessPointPath, validatePermissions, validatePosixId, validateSecondaryGids } from './private/validation';
import { S3FilesAccessPointBase } from './s3files-access-point-base';
import { IS3FilesAccessPoint, S3FilesAccessPointAttributes } from './s3files-access-point-contract';
import { IS3FilesFileSystem } from './s3files-file-system-contract';

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
   * Root directory of the access point on the file system: absolute, at most 100 characters and 4
   * components, no component starting with '.'. Created on first use, owned by the POSIX user.
   */
  readonly path: string;

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
   * whose waiter also waits for an access point in its own stack, or any other (imported with
   * `S3FilesFileSystem.fromFileSystemAttributes`, or your own) in the stack's account and region:
   * the access point then gets a waiter of its own. To use an access point that already exists,
   * import it with `fromAccessPointAttributes` instead.
   */
  readonly fileSystem: IS3FilesFileSystem;
}

/**
 * An access point of an S3 Files file system: a fixed POSIX identity and root directory. Any number
 * of clients may mount one access point. It may live in another stack than its file system (next to
 * the clients that use it), sibling or nested.
 *
 * @example
 * declare const fileSystem: S3FilesFileSystem;
 * declare const fn: lambda.Function;
 * declare const service: ecs.FargateService;
 *
 * // One directory for a function and a Fargate service's tasks; the tasks only read.
 * const shared = new S3FilesAccessPoint(this, 'Shared', { fileSystem, path: '/shared' });
 * LambdaMount.onFunction(fn, shared);
 * EcsMount.onService(service, shared, { containerPath: '/data', readOnly: true });
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
   * Completes when this access point and the file system's mount targets are available. For an
   * access point in another stack than its file system, or on a file system not created in this
   * app, it includes a waiter of its own in this access point's stack.
   */
  public readonly available: IDependable;

  constructor(scope: Construct, id: string, props: S3FilesAccessPointProps) {
    super(scope, id);
    const fileSystem = requireFileSystem(props.fileSystem, this, 'fileSystem');
    this.fileSystem = fileSystem;
    this.path = props.path;
    this.posixUser = props.posixUser ?? { uid: 1000, gid: 1000 };
    const permissions = props.createPermissions ?? '755';
    if (this.path === undefined) {
      invalid(this, 'path', undefined, 'an access point exposes one directory of the file system, and none was given', 'pass `path`, e.g. "/app"');
    }
    validateAccessPointPath(this, this.path);
    validatePosixId(this, 'posixUser.uid', this.posixUser.uid);
    validatePosixId(this, 'posixUser.gid', this.posixUser.gid);
    validateSecondaryGids(this, this.posixUser.secondaryGids ?? []);
    validatePermissions(this, permissions);
    this.checkPlacement();
    if (this.posixUser.uid === 0) {
      warn(this, 'posixUserRoot', `\`posixUser.uid\` is 0 (root): every client of ${this.node.path} acts as root on the file system. Use a non-root uid such as 1000 unless root `
        + 'is required.');
    }

    const uid = Tokenization.stringifyNumber(this.posixUser.uid);
    const gid = Tokenization.stringifyNumber(this.posixUser.gid);
    const secondaryGids = this.posixUser.secondaryGids?.map(g => Tokenization.stringifyNumber(g));
    const resource = new s3files.CfnAccessPoint(this, 'Resource', {
      fileSystemId: fileSystem.fileSystemId,
      posixUser: { uid, gid, secondaryGids: secondaryGids?.length ? secondaryGids : undefined },
      rootDirectory: { path: this.path, creationPermissions: { ownerUid: uid, ownerGid: gid, permissions } },
    });
    this.accessPointId = resource.attrAccessPointId;
    this.accessPointArn = resource.attrAccessPointArn;
    this.available = registryOf(fileSystem)?._registerAccessPoint(this) ?? this.ownWaiter();
  }

  /**
   * CloudFormation creates the access point in its stack's account and region, where the file
   * system must be (its ARN, or its stack's env, says where that is).
   */
  private checkPlacement(): void {
    const fs = this.fileSystem;
    const stack = Stack.of(this);
    const region = fs.env?.region;
    checkSameRegion(this, fs.node.path, region !== undefined && !Token.isUnresolved(region) ? region : undefined,
      'an access point is created in its stack\'s region, where the file system must be', 'create the access point');
    const owner = fs.env?.account;
    if (owner === undefined || Token.isUnresolved(owner)) return;
    if (Token.isUnresolved(stack.account)) {
      warn(this, 'fileSystemAccountUnchecked',
        `${fs.node.path} is in account ${owner} (its ARN), and ${stack.node.path} is environment-agnostic, so the library cannot check that `
        + 'this access point is created in that account: CloudFormation creates it in the stack\'s account, where the file system must be. Give the stack an `env` with '
          + `\`account\` '${owner}'.`);
    } else if (stack.account !== owner) {
      invalid(this, 'fileSystem', fs.node.path, `it is in account ${owner} (its ARN) and ${stack.node.path} in ${stack.account}, `
        + 'and CloudFormation creates an access point in its stack\'s account, where the file system must be',
      `create the access point in a stack of account ${owner}; to mount it from account ${stack.account}, import it (\`S3FilesAccessPoint.fromAccessPointAttributes()\`) `
        + 'and have the owner allow your role in the file system\'s policy (README, "Who can mount": ECS, Batch and EC2 only; Lambda and AgentCore mount only their own '
          + 'account\'s file systems)');
    }
  }

  /**
   * On a file system that does not wait for its access points itself (imported, or another
   * implementation): a waiter of its own, in this stack, for the access point and one mount target
   * per known AZ.
   */
  private ownWaiter(): IDependable {
    const fs = this.fileSystem;
    const own = createWaiter(this, 'Available', S3FilesWaiterProvider.getOrCreate(this), {
      fileSystemId: fs.fileSystemId,
      mountTargetCount: Math.max(1, fs.mountTargetAvailabilityZones?.length ?? 1),
      accessPointIds: [this.accessPointId],
      timeoutSeconds: DEFAULT_AVAILABILITY_TIMEOUT_SECONDS,
    });
    const ready = new DependencyGroup();
    ready.add(fs.mountTargetsAvailable, own);
    return ready;
  }
}

/** An access point imported with `S3FilesAccessPoint.fromAccessPointAttributes`. */
class ImportedAccessPoint extends S3FilesAccessPointBase {
  public readonly accessPointId: string;
  public readonly accessPointArn: string;
  public readonly fileSystem: IS3FilesFileSystem;
  public readonly available: IDependable;

  constructor(scope: Construct, id: string, attrs: S3FilesAccessPointAttributes) {
    super(scope, id, { environmentFromArn: attrs.accessPointArn });
    if (!attrs.accessPointId && !attrs.accessPointArn) {
      invalid(this, 'accessPointId', undefined, 'an imported access point needs its id or its ARN', 'give `accessPointId` (fsap-...) or `accessPointArn`');
    }
    this.fileSystem = requireFileSystem(attrs.fileSystem, this, 'fileSystem');
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
        'an S3 Files access point id looks like fsap-0123456789abcdef0 (fsap- and 17 to 40 hex digits)', 'pass the id (or ARN) of the access point as the S3 Files console or '
          + 'CLI shows it');
    }
    // It exists; its file system's readiness is all there is to wait for.
    const ready = new DependencyGroup();
    ready.add(attrs.fileSystem.mountTargetsAvailable);
    this.available = ready;
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
      'pass the ARN as the S3 Files console or CLI shows it (or `accessPointId`)');
  }
  const [, fileSystemArn, fileSystemId, id] = m;
  if (accessPointId !== undefined && !Token.isUnresolved(accessPointId) && accessPointId !== id) {
    invalid(scope, 'accessPointId', accessPointId, `\`accessPointArn\` names another access point (${id})`, 'give the id and the ARN of one access point, or only one of them');
  }
  const given = !Token.isUnresolved(fileSystem.fileSystemArn) ? { what: 'ARN', value: fileSystem.fileSystemArn, ours: fileSystemArn }
    : !Token.isUnresolved(fileSystem.fileSystemId) ? { what: 'id', value: fileSystem.fileSystemId, ours: fileSystemId }
      : undefined;
  if (!given) {
    warn(scope, 'accessPointFileSystemUnchecked',
      `\`accessPointArn\` belongs to ${fileSystemId}, and the id of ${fileSystem.node.path} is only known at deploy time, so the library cannot check that they match. `
      + 'An access point mounts only with its own file system: import the file system it belongs to.');
  } else if (given.value !== given.ours) {
    invalid(scope, 'accessPointArn', arn, `it is an access point of ${fileSystemArn}, and \`fileSystem\` (${fileSystem.node.path}) has the ${given.what} ${given.value}`,
      'pass the file system the access point belongs to as `fileSystem`');
  }
}
