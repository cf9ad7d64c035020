import { createHash } from 'crypto';
import { ArnFormat, AspectPriority, Aspects, Stack, Token, TokenComparison } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct, IConstruct } from 'constructs';
import { EFS_UTILS_LOG_ACTIONS, EFS_UTILS_LOG_GROUP, EFS_UTILS_METRIC_NAMESPACES } from './client-metrics';
import { isImmutablePrincipal } from '../compat';
import { kmsKeyGrant, kmsKeyWildcard } from '../kms';
import { invalid, warn } from '../messages';
import { acknowledge, findingResource } from '../nag';
import type { ScopedActions } from './s3files-actions';
import type { IS3FilesFileSystem } from '../../s3files-file-system-contract';

/** A statement a grant makes: actions on resources, with conditions. */
export type ScopedStatement = ScopedActions;

/**
 * Grants statements with iam.Grant (what `grant*()` return). When the principal's policies cannot be
 * changed (an imported or immutable role, another account's role), one warning lists every statement
 * it did not get, so the owner can attach them: a mount needs all of them, not only the client
 * actions. Records the client grant on the principal (see ClientGrants).
 */
export function grantScoped(
  scope: IConstruct, grantee: iam.IGrantable, scoped: ScopedStatement[], purpose: string, recorded: ClientGrant, readOnly?: ReadOnlyMount,
  fileSystem?: unknown,
): iam.Grant {
  const immutable = isImmutablePrincipal(grantee.grantPrincipal);
  const policy = crossAccountPolicy(grantee.grantPrincipal, fileSystem);
  const dropped: iam.PolicyStatement[] = [];
  let combined: iam.Grant | undefined;
  for (const s of scoped) {
    const grant = iam.Grant.addToPrincipal({ grantee, actions: s.actions, resourceArns: s.resources, conditions: s.conditions });
    if (!grant.success || immutable) dropped.push(new iam.PolicyStatement({ actions: s.actions, resources: s.resources, conditions: s.conditions }));
    combined = combined ? combined.combine(grant) : grant;
    // Another account's principal mounts only when the file-system policy allows it too (as
    // iam.Grant.addToPrincipalOrResource does, but with the statement's conditions: the access point).
    if (policy && s.actions.some((a) => a.startsWith('s3files:Client'))) {
      const { actions, resources, conditions } = s;
      policy.addToResourcePolicy(new iam.PolicyStatement({ principals: [grantee.grantPrincipal], actions, resources, conditions }));
    }
  }
  warnNotGranted(scope, grantee.grantPrincipal, dropped, purpose, policy);
  recordClientGrant(grantee, recorded, readOnly);
  return combined!;
}

/**
 * The file system's policy, when the file system is this app's (it takes `addToResourcePolicy`) and
 * the principal is another account's: its account (`principalAccount`, or the account an
 * `ArnPrincipal`'s ARN names) is literal and differs from the file system's, or the file system's
 * stack is environment-agnostic (as iam.Grant.addToPrincipalOrResource treats one unresolved
 * account). Not when the principal's account is a token: a role of a sibling stack in the policy
 * would make the storage stack depend on its clients' stack, a cycle.
 */
export function crossAccountPolicy(principal: iam.IPrincipal, fileSystem: unknown): iam.IResourceWithPolicy | undefined {
  const owner = fileSystem as Partial<iam.IResourceWithPolicy> | undefined;
  const account = principalAccountOf(principal);
  if (typeof owner?.addToResourcePolicy !== 'function' || !owner.env || account === undefined) return undefined;
  const comparison = Token.compareStrings(owner.env.account, account);
  return comparison === TokenComparison.DIFFERENT || comparison === TokenComparison.ONE_UNRESOLVED ? owner as iam.IResourceWithPolicy : undefined;
}

/**
 * The principal's account when it is literal: `principalAccount`, or else the one account every ARN
 * of its policy fragment names (an `ArnPrincipal` of a role, user, root or assumed-role session, and
 * wrappers such as `PrincipalWithConditions` or a `CompositePrincipal` of one account's ARNs).
 */
