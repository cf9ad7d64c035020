import { spawnSync } from 'child_process';
import { synthesizeTemplates, venvBin } from './templates';

/**
 * The one finding allowed, narrowly: aws-cdk-lib makes every lambda.Function (and the provider's
 * state machine) `DependsOn` its own execution role while also reading the role's ARN, and
 * cfn-lint 1.x flags that as a redundant DependsOn (W3005). A bare `new lambda.Function(...)`
 * triggers it; the extra DependsOn changes nothing at deploy time. Any other W3005 (for example a
 * redundant dependency the library adds itself) still fails.
 */
const AWS_CDK_LIB_ROLE_DEPENDENCY = /:W3005:'\w*(ServiceRole|Role)[0-9A-F]{8}' dependency already enforced by a 'GetAtt' at 'Resources\/\w+\/Properties\/(Role|RoleArn)'$/;

/**
 * The EKS cluster of the validator app's Kubernetes stack is the user's, built by aws-eks: its
 * cluster custom resource and kubectl provider stack `DependsOn` the subnets and roles they also
 * reference (W3005). Not the library's resources: those stay checked.
 */
const AWS_EKS_CLUSTER_DEPENDENCY = /:W3005:'\w+' dependency already enforced by a '(Ref|GetAtt)' at 'Resources\/(Cluster[0-9A-F]{8}|awscdkawseksKubectlProvider\w+)\/Properties\//;

// cfn-lint knows every AWS::S3Files property and the Lambda FileSystemConfigs patterns.
test('cfn-lint reports no errors and no warnings on any synthesized template', () => {
  // GIVEN every integ stack and the library set-ups the integ app doesn't show
  const { templates } = synthesizeTemplates();
  expect(templates.length).toBeGreaterThanOrEqual(5);

  // WHEN cfn-lint checks them all (informational I-rules are not failures)
  const result = spawnSync(venvBin('cfn-lint'), ['--format', 'parseable', '--', ...templates], { encoding: 'utf8' });
  const findings = result.stdout.split('\n').filter((line) => /:[EW]\d{4}:/.test(line));

  // THEN there are none, apart from aws-cdk-lib's own role dependency
  expect(findings.filter((line) => !AWS_CDK_LIB_ROLE_DEPENDENCY.test(line) && !AWS_EKS_CLUSTER_DEPENDENCY.test(line))).toEqual([]);
  expect(result.stderr).toBe('');
  // cfn-lint exits 4 for warnings only, 2 (or 6) for errors
  expect([0, 4]).toContain(result.status);
});

test('the allowance is narrow: only a function or state machine depending on its own role', () => {
  // GIVEN findings of the allowed shape and of other shapes
  const ok = "t.json:1:5:1:40:W3005:'FnServiceRole3AC82EE1' dependency already enforced by a 'GetAtt' at 'Resources/FC4345940/Properties/Role'";
  const ours = "t.json:1:5:1:40:W3005:'FilesShared986C47ED' dependency already enforced by a 'GetAtt' at 'Resources/W1/Properties/AccessPointIds/0'";
  const error = "t.json:1:5:1:40:E3002:'FnServiceRole3AC82EE1' dependency already enforced by a 'GetAtt' at 'Resources/F/Properties/Role'";
  // THEN only the first is allowed
  expect(AWS_CDK_LIB_ROLE_DEPENDENCY.test(ok)).toBe(true);
  expect(AWS_CDK_LIB_ROLE_DEPENDENCY.test(ours)).toBe(false);
  expect(AWS_CDK_LIB_ROLE_DEPENDENCY.test(error)).toBe(false);
});
