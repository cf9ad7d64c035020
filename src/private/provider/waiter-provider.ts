import { Aws, Duration, Lazy, Stack, Token } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as cr from 'aws-cdk-lib/custom-resources';
import { Construct, IConstruct } from 'constructs';
import { CUSTOM_RESOURCE_MAX_SECONDS, RETAINED_FILE_SYSTEMS_ENV, WAITER_SERVICE_MARGIN_SECONDS } from './custom-resource-contract';
import { S3FilesProviderIsCompleteFunction } from './s3files-provider-is-complete-function';
import { S3FilesProviderOnEventFunction } from './s3files-provider-on-event-function';
import { estimatePolicyCharacters } from '../file-system/policy-size';
import { invalid } from '../messages';
import { acknowledge, BASIC_EXECUTION_POLICY, findingResource } from '../nag';


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
/** What the waiter reads to see mount targets and access points, and the guard to delete and to say what blocks it. */
export const HANDLER_READ_ACTIONS = [...WAITER_READ_ACTIONS, 's3files:ListAccessPoints'];
/** The EventBridge rights of CloudFormation's own AWS::S3Files::FileSystem delete handler. */
export const GUARD_EVENTS_ACTIONS = ['events:DescribeRule', 'events:DeleteRule', 'events:ListTargetsByRule', 'events:PutRule', 'events:RemoveTargets'];
/**
 * The tag that lets the stack's delete guards delete a file system: the stack's id while the file
 * system's removal policy is DESTROY, "false" otherwise (`aws:ResourceTag/${TagKey}` is a documented
 * condition key of the s3files file-system resource type).
 */
export const DELETE_WITH_STACK_TAG = 'cdk-s3files-lambda:delete-with-stack';

export function eventsRuleArn(stack: Stack): string {
  return `arn:${stack.partition}:events:${stack.region}:${stack.account}:rule/DO-NOT-DELETE-S3-Files*`;
}

/** A file system whose guard this provider serves: its logical id and whether its final removal policy keeps it. */
interface GuardedFileSystem {
  readonly logicalId: () => string;
  readonly retained: () => boolean;
}

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
    if (existing === undefined) return new S3FilesWaiterProvider(stack, S3FilesWaiterProvider.ID);
    // By what it does, not instanceof: another copy of the library (a construct library depending on
    // this one, a monorepo) may have made it, and its class is another class object.
    const p = existing as Partial<S3FilesWaiterProvider>;
    if (typeof p.serviceToken === 'string' && typeof p.registerGuardedFileSystem === 'function' && typeof p.grantVerifyBucketVersioning === 'function') {
      return existing as S3FilesWaiterProvider;
    }
    return invalid(stack, 'id', S3FilesWaiterProvider.ID, `the stack's child of that id is a ${existing.constructor.name}, not this library's provider`,
      'give that construct another id');
  }

  /** The provider's service token for `CustomResource`. */
  public readonly serviceToken: string;
  /** Handles Create/Update/Delete (bucket versioning check, start time). */
  public readonly onEventFunction: lambda.Function;
  /** Polls the control plane until the mount targets and access points are available. */
  public readonly isCompleteFunction: lambda.Function;
  /**
   * The handlers' rights, the same whatever the stack holds: reads of the account's file systems in
   * this region, and deletion of those tagged for deletion with this stack. Per-file-system policies
   * would pile up on the one role while a replacement keeps old and new side by side.
   */
  public readonly handlerPolicy: iam.Policy;

  private readonly guarded: GuardedFileSystem[] = [];
  /** Policies other constructs attach to the isComplete role (the bucket cleaners'). */
  private readonly onRolePolicies: iam.CfnPolicy[] = [];

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

    this.handlerPolicy = new iam.Policy(this, 'HandlerPolicy', {
      roles: [this.isCompleteFunction.role!],
      statements: handlerStatements(Stack.of(this)),
    });
    acknowledgeHandlerFindings(this, this.handlerPolicy);
    // Read when the guard of a removed or replaced file system runs its Delete in the cleanup phase,
    // after the update changed this function: a file system of that logical id that is RETAIN now stays.
    this.isCompleteFunction.addEnvironment(RETAINED_FILE_SYSTEMS_ENV, Lazy.string({
      produce: () => this.guarded.filter((g) => g.retained()).map((g) => g.logicalId()).sort().join(','),
    }));

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
      'The aws-cdk-lib provider state machine only sequences isComplete polls; each poll is logged by the handler. State machine logging would need CloudWatch Logs delivery '
        + 'rights on Resource "*".');
    acknowledge(this, 'AwsSolutions-SF2',
      'The aws-cdk-lib provider state machine only sequences isComplete polls; X-Ray tracing would need xray:Put* on Resource "*" and adds nothing to the handler logs.');
    // The framework's own functions found by type (public API), not by aws-cdk-lib's private child ids.
    const frameworkFunctions = provider.node.findAll().filter((c): c is lambda.Function => c instanceof lambda.Function);
    const invoked = [this.onEventFunction, this.isCompleteFunction, ...frameworkFunctions];
    for (const fn of invoked) {
      acknowledge(this, `AwsSolutions-IAM5[${findingResource(this, fn.functionArn)}:*]`,
        'aws-cdk-lib\'s provider framework invokes this one function, including its versions and aliases (the ":*" suffix); no other function is covered.');
    }
  }

  /** Counts a policy attached to the isComplete role against IAM's limit for the role's inline policies. */
  public registerRolePolicy(policy: iam.CfnPolicy): void {
    this.onRolePolicies.push(policy);
  }

  /** Takes a guarded file system of this stack into account (its final removal policy is read at synthesis). */
  public registerGuardedFileSystem(fileSystem: GuardedFileSystem): void {
    this.guarded.push(fileSystem);
  }

  /**
   * Every bucket a file system of the stack creates adds its cleaner's policy to the isComplete role,
   * and IAM caps a role's inline policies at 10,240 characters in total: fail at synth with the fix
   * rather than at deploy time. (The guards and waiters share one policy of a fixed size, so a
   * replacement adds nothing: the peak of an update is its final template.)
   */
  private validateHandlerPolicySize(): string[] {
    const stack = Stack.of(this);
    // The role is the provider's own: only the library attaches inline policies to it (the handler
    // policy and each bucket cleaner's, registered here; nothing adds to its default policy).
    const attached = [this.handlerPolicy.node.defaultChild as iam.CfnPolicy, ...this.onRolePolicies];
    let total = 0;
    for (const c of attached) total += estimatePolicyCharacters(stack.resolve(c.policyDocument), stack);
    if (total <= MAX_ROLE_INLINE_POLICY_CHARS) return [];
    return [`${stack.node.path}: the handler and bucket-cleaner policies of the S3 Files file systems in this stack add up to about ${total} characters `
      + `on one role (${this.isCompleteFunction.node.path}), and IAM allows at most ${MAX_ROLE_INLINE_POLICY_CHARS} characters of inline policies `
      + 'per role. Fix: put some of the file systems that create their bucket in another stack (each stack has its own handler role), or pass them buckets of your own.'];
  }

  /** Lets onEvent read the versioning status of an imported bucket. */
  public grantVerifyBucketVersioning(bucket: s3.IBucket): void {
    this.onEventFunction.addToRolePolicy(new iam.PolicyStatement({
      actions: ['s3:GetBucketVersioning'],
      resources: [bucket.bucketArn],
    }));
  }
}

