import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { GrantMountOptions } from './mount/options';
import { checkShape } from './private/argument-shapes';
import { CLIENT_READ_ACTIONS, CLIENT_READ_WRITE_ACTIONS, CLIENT_ROOT_ACTIONS, CLIENT_WRITE, clientActions } from './private/mount/client-actions';
import { checkClientAccount, grantScoped, ScopedStatement } from './private/mount/grants';
import { grantMount } from './private/mount/mount-pipeline';
import { scopeActions } from './private/mount/s3files-actions';
import { requireAccessPoint, requireFileSystem } from './private/mount/shapes';
import { IS3FilesAccessPoint } from './s3files-access-point-contract';
import { IS3FilesFileSystem } from './s3files-file-system-contract';

/** Whether the statements grant ClientWrite, as IAM reads them (scopeActions expands case and wildcards). */
function writes(scoped: ScopedStatement[]): boolean {
  return scoped.some((s) => s.actions.includes(CLIENT_WRITE));
}

/**
 * NFS client grants on a file system, through any access point (identity-policy statements on the
 * grantee). For any `IS3FilesFileSystem`; the library's classes also have them as `grantRead()`,
 * `grantReadWrite()`, `grantRootAccess()` and `grant()`.
 *
 * @example
 * declare const fileSystem: IS3FilesFileSystem;
 * declare const role: iam.IRole;
 * S3FilesFileSystemGrants.fromFileSystem(fileSystem).read(role);
 */
export class S3FilesFileSystemGrants {
  /**
   * The grants of a file system.
   * @param fileSystem the file system (created, imported or your own)
   */
  public static fromFileSystem(fileSystem: IS3FilesFileSystem): S3FilesFileSystemGrants {
    return new S3FilesFileSystemGrants(requireFileSystem(fileSystem, 'S3FilesFileSystemGrants.fromFileSystem()', 'fileSystem'));
  }

  private constructor(private readonly fileSystem: IS3FilesFileSystem) {}

  /**
   * Read access over NFS (`s3files:ClientMount`) through any access point.
   * @param grantee the principal to grant
   */
  public read(grantee: iam.IGrantable): iam.Grant {
    return this.actions(grantee, ...CLIENT_READ_ACTIONS);
  }

  /**
   * Read and write access over NFS (`s3files:ClientMount`, `s3files:ClientWrite`) through any access point.
   * @param grantee the principal to grant
   */
  public readWrite(grantee: iam.IGrantable): iam.Grant {
    return this.actions(grantee, ...CLIENT_READ_WRITE_ACTIONS);
  }

  /**
   * Root access over NFS (`ClientMount`, `ClientWrite`, `ClientRootAccess`) through any access point.
   * @param grantee the principal to grant
   */
  public rootAccess(grantee: iam.IGrantable): iam.Grant {
    return this.actions(grantee, ...CLIENT_ROOT_ACTIONS);
  }

  /**
   * The given `s3files:` actions, each on the resource it applies to (wildcards expanded over the
   * documented actions).
   * @param grantee the principal to grant
   * @param actions the actions, each starting with `s3files:`
   */
  public actions(grantee: iam.IGrantable, ...actions: string[]): iam.Grant {
    const fs = this.fileSystem;
    checkShape('grantee', grantee, fs, 'grantee', true);
    const scoped = scopeActions(fs, actions, { fileSystemArn: fs.fileSystemArn });
    if (Construct.isConstruct(grantee.grantPrincipal)) {
      checkClientAccount(grantee.grantPrincipal, `the role ${grantee.grantPrincipal.node.path}`, grantee, fs, scoped.flatMap((s) => s.actions));
    }
    return grantScoped(fs, grantee, scoped, `${actions.join(', ')} on ${fs.node.path}`, { fileSystemArn: fs.fileSystemArn, write: writes(scoped) }, undefined, fs);
  }
}

