import { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { IConstruct } from 'constructs';
import { estimatePolicyCharacters } from './policy-size';
import { CLIENT_ROOT_ACTIONS } from '../mount/client-actions';

/** Largest file system policy S3 Files accepts, in characters. */
const MAX_FILE_SYSTEM_POLICY_CHARS = 20000;

/**
 * The file system policy: client mounts over TLS only; client mounts only through an access point
 * (unless `allowMountsWithoutAccessPoint`); then the statements added with `addToResourcePolicy`.
 */
export function renderResourcePolicy(
  fileSystemArn: string, allowMountsWithoutAccessPoint: boolean, statements: iam.PolicyStatement[],
): iam.PolicyDocument {
  const doc = new iam.PolicyDocument();
  doc.addStatements(
    // Assumed from EFS, not listed by the S3 Files guide: its file-system policies document the client
    // actions and s3files:AccessPointArn; aws:SecureTransport is a global key EFS enforces for clients.
    // Harmless either way (S3 Files mounts always use TLS), so limited to the documented client actions.
    new iam.PolicyStatement({
      sid: 'DenyInsecureTransport',
      effect: iam.Effect.DENY,
      principals: [new iam.AnyPrincipal()],
      actions: CLIENT_ROOT_ACTIONS,
      resources: [fileSystemArn],
      conditions: { Bool: { 'aws:SecureTransport': 'false' } },
    }),
  );
  if (!allowMountsWithoutAccessPoint) {
    // Within one account an Allow in either the identity or the resource policy suffices, so
    // only a Deny restricts. S3 Files evaluates s3files:AccessPointArn on every mount; it is
    // absent only when no access point is used, so this denies root mounts to everyone
    // (a role holding s3files:Client* on "*" included), and nothing else.
    doc.addStatements(new iam.PolicyStatement({
      sid: 'DenyMountsWithoutAccessPoint',
      effect: iam.Effect.DENY,
      principals: [new iam.AnyPrincipal()],
      actions: CLIENT_ROOT_ACTIONS,
      resources: [fileSystemArn],
      conditions: { Null: { 's3files:AccessPointArn': 'true' } },
    }));
  }
  doc.addStatements(...statements);
  return doc;
}

/**
 * The service rejects policies over 20,000 characters: say so at synth, not 20 minutes into a deploy.
 * @param fileSystem the file system construct (its stack resolves the policy; its path names it)
 * @param policy the policy as it will be synthesized
 */
export function validatePolicySize(fileSystem: IConstruct, policy: iam.PolicyDocument): string[] {
  const stack = Stack.of(fileSystem);
  const chars = estimatePolicyCharacters(stack.resolve(policy), stack);
  if (chars <= MAX_FILE_SYSTEM_POLICY_CHARS) return [];
  return [`${fileSystem.node.path}: invalid file system policy: with the statements added to it (by addToResourcePolicy, and by grants to principals of other accounts, `
    + `one statement per grant) it is about ${chars} characters long, and S3 Files accepts at most ${MAX_FILE_SYSTEM_POLICY_CHARS}. Fix: merge statements `
    + '(one statement can list many principals: add it with addToResourcePolicy instead of many grants), grant another account as a whole (`iam.AccountPrincipal`) '
    + 'rather than role by role, or, within this account, grant through identity policies (the library\'s grants to roles of this account add nothing here).'];
}
