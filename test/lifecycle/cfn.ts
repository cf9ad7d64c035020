import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App } from 'aws-cdk-lib';
import { estimatePolicyCharacters } from '../../src/private/file-system/policy-size';

/**
 * What CloudFormation does between two templates, modelled from the outside: which resources it
 * adds, removes, updates and replaces (create-only properties from the resource schemas that
 * cfn-lint ships, not from this project), reference cycles, and which IAM statements a custom
 * resource can still use when its Delete runs in the cleanup phase.
 */

type Json = any;
export type Template = { Resources: Record<string, Json>; [k: string]: Json };

/** Every template of an app, nested stacks included, keyed by file name without `.template.json`. */
export function synthTemplates(build: (app: App) => void): Record<string, Template> {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 's3files-lifecycle-'));
  const app = new App({ outdir, context: { '@aws-cdk/core:stackTraces': false } });
  build(app);
  app.synth();
  const out: Record<string, Template> = {};
  for (const file of fs.readdirSync(outdir)) {
    if (file.endsWith('.template.json')) out[file.replace(/\.template\.json$/, '')] = JSON.parse(fs.readFileSync(path.join(outdir, file), 'utf8'));
  }
  fs.rmSync(outdir, { recursive: true, force: true });
  return out;
}

/**
 * What the lifecycle checks need of CloudFormation's resource schemas (settable, create-only and
 * taggable properties), vendored from the schemas cfn-lint bundles so these suites run without the
 * Python tools; test/validators/cfn-schema-facts.test.ts recomputes them from cfn-lint's schemas
 * (and, with UPDATE_CFN_SCHEMA_FACTS=1, rewrites the file).
 */
export interface SchemaFacts {
  readonly settable: string[];
  readonly createOnly: string[][];
  readonly taggable: boolean;
}

let facts: Record<string, SchemaFacts> | undefined;

function factsOf(type: string): SchemaFacts {
  facts ??= JSON.parse(fs.readFileSync(path.join(__dirname, 'cfn-schema-facts.json'), 'utf8'));
  const found = facts![type];
  if (!found) {
    throw new Error(`no vendored schema facts for ${type}: add it to test/validators/cfn-schema-facts.test.ts and run it with UPDATE_CFN_SCHEMA_FACTS=1`);
  }
  return found;
}

/** Whether CloudFormation's schema gives a resource type a `Tags` property (custom resources: no). */
export function isTaggable(type: string): boolean {
  if (type.startsWith('Custom::') || type === 'AWS::CloudFormation::CustomResource') return false;
  return factsOf(type).taggable;
}

/**
 * The settable properties of a resource type, nested ones as dotted paths one level into objects
 * (e.g. `SynchronizationConfiguration.ImportDataRules`); read-only ones are left out.
 */
export function settableProperties(type: string): string[] {
  return factsOf(type).settable;
}

/** Create-only property paths of a resource type (e.g. [['SubnetId'], ['RootDirectory', 'Path']]). */
export function createOnlyProperties(type: string): string[][] {
  if (type.startsWith('Custom::') || type === 'AWS::CloudFormation::CustomResource') return [];
  return factsOf(type).createOnly;
}

/** Logical ids a value references (Ref, Fn::GetAtt, Fn::Sub), resources only. */
export function references(value: Json, resources: Record<string, Json>): Set<string> {
  const found = new Set<string>();
  const walk = (v: Json): void => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (!v || typeof v !== 'object') return;
    if (typeof v.Ref === 'string' && v.Ref in resources) found.add(v.Ref);
    if (Array.isArray(v['Fn::GetAtt']) && v['Fn::GetAtt'][0] in resources) found.add(v['Fn::GetAtt'][0]);
    if (typeof v['Fn::GetAtt'] === 'string') found.add(v['Fn::GetAtt'].split('.')[0]);
    const sub = v['Fn::Sub'];
    const text = typeof sub === 'string' ? sub : Array.isArray(sub) ? sub[0] : undefined;
    if (typeof text === 'string') {
      for (const m of text.matchAll(/\$\{([A-Za-z0-9]+)(\.[A-Za-z0-9.]+)?\}/g)) if (m[1] in resources) found.add(m[1]);
    }
    Object.values(v).forEach(walk);
  };
  walk(value);
  return found;
}