export function principalAccountOf(principal: iam.IPrincipal): string | undefined {
  const account = literal(principal.principalAccount);
  if (account !== undefined) return account;
  let arns: unknown[];
  try {
    arns = [principal.policyFragment.principalJson.AWS ?? []].flat();
  } catch {
    return undefined; // a fragment aws-cdk-lib refuses to render (a composite with conditions)
  }
  const accounts = new Set(arns.map((a) => (typeof a === 'string' && !Token.isUnresolved(a) ? /^arn:[^:]+:(?:iam|sts)::(\d{12}):/.exec(a)?.[1] : undefined)));
  return accounts.size === 1 ? [...accounts][0] : undefined;
}

function warnNotGranted(
  scope: IConstruct, principal: iam.IPrincipal, dropped: iam.PolicyStatement[], purpose: string, policy?: iam.IResourceWithPolicy,
): void {
  if (dropped.length === 0) return;
  const where = Construct.isConstruct(principal) ? principal.node.path : principal.toString();
  const stack = Stack.of(scope);
  const shown = dropped.map((s) => JSON.stringify(readable(stack.resolve(s.toStatementJson())))).join(' ');
  warn(scope, 'grantNotApplied',
    `${where} could not be granted what ${purpose} needs: it is an imported or immutable principal whose policies this app cannot change. `
    + `Attach ${dropped.length === 1 ? 'this statement' : `these ${dropped.length} statements`} to it yourself (<Id.Attr> stands for that resource's attribute): ${shown}`
    + (policy ? `. The client actions are also allowed to it in the file-system policy of ${policy.node.path}, which a principal of another account needs as well.` : ''));
}

/** A resolved value with CloudFormation references shown as `<LogicalId>` / `<LogicalId.Attribute>` and joins concatenated. */
export function readable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(readable);
  if (!value || typeof value !== 'object') return value;
  const v = value as Record<string, any>;
  if (typeof v.Ref === 'string') return `<${v.Ref}>`;
  if (Array.isArray(v['Fn::GetAtt'])) return `<${v['Fn::GetAtt'][0]}.${v['Fn::GetAtt'][1]}>`;
  if (Array.isArray(v['Fn::Join'])) {
    const parts = (v['Fn::Join'][1] as unknown[]).map(readable);
    return parts.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join(v['Fn::Join'][0]);
  }
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, readable(x)]));
}

/** Client actions on the file system, limited to one access point (the documented `s3files:AccessPointArn`) when given. */
export function clientStatement(fileSystemArn: string, actions: string[], accessPointArn?: string): ScopedStatement {
  return { actions, resources: [fileSystemArn], conditions: accessPointArn ? { ArnEquals: { 's3files:AccessPointArn': accessPointArn } } : undefined };
}

/**
 * The reads a service validates a mount with: `s3files:GetAccessPoint` on the access point (the
 * AgentCore developer guide: "required for S3 Files access point validation during agent runtime
 * creation"; seen for ECS too) and `s3files:ListMountTargets` on the file system (seen for ECS).
 * GetAccessPoint does not document the access-point condition key: statements of their own.
 */
export function validationReadStatements(fileSystemArn: string, accessPointArn: string): ScopedStatement[] {
  return [
    { actions: ['s3files:GetAccessPoint'], resources: [accessPointArn] },
    { actions: ['s3files:ListMountTargets'], resources: [fileSystemArn] },
  ];
}

/**
 * What amazon-efs-utils publishes by default for an S3 Files mount, with the client's credentials:
 * metrics in its two namespaces (`cloudwatch:PutMetricData` has no resource-level permissions, so
 * the `cloudwatch:namespace` condition limits it), and its log group `/aws/efs/utils` (created with
 * 14 days' retention, one stream per mount). Without them it only logs its own failures locally.
 */
