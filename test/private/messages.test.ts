import { Duration } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { LambdaMount, S3FilesFileSystem } from '../../src';
import { asNestedProp, describe as describeValue, invalid, spelled, spellings } from '../../src/private/messages';
import { newStack } from '../util/template';

const scope = () => new Construct(newStack(), 'Thing');

describe('spellings: each binding\'s name for what a message names', () => {
  test('props: Python snake_case, Java builder methods, Go exported names; indexes kept where the language has them', () => {
    expect(spellings('readOnly', false)).toEqual({ python: 'read_only', java: 'readOnly(…)', go: 'ReadOnly' });
    expect(spellings('accessPointOptions.posixUser.uid', false))
      .toEqual({ python: 'access_point_options.posix_user.uid', java: 'accessPointOptions(…) › posixUser(…) › uid(…)', go: 'AccessPointOptions.PosixUser.Uid' });
    expect(spellings('importDataRules[1].prefix', false))
      .toEqual({ python: 'import_data_rules[1].prefix', java: 'importDataRules(…) › prefix(…)', go: 'ImportDataRules[1].Prefix' });
  });

  test('calls: a static method keeps its class; Go joins class and method with an underscore', () => {
    expect(spellings('S3FilesFileSystem.fromFileSystemAttributes', true)).toEqual({
      python: 'S3FilesFileSystem.from_file_system_attributes()', java: 'S3FilesFileSystem.fromFileSystemAttributes()', go: 'S3FilesFileSystem_FromFileSystemAttributes()',
    });
    expect(spellings('LambdaMount.onFunction', true).python).toBe('LambdaMount.on_function()');
    expect(spellings('DirectS3Read.enabledWithoutGrant', true).python).toBe('DirectS3Read.enabled_without_grant()');
  });
});

describe('spelled: the text, then each binding\'s spelling of what it names', () => {
  test('backticked names that Python writes differently are spelled; names that read the same everywhere are not', () => {
    expect(spelled('set `vpcSubnets` and `vpc`')).toBe('set `vpcSubnets` and `vpc` (Python: vpc_subnets; Java: vpcSubnets(…); Go: VpcSubnets.)');
    expect(spelled('set `vpc` or `path`')).toBe('set `vpc` or `path`');
    expect(spelled('plain text with camelCase outside backticks')).toBe('plain text with camelCase outside backticks');
  });

  test('the prop of an error is spelled even without backticks', () => {
    expect(() => invalid(scope(), 'mountPath', 'x', 'bad', 'good'))
      .toThrow('invalid mountPath "x": bad. Fix: good. (Python: mount_path; Java: mountPath(…); Go: MountPath.)');
  });

  test('a nested prop is renamed to the path the user wrote, and spelled again', () => {
    expect(() => asNestedProp('accessPointOptions', () => invalid(scope(), 'posixUser.uid', -1, 'bad', 'use `readOnly`')))
      .toThrow('invalid accessPointOptions.posixUser.uid -1: bad. Fix: use `readOnly`. (Python: access_point_options.posix_user.uid, read_only;');
    expect(() => asNestedProp('accessPointOptions', () => invalid(scope(), 'fileSystem', 'x', 'bad', 'good'), ['fileSystem']))
      .toThrow('invalid fileSystem "x": bad. Fix: good. (Python: file_system;');
  });

  test('warnings carry it', () => {
    const stack = newStack();
    const vpc = new ec2.Vpc(stack, 'Vpc', { natGateways: 0, subnetConfiguration: [{ name: 'I', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }] });
    const fs = new S3FilesFileSystem(stack, 'Fs', { vpc });
    const fn = new lambda.Function(stack, 'Fn', { runtime: lambda.Runtime.NODEJS_24_X, handler: 'i.h', code: lambda.Code.fromInline('x'), vpc });
    LambdaMount.onFunction(fn, fs.addAccessPoint('Ap', { path: '/lambda' }), { readOnly: true, rootAccess: true });
    Annotations.fromStack(stack).hasWarning('/TestStack/Fn', Match.stringLikeRegexp('\\(Python: read_only, root_access; Java: readOnly\\(…\\), rootAccess\\(…\\); Go: ReadOnly, RootAccess\\.\\)'));
  });
});

describe('invalid and describe', () => {
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

describe('spellings of types, modules and members', () => {
  test('a type reads the same everywhere; a module prefix is Python\'s and Go\'s package', () => {
    expect(spelled('create the `EcsFargateContainerDefinition` first')).toBe('create the `EcsFargateContainerDefinition` first');
    expect(spellings('lambda.FileSystem.fromEfsAccessPoint', true)).toEqual({
      python: 'lambda_.FileSystem.from_efs_access_point()', java: 'FileSystem.fromEfsAccessPoint()', go: 'awslambda.FileSystem_FromEfsAccessPoint()',
    });
    expect(spellings('ec2.UserData.forLinux', true).python).toBe('ec2.UserData.for_linux()');
    expect(spelled('use `RemovalPolicy.RETAIN`')).toBe('use `RemovalPolicy.RETAIN`');
    expect(spellings('fileSystem.grantRead', true)).toEqual({ python: 'file_system.grant_read()', java: 'fileSystem.grantRead()', go: 'fileSystem.GrantRead()' });
  });

  test('a call through an object\'s properties: each property between is a getter in Java and Go', () => {
    expect(spellings('fileSystem.bucket.applyRemovalPolicy', true)).toEqual({
      python: 'file_system.bucket.apply_removal_policy()', java: 'fileSystem.getBucket().applyRemovalPolicy()', go: 'fileSystem.Bucket().ApplyRemovalPolicy()',
    });
  });
});
