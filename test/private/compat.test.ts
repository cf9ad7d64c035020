import { App, Names, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { isImmutablePrincipal, lambdaAutoSecurityGroup } from '../../src/private/compat';
import { FN, isolatedVpc } from '../util/template';

// One test per reliance on aws-cdk-lib behaviour that is not public API (src/private/compat.ts):
// when an aws-cdk-lib release changes one, the test that names it fails.

describe('aws-cdk-lib internals the library relies on', () => {
  test('an immutable or another account\'s imported role is an ImmutableRole that reports success and adds nothing', () => {
    const stack = new Stack(new App(), 'S', { env: { account: '111111111111', region: 'us-east-1' } });
    const fixed = iam.Role.fromRoleArn(stack, 'Fixed', 'arn:aws:iam::111111111111:role/fixed', { mutable: false });
    const foreign = iam.Role.fromRoleArn(stack, 'Foreign', 'arn:aws:iam::222222222222:role/theirs');
    const mutable = iam.Role.fromRoleArn(stack, 'Mutable', 'arn:aws:iam::111111111111:role/ours');
    const created = new iam.Role(stack, 'Created', { assumedBy: new iam.ServicePrincipal('ec2.amazonaws.com') });
    expect([fixed, foreign, mutable, created].map(isImmutablePrincipal)).toEqual([true, true, false, false]);
    // (what makes detection necessary: the immutable role says the statement was added)
    expect(fixed.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['s3files:ClientMount'], resources: ['*'] })).statementAdded).toBe(true);
  });

  test('lambda.Function in a VPC without security groups makes its child SecurityGroup, described by its full path', () => {
    const stack = new Stack(new App(), 'S');
    const vpc = isolatedVpc(stack);
    const fn = new lambda.Function(stack, 'Fn', { ...FN, vpc });
    const sg = lambdaAutoSecurityGroup(fn);
    expect(sg?.groupDescription).toBe(`Automatic security group for Lambda Function ${Names.uniqueId(fn)}`);
    const own = new lambda.Function(stack, 'Own', { ...FN, vpc, securityGroups: [new ec2.SecurityGroup(stack, 'Sg', { vpc })] });
    expect(lambdaAutoSecurityGroup(own)).toBeUndefined();
  });
});