export function efsUtilsTelemetryStatements(stack: Stack): ScopedStatement[] {
  const group = stack.formatArn({ service: 'logs', resource: 'log-group', resourceName: EFS_UTILS_LOG_GROUP, arnFormat: ArnFormat.COLON_RESOURCE_NAME });
  return [
    { actions: ['cloudwatch:PutMetricData'], resources: ['*'], conditions: { StringEquals: { 'cloudwatch:namespace': EFS_UTILS_METRIC_NAMESPACES } } },
    { actions: EFS_UTILS_LOG_ACTIONS, resources: [group, `${group}:*`] },
  ];
}

/** What the direct-read statements need to know of the file system. */
export interface DirectReadBucket {
  readonly bucket: s3.IBucket;
  /** The file system's key prefix ('' for the whole bucket). */
  readonly prefix: string;
  /** The bucket's key when known: one in another account gets a statement of its own. */
  readonly bucketEncryptionKey?: kms.IKey;
}

/**
 * Reads straight from the bucket (Lambda's direct reads; the mount helper's read bypass on EC2, ECS
 * and Batch): `s3:GetObject`/`s3:GetObjectVersion` on the file system's objects, as the S3 user guide's
 * compute-role policy does ("your S3 bucket name or bucket name with prefix"; amazon-efs-utils probes
 * `<prefix>/` before it reads, so nothing narrower than the file system's prefix); with `listBucket`,
 * `s3:ListBucket` as in that policy; and `kms:Decrypt` through S3 for objects of this bucket under any
 * key of the account (the service role's documented KMS statement, read only), plus the given key
 * when it is another account's. Without them reads silently go through the mount.
 */
export function directReadStatements(stack: Stack, target: DirectReadBucket, options: { readonly listBucket: boolean }): ScopedStatement[] {
  const statements: ScopedStatement[] = [{ actions: ['s3:GetObject', 's3:GetObjectVersion'], resources: [target.bucket.arnForObjects(`${target.prefix}*`)] }];
  if (options.listBucket) statements.push({ actions: ['s3:ListBucket'], resources: [target.bucket.bucketArn] });
  statements.push(...bucketKeyStatements(stack, target.bucket, ['kms:Decrypt'], target.bucketEncryptionKey));
  return statements;
}

/**
 * KMS use through S3 for the objects of one bucket, as the S3 user guide's file-system role policy
 * states it (Sid UseKmsKeyWithS3Files: any key of the account and region, `kms:ViaService` =
 * S3 of the region, `kms:EncryptionContext:aws:s3:arn` = the bucket or its objects), on `key/*`
 * (the guide's `<account>:*` also names aliases, which authorize nothing); and the given key when it
 * is known to be another account's, which that statement does not reach.
 */
export function bucketKeyStatements(stack: Stack, bucket: s3.IBucket, actions: string[], key: kms.IKey | undefined): ScopedStatement[] {
  const viaS3 = { 'kms:ViaService': `s3.${stack.region}.${stack.urlSuffix}` };
  const statements: ScopedStatement[] = [{
    actions,
    resources: [kmsKeyWildcard(stack)],
    conditions: { StringLike: { ...viaS3, 'kms:EncryptionContext:aws:s3:arn': [bucket.bucketArn, bucket.arnForObjects('*')] } },
  }];
  if (key && isForeignKey(stack, key)) statements.push({ actions, ...kmsKeyGrant(key, { StringEquals: viaS3 }) });
  return statements;
}

/** A key whose literal ARN names another account than the stack's (or any account, when the stack's is unknown). */
function isForeignKey(stack: Stack, key: kms.IKey): boolean {
  const arn = key.keyArn;
  if (Token.isUnresolved(arn)) return false;
  const account = arn.split(':')[4];
  return !!account && (Token.isUnresolved(stack.account) || account !== stack.account);
}

