import { Construct, IConstruct } from 'constructs';
import { jsiiTypeName } from './compat';
import { invalid, Shown } from './messages';

// Python, Java and Go pass whatever object they are given where an aws-cdk-lib type is expected
// (as JavaScript and `as any` do), and a wrong one fails later as a raw TypeError or, worse, as a
// template that does not deploy. Each public entry checks every such argument against this table,
// by what the library reads of it, never with instanceof: a second copy of aws-cdk-lib and a user's
// own implementation of an interface pass. A check is a few property reads, once per call.

/** The type of a member the library reads. */
type Member = 'string' | 'number' | 'boolean' | 'function' | 'object';

/** What the library takes of one aws-cdk-lib type, and how a message names it. */
interface Shape {
  /** What it is, in a message: "a security group". */
  readonly is: string;
  /** The fix: what to pass. */
  readonly fix: string;
  /** Members the library reads, by path (`grantPrincipal.addToPrincipalPolicy`), and their types. */
  readonly reads?: Readonly<Record<string, Member>>;
  /** The L1 type of its default child, for a class whose L1 the library changes (an imported one has none). */
  readonly l1?: string;
  /** Its jsii class name, for a class with no public member to read. */
  readonly jsii?: string;
}

/** Interfaces first, in the order a message names what an object fits (the principal after them: most things are one), then classes by their L1. */
const SHAPES = {
  vpc: {
    is: 'a VPC',
    reads: { vpcId: 'string', selectSubnets: 'function' },
    fix: 'pass an `ec2.IVpc`: `new ec2.Vpc()`, `ec2.Vpc.fromLookup()` or `ec2.Vpc.fromVpcAttributes()`',
  },
  securityGroup: {
    is: 'a security group',
    reads: { securityGroupId: 'string', allowAllOutbound: 'boolean' },
    fix: 'pass an `ec2.ISecurityGroup`: `new ec2.SecurityGroup()` or `ec2.SecurityGroup.fromSecurityGroupId()`',
  },
  bucket: {
    is: 'an S3 bucket',
    reads: { bucketArn: 'string', bucketName: 'string', arnForObjects: 'function' },
    fix: 'pass an `s3.IBucket`: `new s3.Bucket()`, `s3.Bucket.fromBucketName()` or `s3.Bucket.fromBucketAttributes()`',
  },
  key: {
    is: 'a KMS key',
    reads: { keyArn: 'string', keyId: 'string' },
    fix: 'pass a `kms.IKey`: `new kms.Key()`, `kms.Key.fromKeyArn()` or `kms.Alias.fromAliasName()`',
  },
  topic: { is: 'an SNS topic', reads: { topicArn: 'string' }, fix: 'pass an `sns.ITopic`: `new sns.Topic()` or `sns.Topic.fromTopicArn()`' },
  role: {
    is: 'an IAM role',
    reads: { 'roleArn': 'string', 'grantPrincipal.addToPrincipalPolicy': 'function' },
    fix: 'pass an `iam.IRole`: `new iam.Role()` or `iam.Role.fromRoleArn()`',
  },
  function: {
    is: 'a Lambda function',
    reads: { functionArn: 'string', metricErrors: 'function', metricDuration: 'function' },
    fix: 'pass a `lambda.IFunction`: a function of the app or `lambda.Function.fromFunctionArn()`',
  },
  container: {
    is: 'an ECS container definition',
    reads: { taskDefinition: 'object', addMountPoints: 'function', addDockerLabel: 'function' },
    fix: 'pass containers of the task definition (what `taskDefinition.addContainer()` returns)',
  },
  statement: { is: 'an IAM policy statement', reads: { toStatementJson: 'function' }, fix: 'pass an `iam.PolicyStatement`' },
  directS3Read: {
    is: 'a `lambda.DirectS3Read`',
    jsii: 'aws-cdk-lib.aws_lambda.DirectS3Read',
    fix: 'pass `lambda.DirectS3Read.enabled()` (with the bucket), `lambda.DirectS3Read.enabledWithoutGrant()`, `lambda.DirectS3Read.auto()` or '
      + '`lambda.DirectS3Read.disabled()`',
  },
  grantee: {
    is: 'a principal',
    reads: { 'grantPrincipal.addToPrincipalPolicy': 'function' },
    fix: 'pass an `iam.IGrantable`: a role (`iam.Role.fromRoleArn()` for one made elsewhere), a user, a function, an instance, or a principal such as '
      + '`iam.AccountPrincipal`',
  },
  // Classes whose L1 the library changes: one of this app.
  lambdaFunction: {
    is: 'a Lambda function defined in this app',
    l1: 'AWS::Lambda::Function',
    reads: { addEnvironment: 'function', isBoundToVpc: 'boolean' },
    fix: 'pass a `lambda.Function` (or `NodejsFunction`, `PythonFunction`, `DockerImageFunction`) defined in this app: an imported function cannot be changed',
  },
  taskDefinition: {
    is: 'an ECS task definition defined in this app',
    l1: 'AWS::ECS::TaskDefinition',
    reads: { addVolume: 'function', isFargateCompatible: 'boolean', taskRole: 'object' },
    fix: 'pass an `ecs.FargateTaskDefinition` (or an `ecs.TaskDefinition` compatible with FARGATE or MANAGED_INSTANCES) defined in this app',
  },
  service: {
    is: 'an ECS service defined in this app',
    l1: 'AWS::ECS::Service',
    reads: { taskDefinition: 'object', connections: 'object' },
    fix: 'pass an `ecs.FargateService` (or another awsvpc `ecs.BaseService`) defined in this app',
  },
  jobDefinition: {
    is: 'a Batch job definition defined in this app',
    l1: 'AWS::Batch::JobDefinition',
    reads: { container: 'object' },
    fix: 'pass a `batch.EcsJobDefinition` defined in this app',
  },
  computeEnvironment: {
    is: 'a Batch compute environment defined in this app',
    l1: 'AWS::Batch::ComputeEnvironment',
    reads: { connections: 'object' },
    fix: 'pass a `batch.FargateComputeEnvironment` defined in this app',
  },
  instance: {
    is: 'an EC2 instance defined in this app',
    l1: 'AWS::EC2::Instance',
    reads: { userData: 'object', addSecurityGroup: 'function', osType: 'number' },
    fix: 'pass an `ec2.Instance` defined in this app',
  },
  autoScalingGroup: {
    is: 'an Auto Scaling group defined in this app',
    l1: 'AWS::AutoScaling::AutoScalingGroup',
    reads: { addSecurityGroup: 'function', osType: 'number' },
    fix: 'pass an `autoscaling.AutoScalingGroup` defined in this app',
  },
  launchTemplate: {
    is: 'a launch template defined in this app',
    l1: 'AWS::EC2::LaunchTemplate',
    reads: { addSecurityGroup: 'function' },
    fix: 'pass an `ec2.LaunchTemplate` defined in this app',
  },
  runtime: {
    is: 'a Bedrock AgentCore runtime defined in this app',
    l1: 'AWS::BedrockAgentCore::Runtime',
    reads: { connections: 'object', grantPrincipal: 'object' },
    fix: 'pass an `agentcore.Runtime` defined in this app',
  },
} satisfies Record<string, Shape>;

