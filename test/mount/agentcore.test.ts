import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as agentcore from 'aws-cdk-lib/aws-bedrockagentcore';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { AgentCoreMount, S3FilesAccessPoint, S3FilesFileSystem } from '../../src';
import { byPrefix, isolatedVpc, newStack, only } from '../util/template';

const ARTIFACT = agentcore.AgentRuntimeArtifact.fromImageUri('123456789012.dkr.ecr.us-east-1.amazonaws.com/agent:latest');

function withRuntime(vpcMode = true) {
  const stack = newStack();
  const vpc = isolatedVpc(stack);
  const fileSystem = new S3FilesFileSystem(stack, 'Files', { vpc });
  const accessPoint = fileSystem.addAccessPoint('Memory', { path: '/memory' });
  const runtime = new agentcore.Runtime(stack, 'Agent', {
    runtimeName: 'agent',
    agentRuntimeArtifact: ARTIFACT,
    networkConfiguration: vpcMode
      ? agentcore.RuntimeNetworkConfiguration.usingVpc(stack, { vpc, vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED } })
      : agentcore.RuntimeNetworkConfiguration.usingPublicNetwork(),
  });
  return { stack, fileSystem, accessPoint, runtime };
}

describe('AgentCoreMount.onRuntime', () => {
  test('adds the S3 Files access point to FilesystemConfigurations, grants the execution role, joins the client group, waits', () => {
    // GIVEN
    const { stack, accessPoint, runtime } = withRuntime();
    // WHEN
    AgentCoreMount.onRuntime(runtime, accessPoint, { mountPath: '/mnt/memory' });
    // THEN
    const t = Template.fromStack(stack);
    const [, rt] = only(t, 'AWS::BedrockAgentCore::Runtime');
    expect(rt.Properties.FilesystemConfigurations).toEqual([
      { S3FilesAccessPoint: { AccessPointArn: { 'Fn::GetAtt': [expect.stringMatching(/^FilesMemory/), 'AccessPointArn'] }, MountPath: '/mnt/memory' } },
    ]);
    expect(rt.Properties.NetworkConfiguration.NetworkModeConfig.SecurityGroups)
      .toEqual(expect.arrayContaining([{ 'Fn::GetAtt': [expect.stringMatching(/^FilesClientSecurityGroup/), 'GroupId'] }]));
    const [waiterId] = byPrefix(t, 'Custom::S3FilesMountTargetsAvailable', 'FilesMountTargetsAvailable');
    expect(rt.DependsOn).toEqual(expect.arrayContaining([waiterId]));
    const statements = Object.values(t.findResources('AWS::IAM::Policy'))
      .filter((p: any) => JSON.stringify(p.Properties.Roles).includes('AgentExecutionRole'))
      .flatMap((p: any) => p.Properties.PolicyDocument.Statement);
    expect(statements).toEqual(expect.arrayContaining([
      expect.objectContaining({ Action: ['s3files:ClientMount', 's3files:ClientWrite'] }),
      expect.objectContaining({ Action: 's3files:GetAccessPoint' }),
      expect.objectContaining({ Action: 's3files:ListMountTargets' }),
    ]));
    const [, role] = byPrefix(t, 'AWS::IAM::Role', 'AgentExecutionRole');
    expect(JSON.stringify(role.Properties.Tags ?? [])).not.toContain('s3files-client-');
  });

  test.each<[string, boolean, (s: Stack, ap: S3FilesAccessPoint, rt: agentcore.Runtime) => void, RegExp]>([
    ['a runtime on the public network', false, (_s, ap, rt) => AgentCoreMount.onRuntime(rt, ap),
      /TestStack\/Agent: invalid networkConfiguration "PUBLIC": the runtime reaches the mount targets only from inside their VPC/],
    ['a mount path outside /mnt', true, (_s, ap, rt) => AgentCoreMount.onRuntime(rt, ap, { mountPath: '/data' }),
      /invalid mountPath "\/data": AgentCore mounts file systems at \/mnt\/<name>/],
    ['two mounts at one path', true, (_s, ap, rt) => {
      AgentCoreMount.onRuntime(rt, ap);
      AgentCoreMount.onRuntime(rt, (ap.fileSystem as S3FilesFileSystem).addAccessPoint('Other', { path: '/other' }));
    }, /invalid mountPath "\/mnt\/s3files": the runtime already mounts a file system there/],
    ['a sixth file system', true, (_s, ap, rt) => {
      const files = ap.fileSystem as S3FilesFileSystem;
      for (let i = 0; i < 6; i++) AgentCoreMount.onRuntime(rt, files.addAccessPoint(`Ap${i}`, { path: `/ap${i}` }), { mountPath: `/mnt/ap${i}` });
    }, /invalid filesystemConfigurations .*the runtime already mounts 5 file systems, the most AgentCore allows/],
  ])('refuses %s', (_what, vpcMode, build, message) => {
    const { stack, accessPoint, runtime } = withRuntime(vpcMode);
    expect(() => build(stack, accessPoint, runtime)).toThrow(message);
  });
});
