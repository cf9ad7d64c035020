import { Annotations, Duration } from 'aws-cdk-lib';
import { IConstruct } from 'constructs';

/**
 * Every message the library gives goes through here: errors through `invalid()`, warnings through
 * `warn()` with an id from `WARNINGS`. A name written in backticks (`vpcSubnets`,
 * `fileSystemOptions.vpcSubnets`, `S3FilesFileSystem.fromFileSystemAttributes()`) is followed by its
 * spelling in each binding where that differs from TypeScript's, so a Python, Java or Go user reads
 * the name they write.
 */

/** Every warning id (acknowledge with `Annotations.of(scope).acknowledgeWarning('cdk-s3files-lambda:<id>')`), and when it appears. The README's table is generated from this. */
export const WARNINGS = {
  accessPointFileSystemUnchecked: 'An access point imported by ARN on a file system whose id is only known at deploy time: the library cannot check they belong together.',
  accessPointInAnotherStack: 'An access point is mounted from another top-level stack than its own: its ARN is an export, which CloudFormation refuses to change or remove while '
    + 'in use.',
  asgNoUpdatePolicy: 'An Auto Scaling group without an update policy mounts: a changed mount reaches only new instances.',
  autoDirectReadLowMemory: 'An explicit `lambda.DirectS3Read.auto()` on a function below 512 MB: Lambda turns direct reads on only from 512 MB.',
  azCoverageUnknown: 'A client\'s subnets (and so its AZs) are only known at deploy time: the mount-target-per-AZ check cannot run.',
  bucketKeptForRetainedFileSystem: 'The bucket a `DESTROY` file system created is kept, because a `RETAIN` file system of the app uses it too.',
  bucketNameUnresolved: 'The bucket\'s name is only known at deploy time: a new value would replace the file system and rewrite the service role the old one keeps.',
  bucketWithoutEventBridge: 'A bucket of the app without `eventBridgeEnabled`: a notification added to it turns off the EventBridge delivery S3 Files needs for S3-side '
    + 'changes.',
  clientVpcUnchecked: 'A client\'s subnets are in a VPC the library cannot compare with the mount targets\' VPC.',
  crossAccountBucket: 'The bucket belongs to another account: its bucket policy must allow the service role.',
  crossAccountFileSystem: 'A client mounts a file system of another account: the warning gives the statement the owner\'s file-system policy needs.',
  ecsTaskLaunchedElsewhere: 'Something other than a service given to `EcsMount.onService()` (a rule, a schedule, a state machine) launches a task definition the library mounted: '
    + 'its tasks need a way to the mount targets.',
  eksNodesUnseen: 'A cluster mounts S3 Files whose nodes the library cannot see (imported, EKS Auto Mode, Karpenter, a launch template from outside the app): it lets in '
    + 'the cluster security group and `nodeSecurityGroups`, and cannot check the nodes\' AZs.',
  ecsEc2LaunchType: 'A task definition compatible with the EC2 launch type mounts S3 Files, which works only on Fargate and ECS Managed Instances.',
  fileSystemAccountUnchecked: 'A file system whose ARN names an account, used from an environment-agnostic stack: the library cannot check the accounts match.',
  fileSystemRegionUnchecked: 'A file system whose ARN names a region, used from an environment-agnostic stack: the library cannot check the regions match.',
  grantNotApplied: 'A principal whose policies this app cannot change (an imported or immutable role) was not granted what a mount or grant needs; the warning lists the '
    + 'statements to attach.',
  posixUserRoot: 'An access point whose POSIX user is uid 0: every client of it acts as root.',
  readOnlySharedRole: 'A read-only mount whose role another mount or grant lets write through the same access point (on EKS, a read-write volume of that access point).',
  readOnlyWithRootAccess: '`readOnly` and `rootAccess` together: root access without write only widens what can be read.',
  unresolvedToken: 'A prop given as a token where the library validates a literal: a bad value fails the deployment instead.',
} as const;

/** A warning id of the catalogue. */
export type WarningId = keyof typeof WARNINGS;

/** Adds a warning of the catalogue to `scope`, its backticked names spelled for each binding. */
export function warn(scope: IConstruct, id: WarningId, text: string): void {
  Annotations.of(scope).addWarningV2(`cdk-s3files-lambda:${id}`, spelled(text));
}

/**
 * Throws an error that names the construct, the prop, the offending value and the fix. Every
 * synth-time check in the library goes through here, so messages look alike.
 */
export function invalid(scope: IConstruct | string, prop: string, value: unknown, problem: string, fix: string): never {
  const path = typeof scope === 'string' ? scope : scope.node.path;
  throw new Error(spelled(`${path}: invalid ${prop} ${describe(value)}: ${problem}. Fix: ${fix}.`, [prop]));
}

/**
 * A token where a literal is expected can only be checked by CloudFormation at deploy time:
 * accept it, but say so.
 */
export function warnUnresolved(scope: IConstruct, prop: string): void {
  warn(scope, 'unresolvedToken',
    `\`${prop}\` is an unresolved token, so it is not validated at synth time; a bad value fails the deployment instead. Use a literal where you can.`);
}

/**
 * Builds a construct from a nested options prop (`s3FileSystemOptions`, `accessPointOptions`) and,
 * when it refuses a value, names the prop as the user wrote it (`accessPointOptions.posixUser.uid`).
 * Props in `topLevel` came from the outer props, not the options, and keep their names.
 */