/** A type of the table. */
export type ShapeName = keyof typeof SHAPES;

/** The type of the member at `path`; 'throws' for a getter that throws (aws-cdk-lib's "not known here"), which counts as present. */
function memberType(x: object, path: string): string {
  try {
    let v: unknown = x;
    for (const key of path.split('.')) {
      if (v === null || (typeof v !== 'object' && typeof v !== 'function')) return 'undefined';
      v = (v as Record<string, unknown>)[key];
    }
    return v === null ? 'null' : typeof v;
  } catch {
    return 'throws';
  }
}

/** The L1 type of a construct's default child; undefined for no construct, or one without (an imported resource). */
function defaultChildType(x: object): string | undefined {
  if (!Construct.isConstruct(x)) return undefined;
  try {
    const type = (x.node.defaultChild as { cfnResourceType?: unknown } | undefined)?.cfnResourceType;
    return typeof type === 'string' ? type : undefined;
  } catch {
    return undefined; // both a 'Resource' and a 'Default' child
  }
}

function fits(x: unknown, shape: Shape): boolean {
  if (x === null || typeof x !== 'object') return false;
  if (shape.jsii !== undefined && jsiiTypeName(x) !== shape.jsii) return false;
  if (shape.l1 !== undefined && defaultChildType(x) !== shape.l1) return false;
  return Object.entries(shape.reads ?? {}).every(([path, type]) => [type, 'throws'].includes(memberType(x, path)));
}

