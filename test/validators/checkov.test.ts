import { spawnSync } from 'child_process';
import * as path from 'path';
import { synthesizeTemplates, venvBin } from './templates';

interface Allowed { readonly check: string; readonly resource: string; readonly reason: string }
interface Failed { readonly check_id: string; readonly resource: string; readonly file_path: string }

// eslint-disable-next-line @typescript-eslint/no-require-imports
const allowlist: { allow: Allowed[] } = require('./checkov-allowlist.json');

function runCheckov(templates: string[]): Failed[] {
  const args = ['--framework', 'cloudformation', '-o', 'json', '--quiet', '--compact', ...templates.flatMap((t) => ['-f', t])];
  const result = spawnSync(venvBin('checkov'), args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  // checkov exits 1 when a check fails; anything else (or no JSON) is a broken run.
  if (result.status !== 0 && result.status !== 1) throw new Error(`checkov failed to run: ${result.stderr}`);
  const parsed = JSON.parse(result.stdout);
  const reports = Array.isArray(parsed) ? parsed : [parsed];
  return reports.flatMap((r) => r.results?.failed_checks ?? []);
}

function allowedBy(failure: Failed): Allowed | undefined {
  return allowlist.allow.find((a) => a.check === failure.check_id && new RegExp(a.resource).test(failure.resource));
}

describe('checkov over every synthesized template', () => {
  let failures: Failed[];
  beforeAll(() => {
    // GIVEN every integ stack and the library set-ups the integ app doesn't show
    const { templates } = synthesizeTemplates();
    // WHEN checkov's CloudFormation checks run over them
    failures = runCheckov(templates);
  });

  test('every failed check is in the reasoned allow-list', () => {
    // THEN nothing failed that the allow-list does not explain
    const unexplained = failures.filter((f) => !allowedBy(f)).map((f) => `${f.check_id} ${f.resource} (${path.basename(f.file_path)})`);
    expect(unexplained).toEqual([]);
  });

  test('the allow-list has no stale entries and every entry gives a reason', () => {
    // THEN each entry still matches a failure, and says why
    for (const entry of allowlist.allow) {
      expect(entry.reason.length).toBeGreaterThan(40);
      expect(failures.some((f) => allowedBy(f) === entry)).toBe(true);
    }
  });

  test('the run is real: checkov reports the checks that the allow-list explains', () => {
    // THEN the known, explained failures are there (so a broken run cannot pass silently)
    expect(failures.some((f) => f.check_id === 'CKV_AWS_116')).toBe(true);
    expect(failures.length).toBeGreaterThan(20);
  });
});