export function asNestedProp<T>(prefix: string, build: () => T, topLevel: string[] = [], nested: readonly string[] = []): T {
  try {
    return build();
  } catch (e) {
    if (!(e instanceof Error)) throw e;
    const named = / invalid ([A-Za-z0-9.[\]]+) /.exec(e.message);
    const props = named && !topLevel.includes(named[1]) ? [`${prefix}.${named[1]}`] : [];
    // The fix may name another option of the nested props (`vpcSubnets`): name it as the user writes it.
    const renamed = nested.filter((n) => e.message.includes(`\`${n}\``));
    if (props.length > 0 || renamed.length > 0) {
      let text = e.message.replace(/ \(Python: .*\.\)$/, '');
      if (named && props.length > 0) text = text.replace(named[0], ` invalid ${props[0]} `);
      for (const n of renamed) text = text.split(`\`${n}\``).join(`\`${prefix}.${n}\``);
      e.message = spelled(text, props);
    }
    throw e;
  }
}

/** A value an error message shows as written (a description, not a quoted string). */
export class Shown {
  constructor(public readonly text: string) {}
}

/** Shows which keys of an options object were set, e.g. `{ path, posixUser }`. */
export function setKeys(options: object): Shown {
  const keys = Object.entries(options).filter(([, v]) => v !== undefined).map(([k]) => k);
  return new Shown(`{ ${keys.join(', ')} }`);
}

/** Renders a value for an error message without dumping whole constructs. */
export function describe(value: unknown): string {
  if (value instanceof Shown) return value.text;
  if (typeof value === 'string') return JSON.stringify(value);
  if (value instanceof Duration) return value.toHumanString();
  if (Array.isArray(value)) return `[${value.map(describe).join(', ')}]`;
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) return JSON.stringify(value);
  return String(value);
}

/** A backticked name: a prop path (`a.b`, `a[1].b`) or a call (`Class.method()`, `object.method()`). */
const NAME = /`([A-Za-z][A-Za-z0-9]*(?:\[\d+\])?(?:\.[A-Za-z][A-Za-z0-9]*(?:\[\d+\])?)*)(\(\))?`/g;

// Constants (`RemovalPolicy.RETAIN`) read the same in every language.
const snake = (s: string) => (/^[A-Z0-9_]+$/.test(s) ? s : s.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase());
const pascal = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** aws-cdk-lib module prefixes a message may name (`lambda.FileSystem`), and their Go packages. */
const MODULES: Record<string, string> = {
  agentcore: 'awsbedrockagentcore',
  autoscaling: 'awsautoscaling',
  batch: 'awsbatch',
  ec2: 'awsec2',
  ecs: 'awsecs',
  iam: 'awsiam',
  kms: 'awskms',
  lambda: 'awslambda',
  s3: 'awss3',
  sns: 'awssns',
};

/** One name as each binding writes it. */
export function spellings(name: string, call: boolean): { python: string; java: string; go: string } {
  const indexed = name.split('.');
  const module = indexed.length > 1 && MODULES[indexed[0]] !== undefined && /^[A-Z]/.test(indexed[1]) ? indexed[0] : undefined;
  const rest = module ? indexed.slice(1) : indexed;
  const isClass = /^[A-Z]/.test(rest[0]);
  if (isClass || call) {
    // A type (and its static member), or a member of an object: types keep their names everywhere.
    const [first, ...members] = rest;
    const suffix = call ? '()' : '';
    const pyModule = module ? `${module === 'lambda' ? 'lambda_' : module}.` : '';
    // Between an object and the member called, each property is a getter: Java's getX(), Go's X().
    const getters = isClass ? [] : members.slice(0, -1);
    const called = isClass ? members : members.slice(-1);
    return {
      python: pyModule + [isClass ? first : snake(first), ...members.map(snake)].join('.') + suffix,
      java: [first, ...getters.map((g) => `get${pascal(g)}()`), ...called].join('.') + suffix,
      go: (module ? `${MODULES[module]}.` : '') + (isClass
        ? [first, members.map(pascal).join('_')].filter((p) => p !== '').join('_')
        : [members.length ? first : pascal(first), ...getters.map((g) => `${pascal(g)}()`), ...called.map(pascal)].join('.')) + suffix,
    };
  }
  const parts = indexed.map((p) => p.replace(/\[\d+\]$/, ''));
  return {
    python: indexed.map(snake).join('.'),
    // Java builders: each level is a builder method (a list has no index syntax there)
    java: parts.map((p) => `${p}(…)`).join(' › '),
    go: indexed.map(pascal).join('.'),
  };
}

/**
 * The text with, after its last sentence, how each binding spells `props` and the backticked names
 * that Python writes differently: "(Python: vpc_subnets; Java: vpcSubnets(…); Go: VpcSubnets.)".
 */
export function spelled(text: string, props: string[] = []): string {
  const seen = new Map<string, { python: string; java: string; go: string }>();
  const names = [...props.map((p) => [p, p, undefined] as const), ...[...text.matchAll(NAME)].map((m) => [m[0], m[1], m[2]] as const)];
  for (const m of names) {
    const key = `${m[1]}${m[2] ?? ''}`;
    if (seen.has(key)) continue;
    const s = spellings(m[1], m[2] !== undefined);
    // A name of one lower-case word reads the same everywhere (Go capitalises every exported name).
    const ts = `${m[1]}${m[2] ?? ''}`;
    if (s.python !== ts) seen.set(key, s);
  }
  if (seen.size === 0) return text;
  const all = [...seen.values()];
  return `${text} (Python: ${all.map((s) => s.python).join(', ')}; Java: ${all.map((s) => s.java).join(', ')}; Go: ${all.map((s) => s.go).join(', ')}.)`;
}
