/**
 * What the constructs and the custom-resource handlers (lambda/s3files-provider/) must agree on:
 * both import this module, so a resource type or a limit cannot drift between them. The handlers
 * are bundled with esbuild, which inlines these constants; keep the module free of aws-cdk-lib.
 */

/** CloudFormation type of the waiter custom resource. */
export const WAITER_RESOURCE_TYPE = 'Custom::S3FilesMountTargetsAvailable';
/** CloudFormation type of the delete guard, served by the same provider. */
export const DELETE_GUARD_RESOURCE_TYPE = 'Custom::S3FilesDeleteGuard';
/** CloudFormation type of the bucket cleaner (a created bucket's emptying and deletion), same provider. */
export const BUCKET_CLEANER_RESOURCE_TYPE = 'Custom::S3FilesBucketCleaner';

/** CloudFormation waits at most this long for a custom resource (its `ServiceTimeout` ceiling). */
export const CUSTOM_RESOURCE_MAX_SECONDS = 3600;
/** Time a waiter or guard gets beyond its own timeout: its last poll and the framework's response. */
export const WAITER_SERVICE_MARGIN_SECONDS = 300;

/** The waiter's default `TimeoutSeconds` (the construct's `availabilityTimeout` default, 20 minutes). */
export const DEFAULT_AVAILABILITY_TIMEOUT_SECONDS = 1200;
/** How long the guard retries DeleteFileSystem while writes are pending export. */
export const DELETE_TIMEOUT_SECONDS = 1800;
/** The guard's whole Delete (deletion, detachment, emptying), within CloudFormation's hour. */
export const GUARD_TOTAL_SECONDS = CUSTOM_RESOURCE_MAX_SECONDS - WAITER_SERVICE_MARGIN_SECONDS;

/**
 * The isComplete handler's environment variable listing (comma-separated) the logical ids of the
 * stack's file systems whose removal policy is RETAIN: a delete guard removed in an update's cleanup
 * with its old DESTROY properties keeps the file system of such a logical id (a DESTROY -> RETAIN
 * switch deployed together with a replacement).
 */
export const RETAINED_FILE_SYSTEMS_ENV = 'S3FILES_RETAINED_FILE_SYSTEMS';
/** How long a file system that lists the cleaner's bucket and is not being deleted is waited for. */
export const FOREIGN_FILE_SYSTEM_GRACE_SECONDS = 120;