/** Records, on the principal's construct, why its direct-read and KMS wildcards are what they are. */
export function acknowledgeClientFindings(scope: IConstruct, grantee: iam.IGrantable, statements: ScopedStatement[]): void {
  const owner = Construct.isConstruct(grantee.grantPrincipal) ? grantee.grantPrincipal : scope;
  const stack = Stack.of(scope);
  const reasons: Array<[RegExp, string]> = [
    [/^s3:GetObject/, 'Direct S3 reads fetch any file of the file system, i.e. every object under its key prefix (as the S3 user guide\'s compute-role policy grants); read-only.'],
    [/^kms:Decrypt$/, 'Decrypt only through S3 (kms:ViaService) and only for objects of this bucket (kms:EncryptionContext:aws:s3:arn), under whichever key of the account '
      + 'encrypts them: the S3 user guide\'s statement for S3 Files, read-only.'],
    [/^logs:/, 'amazon-efs-utils writes its mount log to its own log group /aws/efs/utils, one stream per mount (the :* covers the streams).'],
    [/^cloudwatch:PutMetricData$/, 'cloudwatch:PutMetricData has no resource-level permissions; the cloudwatch:namespace condition limits it to amazon-efs-utils\' two '
      + 'namespaces.'],
  ];
  for (const statement of statements) {
    const reason = reasons.find(([re]) => statement.actions.some((a) => re.test(a)))?.[1];
    if (!reason) continue;
    for (const resource of statement.resources) {
      if (resource === '*') acknowledge(owner, 'AwsSolutions-IAM5[Resource::*]', reason);
      else if (/\*/.test(JSON.stringify(stack.resolve(resource)))) acknowledge(owner, `AwsSolutions-IAM5[${findingResource(owner, resource)}]`, reason);
    }
  }
  if (statements.some((s) => (s.conditions?.['ForAnyValue:StringEquals'] as Record<string, unknown> | undefined)?.['kms:ResourceAliases'])) {
    acknowledge(owner, `AwsSolutions-IAM5[${findingResource(owner, kmsKeyWildcard(stack))}]`,
      'The encryption key was given as an alias: the statement covers only the key that carries this alias (kms:ResourceAliases condition).');
  }
}


/** A client-action grant the library made: on a file system, through one access point or any. */
export interface ClientGrant {
  readonly fileSystemArn: string;
  readonly accessPointArn?: string;
  readonly write: boolean;
}

/** A mount asked to be read-only: where to warn, and whether the mount itself refuses writes. */
export interface ReadOnlyMount {
  readonly scope: IConstruct;
  readonly what: string;
  readonly readOnlyFlag: boolean;
  /** The way out, when it is not a role of the client's own. */
  readonly fix?: string;
  /**
   * The role serves other mounts the library cannot tell apart (the EFS CSI driver's node role):
   * it is denied s3files:ClientWrite through this access point unless a grant of the role writes
   * through this very access point, in which case `shared` says what that means.
   */
  readonly holds?: { readonly shared: string };
}

/**
 * The client grants the library made to one principal, held in a child of the principal found by
 * id (no module state: two copies of the library may be loaded). A read-only mount whose role is
 * also granted ClientWrite on the same file system through the same access point (or any) is not
 * read-only where the mount has no read-only flag (Lambda, AgentCore): the role decides. A mount
 * that `holds` gets a Deny instead, added once the app is complete (an aspect), unless the role
 * writes through that very access point.
 */
class ClientGrants extends Construct {
  public static readonly ID = 'cdk-s3files-lambda.ClientGrants';

  /**
   * The record of a principal: a role known by its literal ARN (imported, maybe once per stack) is
   * one role however often it is imported, so its record sits at the app's root, keyed by the ARN.
   */
  public static of(principal: IConstruct): ClientGrants {
    const arn = (principal as Partial<iam.IRole>).roleArn;
    const known = typeof arn === 'string' ? literal(arn) : undefined;
    const owner = known ? principal.node.root : principal;
    const id = known ? `${ClientGrants.ID}.${createHash('sha256').update(known).digest('hex').slice(0, 16)}` : ClientGrants.ID;
    const existing = owner.node.tryFindChild(id) as ClientGrants | undefined;
    return existing?.record ? existing : new ClientGrants(owner as Construct, id, known ?? principal.node.path);
  }