/**
 * The handlers' fixed rights: reads of the account's S3 Files resources in this region (file systems
 * of other stacks and imported ones are waited for too), deletion of a file system only while it
 * carries this stack's id in its delete-with-stack tag (DESTROY), and the EventBridge clean-up that
 * CloudFormation's own delete handler does.
 */
function handlerStatements(stack: Stack): iam.PolicyStatement[] {
  const fileSystems = stack.formatArn({ service: 's3files', resource: 'file-system', resourceName: '*' });
  return [
    new iam.PolicyStatement({ actions: HANDLER_READ_ACTIONS, resources: [fileSystems, `${fileSystems}/access-point/*`] }),
    new iam.PolicyStatement({
      actions: ['s3files:DeleteFileSystem'],
      resources: [fileSystems],
      conditions: { StringEquals: { [`aws:ResourceTag/${DELETE_WITH_STACK_TAG}`]: Aws.STACK_ID } },
    }),
    new iam.PolicyStatement({ actions: GUARD_EVENTS_ACTIONS, resources: [eventsRuleArn(stack)] }),
  ];
}

function acknowledgeHandlerFindings(provider: Construct, policy: iam.Policy): void {
  const stack = Stack.of(provider);
  const fileSystems = stack.formatArn({ service: 's3files', resource: 'file-system', resourceName: '*' });
  acknowledge(policy, `AwsSolutions-IAM5[${findingResource(provider, fileSystems)}]`,
    'Reads any S3 Files file system of the account in this region (the waiter also waits for file systems of other stacks and imported ones); '
    + 'deletes only a file system tagged for deletion with this stack (aws:ResourceTag condition), which the construct sets only with RemovalPolicy.DESTROY.');
  acknowledge(policy, `AwsSolutions-IAM5[${findingResource(provider, `${fileSystems}/access-point/*`)}]`,
    'Read-only: the waiter checks that each access point is available; their ids exist only after creation.');
  acknowledge(policy, `AwsSolutions-IAM5[${findingResource(provider, eventsRuleArn(stack))}]`,
    'The service names its EventBridge rules DO-NOT-DELETE-S3-Files* and removes them on the caller\'s behalf when the file system is deleted (the same rights CloudFormation\'s '
      + 'own delete handler holds).');
}
