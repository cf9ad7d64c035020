import { Resource, ResourceProps, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct, IDependable } from 'constructs';
import { GrantMountOptions } from './mount/options';
import { CLIENT_READ_ACTIONS, CLIENT_READ_WRITE_ACTIONS, CLIENT_ROOT_ACTIONS } from './private/client-actions';
import { refuseAwsCdkReference } from './private/compat';
import { grantScoped } from './private/grants';
import { invalid, spelled } from './private/messages';
import { checkClientAccount, grantMount } from './private/mount-pipeline';
import { scopeActions } from './private/s3files-actions';
import { IS3FilesAccessPoint } from './s3files-access-point-contract';
import { IS3FilesFileSystem } from './s3files-file-system-contract';

/**
 * An S3 Files access point's grants, on top of what a subclass provides: its id, ARN, file system
 * and `available`. Extend it to describe an access point this library does not create or import.
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
      'aws-cdk-lib\'s S3 Files helpers (`lambda.FileSystem.fromS3FilesAccessPoint()`) take its CfnAccessPoint, not an access point of this library',
      'mount it with `LambdaMount.onFunction()` (or use `S3FilesMountedFunction`) instead of the function\'s `filesystem` prop; for its ARN use `accessPointArn`'));
    // lambda.FileSystem.fromEfsAccessPoint takes it without a word (Python and Java do not check the
    // type at compile time): it grants elasticfilesystem actions and makes a dependency cycle.
    this.node.addValidation({ validate: () => this.mountedAsEfs() });
  }

  public grantRead(grantee: iam.IGrantable): iam.Grant {
    return this.grant(grantee, ...CLIENT_READ_ACTIONS);
  }

  public grantReadWrite(grantee: iam.IGrantable): iam.Grant {
    return this.grant(grantee, ...CLIENT_READ_WRITE_ACTIONS);
  }

  public grantRootAccess(grantee: iam.IGrantable): iam.Grant {
    return this.grant(grantee, ...CLIENT_ROOT_ACTIONS);
  }

  public grant(grantee: iam.IGrantable, ...actions: string[]): iam.Grant {
    const target = { fileSystemArn: this.fileSystem.fileSystemArn, accessPointArn: this.accessPointArn };
    if (Construct.isConstruct(grantee.grantPrincipal)) {
      checkClientAccount(grantee.grantPrincipal, `the role ${grantee.grantPrincipal.node.path}`, grantee, this.fileSystem, actions, this.accessPointArn);
    }
    return grantScoped(this, grantee, scopeActions(this, actions, target), `${actions.join(', ')} through ${this.node.path}`,
      { ...target, write: actions.some((a) => /^s3files:(ClientWrite|Client\*|\*)$/.test(a)) });
  }

  public grantMount(grantee: iam.IGrantable, options: GrantMountOptions = {}): iam.Grant {
    return grantMount(this, grantee, this, options, { efsUtils: options.amazonEfsUtils ?? false, directReads: options.grantDirectReads ?? true });
  }

  /** Functions of the app that mount this access point through lambda.FileSystem.fromEfsAccessPoint (no S3 Files config). */
  private mountedAsEfs(): string[] {
    const arn = JSON.stringify(Stack.of(this).resolve(this.accessPointArn));
    return this.node.root.node.findAll().filter((c): c is lambda.CfnFunction => c instanceof lambda.CfnFunction).flatMap((fn) => {
      const configs = Stack.of(fn).resolve(fn.fileSystemConfigs) as Array<{ arn?: unknown; s3FilesConfig?: unknown }> | undefined;
      const efs = (configs ?? []).some((c) => c.s3FilesConfig === undefined && JSON.stringify(c.arn) === arn);
      return efs ? [spelled(`${fn.node.scope?.node.path}: invalid \`filesystem\`: it mounts the S3 Files access point ${this.node.path} through `
        + '`lambda.FileSystem.fromEfsAccessPoint()`, which is for EFS: it grants elasticfilesystem actions, not s3files ones, and makes a dependency cycle '
        + 'CloudFormation rejects. Fix: leave `filesystem` unset and mount it with `LambdaMount.onFunction()` (or use `S3FilesMountedFunction`).')] : [];
    });
  }
}