  private readonly grants: ClientGrant[] = [];
  private readonly readOnlyMounts: Array<ClientGrant & ReadOnlyMount> = [];
  private readonly warned = new Set<IConstruct>();
  /** The principal that gets the Denies of `holds` mounts; undefined until one is recorded, or when its policies cannot change. */
  private denier?: iam.IPrincipal;

  private constructor(scope: Construct, id: string, private readonly role: string) {
    super(scope, id);
  }

  public record(grant: ClientGrant, principal: iam.IPrincipal, readOnly?: ReadOnlyMount): void {
    this.grants.push(grant);
    if (readOnly) this.readOnlyMounts.push({ ...grant, ...readOnly });
    if (readOnly?.holds && !this.denier && !isImmutablePrincipal(principal)) {
      this.denier = principal;
      Aspects.of(this).add({ visit: (node) => { if (node === this) this.addDenies(); } }, { priority: AspectPriority.MUTATING });
    }
    for (const mount of this.readOnlyMounts) {
      if (this.warned.has(mount.scope)) continue;
      // A Deny will hold a mount against the role's wider grants, not against one through its own access point.
      const denied = mount.holds !== undefined && this.denier !== undefined;
      const writer = this.grants.find((g) => g.write && g.fileSystemArn === mount.fileSystemArn
        && (g.accessPointArn === mount.accessPointArn || (g.accessPointArn === undefined && !denied)));
      if (!writer) continue;
      this.warned.add(mount.scope);
      const role = this.role;
      const where = writer.accessPointArn ? 'through the same access point' : 'through every access point (a grant on the file system)';
      warn(mount.scope, 'readOnlySharedRole',
        `\`readOnly\` is set, but the role ${role} is also granted s3files:ClientWrite on this file system ${where}, by another mount or grant. `
        + (mount.holds ? `${mount.holds.shared} `
          : mount.readOnlyFlag
            ? `${capitalized(mount.what)} mounts read-only, but anything else running with that role can mount read-write. `
            : `${capitalized(mount.what)} mounts read-write whenever its role may write (S3 Files decides by s3files:ClientWrite; the mount has no read-only flag), so it can `
              + 'write. ')
        + (mount.fix ?? 'Give the read-only client a role of its own.'));
    }
  }

