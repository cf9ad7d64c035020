import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { WAITER_RESOURCE_TYPE } from '../../src/private/provider/custom-resource-contract';
import { GUARD_EVENTS_ACTIONS, HANDLER_READ_ACTIONS, S3FilesWaiterProvider } from '../../src/private/provider/waiter-provider';
import { byPrefix, newStack, resourcesOfType } from '../util/template';

describe('S3FilesWaiterProvider', () => {
  test('getOrCreate returns one provider per stack, at the stack root, from any scope', () => {
    // GIVEN
    const stack = newStack();
    const nested = new Construct(new Construct(stack, 'A'), 'B');
    // WHEN
    const first = S3FilesWaiterProvider.getOrCreate(stack);
    const second = S3FilesWaiterProvider.getOrCreate(nested);
    // THEN
    expect(second).toBe(first);
    expect(first.node.scope).toBe(stack);
    expect(first.node.id).toBe(S3FilesWaiterProvider.ID);
    expect(resourcesOfType(Template.fromStack(stack), 'AWS::StepFunctions::StateMachine')).toHaveLength(1);
  });

  test('different stacks get different providers', () => {
    expect(S3FilesWaiterProvider.getOrCreate(newStack('One'))).not.toBe(S3FilesWaiterProvider.getOrCreate(newStack('Two')));
  });

  test('grants are scoped: reads of the account\'s file systems, deletion only of those tagged with this stack, for isComplete; GetBucketVersioning on the bucket for onEvent', () => {
    // GIVEN
    const stack = new Stack(new App(), 'Pinned', { env: { account: '111111111111', region: 'us-east-1' } });
    const provider = S3FilesWaiterProvider.getOrCreate(stack);
    // WHEN
    provider.grantVerifyBucketVersioning(s3.Bucket.fromBucketName(stack, 'B', 'data-bucket'));
    // THEN
    const t = Template.fromStack(stack);
    const [, isComplete] = byPrefix(t, 'AWS::IAM::Policy', 'cdks3fileslambdaWaiterProviderHandlerPolicy');
    const arn = (rest: string) => ({ 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, rest]] });
    const fileSystems = arn(':s3files:us-east-1:111111111111:file-system/*');
    expect(isComplete.Properties.PolicyDocument.Statement).toEqual([
      { Effect: 'Allow', Action: HANDLER_READ_ACTIONS, Resource: [fileSystems, arn(':s3files:us-east-1:111111111111:file-system/*/access-point/*')] },
      {
        Effect: 'Allow',
        Action: 's3files:DeleteFileSystem',
        Resource: fileSystems,
        Condition: { StringEquals: { 'aws:ResourceTag/cdk-s3files-lambda:delete-with-stack': { Ref: 'AWS::StackId' } } },
      },
      { Effect: 'Allow', Action: GUARD_EVENTS_ACTIONS, Resource: arn(':events:us-east-1:111111111111:rule/DO-NOT-DELETE-S3-Files*') },
    ]);
    expect(resourcesOfType(t, 'AWS::IAM::Policy').map(([id]) => id)).not.toContainEqual(expect.stringMatching(/IsCompleteServiceRoleDefaultPolicy/));
    const [, onEvent] = byPrefix(t, 'AWS::IAM::Policy', 'cdks3fileslambdaWaiterProviderOnEventServiceRoleDefaultPolicy');
    expect(onEvent.Properties.PolicyDocument.Statement).toEqual([{
      Effect: 'Allow',
      Action: 's3:GetBucketVersioning',
      Resource: arn(':s3:::data-bucket'),
    }]);
    expect(JSON.stringify(t.toJSON())).not.toMatch(/"Resource":"\*"[^}]*s3files/);
  });

  test('the handlers are the bundled nodejs24.x functions on arm64', () => {
    // GIVEN / WHEN
    const stack = newStack();
    S3FilesWaiterProvider.getOrCreate(stack);
    // THEN
    const t = Template.fromStack(stack);
    for (const prefix of ['cdks3fileslambdaWaiterProviderOnEvent', 'cdks3fileslambdaWaiterProviderIsComplete']) {
      const [, fn] = resourcesOfType(t, 'AWS::Lambda::Function').find(([id]) => new RegExp(`^${prefix}[0-9A-F]{8}$`).test(id))!;
      expect(fn.Properties).toMatchObject({ Runtime: 'nodejs24.x', Handler: 'index.handler', Architectures: ['arm64'] });
    }
    expect(WAITER_RESOURCE_TYPE).toBe('Custom::S3FilesMountTargetsAvailable');
  });

  test('the policy-size check skips policies attached only to groups or users (no Roles property)', () => {
    // GIVEN a stack with the provider and a bucket granted to a group and a user only
    const stack = newStack();
    S3FilesWaiterProvider.getOrCreate(stack);
    const bucket = new s3.Bucket(stack, 'Data');
    bucket.grantRead(new iam.Group(stack, 'Readers'));
    bucket.grantRead(new iam.User(stack, 'Reader'));
    // WHEN / THEN synthesis (which runs the check) succeeds and the group and user policies are there
    const t = Template.fromStack(stack);
    const policies = resourcesOfType(t, 'AWS::IAM::Policy').map(([, p]) => p.Properties);
    expect(policies.filter((p) => p.Groups !== undefined && p.Roles === undefined)).toHaveLength(1);
    expect(policies.filter((p) => p.Users !== undefined && p.Roles === undefined)).toHaveLength(1);
  });
});
