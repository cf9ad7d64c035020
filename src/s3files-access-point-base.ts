import { Resource, ResourceProps } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct, IDependable } from 'constructs';
import { GrantMountOptions } from './mount/options';
import { refuseAwsCdkReference } from './private/compat';
import { invalid } from './private/messages';
import { lambdaMountsAroundTheLibrary } from './private/mount/foreign-mounts';
import { IS3FilesAccessPoint } from './s3files-access-point-contract';
import { IS3FilesFileSystem } from './s3files-file-system-contract';
import { S3FilesAccessPointGrants } from './s3files-grants';

/**
 * An S3 Files access point's grants, on top of what a subclass provides: its id, ARN, file system
 * and `available`. Extend it to describe an access point this library does not create or import.
 * @subclassable
 */
export abstract class S3FilesAccessPointBase extends Resource implements IS3FilesAccessPoint {
  public abstract readonly accessPointId: string;
  public abstract readonly accessPointArn: string;
  public abstract readonly fileSystem: IS3FilesFileSystem;
  public abstract readonly available: IDependable;

  /**
   * @param scope the construct's scope
   * @param id its id
   * @param props where it lives
   */
  constructor(scope: Construct, id: string, props: ResourceProps = {}) {
    super(scope, id, props);
    // aws-cdk-lib's lambda.FileSystem.fromS3FilesAccessPoint reads `accessPointRef` (an L1's) and
    // then looks for the L1s of the file system and mount targets: name the library's call instead.
    refuseAwsCdkReference(this, 'accessPointRef', () => invalid(this, 'accessPoint', this.node.path,
      'it is an access point of this library, which `lambda.FileSystem.fromS3FilesAccessPoint()` cannot mount (given its CfnAccessPoint instead, it grants write '
        + 'on the whole file system without the access-point condition and does not wait for the mount targets)',
      'mount it with `LambdaMount.onFunction()` (or use `S3FilesMountedFunction`) instead of the function\'s `filesystem` prop'));
    // lambda.FileSystem.fromEfsAccessPoint takes it without a word (Python and Java do not check the
    // type at compile time), and fromS3FilesAccessPoint takes its L1: any mount LambdaMount did not make.
    this.node.addValidation({ validate: () => lambdaMountsAroundTheLibrary(this) });
  }

  /**
   * Grants read access over NFS (`s3files:ClientMount`), only through this access point.
   * @param grantee the principal to grant
   */
  public grantRead(grantee: iam.IGrantable): iam.Grant {
    return this.grants.read(grantee);
  }

  /**
   * Grants read and write access over NFS (`ClientMount`, `ClientWrite`), only through this access point.
   * @param grantee the principal to grant
   */
  public grantReadWrite(grantee: iam.IGrantable): iam.Grant {
    return this.grants.readWrite(grantee);
  }

  /**
   * Grants root access over NFS (`ClientMount`, `ClientWrite`, `ClientRootAccess`), only through this access point.
   * @param grantee the principal to grant
   */
  public grantRootAccess(grantee: iam.IGrantable): iam.Grant {
    return this.grants.rootAccess(grantee);
  }

  /**
   * Grants the given `s3files:` actions on what they apply to through this access point: the client
   * actions on the file system with the `s3files:AccessPointArn` condition, access-point actions on it.
   * @param grantee the principal to grant
   * @param actions the actions, each starting with `s3files:`
   */
  public grant(grantee: iam.IGrantable, ...actions: string[]): iam.Grant {
    return this.grants.actions(grantee, ...actions);
  }

  /**
   * Grants everything a client of your own needs to mount through this access point (what every
   * mount adapter grants; see `S3FilesAccessPointGrants.mount`). Networking (the file system's
   * `clientSecurityGroup`) and waiting (`available`) are yours.
   * @param grantee the principal that mounts
   * @param options what it may do
   */
  public grantMount(grantee: iam.IGrantable, options: GrantMountOptions = {}): iam.Grant {
    return this.grants.mount(grantee, options);
  }

  private get grants(): S3FilesAccessPointGrants {
    return S3FilesAccessPointGrants.fromAccessPoint(this);
  }
}
