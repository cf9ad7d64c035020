import { Duration, Lazy, Size, Token } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { S3FilesFileSystem } from '../../src';
import {
  describe as describeValue, invalid, MAX_IMPORT_SIZE_BYTES, spelling, validateAccessPointPath, validateAvailabilityTimeout,
  validateImportSizeThreshold, validateMountPath, validatePermissions, validatePosixId, validatePrefix, validateSecondaryGids, validateWholeDays,
} from '../../src/private/validation';
import { newStack } from '../util/template';

const scope = () => new Construct(newStack(), 'Thing');

describe('spelling: each binding\'s name for the props a message names', () => {
  test('Python\'s snake_case and Java\'s builder methods, labelled; nothing when every language reads the same', () => {
    expect(spelling(['readOnly', 'rootAccess'])).toBe(' (Python: read_only, root_access; Java builders: readOnly(…), rootAccess(…).)');
    expect(spelling(['accessPointOptions.posixUser.uid'])).toBe(' (Python: access_point_options.posix_user.uid; Java builders: accessPointOptions(…) › posixUser(…) › uid(…).)');
    expect(spelling(['path', 'vpc'])).toBe('');
    expect(spelling(['importDataRules[1].prefix'])).toBe(' (Python: import_data_rules[1].prefix; Java builders: importDataRules(…) › prefix(…).)');
  });
  test('errors and warnings carry it', () => {
    expect(() => invalid(scope(), 'mountPath', 'x', 'bad', 'good')).toThrow('invalid mountPath "x": bad. Fix: good. (Python: mount_path; Java builders: mountPath(…).)');
    const stack = newStack();
    const vpc = new ec2.Vpc(stack, 'Vpc', { natGateways: 0, subnetConfiguration: [{ name: 'I', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }] });
    const fs = new S3FilesFileSystem(stack, 'Fs', { vpc });
    const fn = new lambda.Function(stack, 'Fn', {
      runtime: lambda.Runtime.NODEJS_24_X, handler: 'i.h', code: lambda.Code.fromInline('x'), vpc,
    });
    fs.addAccessPoint('Ap').mountOnFunction(fn, { readOnly: true, rootAccess: true });
    Annotations.fromStack(stack).hasWarning('/TestStack/Fn', Match.stringLikeRegexp('\\(Python: read_only, root_access; Java builders: readOnly\\(…\\), rootAccess\\(…\\)\\.\\)'));
  });
});

describe('invalid', () => {
  test('names the construct path, prop, value, problem and fix', () => {
    expect(() => invalid(scope(), 'size', 3, 'too small', 'use 4')).toThrow('TestStack/Thing: invalid size 3: too small. Fix: use 4.');
    expect(() => invalid('Some/Path', 'name', 'x', 'bad', 'good')).toThrow('Some/Path: invalid name "x": bad. Fix: good.');
  });

  test('describes durations, arrays and plain objects readably', () => {
    expect(describeValue(Duration.minutes(5))).toBe('5 minutes');
    expect(describeValue([1, 'a'])).toBe('[1, "a"]');
    expect(describeValue({ a: 1 })).toBe('{"a":1}');
    expect(describeValue(undefined)).toBe('undefined');
  });
});

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
