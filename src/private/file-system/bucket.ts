import { CfnResource, Duration, RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct, IConstruct } from 'constructs';
import { bucketNotificationsHandler, bucketNotificationsResource, renderedProperties } from '../compat';
import { describe, invalid, warn } from '../messages';
import { acknowledge, BASIC_EXECUTION_POLICY } from '../nag';
import { validateWholeDays } from '../validation';

/**
 * The bucket a file system creates when given none: versioned (S3 Files needs it), SSE-S3 or SSE-KMS
 * with a bucket key, EventBridge delivery on, public access blocked, bucket owner enforced, TLS only,
 * noncurrent versions expiring and incomplete multipart uploads aborted. Its removal policy is the file system's (see
 * FileSystemRemoval.governBucket).
 */
export function createBucket(scope: Construct, key: kms.IKey | undefined, noncurrentVersionExpiration: Duration | undefined): s3.Bucket {
  const noncurrentDays = validateWholeDays(scope, 'noncurrentVersionExpiration', noncurrentVersionExpiration ?? Duration.days(30), 1, 36500);
  const bucket = new s3.Bucket(scope, 'Bucket', {
    versioned: true,
    encryption: key ? s3.BucketEncryption.KMS : s3.BucketEncryption.S3_MANAGED,
    encryptionKey: key,
    bucketKeyEnabled: key ? true : undefined,
    blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
    objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
    enforceSSL: true,
    // S3 Files learns of S3-side changes through EventBridge: a notification added to the bucket later
    // (aws-cdk-lib's custom resource writes the whole configuration) then keeps that delivery on.
    eventBridgeEnabled: true,
    lifecycleRules: [{
      id: 'ExpireNoncurrentVersionsAndAbortUploads',
      noncurrentVersionExpiration: Duration.days(noncurrentDays),
      abortIncompleteMultipartUploadAfter: Duration.days(7),
    }],
    removalPolicy: RemovalPolicy.RETAIN,
  });
  const handler = bucketNotificationsHandler(bucket);
  if (handler) {
    acknowledge(handler, `AwsSolutions-IAM4[${BASIC_EXECUTION_POLICY}]`,
      'aws-cdk-lib\'s handler of bucket notifications, which `eventBridgeEnabled` on the bucket the file system created needs: aws-cdk-lib gives its role this AWS '
        + 'managed policy so it can write its own CloudWatch logs.');
  }
  acknowledge(bucket, 'AwsSolutions-S1',
    'Server access logs need a second bucket the owner chooses; object access through the file system is audited with CloudTrail data events. Pass your own bucket (with '
      + 'logging) as `bucket` to log it.');
  return bucket;
}

/** S3 Files needs the bucket in the file system's region; a foreign account is a warning. */
export function checkBucketLocation(scope: Construct, bucket: s3.IBucket): void {
  const stack = Stack.of(scope);
  const { region, account } = bucket.env;
  if (!Token.isUnresolved(region) && !Token.isUnresolved(stack.region) && region !== stack.region) {
    invalid(scope, 'bucket', bucket.bucketName, `the bucket is in ${region} but the file system is in ${stack.region}`, 'use a bucket in the same region as the stack');
  }
  if (!Token.isUnresolved(account) && !Token.isUnresolved(stack.account) && account !== stack.account) {
    warn(scope, 'crossAccountBucket',
      `\`bucket\` is owned by account ${account}, not ${stack.account}: its bucket policy must allow the service role, and versioning is only checked at deploy time.`);
  }
}

/** The bucket's L1 when this app defines the bucket (in any stack): what it renders is known at synth. */
export function bucketResource(bucket: s3.IBucket): CfnResource | undefined {
  const cfn = bucket.node.defaultChild;
  return CfnResource.isCfnResource(cfn) && cfn.cfnResourceType === 'AWS::S3::Bucket' ? cfn : undefined;
}

/** The default encryption S3 Files can use (S3 user guide, "Prerequisites for S3 Files"), by SSEAlgorithm. */
const USABLE_ENCRYPTION: Record<string, string> = { 'AES256': 'SSE-S3', 'aws:kms': 'SSE-KMS' };
const ENCRYPTION_NAMES: Record<string, string> = { ...USABLE_ENCRYPTION, 'aws:kms:dsse': 'DSSE-KMS' };

