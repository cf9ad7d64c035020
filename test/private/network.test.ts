import { App, NestedStack, Stack, Stage } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { EcsMount, IS3FilesAccessPoint, LambdaMount, S3FilesAccessPoint, S3FilesFileSystem } from '../../src';
import { changeSet, Template as CfnTemplate } from '../lifecycle/cfn';
import { docsText } from '../util/docs';
import { FN } from '../util/template';

// Issue 37 item 1: clients that share a security group share the NFS rule it needs. EC2 refuses a
// second identical ingress (InvalidPermission.Duplicate), so two such rules fail the deployment.

const MOUNT_TARGETS = 'sg-0123456789abcdef0';
const SHARED = 'sg-0aaaaaaaaaaaaaaaa';

/** A stack with an imported VPC and an imported file system known by its mount targets' group (no client group). */
function consumer(scope: Construct, id: string, props: { stackName?: string } = {}) {
  const stack = new Stack(scope, id, props);
  const vpc = ec2.Vpc.fromVpcAttributes(stack, 'Vpc', {
    vpcId: 'vpc-0123456789abcdef0', availabilityZones: ['us-east-1a'], isolatedSubnetIds: ['subnet-0aaaaaaaaaaaaaaaa'],
  });
  const fileSystem = S3FilesFileSystem.fromFileSystemAttributes(stack, 'Theirs', {
    fileSystemId: 'fs-0123456789abcdef0', vpc, securityGroups: [ec2.SecurityGroup.fromSecurityGroupId(stack, 'MtSg', MOUNT_TARGETS)],
  });
  const accessPoint = S3FilesAccessPoint.fromAccessPointAttributes(stack, 'Ap', { fileSystem, accessPointId: 'fsap-0123456789abcdef0' });
  return { stack, vpc, accessPoint };
}

/** A function of the user's in `group`, mounting `accessPoint`. */
function mountedFunction(stack: Stack, id: string, vpc: ec2.IVpc, group: ec2.ISecurityGroup, accessPoint: IS3FilesAccessPoint): void {
  const fn = new lambda.Function(stack, id, { ...FN, vpc, securityGroups: [group], vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED } });
  LambdaMount.onFunction(fn, accessPoint, { directS3Read: lambda.DirectS3Read.disabled() });
}

const nfsRules = (t: Template, type: string) => Object.entries<any>(t.findResources(type)).filter(([, r]) => r.Properties.FromPort === 2049);

