import { Duration, RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { invalid, warn } from '../messages';
import { acknowledge } from '../nag';
import { validateWholeDays } from '../validation';

/**
 * The bucket a file system creates when given none: versioned (S3 Files needs it), SSE-S3 or SSE-KMS
 * with a bucket key, public access blocked, bucket owner enforced, TLS only, noncurrent versions
 * expiring and incomplete multipart uploads aborted. Its removal policy is the file system's (see
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
    lifecycleRules: [{
      id: 'ExpireNoncurrentVersionsAndAbortUploads',
      noncurrentVersionExpiration: Duration.days(noncurrentDays),
      abortIncompleteMultipartUploadAfter: Duration.days(7),
    }],
    removalPolicy: RemovalPolicy.RETAIN,
  });
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
