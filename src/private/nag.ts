import { Stack, Validations } from 'aws-cdk-lib';
import { IConstruct } from 'constructs';

/** AWS managed policies as rule validators (cdk-nag IAM4) print them. */
export const BASIC_EXECUTION_POLICY = 'Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole';
export const VPC_ACCESS_POLICY = 'Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole';

/**
 * Records, on `scope`, that a validator finding is inherent and why, through aws-cdk-lib's
 * acknowledged-rules metadata (what cdk-nag 3 reads), so users of the construct inherit a
 * report without it. Nothing is written to the template. aws-cdk-lib builds a stack trace for
 * each acknowledgment that constructs' `addMetadata` then drops (it has no `stackTraceOverride`);
 * with no frames to gather that costs nothing, where it was a tenth of a mounted function's
 * synthesis (benchmarks/RESULTS.md, "Where the library's time goes").
 */
export function acknowledge(scope: IConstruct, id: string, reason: string): void {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    Validations.of(scope).acknowledge({ id, reason });
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/**
 * A resource ARN as rule findings name it (`Resource::<Bucket.Arn>/prefix/*`): intrinsics are
 * flattened to `<LogicalId>` / `<LogicalId.Attribute>` and joins concatenated.
 */
export function findingResource(scope: IConstruct, arn: string): string {
  return `Resource::${flatten(Stack.of(scope).resolve(arn))}`;
}

function flatten(value: unknown): string {
  if (typeof value === 'string') return value;
  const v = value as Record<string, any>;
  if (v && typeof v === 'object') {
    if (typeof v.Ref === 'string') return `<${v.Ref}>`;
    if (Array.isArray(v['Fn::GetAtt'])) return `<${v['Fn::GetAtt'][0]}.${v['Fn::GetAtt'][1]}>`;
    if (Array.isArray(v['Fn::Join'])) return (v['Fn::Join'][1] as unknown[]).map(flatten).join(v['Fn::Join'][0]);
  }
  return JSON.stringify(value);
}
