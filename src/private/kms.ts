import { Stack, Token } from 'aws-cdk-lib';
import * as kms from 'aws-cdk-lib/aws-kms';
import { aliasTargetKey } from './compat';

/** IAM condition blocks. */
export type Conditions = Record<string, Record<string, unknown>>;

/** An alias stands in for a key in CDK, but IAM never matches an alias ARN against key use. */
export function isAlias(key: kms.IKey): boolean {
  return typeof (key as Partial<kms.IAlias>).aliasName === 'string'
    || (!Token.isUnresolved(key.keyArn) && /:alias\//.test(key.keyArn));
}

/** Every key of the stack's account and region (or of the account and region a literal ARN names). */
export function kmsKeyWildcard(stack: Stack, like?: string): string {
  const parts = like !== undefined && !Token.isUnresolved(like) ? like.split(':') : [];
  return stack.formatArn({ service: 'kms', resource: 'key', resourceName: '*', region: parts[3] || undefined, account: parts[4] || undefined });
}

/**
 * Resources and conditions for a KMS statement: the key ARN; for an alias of this app, its target
 * key; for an imported alias, the keys of this account and region that carry the alias
 * (`kms:ResourceAliases`).
 */
export function kmsKeyGrant(key: kms.IKey, conditions: Conditions): { resources: string[]; conditions: Conditions } {
  if (!isAlias(key)) return { resources: [key.keyArn], conditions };
  const target = aliasTargetKey(key);
  if (target) return { resources: [target.keyArn], conditions };
  const alias = (key as Partial<kms.IAlias>).aliasName ?? key.keyArn.replace(/^.*:alias\//, 'alias/');
  return {
    // An alias ARN of another account names that account's keys.
    resources: [kmsKeyWildcard(Stack.of(key), key.keyArn)],
    conditions: { ...conditions, 'ForAnyValue:StringEquals': { 'kms:ResourceAliases': alias } },
  };
}
