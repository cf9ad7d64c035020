import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import { IConstruct } from 'constructs';

// Every reliance on aws-cdk-lib behaviour that is not public API, in one place: each has a test in
// test/private/compat.test.ts, so an aws-cdk-lib release that changes one fails one named test.

/**
 * Whether a principal silently ignores added statements. `iam.Role.fromRoleArn(..., { mutable: false })`
 * and a role of another account return an ImmutableRole, whose addToPrincipalPolicy reports success
 * and adds nothing; aws-cdk-lib exposes it only through its property-injection id.
 */
export function isImmutablePrincipal(principal: iam.IPrincipal): boolean {
  return (principal.constructor as { PROPERTY_INJECTION_ID?: string }).PROPERTY_INJECTION_ID === 'aws-cdk-lib.aws-iam.ImmutableRole';
}

/**
 * The security group lambda.Function creates for a function in a VPC when it is given none: its
 * child 'SecurityGroup', whose description embeds the construct's full path (Names.uniqueId), so
 * moving the stack into a Stage would replace it (GroupDescription is create-only).
 */
export function lambdaAutoSecurityGroup(fn: IConstruct): ec2.CfnSecurityGroup | undefined {
  const sg = fn.node.tryFindChild('SecurityGroup');
  const cfn = sg?.node.defaultChild;
  return cfn instanceof ec2.CfnSecurityGroup && /^Automatic security group for Lambda Function /.test(String(cfn.groupDescription)) ? cfn : undefined;
}