/** Every resource's outgoing edges: references in Properties (and Condition-free metadata skipped) and DependsOn. */
export function dependencyGraph(template: Template): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const [id, r] of Object.entries(template.Resources ?? {})) {
    const edges = references(r.Properties ?? {}, template.Resources);
    for (const d of [].concat(r.DependsOn ?? [])) edges.add(d);
    graph.set(id, edges);
  }
  return graph;
}

/** The resources of one reference/DependsOn cycle, or undefined when the template has none. */
export function findCycle(template: Template): string[] | undefined {
  const graph = dependencyGraph(template);
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (id: string): string[] | undefined => {
    state.set(id, 'open');
    stack.push(id);
    for (const next of graph.get(id) ?? []) {
      if (state.get(next) === 'open') return [...stack.slice(stack.indexOf(next)), next];
      if (!state.has(next)) {
        const cycle = visit(next);
        if (cycle) return cycle;
      }
    }
    stack.pop();
    state.set(id, 'done');
    return undefined;
  };
  for (const id of graph.keys()) {
    if (!state.has(id)) {
      const cycle = visit(id);
      if (cycle) return cycle;
    }
  }
  return undefined;
}

/** Resources `id` depends on, directly or not. */
export function dependsOnTransitively(template: Template, id: string): Set<string> {
  const graph = dependencyGraph(template);
  const seen = new Set<string>();
  const todo = [...(graph.get(id) ?? [])];
  while (todo.length) {
    const next = todo.pop()!;
    if (seen.has(next)) continue;
    seen.add(next);
    todo.push(...(graph.get(next) ?? []));
  }
  return seen;
}

export interface ChangeSet {
  readonly added: string[];
  readonly removed: string[];
  /** Kept logical id, new physical resource (a create-only property or the type changed). */
  readonly replaced: string[];
  /** Updated in place. */
  readonly updated: string[];
  readonly unchanged: string[];
}

function at(obj: Json, keys: string[]): Json {
  return keys.reduce((o, k) => (o === undefined || o === null ? undefined : o[k]), obj);
}

/**
 * A value as CloudFormation would see it: references to replaced resources stand for a new
 * physical id, so a create-only property that references one changes too.
 */
export function normalize(value: Json, replaced: Set<string>): string {
  return JSON.stringify(value, (_k, v) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      if (typeof v.Ref === 'string' && replaced.has(v.Ref)) return { Ref: `${v.Ref}@new` };
      if (Array.isArray(v['Fn::GetAtt']) && replaced.has(v['Fn::GetAtt'][0])) return { 'Fn::GetAtt': [`${v['Fn::GetAtt'][0]}@new`, v['Fn::GetAtt'][1]] };
    }
    return v;
  });
}

/** What an update from `before` to `after` does, replacements cascading through references. */
export function changeSet(before: Template, after: Template): ChangeSet {
  const b = before.Resources ?? {};
  const a = after.Resources ?? {};
  const kept = Object.keys(a).filter((id) => id in b);
  const replaced = new Set<string>();
  for (let changed = true; changed;) {
    changed = false;
    for (const id of kept) {
      if (replaced.has(id)) continue;
      const typeChanged = b[id].Type !== a[id].Type;
      const createOnlyChanged = createOnlyProperties(a[id].Type)
        .some((p) => normalize(at(b[id].Properties, p), new Set()) !== normalize(at(a[id].Properties, p), replaced));
      if (typeChanged || createOnlyChanged) {
        replaced.add(id);
        changed = true;
      }
    }
  }
  const updated = kept.filter((id) => !replaced.has(id) && normalize(b[id], new Set()) !== normalize(a[id], replaced));
  return {
    added: Object.keys(a).filter((id) => !(id in b)).sort(),
    removed: Object.keys(b).filter((id) => !(id in a)).sort(),
    replaced: [...replaced].sort(),
    updated: updated.sort(),
    unchanged: kept.filter((id) => !replaced.has(id) && !updated.includes(id)).sort(),
  };
}