/** What `x` is, for a message: its L1 type, the table's name for it (but `not`), or its JavaScript type. */
export function whatItIs(x: unknown, not?: ShapeName): string {
  if (x === undefined || x === null) return String(x);
  if (Array.isArray(x)) return 'a list';
  if (typeof x !== 'object') return `a ${typeof x}`;
  const own = (x as { cfnResourceType?: unknown }).cfnResourceType;
  if (typeof own === 'string') return `the L1 resource ${own}`;
  const l1 = defaultChildType(x);
  if (l1 !== undefined) return `an ${l1}`;
  const known = (Object.keys(SHAPES) as ShapeName[]).find((name) => name !== not && fits(x, SHAPES[name]));
  if (known) return SHAPES[known].is;
  const jsii = jsiiTypeName(x);
  if (jsii) return `an object of class ${jsii}`;
  const cls = (x.constructor as { name?: string } | undefined)?.name;
  if (Construct.isConstruct(x)) return `a construct with no L1 of its own (class ${cls})`;
  if (Object.getPrototypeOf(x) === Object.prototype) return Object.keys(x).length > 0 ? `an object with keys ${Object.keys(x).join(', ')}` : 'an empty object';
  return `an object of class ${cls}`;
}

/** A value as a message shows it: a construct by its path, a primitive as it is, anything else by its type. */
export function shown(x: unknown): unknown {
  if (Construct.isConstruct(x)) return x.node.path;
  if (x === undefined || x === null || ['string', 'number', 'boolean'].includes(typeof x)) return x;
  return new Shown(`(${Array.isArray(x) ? 'a list' : typeof x})`);
}

/**
 * `value` when it has the shape `name`, else an error on `prop` of `at` (a construct, or the
 * method's name) that says what it is instead; undefined passes unless `required`.
 */
export function checkShape<T>(name: ShapeName, value: T, at: IConstruct | string, prop: string, required = false): T {
  if (value === undefined && !required) return value;
  const shape: Shape = SHAPES[name];
  if (!fits(value, shape)) invalid(at, prop, shown(value), `it is ${whatItIs(value, name)}, not ${shape.is}`, shape.fix);
  return value;
}

/** `values` when each has the shape `name` (`prop[i]` names the one that has not); undefined passes. */
export function checkShapes<T>(name: ShapeName, values: readonly T[] | undefined, at: IConstruct | string, prop: string): readonly T[] | undefined {
  if (values === undefined) return values;
  if (!Array.isArray(values)) invalid(at, prop, shown(values), `it is ${whatItIs(values)}, not a list`, `${SHAPES[name].fix}, in a list`);
  values.forEach((value, i) => checkShape(name, value, at, `${prop}[${i}]`, true));
  return values;
}

/** The shape of each prop to check: a name of the table, or `[name]` for a list. */
type PropShapes<P> = { readonly [K in keyof P]?: ShapeName | readonly [ShapeName] };

/** Each prop of `props` the table names, checked by its shape (`[name]`: a list of them); undefined passes. */
export function checkProps<P extends object>(at: IConstruct | string, props: P, table: PropShapes<P>): void {
  for (const [prop, name] of Object.entries(table) as Array<[keyof P & string, ShapeName | readonly [ShapeName]]>) {
    if (typeof name === 'string') checkShape(name, props[prop], at, prop);
    else checkShapes(name[0], props[prop] as unknown as unknown[] | undefined, at, prop);
  }
}
