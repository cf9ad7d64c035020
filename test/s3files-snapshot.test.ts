import { Template } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { S3FilesMountedFunction } from '../src';
import { FN, newStack, stripAssetHashes } from './util/template';

describe('full stack snapshot', () => {
  test('two functions sharing one access point on a default file system', () => {
    // GIVEN
    const stack = newStack('SnapshotStack');
    // WHEN
    const writer = new S3FilesMountedFunction(stack, 'Writer', { ...FN, memorySize: 512 });
    new S3FilesMountedFunction(stack, 'Reader', {
      ...FN,
      accessPoint: writer.accessPoint,
      readOnly: true,
      directS3Read: lambda.DirectS3Read.auto(),
      memorySize: 1024,
    });
    // THEN
    const template = stripAssetHashes(Template.fromStack(stack).toJSON());
    expect(JSON.stringify(template)).not.toMatch(/[0-9a-f]{64}/);
    expect(template).toMatchSnapshot();
  });
});

describe('stripAssetHashes', () => {
  test('replaces 64-hex asset hashes and S3 keys, and keeps everything else', () => {
    // GIVEN
    const hash = 'a'.repeat(64);
    // WHEN
    const stripped = stripAssetHashes({ Code: { S3Bucket: `cdk-${hash}`, S3Key: `${hash}.zip` }, Other: 'keep' });
    // THEN
    expect(stripped).toEqual({ Code: { S3Bucket: 'cdk-ASSET_HASH', S3Key: 'ASSET_KEY' }, Other: 'keep' });
  });
});
