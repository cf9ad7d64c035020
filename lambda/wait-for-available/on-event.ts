import type { S3Client } from '@aws-sdk/client-s3';
import { parseProps } from './props';
import { OnEventRequest, OnEventResponse, propsForDelete } from './request';
import { verifyBucketVersioning } from './versioning';
import type { WaitLogger } from './waiter';

export interface OnEventDeps {
  readonly s3: S3Client;
  readonly now: () => number;
  readonly log: WaitLogger;
}

export async function handleOnEvent(request: OnEventRequest, deps: OnEventDeps): Promise<OnEventResponse> {
  const startedAt = String(deps.now());
  if (request.RequestType === 'Delete') {
    const props = propsForDelete(request, deps.log);
    deps.log.info('Delete', { fileSystemId: props?.fileSystemId, waitForExportOnDelete: props?.waitForExportOnDelete ?? false });
    return { PhysicalResourceId: request.PhysicalResourceId ?? props?.fileSystemId ?? 'none', Data: { StartedAt: startedAt } };
  }
  if (request.RequestType !== 'Create' && request.RequestType !== 'Update') {
    throw new Error(`Unsupported RequestType ${JSON.stringify(request.RequestType)}.`);
  }
  const props = parseProps(request.ResourceProperties);
  if (props.verifyBucketVersioning && props.bucketName) {
    await verifyBucketVersioning(deps.s3, props.bucketName);
    deps.log.info('Bucket versioning is enabled', { bucketName: props.bucketName });
  }
  deps.log.info(`${request.RequestType}: waiting for the file system to become available`, {
    fileSystemId: props.fileSystemId,
    expectedMountTargetCount: props.expectedMountTargetCount,
    accessPointIds: props.accessPointIds,
    timeoutSeconds: props.timeoutSeconds,
  });
  return { PhysicalResourceId: props.fileSystemId, Data: { StartedAt: startedAt } };
}