  /** Denies ClientWrite through the access point of each `holds` mount the role does not write through otherwise. */
  private addDenies(): void {
    const stack = Stack.of(this.denier as unknown as IConstruct);
    const done = new Set<string>();
    for (const m of this.readOnlyMounts) {
      if (!m.holds || !m.accessPointArn) continue;
      if (this.grants.some((g) => g.write && g.fileSystemArn === m.fileSystemArn && g.accessPointArn === m.accessPointArn)) continue;
      const key = JSON.stringify(stack.resolve([m.fileSystemArn, m.accessPointArn]));
      if (done.has(key)) continue;
      done.add(key);
      this.denier!.addToPrincipalPolicy(new iam.PolicyStatement({
        effect: iam.Effect.DENY,
        actions: ['s3files:ClientWrite'],
        resources: [m.fileSystemArn],
        conditions: { ArnEquals: { 's3files:AccessPointArn': m.accessPointArn } },
      }));
    }
  }
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Records a client grant on the principal (when it is a construct), warning where it undoes a read-only mount. */
export function recordClientGrant(grantee: iam.IGrantable, grant: ClientGrant, readOnly?: ReadOnlyMount): void {
  const principal = grantee.grantPrincipal;
  if (Construct.isConstruct(principal)) ClientGrants.of(principal).record(grant, principal, readOnly);
}

/** A literal string, or undefined for a token or nothing. */
export function literal(value: string | undefined): string | undefined {
  return value === undefined || Token.isUnresolved(value) ? undefined : value;
}

/**
 * A file system of another account (its ARN or its stack says so): Lambda and AgentCore refuse it;
 * another client mounts only once the owner's file-system policy allows its role, which this app
 * cannot write (the S3 Files cross-account tutorial: "The mount fails without it"), so the warning
 * gives the statement. An environment-agnostic client stack cannot be compared: a warning says so.
 */
export function checkClientAccount(
  scope: IConstruct, what: string, grantee: iam.IGrantable, fs: IS3FilesFileSystem, actions: string[],
  accessPointArn?: string, sameAccountOnly?: string,
): void {
  const owner = literal(fs.env?.account);
  const stack = Stack.of(scope);
  if (owner === undefined) return;
  if (Token.isUnresolved(stack.account)) {
    warn(scope, 'fileSystemAccountUnchecked',
      `${fs.node.path} is in account ${owner} (its ARN), and ${stack.node.path} is environment-agnostic, so the library cannot check that ${what} is deployed in that account. `
      + (sameAccountOnly
        ? `${sameAccountOnly}. Give the stack an \`env\` with \`account\` '${owner}'.`
        : 'From another account it mounts only once the owner\'s file-system policy allows its role (README, "Who can mount"). Give the stack an `env` with `account` '
          + `'${owner}'.`));
    return;
  }
  if (stack.account === owner) return;
  if (sameAccountOnly) {
    invalid(scope, 'fileSystem', fs.node.path, `it is in account ${owner} (its ARN) and ${what} in ${stack.account}: ${sameAccountOnly}`,
      `mount a file system of account ${stack.account}, or deploy ${what} in account ${owner}`);
  }
  // The file-system policy's documented use is the NFS client actions (S3 Files user guide, "How S3
  // Files works with IAM"): an owner's statement for an API action with the client condition key
  // would not match, so those actions are named instead, without a statement.
  const client = actions.filter((a) => /^s3files:client/i.test(a));
  const api = actions.filter((a) => !/^s3files:client/i.test(a));
  // The file system is this app's and the grant put the owner's Allow in its policy: nothing for the owner to add.
  const ownerSideAdded = crossAccountPolicy(grantee.grantPrincipal, fs) !== undefined;
  const apiNote = api.length === 0 ? '' : `${api.join(', ')} ${api.length > 1 ? 'are API actions' : 'is an API action'} on resources of account ${owner}, `
    + 'and the file-system policy is documented for the client actions only (S3 Files user guide, "How S3 Files works with IAM"), so no statement of the owner\'s '
    + 'is given for them: until such access is documented, a role of that account makes those calls. ';
  if (ownerSideAdded && api.length === 0) return;
  if (client.length === 0 || ownerSideAdded) {
    warn(scope, 'crossAccountFileSystem', `${fs.node.path} is in account ${owner} (its ARN) and ${what} in ${stack.account}: ${apiNote.trim()}`);
    return;
  }
  const principal = grantee.grantPrincipal as Partial<iam.IRole>;
  const statement = new iam.PolicyStatement({
    principals: [principal.roleArn ? new iam.ArnPrincipal(principal.roleArn) : grantee.grantPrincipal],
    actions: client,
    resources: [fs.fileSystemArn],
    conditions: accessPointArn ? { StringEquals: { 's3files:AccessPointArn': accessPointArn } } : undefined,
  });
  warn(scope, 'crossAccountFileSystem',
    `${fs.node.path} is in account ${owner} (its ARN) and ${what} in ${stack.account}: mounting fails unless the owner's file-system policy allows this role `
    + '(S3 Files evaluates it on every mount; this app grants only the identity side). The owner adds this statement to the file system\'s policy '
    + `(<Id.Attr> stands for that resource's attribute): ${JSON.stringify(readable(stack.resolve(statement.toStatementJson())))}. ${apiNote}`
    + 'Direct reads of the bucket also need the owner\'s bucket policy to allow the role.');
}
