import { CfnElement, CfnOutput, Stack, Token } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';

/**
 * The length of a resolved IAM policy once CloudFormation has substituted its intrinsics, as IAM
 * counts it (JSON without whitespace). Each intrinsic is taken at the longest value it can have:
 * what the referenced resource can be (a role's ARN with its path, an access point's ARN), so the
 * estimate errs on the long side and a policy that passes fits in any partition and region.
 */
const PSEUDO_LENGTHS: Record<string, number> = {
  'AWS::Partition': 10, // aws-us-gov
  'AWS::Region': 14, // ap-southeast-4
  'AWS::AccountId': 12,
  'AWS::URLSuffix': 16, // amazonaws.com.cn
  'AWS::StackName': 128,
  'AWS::StackId': 162, // arn:<partition>:cloudformation:<region>:<account>:stack/<name>/<uuid>
};
/** `arn:<partition>:<service>:<region>:<account>:` at its longest, without the service. */
const ARN_HEAD = 'arn:'.length + 10 + 1 + 1 + 14 + 1 + 12 + 1;
/** `fs-` or `fsap-` and 17 to 40 hex digits (the API's and the schemas' patterns). */
const FILE_SYSTEM_ID = 3 + 40;
const ACCESS_POINT_ID = 5 + 40;
const FILE_SYSTEM_ARN = ARN_HEAD + 's3files'.length + 'file-system/'.length + FILE_SYSTEM_ID;
/** IAM: a path is at most 512 characters, a role or user name 64. */
const MAX_IAM_PATH = 512;
const MAX_IAM_NAME = 64;

/** Longest value of `Fn::GetAtt` / `Ref` of a resource type, by attribute ('Ref' for Ref). */
const ATTRIBUTE_LENGTHS: Record<string, Record<string, number>> = {
  'AWS::S3Files::FileSystem': { FileSystemArn: FILE_SYSTEM_ARN, Ref: FILE_SYSTEM_ARN, FileSystemId: FILE_SYSTEM_ID },
  'AWS::S3Files::AccessPoint': { AccessPointArn: FILE_SYSTEM_ARN + '/access-point/'.length + ACCESS_POINT_ID, Ref: ACCESS_POINT_ID, AccessPointId: ACCESS_POINT_ID },
  'AWS::S3::Bucket': { Arn: 'arn:aws-us-gov:s3:::'.length + 63, Ref: 63 },
  'AWS::IAM::Role': { Ref: MAX_IAM_NAME },
};
/** A Ref or Fn::GetAtt of anything else: its name or ARN at a generous length. */
const OTHER_REF_LENGTH = 64;
const OTHER_ATTRIBUTE_LENGTH = 100;
/** A stack output the estimate cannot trace: as long as the longest IAM role ARN (path and name included). */
const UNKNOWN_OUTPUT_LENGTH = 'arn:aws-us-gov:iam::'.length + 12 + ':role'.length + MAX_IAM_PATH + MAX_IAM_NAME;

/** The longest ARN of an IAM role or user whose path and name are known literals or not. */
function iamArnLength(kind: 'role' | 'user', path: unknown, name: unknown): number {
  const p = typeof path === 'string' && !Token.isUnresolved(path) ? path.length : (path === undefined ? 1 : MAX_IAM_PATH);
  const n = typeof name === 'string' && !Token.isUnresolved(name) ? name.length : MAX_IAM_NAME;
  return 'arn:aws-us-gov:iam::'.length + 12 + 1 + kind.length + p + n;
}

/**
 * What a policy in `stack` may reference: its own resources, and exports of the other stacks of the
 * app. Without a stack (a synthesized template alone), every reference gets a fixed generous length.
 */
class References {
  private readonly byLogicalId = new Map<string, CfnElement>();
  private readonly exports = new Map<string, CfnOutput>();

  constructor(stack?: Stack) {
    if (!stack) return;
    for (const c of stack.node.findAll()) {
      if (c instanceof CfnElement && Stack.of(c) === stack) this.byLogicalId.set(stack.resolve(c.logicalId), c);
    }
    for (const c of stack.node.root.node.findAll()) {
      if (c instanceof CfnOutput && c.exportName !== undefined) {
        const name = Stack.of(c).resolve(c.exportName);
        if (typeof name === 'string') this.exports.set(name, c);
      }
    }
  }