/** Resources CloudFormation deletes in the cleanup phase (removed or replaced) that it does not retain. */
export function deletedByUpdate(before: Template, after: Template): string[] {
  const c = changeSet(before, after);
  return [...c.removed, ...c.replaced].filter((id) => {
    const policy = c.removed.includes(id) ? before.Resources[id].DeletionPolicy : before.Resources[id].UpdateReplacePolicy;
    return policy !== 'Retain' && policy !== 'RetainExceptOnCreate';
  }).sort();
}

/** A statement with its resources in terms of physical versions (`Files@old` for the old physical file system). */
export interface EffectiveStatement {
  readonly policy: string;
  readonly actions: string[];
  readonly resources: string[];
  /** The statement's Condition block, as in the template (undefined when it has none). */
  readonly conditions?: Json;
}

function versioned(value: Json, replaced: Set<string>, version: 'old' | 'new'): string {
  return JSON.stringify(value, (_k, v) => {
    if (v && typeof v === 'object' && Array.isArray(v['Fn::GetAtt']) && replaced.has(v['Fn::GetAtt'][0])) {
      return `${v['Fn::GetAtt'][0]}@${version}.${v['Fn::GetAtt'][1]}`;
    }
    if (v && typeof v === 'object' && typeof v.Ref === 'string' && replaced.has(v.Ref)) return `${v.Ref}@${version}`;
    return v;
  });
}

/**
 * When CloudFormation deletes the old physical instance of custom resource `id` (removed from the
 * template, or replaced) in the cleanup phase, the IAM policies attached to `roleLogicalId` are:
 * those in the new template (already updated: their references name new physical resources), and
 * removed ones that `id` depends on in the old template (CloudFormation deletes them after it).
 * Returns their Allow statements and what the custom resource's properties name (old versions).
 */
export function rightsAtCleanupDelete(before: Template, after: Template, id: string, roleLogicalId: string): {
  readonly properties: string;
  readonly statements: EffectiveStatement[];
} {
  const c = changeSet(before, after);
  const replaced = new Set(c.replaced);
  const outlives = dependsOnTransitively(before, id);
  const attached = (r: Json) => JSON.stringify(r.Properties?.Roles ?? []).includes(`"${roleLogicalId}"`);
  const statements: EffectiveStatement[] = [];
  const collect = (policyId: string, r: Json, version: 'old' | 'new') => {
    for (const s of [].concat(r.Properties.PolicyDocument.Statement) as Json[]) {
      if (s.Effect !== 'Allow') continue;
      statements.push({
        policy: policyId,
        actions: [].concat(s.Action),
        resources: ([].concat(s.Resource) as Json[]).map((res) => versioned(res, replaced, version)),
        conditions: s.Condition,
      });
    }
  };
  for (const [pid, r] of Object.entries<Json>(after.Resources)) {
    if (r.Type === 'AWS::IAM::Policy' && attached(r)) collect(pid, r, 'new');
  }
  for (const pid of c.removed) {
    const r = before.Resources[pid];
    if (r.Type === 'AWS::IAM::Policy' && attached(r) && outlives.has(pid)) collect(pid, r, 'old');
  }
  // The resource's own (old) properties name old physical resources.
  return { properties: versioned(before.Resources[id].Properties, replaced, 'old'), statements };
}

/**
 * What CloudFormation refuses across stacks when `before` becomes `after` (all stacks of an app):
 * an export that another stack imports (in `before`, since the exporting stack updates first)
 * may be neither removed nor changed, a replaced resource counting as a change
 * ("Export ... cannot be updated as it is in use by ...").
 */
