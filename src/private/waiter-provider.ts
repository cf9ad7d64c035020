import { Duration, Stack, Token } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as cr from 'aws-cdk-lib/custom-resources';
import { Construct, IConstruct } from 'constructs';
import { CUSTOM_RESOURCE_MAX_SECONDS, WAITER_SERVICE_MARGIN_SECONDS } from './custom-resource-contract';
import { acknowledge, BASIC_EXECUTION_POLICY, findingResource } from './nag';
import { estimatePolicyCharacters } from './policy-size';
import { S3FilesProviderIsCompleteFunction } from './s3files-provider-is-complete-function';
import { S3FilesProviderOnEventFunction } from './s3files-provider-on-event-function';


/** IAM: all inline policies of one role together (AWS::IAM::Policy resources attach as inline policies). */
export const MAX_ROLE_INLINE_POLICY_CHARS = 10240;


/**
 * `ServiceTimeout` of a waiter: its handler timeout plus a margin, within CloudFormation's hour.
 * A token timeout gets the full hour.
 */
export function waiterServiceTimeout(timeoutSeconds: number): Duration {
  const seconds = Token.isUnresolved(timeoutSeconds)
    ? CUSTOM_RESOURCE_MAX_SECONDS
    : Math.min(CUSTOM_RESOURCE_MAX_SECONDS, timeoutSeconds + WAITER_SERVICE_MARGIN_SECONDS);
  return Duration.seconds(seconds);
}

/** Actions the isComplete handler needs to read a file system, its mount targets and access points. */
export const WAITER_READ_ACTIONS = [
  's3files:GetFileSystem',
  's3files:ListMountTargets',
  's3files:GetMountTarget',
  's3files:GetAccessPoint',
];

/**
 * One custom-resource provider per stack for the mount-target waiter, however many
 * file systems the stack holds. Found by a fixed id at the stack root (no static singleton,
 * so separate apps and stacks in one process never share state).
 */
export class S3FilesWaiterProvider extends Construct {
  /** Fixed construct id at the stack root, namespaced by the package so no other library's construct can take it. */
  public static readonly ID = 'cdk-s3files-lambda.WaiterProvider';

  /** Returns the stack's provider, creating it on first use. */
  public static getOrCreate(scope: IConstruct): S3FilesWaiterProvider {
    const stack = Stack.of(scope);
    const existing = stack.node.tryFindChild(S3FilesWaiterProvider.ID);
    if (existing instanceof S3FilesWaiterProvider) return existing;
    return new S3FilesWaiterProvider(stack, S3FilesWaiterProvider.ID);
  }

  /** The provider's service token for `CustomResource`. */
  public readonly serviceToken: string;
  /** Handles Create/Update/Delete (bucket versioning check, start time). */
  public readonly onEventFunction: lambda.Function;
  /** Polls the control plane until the mount targets and access points are available. */
  public readonly isCompleteFunction: lambda.Function;

