import { s3Module, S3Sender } from './clients';
import { ResourceError } from './resource-error';
import { describeError, isNotFound } from './sdk-errors';
import { WAITER_RESOURCE_TYPE } from '../../src/private/provider/custom-resource-contract';

/**
 * S3 Files needs a versioned bucket. An imported bucket's versioning is invisible at synth, so
 * check it at deploy time and fail with a message that says how to fix it.
 */
export async function verifyBucketVersioning(s3: S3Sender, bucketName: string): Promise<void> {
  let status: string | undefined;
  const { GetBucketVersioningCommand } = s3Module();
  try {
    status = (await s3.send(new GetBucketVersioningCommand({ Bucket: bucketName }))).Status;
  } catch (error) {
    const name = (error as { name?: string }).name;
    if (name === 'NoSuchBucket' || isNotFound(error)) {
      throw new ResourceError(WAITER_RESOURCE_TYPE, `bucket "${bucketName}" does not exist (or is in another account/region). `
        + 'Pass an existing general-purpose bucket in this account and region.');
    }
    throw new ResourceError(WAITER_RESOURCE_TYPE, `could not read the versioning of bucket "${bucketName}": ${describeError(error)}. `
      + 'The waiter onEvent role needs s3:GetBucketVersioning on the bucket.');
  }
  if (status !== 'Enabled') {
    const found = status === undefined ? 'never enabled' : `"${status}"`;
    throw new ResourceError(WAITER_RESOURCE_TYPE, `bucket "${bucketName}" must have versioning enabled for S3 Files, but its versioning is `
      + `${found}. Enable it (aws s3api put-bucket-versioning --bucket ${bucketName} --versioning-configuration Status=Enabled, `
      + 'or versioned: true on the CDK bucket) and deploy again.');
  }
}
