import { CustomResource, Duration, Lazy, Names, Tokenization } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { acknowledge, findingResource } from '../nag';
import {
  BUCKET_CLEANER_RESOURCE_TYPE, CUSTOM_RESOURCE_MAX_SECONDS, DELETE_GUARD_RESOURCE_TYPE, DELETE_TIMEOUT_SECONDS, GUARD_TOTAL_SECONDS,
  WAITER_RESOURCE_TYPE,
} from '../provider/custom-resource-contract';
import { S3FilesWaiterProvider, waiterServiceTimeout } from '../provider/waiter-provider';

/**
 * A waiter (on `provider`, in the stack of `scope`) for a file system's mount targets and the
 * given access points; with `bucket`, it also names the bucket and may verify its versioning.
 */
export function createWaiter(scope: Construct, id: string, provider: S3FilesWaiterProvider, props: {
  readonly fileSystemId: string;
  readonly mountTargetCount: number;
  readonly accessPointIds: string[];
  readonly timeoutSeconds: number;
  readonly bucket?: { readonly name: string; readonly verifyVersioning: boolean };
}): CustomResource {
  const waiter = new CustomResource(scope, id, {
    serviceToken: provider.serviceToken,
    resourceType: WAITER_RESOURCE_TYPE,
    serviceTimeout: waiterServiceTimeout(props.timeoutSeconds),
    properties: {
      FileSystemId: props.fileSystemId,
      ExpectedMountTargetCount: String(props.mountTargetCount),
      AccessPointIds: props.accessPointIds,
      TimeoutSeconds: Tokenization.stringifyNumber(props.timeoutSeconds),
      VerifyBucketVersioning: props.bucket?.verifyVersioning ? 'true' : 'false',
      ...(props.bucket ? { BucketName: props.bucket.name } : {}),
    },
  });
  // Its reads are in the provider's handler policy.
  waiter.node.addDependency(provider.handlerPolicy);
  return waiter;
}

/** What the delete guard needs of its file system. */
export interface DeleteGuardOptions {
  readonly fileSystemId: string;
  /** The file system's logical id in its stack (stable across replacements). */
  readonly fileSystemLogicalId: string;
  /** The hash of what replaces the file system: part of the guard's construct id. */
  readonly replacementHash: string;
  /** True when the file system's final removal policy deletes it (read at synthesis). */
  readonly destroyOnDelete: () => boolean;
}

/**
 * The delete guard, keyed by what replaces the file system (bucket, prefix, key): a replacement
 * creates a new guard, and CloudFormation deletes the old one in its cleanup phase, where it still
 * holds the old file system's id. Its rights are the provider's handler policy, which every guard
 * depends on (so it outlives their Deletes) and which a replacement does not grow; the file system
 * carries the tag that lets it be deleted only while its removal policy is DESTROY.
 * @param fileSystem the file system construct (the guard's scope)
 */
export function createDeleteGuard(fileSystem: Construct, provider: S3FilesWaiterProvider, options: DeleteGuardOptions): CustomResource {
  const scope = new Construct(fileSystem, `DeleteGuard${options.replacementHash}`);
  const guard = new CustomResource(scope, 'Resource', {
    serviceToken: provider.serviceToken,
    resourceType: DELETE_GUARD_RESOURCE_TYPE,
    serviceTimeout: Duration.seconds(CUSTOM_RESOURCE_MAX_SECONDS),
    properties: {
      FileSystemId: options.fileSystemId,
      FileSystemLogicalId: options.fileSystemLogicalId,
      // Always present, so switching DESTROY -> RETAIN is an Update (no-op), never a Delete that deletes.
      DeleteFileSystem: Lazy.string({ produce: () => (options.destroyOnDelete() ? 'true' : 'false') }),
      DeleteTimeoutSeconds: String(DELETE_TIMEOUT_SECONDS),
      TotalTimeoutSeconds: String(GUARD_TOTAL_SECONDS),
    },
  });
  guard.node.addDependency(provider.handlerPolicy);
  return guard;
}

/**
 * For a bucket the file system construct created: the cleaner that empties and deletes it when the
 * bucket itself goes (DESTROY only), keyed by the bucket, so a file system's replacement or rollback
 * never reaches it. Every delete guard depends on it, so on stack deletion it runs after the file
 * system is deleted; it waits until no file system lists the bucket, and retries S3's
 * BucketHasS3FileSystemAttached while the detachment completes. Its rights are in a policy of
 * its own that outlives its Delete.
 * @param fileSystem the file system construct (the cleaner's scope)
 * @param emptiesBucket true when the bucket's final removal policy deletes it (read at synthesis)
 */
export function createBucketCleaner(
  fileSystem: Construct, provider: S3FilesWaiterProvider, bucket: s3.IBucket, emptiesBucket: () => boolean,
): CustomResource {
  const scope = new Construct(fileSystem, 'BucketCleaner');
  const policy = new iam.CfnPolicy(scope, 'Policy', {
    policyName: Names.uniqueResourceName(scope, { maxLength: 128 }),
    roles: [provider.isCompleteFunction.role!.roleName],
    policyDocument: Lazy.any({ produce: () => renderCleanerPolicy(bucket, emptiesBucket()) }),
  });
  provider.registerRolePolicy(policy);
  acknowledge(policy, 'AwsSolutions-IAM5[Resource::*]',
    's3files:ListFileSystems has no resource-level permissions; the cleaner lists the file systems of its bucket and empties it only when there is none.');
  acknowledge(policy, `AwsSolutions-IAM5[${findingResource(fileSystem, bucket.arnForObjects('*'))}]`,
    'Only with RemovalPolicy.DESTROY on a bucket this construct created: the cleaner empties it (every object version) once no file system uses it.');
  const cleaner = new CustomResource(scope, 'Resource', {
    serviceToken: provider.serviceToken,
    resourceType: BUCKET_CLEANER_RESOURCE_TYPE,
    serviceTimeout: Duration.seconds(CUSTOM_RESOURCE_MAX_SECONDS),
    properties: {
      BucketArn: bucket.bucketArn,
      // Always present, so switching DESTROY -> RETAIN is an Update (no-op), never a Delete that empties.
      EmptyOnDelete: Lazy.string({ produce: () => (emptiesBucket() ? 'true' : 'false') }),
      TotalTimeoutSeconds: String(GUARD_TOTAL_SECONDS),
    },
  });
  cleaner.node.addDependency(policy);
  return cleaner;
}

/** The cleaner's rights: a read always (a policy needs a statement); emptying and deletion only with DESTROY. */
function renderCleanerPolicy(bucket: s3.IBucket, emptiesBucket: boolean): iam.PolicyDocument {
  const doc = new iam.PolicyDocument();
  // ListFileSystems has no resource-level permissions.
  doc.addStatements(new iam.PolicyStatement({ actions: ['s3files:ListFileSystems'], resources: ['*'] }));
  if (!emptiesBucket) return doc;
  doc.addStatements(
    new iam.PolicyStatement({ actions: ['s3:ListBucket', 's3:ListBucketVersions', 's3:DeleteBucket'], resources: [bucket.bucketArn] }),
    new iam.PolicyStatement({ actions: ['s3:DeleteObject', 's3:DeleteObjectVersion'], resources: [bucket.arnForObjects('*')] }),
  );
  return doc;
}