/** A value a template leaves to CloudFormation (an intrinsic such as `Fn::If` or `Ref`): known only at deploy time. */
function isIntrinsic(value: unknown): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).some((k) => k === 'Ref' || k.startsWith('Fn::'));
}

/**
 * S3 Files needs a versioned bucket with SSE-S3 or SSE-KMS (S3 user guide, "Prerequisites for S3
 * Files"); CreateFileSystem refuses any other. For a bucket this app defines, checked on what its L1
 * renders (escape hatches and aspects included), so call it at validation; an imported bucket's
 * versioning is verified at deploy time by the waiter. A value left to CloudFormation is a warning.
 * Adds the check to `scope`'s validations.
 */
export function checkBucketUsable(scope: IConstruct, bucket: s3.IBucket): void {
  const cfn = bucketResource(bucket);
  if (cfn) scope.node.addValidation({ validate: () => checkRenderedBucket(scope, bucket, renderedProperties(cfn)) });
}

function checkRenderedBucket(scope: IConstruct, bucket: s3.IBucket, props: Record<string, unknown>): string[] {
  const versioning = props.VersioningConfiguration as { Status?: unknown } | undefined;
  const status = versioning === undefined || isIntrinsic(versioning) ? versioning : versioning.Status;
  if (status === undefined || (typeof status === 'string' && status !== 'Enabled')) {
    invalid(scope, 'bucket', bucket.node.path, `its versioning is ${status === undefined ? 'not configured' : describe(status)}, and S3 Files requires versioning enabled to `
      + 'synchronize the file system with the bucket', 'create the bucket with `versioned: true` (and do not suspend its versioning)');
  }
  if (typeof status !== 'string') unresolved(scope, bucket, 'versioning');
  const encryption = props.BucketEncryption as { ServerSideEncryptionConfiguration?: unknown } | undefined;
  const rules = encryption === undefined ? [] : isIntrinsic(encryption) ? [encryption] : [encryption.ServerSideEncryptionConfiguration ?? []].flat();
  for (const rule of rules as Array<{ ServerSideEncryptionByDefault?: { SSEAlgorithm?: unknown } }>) {
    const algorithm = isIntrinsic(rule) ? rule : rule.ServerSideEncryptionByDefault?.SSEAlgorithm;
    if (typeof algorithm !== 'string') {
      if (algorithm !== undefined) unresolved(scope, bucket, 'default encryption');
      continue;
    }
    if (USABLE_ENCRYPTION[algorithm] === undefined) {
      invalid(scope, 'bucket', bucket.node.path, `its default encryption is ${ENCRYPTION_NAMES[algorithm] ?? algorithm} (SSEAlgorithm ${algorithm}), and S3 Files supports only `
        + 'SSE-S3 (AES256) and SSE-KMS (aws:kms)', 'create the bucket with `encryption: s3.BucketEncryption.S3_MANAGED` or `s3.BucketEncryption.KMS`');
    }
  }
  checkEventBridge(scope, bucket);
  return [];
}

/**
 * aws-cdk-lib's notifications custom resource for a bucket of the app (`Managed: true`) writes the
 * bucket's whole notification configuration: without `eventBridgeEnabled` it turns off the
 * EventBridge delivery through which S3 Files learns of S3-side changes, and nothing fails.
 */
function checkEventBridge(scope: IConstruct, bucket: s3.IBucket): void {
  const notifications = bucketNotificationsResource(bucket);
  const config = notifications ? renderedProperties(notifications).NotificationConfiguration as Record<string, unknown> | undefined : undefined;
  if (config?.EventBridgeConfiguration !== undefined) return;
  warn(scope, 'bucketWithoutEventBridge', `\`bucket\` (${bucket.node.path}) is a bucket of this app without \`eventBridgeEnabled\`: aws-cdk-lib's custom resource for `
    + `its notifications (${notifications ? 'it has some' : 'once one is added'}) writes the bucket's whole notification configuration and turns off the EventBridge `
    + 'delivery S3 Files uses for changes made through S3, which then stop reaching the file system without an error. Create the bucket with `eventBridgeEnabled: true`.');
}

