import type { S3Client } from '@aws-sdk/client-s3';
import { cleanerPropsForDelete, CLEANER_RESOURCE_TYPE, parseCleanerProps } from './bucket-cleaner';
import { GUARD_RESOURCE_TYPE, guardPropsForDelete, parseGuardProps } from './delete-guard';
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
  if (request.RequestType !== 'Create' && request.RequestType !== 'Update' && request.RequestType !== 'Delete') {
    throw new Error(`Unsupported RequestType ${JSON.stringify(request.RequestType)}.`);
  }
  if (request.ResourceType === GUARD_RESOURCE_TYPE) return guardOnEvent(request, deps, startedAt);
  if (request.ResourceType === CLEANER_RESOURCE_TYPE) return cleanerOnEvent(request, deps, startedAt);
  if (request.RequestType === 'Delete') {
    const props = propsForDelete(request, deps.log);
    deps.log.info('Delete: nothing to wait for', { fileSystemId: props?.fileSystemId });
    return { PhysicalResourceId: request.PhysicalResourceId ?? props?.fileSystemId ?? 'none', Data: { StartedAt: startedAt } };
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

/**
 * The guard's physical id is its file system id: when the file system is replaced, CloudFormation
 * later sends Delete for the old id with the old properties, so the old file system is guarded too.
 */
function guardOnEvent(request: OnEventRequest, deps: OnEventDeps, startedAt: string): OnEventResponse {
  if (request.RequestType === 'Delete') {
    const props = guardPropsForDelete(request.ResourceProperties, deps.log);
    deps.log.info('Delete guard: Delete', { fileSystemId: props?.fileSystemId, deleteFileSystem: props?.deleteFileSystem ?? false });
    return { PhysicalResourceId: request.PhysicalResourceId ?? props?.fileSystemId ?? 'none', Data: { StartedAt: startedAt } };
  }
  const props = parseGuardProps(request.ResourceProperties);
  deps.log.info(`Delete guard: ${request.RequestType} (no-op)`, { fileSystemId: props.fileSystemId, deleteFileSystem: props.deleteFileSystem });
  return { PhysicalResourceId: props.fileSystemId, Data: { StartedAt: startedAt } };
}

/** The cleaner's physical id is its bucket's name: a replaced bucket gets Delete with the old one. */
function cleanerOnEvent(request: OnEventRequest, deps: OnEventDeps, startedAt: string): OnEventResponse {
  if (request.RequestType === 'Delete') {
    const props = cleanerPropsForDelete(request.ResourceProperties, deps.log);
    deps.log.info('Bucket cleaner: Delete', { bucketArn: props?.bucketArn, emptyOnDelete: props?.emptyOnDelete ?? false });
    return { PhysicalResourceId: request.PhysicalResourceId ?? 'none', Data: { StartedAt: startedAt } };
  }
  const props = parseCleanerProps(request.ResourceProperties);
  deps.log.info(`Bucket cleaner: ${request.RequestType} (no-op)`, { bucketArn: props.bucketArn, emptyOnDelete: props.emptyOnDelete });
  return { PhysicalResourceId: props.bucketArn.slice(props.bucketArn.indexOf(':::') + 3), Data: { StartedAt: startedAt } };
}
