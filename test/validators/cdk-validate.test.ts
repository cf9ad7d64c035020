import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, CfnResource, Stack } from 'aws-cdk-lib';
import * as cxapi from 'aws-cdk-lib/cx-api';
import { synthStrict, synthesizeTemplates } from './templates';

// aws-cdk-lib's own CloudFormation validation (on by default for users, off in the other suites:
// test/setup/cdk-validation.ts) runs here, strict, on every distinct template the project produces.
test('aws-cdk-lib\'s CloudFormation validation finds nothing in any validator-app template', () => {
  // GIVEN the validator app, synthesized with the plugin on and any finding fatal
  const { outdir, templates } = synthesizeTemplates();
  expect(templates.length).toBeGreaterThanOrEqual(5);

  // THEN the plugin ran (aws-cdk-lib writes the report only when a plugin ran; it lists a plugin
  // only when it found something) and found nothing
  const report = JSON.parse(fs.readFileSync(path.join(outdir, cxapi.VALIDATION_REPORT_FILE), 'utf8'));
  expect(report.pluginReports).toEqual([]);
});

test('the strict synthesis fails on a finding of any severity (the check can fail)', () => {
  // GIVEN a template with a value the resource schema refuses (a warning-level finding)
  const app = new App({ outdir: fs.mkdtempSync(path.join(os.tmpdir(), 'cdk-validate-')), context: { [cxapi.STRICT_CFN_VALIDATE_ERRORS]: true } });
  const stack = new Stack(app, 'Bad');
  new CfnResource(stack, 'Bucket', { type: 'AWS::S3::Bucket', properties: { VersioningConfiguration: { Status: 'Sometimes' } } });

  // THEN the synthesis throws, and the report names the plugin and the finding
  expect(() => synthStrict(app)).toThrow(/W3030/);
  const report = JSON.parse(fs.readFileSync(path.join(app.outdir, cxapi.VALIDATION_REPORT_FILE), 'utf8'));
  expect(report.pluginReports).toEqual([expect.objectContaining({
    pluginName: 'CloudFormation Validate',
    violations: [expect.objectContaining({ ruleName: 'W3030' })],
  })]);
  // AND the test setup's default is restored afterwards
  expect(process.env.CDK_VALIDATION).toBe('false');
});