describe('NFS rules for clients of a file system known by its mount targets\' groups (issue 37 item 1)', () => {
  test('two functions in one security group render one ingress (and one egress for a group without all outbound), as aws-cdk-lib\'s own rules do', () => {
    // GIVEN a Reader and a Writer sharing one security group
    const { stack, vpc, accessPoint } = consumer(new App(), 'Consumer');
    const shared = ec2.SecurityGroup.fromSecurityGroupId(stack, 'Shared', SHARED, { allowAllOutbound: false });
    // WHEN both mount
    mountedFunction(stack, 'Reader', vpc, shared, accessPoint);
    mountedFunction(stack, 'Writer', vpc, shared, accessPoint);
    // THEN one rule each way, between the two groups
    const t = Template.fromStack(stack);
    const ingress = nfsRules(t, 'AWS::EC2::SecurityGroupIngress');
    expect(ingress.map(([, r]) => [r.Properties.GroupId, r.Properties.SourceSecurityGroupId])).toEqual([[MOUNT_TARGETS, SHARED]]);
    expect(nfsRules(t, 'AWS::EC2::SecurityGroupEgress').map(([, r]) => [r.Properties.GroupId, r.Properties.DestinationSecurityGroupId])).toEqual([[SHARED, MOUNT_TARGETS]]);
    // AND aws-cdk-lib's connections make one rule for the same two clients too (the behaviour this matches)
    const cdk = new Stack(new App(), 'Cdk');
    const mt = new ec2.Connections({ securityGroups: [ec2.SecurityGroup.fromSecurityGroupId(cdk, 'MtSg', MOUNT_TARGETS)], defaultPort: ec2.Port.tcp(2049) });
    const group = ec2.SecurityGroup.fromSecurityGroupId(cdk, 'Shared', SHARED);
    mt.allowDefaultPortFrom(new ec2.Connections({ securityGroups: [group] }), 'Reader');
    mt.allowDefaultPortFrom(new ec2.Connections({ securityGroups: [group] }), 'Writer');
    expect(nfsRules(Template.fromStack(cdk), 'AWS::EC2::SecurityGroupIngress')).toHaveLength(1);
  });

  test('the rules\' logical ids depend neither on the order clients are added in nor on a Stage around the stack', () => {
    const build = (order: string[], inStage: boolean) => {
      const app = new App();
      const { stack, vpc, accessPoint } = consumer(inStage ? new Stage(app, 'Prod') : app, 'Consumer', { stackName: 'Consumer' });
      const shared = ec2.SecurityGroup.fromSecurityGroupId(stack, 'Shared', SHARED, { allowAllOutbound: false });
      for (const id of order) mountedFunction(stack, id, vpc, shared, accessPoint);
      return Template.fromStack(stack).toJSON() as CfnTemplate;
    };
    const first = build(['Reader', 'Writer'], false);
    const rules = (t: CfnTemplate) => Object.keys(t.Resources).filter((id) => /^AWS::EC2::SecurityGroup(Ingress|Egress)$/.test(t.Resources[id].Type)).sort();
    expect(rules(first)).toHaveLength(2);
    for (const other of [build(['Writer', 'Reader'], false), build(['Reader', 'Writer'], true), build(['Writer'], false)]) {
      expect(rules(other)).toEqual(rules(first));
      const change = changeSet(first, other);
      expect(rules(first).filter((id) => change.replaced.includes(id) || change.updated.includes(id))).toEqual([]);
    }
    // (none of them is named after a client)
    expect(rules(first).filter((id) => /Reader|Writer/.test(id))).toEqual([]);
  });

  test('a function and a Fargate service in two stacks with one imported group: refused at synth, naming both clients', () => {
    // GIVEN the same client group in a Lambda function of one stack and a Fargate service of another
    const app = new App();
    const one = consumer(app, 'Consumer');
    mountedFunction(one.stack, 'Reader', one.vpc, ec2.SecurityGroup.fromSecurityGroupId(one.stack, 'Shared', SHARED), one.accessPoint);
    const other = consumer(app, 'Workers');
    const taskDefinition = new ecs.FargateTaskDefinition(other.stack, 'Task');
    taskDefinition.addContainer('app', { image: ecs.ContainerImage.fromRegistry('public.ecr.aws/docker/library/busybox:stable') });
    const service = new ecs.FargateService(other.stack, 'Service', {
      cluster: new ecs.Cluster(other.stack, 'Cluster', { vpc: other.vpc }),
      taskDefinition,
      securityGroups: [ec2.SecurityGroup.fromSecurityGroupId(other.stack, 'Shared', SHARED)],
      vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
    });
    // WHEN the service mounts, THEN the error names the rule, both clients and both stacks
    expect(() => EcsMount.onService(service, other.accessPoint, { grantDirectReads: false })).toThrow(
      'Workers/Service: invalid securityGroups "Workers/Shared": the ECS service would add the NFS rule from sg-0aaaaaaaaaaaaaaaa to sg-0123456789abcdef0 in stack Workers, and the '
      + 'function Consumer/Reader adds the same rule in stack Consumer: EC2 refuses a second identical rule (InvalidPermission.Duplicate), so one of the deployments fails. '
      + 'Fix: mount both clients from one stack, give one of them a security group of its own, or give `clientSecurityGroup` (a group the mount targets admit) to '
      + '`S3FilesFileSystem.fromFileSystemAttributes()` so that clients join it instead of adding rules.',
    );
  });

  test('a group of the app shared by clients of a stack and of its nested stack (two templates) is refused too; different groups are not', () => {
    const app = new App();
    const { stack, vpc, accessPoint } = consumer(app, 'Consumer');
    const group = new ec2.SecurityGroup(stack, 'Clients', { vpc });
    mountedFunction(stack, 'Reader', vpc, group, accessPoint);
    const nested = new NestedStack(stack, 'Jobs');
    mountedFunction(nested, 'Other', vpc, new ec2.SecurityGroup(nested, 'Own', { vpc }), accessPoint);
    expect(() => mountedFunction(nested, 'Writer', vpc, group, accessPoint))
      .toThrow(/Consumer\/Jobs\/Writer: invalid securityGroups "Consumer\/Clients": the function would add the NFS rule .* and the function Consumer\/Reader adds the same rule in stack Consumer:/);
  });

  test('groups of two nested stacks with the same construct ids are two groups: two rules, whatever the order', () => {
    const build = (order: number[]) => {
      const app = new App();
      const groups = new Stack(app, 'Groups');
      const vpc = ec2.Vpc.fromVpcAttributes(groups, 'Vpc', { vpcId: 'vpc-0123456789abcdef0', availabilityZones: ['us-east-1a'], isolatedSubnetIds: ['subnet-0aaaaaaaaaaaaaaaa'] });
      const made = [new NestedStack(groups, 'One'), new NestedStack(groups, 'Two')].map((n) => new ec2.SecurityGroup(n, 'Clients', { vpc }));
      const { stack, vpc: clientVpc, accessPoint } = consumer(app, 'Consumer');
      for (const i of order) mountedFunction(stack, `Fn${i}`, clientVpc, made[i], accessPoint);
      return Object.keys(Template.fromStack(stack).findResources('AWS::EC2::SecurityGroupIngress')).sort();
    };
    const first = build([0, 1]);
    expect(first).toHaveLength(2);
    expect(build([1, 0])).toEqual(first);
  });

  test('the docs say what these tests show', () => {
    const docs = docsText();
    expect(docs).toMatch(/One ingress \(and egress\) per pair of groups in a stack, under one construct of the stack \(`cdk-s3files-lambda.NfsRules`\), keyed by the two groups as CloudFormation sees them \(not by client or order, so a Stage move keeps them\); two stacks \(a nested one included\) that would each add the same rule are a synth-time error naming both clients/);
    expect(docs).toMatch(/which get a rule per client security group, shared by\s+the clients of a stack in that group; two stacks adding the same rule is a synth-time error/);
    expect(docs).toMatch(/moved from under each client to one construct per stack \(`cdk-s3files-lambda.NfsRules`\), one rule\s+per pair of security groups/);
  });
});
