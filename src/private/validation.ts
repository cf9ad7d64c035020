import { Duration, Size, Token } from 'aws-cdk-lib';
import { IConstruct } from 'constructs';
import { invalid, Shown, warnUnresolved } from './messages';
import { CUSTOM_RESOURCE_MAX_SECONDS, WAITER_SERVICE_MARGIN_SECONDS } from './provider/custom-resource-contract';

/** Largest POSIX id S3 Files accepts (2^32 - 1). */
export const MAX_POSIX_ID = 4294967295;
/** Largest `SizeLessThan` the CloudFormation schema accepts for an import rule. */
export const MAX_IMPORT_SIZE_BYTES = 52673613135872;
/** NFS clients send at most 16 supplementary groups (AUTH_SYS limit). */
export const MAX_SECONDARY_GIDS = 16;

/** Values that arrive through jsii from other languages may have the wrong runtime type. */
function requireString(scope: IConstruct | string, prop: string, value: unknown, example: string): void {
  if (typeof value !== 'string') {
    invalid(scope, prop, value, `it must be a string, got ${value === null ? 'null' : typeof value}`, `pass a string such as ${example}`);
  }
}

function requireKind(scope: IConstruct | string, prop: string, value: unknown, method: string, example: string): void {
  if (typeof (value as Record<string, unknown> | undefined)?.[method] !== 'function') {
    invalid(scope, prop, value, `it must be a ${example.split('.')[0]}, got ${value === null ? 'null' : typeof value}`, `pass e.g. ${example}`);
  }
}

/** Lambda's LocalMountPath pattern and length limit. */
export function validateMountPath(scope: IConstruct | string, mountPath: string): void {
  requireString(scope, 'mountPath', mountPath, '"/mnt/s3files"');
  if (Token.isUnresolved(mountPath)) return;
  if (mountPath.length > 160) {
    invalid(scope, 'mountPath', mountPath, `it is ${mountPath.length} characters long, Lambda allows at most 160`, 'use a shorter path such as "/mnt/s3files"');
  }
  if (!/^\/mnt\/[a-zA-Z0-9\-_.]+$/.test(mountPath)) {
    invalid(scope, 'mountPath', mountPath, 'Lambda requires it to match ^/mnt/[a-zA-Z0-9-_.]+$ (one directory level under /mnt)', 'use a path such as "/mnt/s3files"');
  }
}

/** The file system `Prefix`: '' (whole bucket) or a relative key prefix ending in '/'. */
export function validatePrefix(scope: IConstruct, prefix: string, prop = 'prefix'): void {
  requireString(scope, prop, prefix, '"data/" or ""');
  if (Token.isUnresolved(prefix)) return warnUnresolved(scope, prop);
  if (prefix === '') return;
  if (prefix.startsWith('/')) {
    invalid(scope, prop, prefix, 'S3 keys have no leading "/", so this prefix would match nothing', `drop the leading slash, e.g. "${prefix.replace(/^\/+/, '')}"`);
  }
  if (!prefix.endsWith('/')) {
    invalid(scope, prop, prefix, 'it must be empty or end with "/"', `use "${prefix}/"`);
  }
  if (prefix.length > 1024) {
    invalid(scope, prop, prefix, `it is ${prefix.length} characters long, the limit is 1024`, 'use a shorter prefix');
  }
  if (prefix.split('/').some((c, i, all) => c === '' && i < all.length - 1)) {
    invalid(scope, prop, prefix, 'it contains an empty path component ("//")', 'remove the duplicate slashes');
  }
}

/** A POSIX uid/gid: an integer in 0..4294967295. */
export function validatePosixId(scope: IConstruct, prop: string, value: number): void {
  if (typeof value === 'number' && Token.isUnresolved(value)) return warnUnresolved(scope, prop);
  if (!Number.isInteger(value) || value < 0 || value > MAX_POSIX_ID) {
    invalid(scope, prop, value, `POSIX ids must be integers from 0 to ${MAX_POSIX_ID}`, 'use a whole number such as 1000');
  }
}

/** Secondary group ids: each a POSIX id, at most 16 of them. */
export function validateSecondaryGids(scope: IConstruct, gids: number[]): void {
  if (!Array.isArray(gids)) {
    invalid(scope, 'posixUser.secondaryGids', gids, 'it must be a list of group ids', 'pass e.g. [1001, 1002]');
  }
  if (gids.length > MAX_SECONDARY_GIDS) {
    invalid(scope, 'posixUser.secondaryGids', gids, `NFS (AUTH_SYS) carries at most ${MAX_SECONDARY_GIDS} secondary groups`, `keep at most ${MAX_SECONDARY_GIDS} groups`);
  }
  gids.forEach((gid, i) => validatePosixId(scope, `posixUser.secondaryGids[${i}]`, gid));
}

/** Octal mode bits for the access point's root directory. */
export function validatePermissions(scope: IConstruct, permissions: string): void {
  requireString(scope, 'createPermissions', permissions, '"755"');
  if (Token.isUnresolved(permissions)) return warnUnresolved(scope, 'createPermissions');
  if (!/^[0-7]{3,4}$/.test(permissions)) {
    invalid(scope, 'createPermissions', permissions, 'it must be 3 or 4 octal digits (^[0-7]{3,4}$)', 'use a mode such as "755" or "0750"');
  }
}

/** An access point's root directory: at most this many characters ... */
export const MAX_ACCESS_POINT_PATH_CHARS = 100;
/** ... and components, none hidden (starting with "."). */
export const MAX_ACCESS_POINT_PATH_COMPONENTS = 4;

