import { Stack } from 'aws-cdk-lib';
import * as agentcore from 'aws-cdk-lib/aws-bedrockagentcore';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { changeSet, synthTemplates, Template } from './cfn';
import { AgentCoreMount, Ec2Mount, EcsMount, LambdaMount, S3FilesClientOptions, S3FilesFileSystem } from '../../src';

// S3 Files authorizes a client when it mounts (FACTS, 2026-11-28): revoking `ClientWrite`
// (readOnly) or `ClientRootAccess` (rootAccess) changes only IAM, and a client already mounted keeps
// what it had until it mounts again. So a change of a mount's client actions must change what
// makes its compute mount again: a Lambda function's configuration (new execution environments),
// an AgentCore runtime's (a new version), an ECS task definition (a new revision: a service
// replaces its tasks) and the EC2 user data (CloudFormation stops and starts the instance).

const FN = { runtime: lambda.Runtime.NODEJS_24_X, handler: 'index.handler', code: lambda.Code.fromInline('exports.handler = async () => ({})') };

/** The template of a stack with one client of each compute, all mounted with `options`. */
function clients(options: S3FilesClientOptions): Template {
  return synthTemplates((app) => {
    const stack = new Stack(app, 'Clients', { env: { account: '111111111111', region: 'us-east-1' } });
    const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 0, subnetConfiguration: [{ name: 'i', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }] });
    const ap = new S3FilesFileSystem(stack, 'Files', { vpc }).addAccessPoint('Data', { path: '/data' });
    LambdaMount.onFunction(new lambda.Function(stack, 'Fn', { ...FN, vpc }), ap, options);
    const task = new ecs.FargateTaskDefinition(stack, 'Task');
    task.addContainer('app', { image: ecs.ContainerImage.fromRegistry('public.ecr.aws/docker/library/busybox:stable') });
    EcsMount.onTaskDefinition(task, ap, options);
    const host = new ec2.Instance(stack, 'Host', {
      vpc,
      vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
      instanceType: ec2.InstanceType.of(ec2.InstanceClass.T4G, ec2.InstanceSize.MICRO),
      machineImage: ec2.MachineImage.latestAmazonLinux2023({ cpuType: ec2.AmazonLinuxCpuType.ARM_64 }),
    });
    Ec2Mount.onInstance(host, ap, options);
    const agent = new agentcore.Runtime(stack, 'Agent', {
      runtimeName: 'agent',
      agentRuntimeArtifact: agentcore.AgentRuntimeArtifact.fromImageUri('111111111111.dkr.ecr.us-east-1.amazonaws.com/agent:latest'),
      networkConfiguration: agentcore.RuntimeNetworkConfiguration.usingVpc(stack, {
        vpc, vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
      }),
    });
    AgentCoreMount.onRuntime(agent, ap, options);
  }).Clients;
}

/** The logical id of the one resource of `type` whose id starts with `prefix`. */
function idOf(t: Template, type: string, prefix: string): string {
  const ids = Object.keys(t.Resources).filter((id) => id.startsWith(prefix) && t.Resources[id].Type === type);
  if (ids.length !== 1) throw new Error(`${ids.length} ${type} ${prefix}`);
  return ids[0];
}

describe('a change of what a mount may do makes each compute mount again', () => {
  const readWrite = clients({});
  const computes: Array<[string, string, string]> = [
    ['the Lambda function (its environment)', 'AWS::Lambda::Function', 'Fn'],
    ['the ECS task definition (a new revision)', 'AWS::ECS::TaskDefinition', 'Task'],
    ['the EC2 instance (its user data: a stop and start)', 'AWS::EC2::Instance', 'Host'],
    ['the AgentCore runtime (its environment)', 'AWS::BedrockAgentCore::Runtime', 'Agent'],
  ];

  test.each([
    ['readOnly: true (ClientWrite revoked)', { readOnly: true }],
    ['rootAccess: true (ClientRootAccess added)', { rootAccess: true }],
  ])('%s: every compute\'s own resource changes', (_what, options) => {
    const changes = changeSet(readWrite, clients(options));
    for (const [what, type, prefix] of computes) {
      const id = idOf(readWrite, type, prefix);
      expect({ what, changed: changes.updated.includes(id) || changes.replaced.includes(id) }).toEqual({ what, changed: true });
    }
  });

  test('and back: rootAccess removed changes them again; the same options change nothing', () => {
    const root = clients({ rootAccess: true });
    const back = changeSet(root, readWrite);
    const same = changeSet(readWrite, clients({}));
    for (const [, type, prefix] of computes) {
      const id = idOf(readWrite, type, prefix);
      expect(back.updated.includes(id) || back.replaced.includes(id)).toBe(true);
      expect(same.unchanged).toContain(id);
    }
  });

  test('what each compute carries names the client actions', () => {
    const t = clients({ readOnly: true });
    const fn = t.Resources[idOf(t, 'AWS::Lambda::Function', 'Fn')];
    expect(fn.Properties.Environment.Variables.S3FILES_CLIENT_ACTIONS).toBe('ClientMount');
    const agent = t.Resources[idOf(t, 'AWS::BedrockAgentCore::Runtime', 'Agent')];
    expect(agent.Properties.EnvironmentVariables.S3FILES_CLIENT_ACTIONS).toBe('/mnt/s3files=ClientMount');
    const [container] = t.Resources[idOf(t, 'AWS::ECS::TaskDefinition', 'Task')].Properties.ContainerDefinitions;
    expect(Object.entries(container.DockerLabels)).toEqual([[expect.stringMatching(/^cdk-s3files-lambda\.client-actions\.s3files-[0-9a-f]{12}$/), 'ClientMount']]);
    expect(JSON.stringify(t.Resources[idOf(t, 'AWS::EC2::Instance', 'Host')].Properties.UserData)).toMatch(/ 600 'ClientMount'/);
  });
});
