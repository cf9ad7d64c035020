import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { AwsSolutionsChecks } from 'cdk-nag';
import { buildValidatorApp } from './templates';

// cdk-nag 3 is an aws-cdk-lib policy-validation plugin; validateScope runs the same rules on the
// construct tree and honours Validations.of(...).acknowledge(...) on a resource or its ancestors.
test('cdk-nag AwsSolutionsChecks reports no unacknowledged finding on any validator stack', () => {
  // GIVEN every integ stack and the library set-ups the integ app doesn't show
  const app = buildValidatorApp(fs.mkdtempSync(path.join(os.tmpdir(), 's3files-nag-')));
  expect(app.node.children.length).toBeGreaterThanOrEqual(5);

  // WHEN the AWS Solutions pack checks the whole app
  const report = new AwsSolutionsChecks().validateScope(app);

  // THEN nothing is left: every finding is fixed or acknowledged with a reason where it is inherent
  const findings = report.violations.flatMap((v) => v.violatingResources.map((r) => `${v.ruleName} ${r.constructPath}`));
  expect(findings).toEqual([]);
});

test('the check can fail: an unhardened bucket and wildcard policy in the same app are reported', () => {
  // GIVEN the validator app plus a plain bucket whose grant uses wildcards
  const app = buildValidatorApp(fs.mkdtempSync(path.join(os.tmpdir(), 's3files-nag-')));
  const stack = app.node.findChild('MinimalMountedFunction');
  const s3 = jest.requireActual<typeof import('aws-cdk-lib/aws-s3')>('aws-cdk-lib/aws-s3');
  const iam = jest.requireActual<typeof import('aws-cdk-lib/aws-iam')>('aws-cdk-lib/aws-iam');
  const bucket = new s3.Bucket(stack, 'Plain');
  bucket.grantRead(new iam.Role(stack, 'Reader', { assumedBy: new iam.AccountRootPrincipal() }));

  // WHEN checked
  const report = new AwsSolutionsChecks().validateScope(app);

  // THEN those findings (and only on the new constructs) are reported
  const findings = report.violations.flatMap((v) => v.violatingResources.map((r) => `${v.ruleName} ${r.constructPath}`));
  expect(findings).toEqual(expect.arrayContaining([
    'AwsSolutions-S1 MinimalMountedFunction/Plain/Resource',
    'AwsSolutions-S10 MinimalMountedFunction/Plain/Resource',
    'AwsSolutions-IAM5[Action::s3:GetObject*] MinimalMountedFunction/Reader/DefaultPolicy/Resource',
  ]));
  expect(findings.every((f) => / MinimalMountedFunction\/(Plain|Reader)\//.test(f) || !f.includes('MinimalMountedFunction/'))).toBe(true);
});
