import { Duration, Lazy, Size, Token } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import {
  MAX_IMPORT_SIZE_BYTES, validateAccessPointPath, validateAvailabilityTimeout,
  validateImportSizeThreshold, validateMountPath, validatePermissions, validatePosixId, validatePrefix, validateSecondaryGids, validateWholeDays,
} from '../../src/private/validation';
import { newStack } from '../util/template';

const scope = () => new Construct(newStack(), 'Thing');

describe('validators skip unresolved tokens', () => {
  test.each([
    ['mountPath', () => validateMountPath(scope(), Lazy.string({ produce: () => 'x' }))],
    ['prefix', () => validatePrefix(scope(), Lazy.string({ produce: () => 'x' }))],
    ['posix id', () => validatePosixId(scope(), 'uid', Token.asNumber(Lazy.number({ produce: () => -1 })))],
    ['permissions', () => validatePermissions(scope(), Lazy.string({ produce: () => 'x' }))],
    ['path', () => validateAccessPointPath(scope(), Lazy.string({ produce: () => 'x' }))],
    ['import size', () => validateImportSizeThreshold(scope(), Size.bytes(Token.asNumber(Lazy.number({ produce: () => 1 }))))],
    ['days', () => validateWholeDays(scope(), 'd', Duration.days(Token.asNumber(Lazy.number({ produce: () => 0 }))), 1, 2)],
    ['timeout', () => validateAvailabilityTimeout(scope(), Duration.seconds(Token.asNumber(Lazy.number({ produce: () => 1 }))))],
  ])('%s', (_name, run) => {
    expect(run).not.toThrow();
  });
});

describe('validators accept good values', () => {
  test('every validator', () => {
    const s = scope();
    expect(() => {
      validateMountPath(s, '/mnt/s3files');
      validatePrefix(s, '');
      validatePrefix(s, 'a/b/');
      validatePosixId(s, 'uid', 0);
      validatePosixId(s, 'uid', 4294967295);
      validateSecondaryGids(s, Array.from({ length: 16 }, (_, i) => i));
      validatePermissions(s, '0755');
      validateAccessPointPath(s, '/a/b/c/d');
    }).not.toThrow();
    expect(validateImportSizeThreshold(s, Size.bytes(MAX_IMPORT_SIZE_BYTES))).toBe(MAX_IMPORT_SIZE_BYTES);
    expect(validateImportSizeThreshold(s, Size.bytes(0))).toBe(0);
    expect(validateWholeDays(s, 'd', Duration.days(1), 1, 365)).toBe(1);
    expect(validateAvailabilityTimeout(s, Duration.seconds(90.5))).toBe(91);
  });
});

describe('validators reject bad values with the fix', () => {
  test.each([
    ['uid', () => validatePosixId(scope(), 'posixUser.uid', 2 ** 32), /invalid posixUser.uid 4294967296: POSIX ids must be integers from 0 to 4294967295. Fix: use a whole number/],
    ['gids', () => validateSecondaryGids(scope(), [1, 2.5]), /invalid posixUser.secondaryGids\[1\] 2.5/],
    ['mount', () => validateMountPath(scope(), '/mnt/'), /invalid mountPath "\/mnt\/"/],
    ['prefix', () => validatePrefix(scope(), 'x'), /Fix: use "x\/"/],
    ['path', () => validateAccessPointPath(scope(), '//'), /invalid path "\/\/": it contains an empty component/],
    ['size', () => validateImportSizeThreshold(scope(), Size.bytes(MAX_IMPORT_SIZE_BYTES + 1)), /invalid importSizeThreshold "52673613135873 bytes"/],
    ['days', () => validateWholeDays(scope(), 'expireAfterLastAccess', Duration.days(400), 1, 365), /Fix: use Duration.days\(n\) with 1 <= n <= 365/],
    ['timeout', () => validateAvailabilityTimeout(scope(), Duration.hours(2).plus(Duration.seconds(1))), /invalid availabilityTimeout/],
  ])('%s', (_name, run, message) => {
    expect(run).toThrow(message);
  });
});