export function exportRefusals(before: Record<string, Template>, after: Record<string, Template>): string[] {
  const refusals: string[] = [];
  for (const [name, b] of Object.entries(before)) {
    const a = after[name] ?? { Resources: {} };
    const replaced = new Set(changeSet(b, a).replaced);
    const afterExports = new Map<string, Json>();
    for (const o of Object.values<Json>(a.Outputs ?? {})) if (o.Export) afterExports.set(JSON.stringify(o.Export.Name), o.Value);
    for (const o of Object.values<Json>(b.Outputs ?? {})) {
      if (!o.Export) continue;
      const exportName = JSON.stringify(o.Export.Name);
      const importers = Object.entries(before).filter(([other, t]) => other !== name
        && JSON.stringify(t).includes(JSON.stringify({ 'Fn::ImportValue': o.Export.Name })));
      if (importers.length === 0) continue;
      const who = importers.map(([other]) => other).join(', ');
      if (!afterExports.has(exportName)) {refusals.push(`${name}: export ${exportName} removed while ${who} imports it`);} else if (normalize(o.Value, new Set()) !== normalize(afterExports.get(exportName), replaced)) {
        refusals.push(`${name}: export ${exportName} changes while ${who} imports it`);
      }
    }
  }
  return refusals;
}

/**
 * Resources that delete data (a delete guard that deletes its file system, a bucket cleaner that
 * empties its bucket, a guard of an older version that emptied a bucket) which CloudFormation
 * deletes when `from` becomes `to` (the cleanup of an update, or with `from` = the updated
 * template and `to` = the old one, the rollback of a failed update), and whose target stays: data
 * that would be lost. Returns one line per such deletion.
 */
export function dataLossOnDelete(from: Template, to: Template): string[] {
  const c = changeSet(from, to);
  const gone = new Set([...c.removed, ...c.replaced]);
  const target = (v: Json) => (Array.isArray(v?.['Fn::GetAtt']) ? v['Fn::GetAtt'][0] : typeof v?.Ref === 'string' ? v.Ref : undefined);
  const losses: string[] = [];
  const retainedNow = retainedFileSystemsOf(to);
  for (const id of c.removed) {
    const r = from.Resources[id];
    const p = r.Properties ?? {};
    const fileSystem = target(p.FileSystemId);
    if (r.Type === 'Custom::S3FilesDeleteGuard' && p.DeleteFileSystem === 'true' && !gone.has(fileSystem)) {
      losses.push(`${id} deletes file system ${fileSystem}, which stays`);
    }
    // Replaced, the old file system is kept by CloudFormation when the new template retains it
    // (UpdateReplacePolicy), unless the removed guard deletes it first: a handler that lists that
    // logical id as RETAIN (the guard's FileSystemLogicalId) keeps it.
    const keptByCloudFormation = c.replaced.includes(fileSystem) && /^Retain/.test(to.Resources[fileSystem]?.UpdateReplacePolicy ?? '');
    const disarmed = typeof p.FileSystemLogicalId === 'string' && retainedNow.has(p.FileSystemLogicalId);
    if (r.Type === 'Custom::S3FilesDeleteGuard' && p.DeleteFileSystem === 'true' && keptByCloudFormation && !disarmed) {
      losses.push(`${id} deletes the old file system ${fileSystem}, which the new template retains`);
    }
    if (r.Type === 'Custom::S3FilesDeleteGuard' && p.EmptyBucket === 'true' && !c.removed.includes(target(p.BucketArn))) {
      losses.push(`${id} empties bucket ${target(p.BucketArn)}, which stays`);
    }
    if (r.Type === 'Custom::S3FilesBucketCleaner' && p.EmptyOnDelete === 'true' && !c.removed.includes(target(p.BucketArn))) {
      losses.push(`${id} empties bucket ${target(p.BucketArn)}, which stays`);
    }
  }
  return losses;
}

