/**
 * The length of a resolved IAM policy once CloudFormation has substituted its intrinsics, as IAM
 * counts it (JSON without whitespace). Intrinsics are taken at the longest value they can have
 * in practice, so the estimate errs on the long side.
 */
const PSEUDO_LENGTHS: Record<string, number> = {
  'AWS::Partition': 10, // aws-us-gov
  'AWS::Region': 14, // ap-southeast-4
  'AWS::AccountId': 12,
  'AWS::URLSuffix': 16, // amazonaws.com.cn
  'AWS::StackName': 128,
};
/** A Ref to a resource (a bucket name, a role name...): S3 bucket names go to 63, role names to 64. */
const REF_LENGTH = 64;
/** A Fn::GetAtt (an ARN: `arn:aws-us-gov:s3files:ap-southeast-4:123456789012:file-system/fs-` + 17-40 hex). */
const GETATT_LENGTH = 100;

function flatten(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(flatten);
  if (!value || typeof value !== 'object') return value;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj);
  if (keys.length === 1) {
    const [key] = keys;
    if (key === 'Ref') return 'x'.repeat(PSEUDO_LENGTHS[obj.Ref as string] ?? REF_LENGTH);
    if (key === 'Fn::GetAtt' || key === 'Fn::ImportValue') return 'x'.repeat(GETATT_LENGTH);
    if (key === 'Fn::Join') {
      const [sep, parts] = obj[key] as [string, unknown[]];
      return parts.map((p) => { const f = flatten(p); return typeof f === 'string' ? f : JSON.stringify(f); }).join(sep);
    }
    if (key.startsWith('Fn::')) return 'x'.repeat(GETATT_LENGTH);
  }
  return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, flatten(v)]));
}

/** Estimated characters of a resolved policy document. */
export function estimatePolicyCharacters(resolved: unknown): number {
  return JSON.stringify(flatten(resolved)).length;
}