function unresolved(scope: IConstruct, bucket: s3.IBucket, what: string): void {
  warn(scope, 'unresolvedToken', `The ${what} of \`bucket\` (${bucket.node.path}) is an unresolved token, so it is not validated at synth time; a bucket S3 Files cannot use `
    + 'fails the deployment instead. Use a literal where you can.');
}

/**
 * AWS::S3::Bucket's create-only properties (CloudFormation's resource schema, as cfn-lint bundles
 * it; test/lifecycle/cfn-schema-facts.json vendors it, and a test holds this list to it): a new value
 * replaces the bucket, and so the file system over it.
 */
export const BUCKET_CREATE_ONLY_PROPERTIES = ['BucketName', 'BucketNamePrefix', 'BucketNamespace'];

/**
 * What replaces the bucket beyond its logical id, for the key of the file system's service role,
 * its policy and delete guard: the create-only properties set on a bucket of this app, as its L1
 * holds them now (`{}` when none is set, so the ids of users who set none stay as they were). At
 * validation the rendered template must agree: a value set later (an escape hatch or an aspect after
 * the file system was built) would rename nothing, and is refused. A name CloudFormation only learns
 * at deploy time (a parameter, an import) is a warning: a new value would replace the file system
 * while the old one's role is rewritten for the new bucket.
 */
export function bucketReplacementInputs(scope: IConstruct, bucket: s3.IBucket): Record<string, unknown> {
  const stack = Stack.of(scope);
  const cfn = bucketResource(bucket);
  if (!cfn) {
    if (!stableInStack(stack.resolve(bucket.bucketName))) unresolvedName(scope, bucket);
    return {};
  }
  const l1 = cfn as unknown as Record<string, unknown>;
  const inputs: Record<string, unknown> = {};
  for (const name of BUCKET_CREATE_ONLY_PROPERTIES) {
    const value = stack.resolve(l1[name.charAt(0).toLowerCase() + name.slice(1)]);
    if (value !== undefined) inputs[name] = value;
  }
  if (!Object.values(inputs).every(stableInStack)) unresolvedName(scope, bucket);
  scope.node.addValidation({
    validate: () => {
      const rendered = renderedProperties(cfn);
      for (const name of BUCKET_CREATE_ONLY_PROPERTIES) {
        if (comparable(rendered[name]) === comparable(inputs[name])) continue;
        invalid(scope, 'bucket', bucket.node.path, `its ${name} is ${describe(comparable(rendered[name]) ?? 'unset')} in the template but was `
          + `${describe(comparable(inputs[name]) ?? 'unset')} when the file system was created, whose service role and delete guard are keyed by it (a new value replaces `
          + 'the bucket and the file system; the old file system keeps its own role only when the key changes too)',
        `set ${name} on the bucket before creating the file system (for the bucket the construct creates, create your own bucket with the name and pass it as \`bucket\`)`);
      }
      return [];
    },
  });
  return inputs;
}

/** A value as the two readings can compare it: a literal as it is, anything CloudFormation resolves as one marker. */
function comparable(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : '(a token)';
}

/** Whether a resolved value is the same on every deployment of its stack: literals, and pseudo parameters joined with them. */
function stableInStack(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (Array.isArray(value)) return value.every(stableInStack);
  const [key, arg] = Object.entries(value)[0] ?? [];
  if (Object.keys(value).length !== 1) return false;
  if (key === 'Ref') return typeof arg === 'string' && arg.startsWith('AWS::') && arg !== 'AWS::NoValue';
  if (key === 'Fn::Join' || key === 'Fn::Select' || key === 'Fn::Split') return stableInStack(arg);
  if (key === 'Fn::Sub') return typeof arg === 'string' && [...arg.matchAll(/\$\{([^}!]+)\}/g)].every((m) => m[1].startsWith('AWS::'));
  return false;
}

function unresolvedName(scope: IConstruct, bucket: s3.IBucket): void {
  warn(scope, 'bucketNameUnresolved', `The name of \`bucket\` (${bucket.node.path}) is only known at deploy time (a parameter, an import or another resource's `
    + 'attribute). If its value changes, CloudFormation replaces the bucket and the file system, but the service role, its policy and the delete guard keep their logical '
    + 'ids: the role the old file system keeps is rewritten for the new bucket, and the old file system loses its S3 rights (and its pending exports). Use a literal name, '
    + 'or move to another bucket with a new file system construct.');
}