/**
 * Whether a statement lets its holder delete file system `logicalId` as the template `version`
 * describes it: DeleteFileSystem on its ARN, or on every file system (`file-system/*`) with every
 * `aws:ResourceTag/<key>` condition met by the tags that template gives it (other conditions are
 * not modelled and make the statement not count).
 */
export function allowsDeletingFileSystem(statement: EffectiveStatement, logicalId: string, arnAsVersioned: string, version: Template): boolean {
  if (!statement.actions.includes('s3files:DeleteFileSystem')) return false;
  // A rendered ARN whose last part is `:file-system/*` covers every file system (of its account and region).
  const covers = statement.resources.some((r) => r === arnAsVersioned || r.includes(':file-system/*"'));
  if (!covers) return false;
  const tags = new Map<string, string>();
  for (const t of [].concat(version.Resources[logicalId]?.Properties?.Tags ?? []) as Json[]) tags.set(t.Key, JSON.stringify(t.Value));
  for (const [operator, block] of Object.entries<Json>(statement.conditions ?? {})) {
    for (const [key, value] of Object.entries<Json>(block)) {
      const tag = /^aws:ResourceTag\/(.+)$/.exec(key);
      if (operator !== 'StringEquals' || !tag || tags.get(tag[1]) !== JSON.stringify(value)) return false;
    }
  }
  return true;
}

/** The logical ids a template's delete-guard handlers treat as RETAIN (their S3FILES_RETAINED_FILE_SYSTEMS). */
export function retainedFileSystemsOf(t: Template): Set<string> {
  const ids = new Set<string>();
  for (const r of Object.values<Json>(t.Resources ?? {})) {
    const value = r.Type === 'AWS::Lambda::Function' ? r.Properties?.Environment?.Variables?.S3FILES_RETAINED_FILE_SYSTEMS : undefined;
    if (typeof value === 'string') value.split(',').filter((v) => v !== '').forEach((v) => ids.add(v));
  }
  return ids;
}

/** Characters of the IAM policies attached (through `Roles`) to role `roleId` among `resources`. */
function attachedPolicyCharacters(resources: Record<string, Json>, ids: string[], roleId: string): number {
  return ids.filter((id) => resources[id].Type === 'AWS::IAM::Policy' && JSON.stringify(resources[id].Properties?.Roles ?? []).includes(`"${roleId}"`))
    .reduce((sum, id) => sum + estimatePolicyCharacters(resources[id].Properties.PolicyDocument), 0);
}

/**
 * The most inline-policy characters role `roleId` holds during an update from `before` to `after`:
 * the new template's policies, plus the removed ones, which stay attached until the cleanup phase.
 */
export function peakInlinePolicyCharacters(before: Template, after: Template, roleId: string): number {
  const c = changeSet(before, after);
  return attachedPolicyCharacters(after.Resources, Object.keys(after.Resources), roleId)
    + attachedPolicyCharacters(before.Resources, c.removed, roleId);
}

/**
 * The inline-policy characters each role of the last template holds after a sequence of
 * deployments: its policies in that template, plus every policy an earlier update removed with
 * DeletionPolicy Retain while the role stayed the same physical role (neither removed nor replaced
 * since), which CloudFormation leaves attached to it.
 */
export function inlinePolicyCharactersAfter(history: Template[]): Record<string, number> {
  const last = history[history.length - 1];
  const out: Record<string, number> = {};
  for (const [roleId, r] of Object.entries<Json>(last.Resources)) {
    if (r.Type !== 'AWS::IAM::Role') continue;
    let total = attachedPolicyCharacters(last.Resources, Object.keys(last.Resources), roleId);
    for (let i = history.length - 2; i >= 0; i--) {
      const c = changeSet(history[i], history[i + 1]);
      if (!(roleId in history[i].Resources) || c.replaced.includes(roleId)) break;
      const retained = c.removed.filter((id) => /^Retain/.test(history[i].Resources[id].DeletionPolicy ?? ''));
      total += attachedPolicyCharacters(history[i].Resources, retained, roleId);
    }
    out[roleId] = total;
  }
  return out;
}