/** Access point root directory: absolute, 1-100 chars, <= 4 components, no hidden components. */
export function validateAccessPointPath(scope: IConstruct, path: string): void {
  requireString(scope, 'path', path, '"/lambda"');
  if (Token.isUnresolved(path)) return warnUnresolved(scope, 'path');
  if (!path.startsWith('/')) {
    invalid(scope, 'path', path, 'access point paths must be absolute', `use "/${path}"`);
  }
  if (path.length > MAX_ACCESS_POINT_PATH_CHARS) {
    invalid(scope, 'path', path, `it is ${path.length} characters long, the limit is ${MAX_ACCESS_POINT_PATH_CHARS}`, 'use a shorter path');
  }
  const components = path.split('/').slice(1);
  if (path !== '/' && components.some(c => c === '')) {
    invalid(scope, 'path', path, 'it contains an empty component ("//" or a trailing "/")', 'remove the extra slashes, e.g. "/lambda"');
  }
  const real = components.filter(c => c !== '');
  if (real.length > MAX_ACCESS_POINT_PATH_COMPONENTS) {
    invalid(scope, 'path', path, `it has ${real.length} components, S3 Files allows at most ${MAX_ACCESS_POINT_PATH_COMPONENTS}`, 'use a shallower path such as "/lambda"');
  }
  const hidden = real.find(c => c.startsWith('.'));
  if (hidden !== undefined) {
    invalid(scope, 'path', path, `component "${hidden}" starts with "." (hidden and "../" components are not allowed)`, 'rename the component so it does not start with "."');
  }
}

/** Import threshold: bytes in 0..MAX_IMPORT_SIZE_BYTES. */
export function validateImportSizeThreshold(scope: IConstruct, size: Size, prop = 'importSizeThreshold'): number {
  requireKind(scope, prop, size, 'toBytes', 'Size.kibibytes(128)');
  const bytes = inUnit(scope, prop, () => size.toBytes(), 'bytes', 'Size.bytes(n)');
  if (Token.isUnresolved(bytes)) return bytes;
  if (bytes < 0 || bytes > MAX_IMPORT_SIZE_BYTES) {
    invalid(scope, prop, `${bytes} bytes`, `it must be between 0 and ${MAX_IMPORT_SIZE_BYTES} bytes`, 'use a size such as Size.kibibytes(128)');
  }
  return bytes;
}

/** Whole days within [min, max]; returns the number of days. */
export function validateWholeDays(scope: IConstruct, prop: string, duration: Duration, min: number, max: number): number {
  requireKind(scope, prop, duration, 'toDays', `Duration.days(${min})`);
  const days = inUnit(scope, prop, () => duration.toDays({ integral: false }), 'days', 'Duration.days(n)');
  if (Token.isUnresolved(days)) return days;
  if (!Number.isInteger(days) || days < min || days > max) {
    invalid(scope, prop, duration, `it must be a whole number of days from ${min} to ${max}`, `use Duration.days(n) with ${min} <= n <= ${max}`);
  }
  return days;
}

/**
 * Converts a Duration or Size to the unit CloudFormation takes. aws-cdk-lib cannot convert a token
 * amount to another unit and throws without naming the prop: say which prop, and how to give it.
 */
export function inUnit<T>(scope: IConstruct, prop: string, convert: () => T, unit: string, example: string): T {
  try {
    return convert();
  } catch (e) {
    invalid(scope, prop, new Shown('(a token)'), `a token amount cannot be converted to ${unit} at synth time (${(e as Error).message.split('\n')[0]})`,
      `give the token in ${unit}: ${example}`);
  }
}

/** Longest availabilityTimeout: CloudFormation's one-hour custom-resource limit less the waiter's margin. */
export const MAX_AVAILABILITY_TIMEOUT_SECONDS = CUSTOM_RESOURCE_MAX_SECONDS - WAITER_SERVICE_MARGIN_SECONDS;

/** The waiter timeout: 1 to 55 minutes (it must end inside CloudFormation's one-hour custom-resource limit). */
export function validateAvailabilityTimeout(scope: IConstruct, timeout: Duration): number {
  requireKind(scope, 'availabilityTimeout', timeout, 'toSeconds', 'Duration.minutes(20)');
  const seconds = inUnit(scope, 'availabilityTimeout', () => timeout.toSeconds({ integral: false }), 'seconds', 'Duration.seconds(n)');
  if (Token.isUnresolved(seconds)) return seconds;
  if (seconds < 60 || seconds > MAX_AVAILABILITY_TIMEOUT_SECONDS) {
    invalid(scope, 'availabilityTimeout', timeout, 'it must be between 1 and 55 minutes: CloudFormation gives a custom resource at most one hour, and the waiter needs a few '
      + 'minutes of it to report',
    'use e.g. `Duration.minutes(20)` (mount targets took 3-5 minutes in two third-party write-ups)');
  }
  return Math.ceil(seconds);
}

/** A container's mount path: absolute, not the root, at most 4,096 characters. */
export function validateContainerPath(scope: IConstruct, path: string, prop = 'containerPath'): void {
  requireString(scope, prop, path, '"/mnt/s3files"');
  if (Token.isUnresolved(path)) return warnUnresolved(scope, prop);
  if (!path.startsWith('/') || path === '/' || path.length > 4096 || /\/\.\.?(\/|$)/.test(path)) {
    invalid(scope, prop, path, 'it must be an absolute path other than "/", without "." or ".." components', 'use a path such as "/mnt/s3files"');
  }
}

/** A boolean prop: JavaScript callers (and tokens) can pass anything; a token is refused, the policy is rendered at synth. */
export function validateBoolean(scope: IConstruct, prop: string, value: unknown): boolean {
  if (typeof value !== 'boolean') {
    invalid(scope, prop, value, 'it must be true or false (it decides the file system policy at synth time, so no token either)', `pass ${prop}: true or false, or omit it`);
  }
  return value;
}
