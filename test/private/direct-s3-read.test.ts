import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { describeDirectS3Read } from '../../src/private/direct-s3-read';
import { newStack } from '../util/template';

describe('describeDirectS3Read', () => {
  test.each([
    ['auto', () => lambda.DirectS3Read.auto(), { mode: 'AUTO', wantsGrant: false }],
    ['disabled', () => lambda.DirectS3Read.disabled(), { mode: 'DISABLED', wantsGrant: false }],
    ['enabledWithoutGrant', () => lambda.DirectS3Read.enabledWithoutGrant(), { mode: 'ENABLED', wantsGrant: false }],
  ])('reads %s through the public rendering path', (_name, make, expected) => {
    // GIVEN
    const value = make();
    // WHEN
    const info = describeDirectS3Read(value);
    // THEN
    expect(info).toEqual(expected);
  });

  test('enabled(bucket) asks for the read grant', () => {
    // GIVEN
    const bucket = s3.Bucket.fromBucketName(newStack(), 'B', 'some-bucket');
    // WHEN
    const info = describeDirectS3Read(lambda.DirectS3Read.enabled(bucket));
    // THEN
    expect(info).toEqual({ mode: 'ENABLED', wantsGrant: true });
  });

  test('memoises per value and renders the same value many times without construct clashes', () => {
    // GIVEN
    const value = lambda.DirectS3Read.auto();
    // WHEN
    const first = describeDirectS3Read(value);
    const again = describeDirectS3Read(value);
    const others = Array.from({ length: 5 }, () => describeDirectS3Read(lambda.DirectS3Read.disabled()));
    // THEN
    expect(again).toBe(first);
    others.forEach(o => expect(o.mode).toBe('DISABLED'));
  });
});
