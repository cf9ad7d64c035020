import * as fs from 'fs';
import * as path from 'path';
import { SchemaFacts } from '../lifecycle/cfn';

// The lifecycle suites read CloudFormation's schema facts from test/lifecycle/cfn-schema-facts.json
// (so they run without Python); this test derives them from the schemas cfn-lint bundles (the
// project's venv) and fails when the vendored copy differs. UPDATE_CFN_SCHEMA_FACTS=1 rewrites it.

const TYPES = [
  'AWS::AutoScaling::AutoScalingGroup', 'AWS::Batch::JobDefinition', 'AWS::CloudFormation::Stack', 'AWS::CloudWatch::Alarm',
  'AWS::EC2::EgressOnlyInternetGateway', 'AWS::EC2::Instance', 'AWS::EC2::LaunchTemplate', 'AWS::EC2::Route', 'AWS::EC2::RouteTable',
  'AWS::EC2::SecurityGroup', 'AWS::EC2::SecurityGroupEgress', 'AWS::EC2::SecurityGroupIngress', 'AWS::EC2::Subnet',
  'AWS::EC2::SubnetRouteTableAssociation', 'AWS::EC2::VPC', 'AWS::EC2::VPCCidrBlock', 'AWS::EC2::VPCEndpoint', 'AWS::ECS::Service',
  'AWS::ECS::TaskDefinition', 'AWS::IAM::InstanceProfile', 'AWS::IAM::Policy', 'AWS::IAM::Role', 'AWS::KMS::Key', 'AWS::Lambda::Function',
  'AWS::Lambda::Permission', 'AWS::Logs::LogGroup', 'AWS::S3::Bucket', 'AWS::S3::BucketPolicy', 'AWS::S3Files::AccessPoint',
  'AWS::S3Files::FileSystem', 'AWS::S3Files::FileSystemPolicy', 'AWS::S3Files::MountTarget', 'AWS::StepFunctions::StateMachine',
  // EKS (test/lifecycle/eks.test.ts): the driver's resources, and those of the cluster and its VPC
  'AWS::EC2::EIP', 'AWS::EC2::InternetGateway', 'AWS::EC2::NatGateway', 'AWS::EC2::VPCGatewayAttachment', 'AWS::EKS::Addon',
  'AWS::EKS::Nodegroup', 'AWS::EKS::PodIdentityAssociation', 'AWS::Lambda::LayerVersion', 'AWS::SSM::Parameter',
  // test/lifecycle/revoked-rights.test.ts
  'AWS::BedrockAgentCore::Runtime',
];

const VENDORED = path.join(__dirname, '..', 'lifecycle', 'cfn-schema-facts.json');

function schemaDir(): string {
  const lib = path.join(__dirname, '..', '..', '.venv', 'lib');
  const python = fs.readdirSync(lib).find((d) => d.startsWith('python'));
  if (!python) throw new Error(`${lib} has no python*/ folder: run 'npx projen setup:python'`);
  return path.join(lib, python, 'site-packages', 'cfnlint', 'data', 'schemas');
}

function derive(type: string, dir: string, index: Record<string, string>): SchemaFacts {
  const hash = index[type];
  if (!hash) throw new Error(`no cfn-lint schema for ${type}`);
  const schema = JSON.parse(fs.readFileSync(path.join(dir, 'resources', `${hash}.json`), 'utf8'));
  const readOnly = new Set((schema.readOnlyProperties ?? []).map((p: string) => p.replace('/properties/', '').replace(/\//g, '.')));
  const settable: string[] = [];
  for (const [name, def] of Object.entries<any>(schema.properties ?? {})) {
    if (readOnly.has(name)) continue;
    const ref = def.$ref?.replace('#/definitions/', '');
    const nested = ref ? schema.definitions?.[ref]?.properties : undefined;
    if (nested && name !== 'Tags') {
      for (const inner of Object.keys(nested)) if (!readOnly.has(`${name}.${inner}`)) settable.push(`${name}.${inner}`);
    } else {
      settable.push(name);
    }
  }
  return {
    settable: settable.sort(),
    createOnly: (schema.createOnlyProperties ?? []).map((p: string) => p.replace(/^\/properties\//, '').split('/')),
    taggable: 'Tags' in (schema.properties ?? {}),
  };
}

test('the vendored schema facts are what cfn-lint\'s bundled resource schemas say', () => {
  const dir = schemaDir();
  const index = JSON.parse(fs.readFileSync(path.join(dir, 'providers', 'us-east-1.json'), 'utf8'));
  const derived = Object.fromEntries(TYPES.map((type) => [type, derive(type, dir, index)]));
  const text = `${JSON.stringify(derived, null, 1)}\n`;
  if (process.env.UPDATE_CFN_SCHEMA_FACTS === '1') fs.writeFileSync(VENDORED, text);
  expect(JSON.parse(fs.readFileSync(VENDORED, 'utf8'))).toEqual(derived);
  expect(derived['AWS::S3Files::MountTarget'].createOnly).toEqual(expect.arrayContaining([['SubnetId']]));
});