/**
 * NFS client grants through one access point (the client actions limited to it with
 * `s3files:AccessPointArn`), and everything a client of your own needs to mount it. For any
 * `IS3FilesAccessPoint`; the library's classes also have them as `grantRead()`, `grantReadWrite()`,
 * `grantRootAccess()`, `grant()` and `grantMount()`.
 *
 * @example
 * declare const accessPoint: IS3FilesAccessPoint;
 * declare const role: iam.IRole;
 * S3FilesAccessPointGrants.fromAccessPoint(accessPoint).mount(role, { readOnly: true, amazonEfsUtils: true });
 */
export class S3FilesAccessPointGrants {
  /**
   * The grants of an access point.
   * @param accessPoint the access point (created, imported or your own)
   */
  public static fromAccessPoint(accessPoint: IS3FilesAccessPoint): S3FilesAccessPointGrants {
    return new S3FilesAccessPointGrants(requireAccessPoint(accessPoint, 'S3FilesAccessPointGrants.fromAccessPoint()', 'accessPoint'));
  }

  private constructor(private readonly accessPoint: IS3FilesAccessPoint) {}

  /**
   * Read access over NFS (`s3files:ClientMount`), only through this access point.
   * @param grantee the principal to grant
   */
  public read(grantee: iam.IGrantable): iam.Grant {
    return this.actions(grantee, ...CLIENT_READ_ACTIONS);
  }

  /**
   * Read and write access over NFS (`ClientMount`, `ClientWrite`), only through this access point.
   * @param grantee the principal to grant
   */
  public readWrite(grantee: iam.IGrantable): iam.Grant {
    return this.actions(grantee, ...CLIENT_READ_WRITE_ACTIONS);
  }

  /**
   * Root access over NFS (`ClientMount`, `ClientWrite`, `ClientRootAccess`), only through this access point.
   * @param grantee the principal to grant
   */
  public rootAccess(grantee: iam.IGrantable): iam.Grant {
    return this.actions(grantee, ...CLIENT_ROOT_ACTIONS);
  }

  /**
   * The given `s3files:` actions on what they apply to through this access point: the client
   * actions on the file system with the `s3files:AccessPointArn` condition, access-point actions on it.
   * @param grantee the principal to grant
   * @param actions the actions, each starting with `s3files:`
   */
  public actions(grantee: iam.IGrantable, ...actions: string[]): iam.Grant {
    const ap = this.accessPoint;
    checkShape('grantee', grantee, ap, 'grantee', true);
    const target = { fileSystemArn: ap.fileSystem.fileSystemArn, accessPointArn: ap.accessPointArn };
    const scoped = scopeActions(ap, actions, target);
    if (Construct.isConstruct(grantee.grantPrincipal)) {
      checkClientAccount(grantee.grantPrincipal, `the role ${grantee.grantPrincipal.node.path}`, grantee, ap.fileSystem, scoped.flatMap((s) => s.actions), ap.accessPointArn);
    }
    return grantScoped(ap, grantee, scoped, `${actions.join(', ')} through ${ap.node.path}`, { ...target, write: writes(scoped) }, undefined, ap.fileSystem);
  }

  /**
   * Everything a client of your own needs to mount through this access point (what every mount
   * adapter grants): the client actions limited to it, the reads services are reported to validate
   * a mount with (`s3files:GetAccessPoint`, `s3files:ListMountTargets`; a field report, not yet
   * documented for every service), the direct reads of the file system's objects unless turned off,
   * and with amazon-efs-utils what it publishes. Networking (the file system's
   * `clientSecurityGroup`) and waiting (`available`) are yours.
   * @param grantee the principal that mounts
   * @param options what it may do
   */
  public mount(grantee: iam.IGrantable, options: GrantMountOptions = {}): iam.Grant {
    const ap = this.accessPoint;
    checkShape('grantee', grantee, ap, 'grantee', true);
    if (Construct.isConstruct(grantee.grantPrincipal)) {
      checkClientAccount(grantee.grantPrincipal, `the role ${grantee.grantPrincipal.node.path}`, grantee, ap.fileSystem, clientActions(options), ap.accessPointArn);
    }
    return grantMount(ap, grantee, ap, options, { efsUtils: options.amazonEfsUtils ?? false, directReads: options.grantDirectReads ?? true });
  }
}
