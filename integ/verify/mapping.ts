import { AssertionSpec, Assumption, constructIdOf } from './catalogue';

// The rule test/verify/mapping.test.ts holds the project to: every item of docs/verification.md's
// "Assumed" list names the assertions that settle it, every assertion names its item, and every
// assertion exists where it runs (an output of the committed snapshot, or the runner's code).

export interface MappingInputs {
  /** docs/verification.md */
  readonly docs: string;
  readonly assumptions: readonly Assumption[];
  readonly assertions: readonly AssertionSpec[];
  /** Output keys of the verification app's committed snapshot (all templates). */
  readonly snapshotOutputs: ReadonlySet<string>;
  /** The runner's source (integ/verify/*.ts but the catalogue): where runner and benchmark ids must appear. */
  readonly runnerSource: string;
  /** Names of the lifecycle steps the app can synthesize (LIFECYCLE_STEPS). */
  readonly lifecycleSteps: readonly string[];
}

/** The "Assumed" list: each item's id (`(\`id\`)`) and the ids after "Settled by:". */
export function assumedItems(docs: string): Array<{ id: string; settledBy: string[] }> {
  const start = docs.indexOf('Assumed, and only an account can confirm');
  const end = docs.indexOf('\n### ', start);
  if (start < 0 || end < 0) return [];
  const items = docs.slice(start, end).split(/\n- /).slice(1);
  return items.map((item) => {
    const id = /^\*\*\(`([a-z0-9-]+)`\)\*\*/.exec(item)?.[1] ?? `(no id: "${item.slice(0, 40)}…")`;
    const settled = item.split('Settled by:')[1] ?? '';
    return { id, settledBy: [...settled.matchAll(/`([a-z0-9]+\.[a-z0-9-]+)`/g)].map((m) => m[1]) };
  });
}

export function mappingErrors(i: MappingInputs): string[] {
  const errors: string[] = [];
  const items = assumedItems(i.docs);
  const known = new Map(i.assumptions.map((a) => [a.id, a]));
  const byId = new Map(i.assertions.map((a) => [a.id, a]));
  for (const item of items) {
    if (!known.has(item.id)) errors.push(`docs/verification.md lists ${item.id}, which the catalogue does not know`);
    if (item.settledBy.length === 0) errors.push(`docs/verification.md: ${item.id} names no assertion ("Settled by: …")`);
    for (const id of item.settledBy) {
      const spec = byId.get(id);
      if (!spec) errors.push(`docs/verification.md: ${item.id} names ${id}, which is no assertion of integ/verify/catalogue.ts`);
      else if (spec.assumption !== item.id) errors.push(`docs/verification.md: ${item.id} names ${id}, which settles ${spec.assumption}`);
    }
  }
  for (const a of i.assumptions) {
    const item = items.find((x) => x.id === a.id);
    if (!item) errors.push(`assumption ${a.id} is not in docs/verification.md's "Assumed" list`);
    const specs = i.assertions.filter((s) => s.assumption === a.id);
    if (specs.length === 0) errors.push(`assumption ${a.id} has no assertion`);
    for (const s of specs) if (item && !item.settledBy.includes(s.id)) errors.push(`assertion ${s.id} (assumption ${a.id}) is not named in docs/verification.md`);
  }
  for (const s of i.assertions) {
    if (!known.has(s.assumption)) errors.push(`assertion ${s.id} names an unknown assumption ${s.assumption}`);
    errors.push(...whereItRuns(s, i));
  }
  // No assertion in the app that the catalogue (and so the docs) does not know.
  const cids = new Set(i.assertions.map((s) => constructIdOf(s.id)));
  for (const key of i.snapshotOutputs) {
    const cid = /^AssertionResults(Verify[A-Za-z0-9]+)$/.exec(key)?.[1];
    if (cid && !/(Settle|Stopped|Submit|Run)$/.test(cid) && !cids.has(cid)) errors.push(`the verification app asserts ${cid}, which no catalogue entry names`);
  }
  return errors;
}

function whereItRuns(s: AssertionSpec, i: MappingInputs): string[] {
  const cid = constructIdOf(s.id);
  if (s.kind === 'deploy-assert') {
    if (s.suite === 'lifecycle') {
      // The snapshot holds step 0; the other steps are the same app with another step.
      const step = s.id.slice('lifecycle.'.length);
      if (!i.lifecycleSteps.includes(step)) return [`assertion ${s.id}: no lifecycle step ${step} in LIFECYCLE_STEPS`];
      return step === i.lifecycleSteps[0] && !i.snapshotOutputs.has(`AssertionResults${cid}`) ? [`assertion ${s.id}: no output AssertionResults${cid} in integ/verify.integ.snapshot`] : [];
    }
    return ['AssertionResults', 'Evidence'].filter((o) => !i.snapshotOutputs.has(`${o}${cid}`))
      .map((o) => `assertion ${s.id}: no output ${o}${cid} in integ/verify.integ.snapshot`);
  }
  return i.runnerSource.includes(`'${s.id}'`) ? [] : [`assertion ${s.id} (${s.kind}): the runner (integ/verify/) never reports it`];
}
