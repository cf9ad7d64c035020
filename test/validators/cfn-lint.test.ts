import { spawnSync } from 'child_process';
import { synthesizeTemplates, venvBin } from './templates';

// cfn-lint knows every AWS::S3Files property and the Lambda FileSystemConfigs patterns.
test('cfn-lint reports no errors and no warnings on any synthesized template', () => {
  // GIVEN every integ stack and the library set-ups the integ app doesn't show
  const { templates } = synthesizeTemplates();
  expect(templates.length).toBeGreaterThanOrEqual(5);

  // WHEN cfn-lint checks them all (informational I-rules are not failures)
  const result = spawnSync(venvBin('cfn-lint'), ['--format', 'parseable', '--', ...templates], { encoding: 'utf8' });
  const findings = result.stdout.split('\n').filter((line) => /:[EW]\d{4}:/.test(line));

  // THEN there are none (exit code 0; cfn-lint exits non-zero on errors and warnings)
  expect(findings).toEqual([]);
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
});
