/**
 * Properties of `Custom::S3FilesMountTargetsAvailable`, parsed and validated.
 * CloudFormation delivers every scalar as a string, so numbers and booleans arrive as text.
 */

import {
  CUSTOM_RESOURCE_MAX_SECONDS, DEFAULT_AVAILABILITY_TIMEOUT_SECONDS, WAITER_RESOURCE_TYPE,
} from '../../src/private/custom-resource-contract';

export const RESOURCE_TYPE = WAITER_RESOURCE_TYPE;

/** Default `TimeoutSeconds` (the construct's `availabilityTimeout`). */
export const DEFAULT_TIMEOUT_SECONDS = DEFAULT_AVAILABILITY_TIMEOUT_SECONDS;
/** CloudFormation gives a custom resource at most one hour: a longer handler timeout would never be reached. */
export const MAX_TIMEOUT_SECONDS = CUSTOM_RESOURCE_MAX_SECONDS;

export interface WaitForAvailableProps {
  readonly fileSystemId: string;
  readonly expectedMountTargetCount: number;
  readonly accessPointIds: string[];
  readonly timeoutSeconds: number;
  readonly verifyBucketVersioning: boolean;
  readonly bucketName?: string;
}

/** A property value that cannot be used; the message names the property, the value and the fix. */
export class InvalidPropertyError extends Error {
  constructor(message: string) {
    super(`${RESOURCE_TYPE}: ${message}`);
    this.name = 'InvalidPropertyError';
  }
}

/** A property value as error messages quote it. */
export function show(value: unknown): string {
  return value === undefined ? 'nothing' : JSON.stringify(value);
}

function parseInteger(
  props: Record<string, unknown>, name: string, fallback: number, min: number, max: number, fix: string,
): number {
  const raw = props[name];
  if (raw === undefined || raw === '') return fallback;
  const text = typeof raw === 'number' ? String(raw) : raw;
  if (typeof text !== 'string' || !/^\d+$/.test(text.trim())) {
    throw new InvalidPropertyError(`"${name}" must be a whole number between ${min} and ${max}, got ${show(raw)}. ${fix}`);
  }
  const value = Number(text.trim());
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new InvalidPropertyError(`"${name}" must be between ${min} and ${max}, got ${show(raw)}. ${fix}`);
  }
  return value;
}

function parseBoolean(props: Record<string, unknown>, name: string): boolean {
  const raw = props[name];
  if (raw === undefined || raw === '' || raw === false || raw === 'false') return false;
  if (raw === true || raw === 'true') return true;
  throw new InvalidPropertyError(`"${name}" must be "true" or "false", got ${show(raw)}.`);
}

function parseIdList(props: Record<string, unknown>, name: string): string[] {
  const raw = props[name];
  if (raw === undefined || raw === '') return [];
  if (!Array.isArray(raw)) {
    throw new InvalidPropertyError(`"${name}" must be a list of access point ids, got ${show(raw)}.`);
  }
  const ids = raw.map((id) => (typeof id === 'string' ? id.trim() : id));
  const bad = ids.find((id) => typeof id !== 'string' || id === '');
  if (bad !== undefined) {
    throw new InvalidPropertyError(`"${name}" must contain only non-empty access point ids, got ${show(raw)}.`);
  }
  // Duplicates would cost an API call each for nothing.
  return [...new Set(ids as string[])];
}

/** Parses and validates the resource properties; throws `InvalidPropertyError` naming the problem. */
export function parseProps(input: Record<string, unknown> | undefined): WaitForAvailableProps {
  const props = input ?? {};
  const fileSystemId = props.FileSystemId;
  if (typeof fileSystemId !== 'string' || fileSystemId.trim() === '') {
    throw new InvalidPropertyError(
      `"FileSystemId" is required (the S3 Files file system id, e.g. fs-0123456789abcdef0), got ${show(fileSystemId)}.`,
    );
  }
  const verifyBucketVersioning = parseBoolean(props, 'VerifyBucketVersioning');
  const bucketName = typeof props.BucketName === 'string' && props.BucketName.trim() !== ''
    ? props.BucketName.trim() : undefined;
  if (props.BucketName !== undefined && typeof props.BucketName !== 'string') {
    throw new InvalidPropertyError(`"BucketName" must be a bucket name string, got ${show(props.BucketName)}.`);
  }
  if (verifyBucketVersioning && !bucketName) {
    throw new InvalidPropertyError('"VerifyBucketVersioning" is "true" but "BucketName" is missing: pass the bucket name to check.');
  }
  const timeoutFix = `Set availabilityTimeout to 1-${MAX_TIMEOUT_SECONDS} s (default ${DEFAULT_TIMEOUT_SECONDS}).`;
  return {
    fileSystemId: fileSystemId.trim(),
    expectedMountTargetCount: parseInteger(props, 'ExpectedMountTargetCount', 1, 1, 1000,
      'Pass the number of mount targets the file system gets (one per Availability Zone).'),
    accessPointIds: parseIdList(props, 'AccessPointIds'),
    timeoutSeconds: parseInteger(props, 'TimeoutSeconds', DEFAULT_TIMEOUT_SECONDS, 1, MAX_TIMEOUT_SECONDS, timeoutFix),
    verifyBucketVersioning,
    bucketName,
  };
}

/** Reads `Data.StartedAt` (epoch ms as a string) that onEvent handed to isComplete. */
export function parseStartedAt(data: Record<string, unknown> | undefined): number {
  const raw = data?.StartedAt;
  const value = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : typeof raw === 'number' ? raw : NaN;
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new Error(`${RESOURCE_TYPE}: isComplete needs Data.StartedAt (epoch ms) from onEvent, got ${show(raw)}.`);
  }
  return value;
}