  private constructor(scope: Construct, id: string) {
    super(scope, id);

    this.onEventFunction = new S3FilesProviderOnEventFunction(this, 'OnEvent', {
      description: 'S3 Files waiter: start, and verify bucket versioning for imported buckets',
      architecture: lambda.Architecture.ARM_64,
      timeout: Duration.minutes(1),
      memorySize: 256,
    });
    this.isCompleteFunction = new S3FilesProviderIsCompleteFunction(this, 'IsComplete', {
      description: 'S3 Files waiter: poll until every mount target and access point is available; delete guarded file systems once exported',
      architecture: lambda.Architecture.ARM_64,
      timeout: Duration.minutes(1),
      memorySize: 256,
    });

    this.node.addValidation({ validate: () => this.validateHandlerPolicySize() });

    const provider = new cr.Provider(this, 'Provider', {
      onEventHandler: this.onEventFunction,
      isCompleteHandler: this.isCompleteFunction,
      queryInterval: Duration.seconds(10),
      // The per-resource timeouts are enforced by the handlers; CloudFormation's hour is the ceiling.
      totalTimeout: Duration.seconds(CUSTOM_RESOURCE_MAX_SECONDS),
    });
    this.serviceToken = provider.serviceToken;

    // Findings inherent to the provider, acknowledged here so users inherit a clean report.
    acknowledge(this, `AwsSolutions-IAM4[${BASIC_EXECUTION_POLICY}]`,
      'The waiter handlers and the custom-resource framework functions only need to write their own CloudWatch logs, which is what this AWS managed policy grants.');
    acknowledge(this, 'AwsSolutions-SF1',
      'The aws-cdk-lib provider state machine only sequences isComplete polls; each poll is logged by the handler. State machine logging would need CloudWatch Logs delivery rights on Resource "*".');
    acknowledge(this, 'AwsSolutions-SF2',
      'The aws-cdk-lib provider state machine only sequences isComplete polls; X-Ray tracing would need xray:Put* on Resource "*" and adds nothing to the handler logs.');
    const invoked = [this.onEventFunction, this.isCompleteFunction, provider.node.tryFindChild('framework-isComplete'), provider.node.tryFindChild('framework-onTimeout')];
    for (const fn of invoked) {
      if (fn instanceof lambda.Function) {
        acknowledge(this, `AwsSolutions-IAM5[${findingResource(this, fn.functionArn)}:*]`,
          'aws-cdk-lib\'s provider framework invokes this one function, including its versions and aliases (the ":*" suffix); no other function is covered.');
      }
    }
  }

  /**
   * Lets the handlers read one file system, its mount targets and its access points.
   * Scoped to the file system ARN and its `access-point/*` sub-resources.
   */
  public grantReadFileSystem(fileSystemArn: string): void {
    const statement = new iam.PolicyStatement({
      actions: WAITER_READ_ACTIONS,
      resources: [fileSystemArn, `${fileSystemArn}/access-point/*`],
    });
    this.isCompleteFunction.addToRolePolicy(statement);
    acknowledge(this, `AwsSolutions-IAM5[${findingResource(this, `${fileSystemArn}/access-point/*`)}]`,
      'Only access points of this one file system: their ids exist only after creation, and naming them would make them depend on this role, which the delete guard they depend on needs (a cycle).');
  }

  /**
   * Every file system of the stack adds read rights (and a delete guard policy) to the isComplete
   * role, and IAM caps a role's inline policies at 10,240 characters in total: fail at synth with
   * the fix rather than at deploy time.
   */
  private validateHandlerPolicySize(): string[] {
    const stack = Stack.of(this);
    const role = this.isCompleteFunction.role!.node.defaultChild as iam.CfnRole;
    const roleRef = JSON.stringify(stack.resolve(role.ref));
    let total = 0;
    for (const c of stack.node.findAll()) {
      // A policy attached only to groups or users has no roles (its lazy Roles resolve to undefined).
      if (c instanceof iam.CfnPolicy && Stack.of(c) === stack && JSON.stringify(stack.resolve(c.roles) ?? []).includes(roleRef)) {
        total += estimatePolicyCharacters(stack.resolve(c.policyDocument));
      }
    }
    if (total <= MAX_ROLE_INLINE_POLICY_CHARS) return [];
    return [`${stack.node.path}: the waiter and delete-guard policies of the S3 Files file systems in this stack add up to about ${total} characters `
      + `on one role (${this.isCompleteFunction.node.path}), and IAM allows at most ${MAX_ROLE_INLINE_POLICY_CHARS} characters of inline policies `
      + 'per role. Fix: put some of the file systems in another stack (each stack has its own waiter role); see the README\'s capacity notes.'];
  }

  /** Lets onEvent read the versioning status of an imported bucket. */
  public grantVerifyBucketVersioning(bucket: s3.IBucket): void {
    this.onEventFunction.addToRolePolicy(new iam.PolicyStatement({
      actions: ['s3:GetBucketVersioning'],
      resources: [bucket.bucketArn],
    }));
  }
}