  public ref(name: string): number {
    const pseudo = PSEUDO_LENGTHS[name];
    if (pseudo !== undefined) return pseudo;
    const resource = this.byLogicalId.get(name);
    const type = (resource as { cfnResourceType?: string } | undefined)?.cfnResourceType;
    return (type ? ATTRIBUTE_LENGTHS[type]?.Ref : undefined) ?? OTHER_REF_LENGTH;
  }

  public getAtt(logicalId: string, attribute: string): number {
    const resource = this.byLogicalId.get(logicalId);
    // A nested stack's output (the parent's reference to a value of the nested stack): estimated there.
    if (attribute.startsWith('Outputs.')) return this.nestedOutput(resource, attribute.slice('Outputs.'.length));
    if (resource instanceof iam.CfnRole && attribute === 'Arn') return iamArnLength('role', resource.path, resource.roleName);
    if (resource instanceof iam.CfnUser && attribute === 'Arn') return iamArnLength('user', resource.path, resource.userName);
    const type = (resource as { cfnResourceType?: string } | undefined)?.cfnResourceType;
    return (type ? ATTRIBUTE_LENGTHS[type]?.[attribute] : undefined) ?? OTHER_ATTRIBUTE_LENGTH;
  }

  /** An output of the nested stack whose resource is `resource`, estimated in it; else the longest IAM ARN. */
  private nestedOutput(resource: CfnElement | undefined, outputId: string): number {
    const nested = resource && resource.stack.node.findAll()
      .find((c): c is Stack => Stack.isStack(c) && c.nestedStackResource === resource);
    const output = nested?.node.findAll()
      .find((c): c is CfnOutput => c instanceof CfnOutput && Stack.of(c) === nested && nested.resolve(c.logicalId) === outputId);
    return output ? new References(nested).length(nested!.resolve(output.value)) : UNKNOWN_OUTPUT_LENGTH;
  }

  /** An export of another stack of the app, estimated there; else a generous ARN. */
  public importValue(name: unknown): number {
    const output = typeof name === 'string' ? this.exports.get(name) : undefined;
    if (!output) return UNKNOWN_OUTPUT_LENGTH;
    const producer = Stack.of(output);
    return new References(producer).length(producer.resolve(output.value));
  }

  /** The longest text a resolved value can become. */
  public length(value: unknown): number {
    const flat = this.flatten(value);
    return typeof flat === 'string' ? flat.length : JSON.stringify(flat).length;
  }

  /** The value with every intrinsic replaced by placeholder text of its longest length. */
  public flatten(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((v) => this.flatten(v));
    if (!value || typeof value !== 'object') return value;
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj);
    if (keys.length === 1) {
      const [key] = keys;
      const arg = obj[key];
      if (key === 'Ref') return 'x'.repeat(this.ref(arg as string));
      if (key === 'Fn::GetAtt') {
        const [id, attribute] = Array.isArray(arg) ? arg as string[] : String(arg).split('.');
        return 'x'.repeat(this.getAtt(id, attribute));
      }
      if (key === 'Fn::ImportValue') return 'x'.repeat(this.importValue(arg));
      if (key === 'Fn::Join') {
        const [sep, parts] = arg as [string, unknown[]];
        return parts.map((p) => { const f = this.flatten(p); return typeof f === 'string' ? f : JSON.stringify(f); }).join(sep);
      }
      if (key.startsWith('Fn::')) return 'x'.repeat(OTHER_ATTRIBUTE_LENGTH);
    }
    return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, this.flatten(v)]));
  }
}

/**
 * Estimated characters of a policy document resolved in `stack` (references to its resources and
 * to other stacks' exports measured by what they can be); without a stack, every reference is taken
 * at a generous fixed length.
 */
export function estimatePolicyCharacters(resolved: unknown, stack?: Stack): number {
  return JSON.stringify(new References(stack).flatten(resolved)).length;
}
