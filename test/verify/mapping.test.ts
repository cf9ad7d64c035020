import * as fs from 'fs';
import * as path from 'path';
import { LIFECYCLE_STEPS } from '../../integ/stacks/verify/retain-lifecycle-stacks';
import { ASSERTIONS, ASSUMPTIONS } from '../../integ/verify/catalogue';
import { assumedItems, MappingInputs, mappingErrors } from '../../integ/verify/mapping';

// docs/verification.md's "Assumed" list ↔ integ/verify/catalogue.ts ↔ the committed snapshot of the
// verification app and the runner's code. Reads files only: no synthesis.
const ROOT = path.join(__dirname, '..', '..');
const SNAPSHOT = path.join(ROOT, 'integ', 'verify.integ.snapshot');

function realInputs(): MappingInputs {
  const outputs = new Set<string>();
  for (const f of fs.readdirSync(SNAPSHOT).filter((n) => n.endsWith('.template.json'))) {
    Object.keys(JSON.parse(fs.readFileSync(path.join(SNAPSHOT, f), 'utf8')).Outputs ?? {}).forEach((k) => outputs.add(k));
  }
  const dir = path.join(ROOT, 'integ', 'verify');
  const runnerSource = fs.readdirSync(dir).filter((f) => f.endsWith('.ts') && f !== 'catalogue.ts').map((f) => fs.readFileSync(path.join(dir, f), 'utf8')).join('\n');
  return {
    docs: fs.readFileSync(path.join(ROOT, 'docs', 'verification.md'), 'utf8'),
    assumptions: ASSUMPTIONS,
    assertions: ASSERTIONS,
    snapshotOutputs: outputs,
    runnerSource,
    lifecycleSteps: LIFECYCLE_STEPS.map((s) => s.name),
  };
}

test('every assumption docs/verification.md lists names its assertions, each names its assumption, and each exists where it runs', () => {
  // GIVEN the docs, the catalogue, the committed snapshot and the runner
  const inputs = realInputs();
  // WHEN the mapping is checked
  const errors = mappingErrors(inputs);
  // THEN nothing is missing, and the docs list every assumption of the catalogue
  expect(errors).toEqual([]);
  expect(assumedItems(inputs.docs).map((i) => i.id)).toEqual(ASSUMPTIONS.map((a) => a.id));
});

test('it fails when an assumption loses its only assertion', () => {
  // GIVEN the catalogue without read-only's assertion (and the docs still naming it)
  const inputs = { ...realInputs(), assertions: ASSERTIONS.filter((a) => a.assumption !== 'read-only') };
  // WHEN checked
  const errors = mappingErrors(inputs);
  // THEN the assumption is reported as unsettled, and the docs as naming an unknown assertion
  expect(errors).toEqual(expect.arrayContaining([
    'assumption read-only has no assertion',
    'docs/verification.md: read-only names lambda.read-only-write-fails, which is no assertion of integ/verify/catalogue.ts',
  ]));
});

test('it fails when the docs stop naming an assertion, or the app stops asserting it', () => {
  // GIVEN the docs without one assertion's name, and a snapshot without another's outputs
  const real = realInputs();
  const docs = real.docs.replace('`ecs.root-mount-refused`, ', '');
  const snapshotOutputs = new Set([...real.snapshotOutputs].filter((k) => !k.endsWith('VerifyEc2RootMountRefused')));
  // WHEN checked
  const errors = mappingErrors({ ...real, docs, snapshotOutputs });
  // THEN both are reported, by name
  expect(errors).toEqual([
    'assertion ecs.root-mount-refused (assumption root-mount-denied) is not named in docs/verification.md',
    'assertion ec2.root-mount-refused: no output AssertionResultsVerifyEc2RootMountRefused in integ/verify.integ.snapshot',
    'assertion ec2.root-mount-refused: no output EvidenceVerifyEc2RootMountRefused in integ/verify.integ.snapshot',
  ]);
});

test('it fails when the runner no longer reports a runner assertion, or the app asserts something unnamed', () => {
  // GIVEN a runner without the waiter check and a snapshot with an extra assertion
  const real = realInputs();
  const runnerSource = real.runnerSource.split("'waiter.within-one-poll'").join("'waiter.gone'");
  const snapshotOutputs = new Set([...real.snapshotOutputs, 'AssertionResultsVerifySomethingNew']);
  // WHEN checked / THEN
  expect(mappingErrors({ ...real, runnerSource, snapshotOutputs })).toEqual([
    'assertion waiter.within-one-poll (runner): the runner (integ/verify/) never reports it',
    'the verification app asserts VerifySomethingNew, which no catalogue entry names',
  ]);
});
