import { Annotations as CoreAnnotations, App, CfnResource, Names, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as autoscaling from 'aws-cdk-lib/aws-autoscaling';
import * as batch from 'aws-cdk-lib/aws-batch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as eks from 'aws-cdk-lib/aws-eks';
import * as eksv2 from 'aws-cdk-lib/aws-eks-v2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3files from 'aws-cdk-lib/aws-s3files';
import {
  aliasTargetKey, appendJobDefinitionVolumes, autoScalingGroupUserData, bucketNotificationsHandler, bucketNotificationsResource, clusterSecurityGroup,
  clusterVpc, directS3ReadOf, eksModuleOf, fargateProfileSelection, isImmutablePrincipal, jsiiTypeName, lambdaAutoSecurityGroup,
  launchTemplateConnections, patchTaskDefinitionVolumes, refuseAwsCdkReference, renderedProperties, renderSecurityGroupsLazily,
  subnetAvailabilityZone, warningsOf,
} from '../../src/private/compat';
import { eksVpc, importedCluster, importedClusterV2, newCluster, newClusterV2 } from '../util/eks';
import { FN, isolatedVpc, newStack } from '../util/template';

// One test per reliance on aws-cdk-lib behaviour that is not public API (src/private/compat.ts):
// when an aws-cdk-lib release changes one, the test that names it fails.

const AL2023 = ec2.MachineImage.latestAmazonLinux2023();
const MICRO = ec2.InstanceType.of(ec2.InstanceClass.T3, ec2.InstanceSize.MICRO);

describe('aws-cdk-lib internals the library relies on', () => {
  test('isImmutablePrincipal: an immutable or another account\'s imported role is an ImmutableRole that reports success and adds nothing', () => {
    const stack = new Stack(new App(), 'S', { env: { account: '111111111111', region: 'us-east-1' } });
    const fixed = iam.Role.fromRoleArn(stack, 'Fixed', 'arn:aws:iam::111111111111:role/fixed', { mutable: false });
    const foreign = iam.Role.fromRoleArn(stack, 'Foreign', 'arn:aws:iam::222222222222:role/theirs');
    const mutable = iam.Role.fromRoleArn(stack, 'Mutable', 'arn:aws:iam::111111111111:role/ours');
    const created = new iam.Role(stack, 'Created', { assumedBy: new iam.ServicePrincipal('ec2.amazonaws.com') });
    expect([fixed, foreign, mutable, created].map(isImmutablePrincipal)).toEqual([true, true, false, false]);
    // (what makes detection necessary: the immutable role says the statement was added)
    expect(fixed.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['s3files:ClientMount'], resources: ['*'] })).statementAdded).toBe(true);
  });

  test('lambdaAutoSecurityGroup: lambda.Function in a VPC without security groups makes its child SecurityGroup, described by its full path', () => {
    const stack = new Stack(new App(), 'S');
    const vpc = isolatedVpc(stack);
    const fn = new lambda.Function(stack, 'Fn', { ...FN, vpc });
    const sg = lambdaAutoSecurityGroup(fn);
    expect(sg?.groupDescription).toBe(`Automatic security group for Lambda Function ${Names.uniqueId(fn)}`);
    const own = new lambda.Function(stack, 'Own', { ...FN, vpc, securityGroups: [new ec2.SecurityGroup(stack, 'Sg', { vpc })] });
    expect(lambdaAutoSecurityGroup(own)).toBeUndefined();
  });

  test('refuseAwsCdkReference: lambda.FileSystem.fromS3FilesAccessPoint reads accessPointRef and batch.EcsVolume.efs reads fileSystemRef', () => {
    const stack = newStack();
    const refuse = (what: string) => () => { throw new Error(`refused ${what}`); };
    const ap = { node: stack.node, env: stack, stack } as object;
    refuseAwsCdkReference(ap, 'accessPointRef', refuse('access point'));
    expect(() => lambda.FileSystem.fromS3FilesAccessPoint(ap as never, '/mnt/x')).toThrow('refused access point');
    const fs = { node: stack.node, env: stack, stack } as object;
    refuseAwsCdkReference(fs, 'fileSystemRef', refuse('file system'));
    const job = new batch.EcsJobDefinition(stack, 'Job', {
      container: new batch.EcsFargateContainerDefinition(stack, 'C', {
        image: ecs.ContainerImage.fromRegistry('public.ecr.aws/docker/library/busybox:latest'),
        cpu: 0.25,
        memory: { toMebibytes: () => 512 } as never,
        volumes: [batch.EcsVolume.efs({ name: 'v', containerPath: '/mnt/v', fileSystem: fs as never })],
      }),
    });
    expect(() => Template.fromStack(Stack.of(job))).toThrow('refused file system');
  });

  test('directS3ReadOf: DirectS3Read keeps its mode in _mode and its bucket in _bucket; the mode is what the function renders', () => {
    const stack = newStack();
    const vpc = isolatedVpc(stack);
    const bucket = s3.Bucket.fromBucketName(stack, 'B', 'some-bucket');
    const cases: Array<[lambda.DirectS3Read, boolean]> = [
      [lambda.DirectS3Read.auto(), false], [lambda.DirectS3Read.disabled(), false],
      [lambda.DirectS3Read.enabledWithoutGrant(), false], [lambda.DirectS3Read.enabled(bucket), true],
    ];
    const files = new s3files.CfnFileSystem(stack, 'Files', { bucket: bucket.bucketArn, roleArn: 'arn:aws:iam::111111111111:role/r' });
    new s3files.CfnMountTarget(stack, 'Mt', { fileSystemId: files.attrFileSystemId, subnetId: vpc.isolatedSubnets[0].subnetId, securityGroups: [new ec2.SecurityGroup(stack, 'MtSg', { vpc }).securityGroupId] });
    cases.forEach(([value, wantsGrant], i) => {
      const fn = new lambda.Function(stack, `Fn${i}`, {
        ...FN,
        vpc,
        filesystem: lambda.FileSystem.fromS3FilesAccessPoint(
          new s3files.CfnAccessPoint(stack, `Ap${i}`, { fileSystemId: files.attrFileSystemId }), '/mnt/x', { directS3Read: value }),
      });
      const configs = (fn.node.defaultChild as lambda.CfnFunction).fileSystemConfigs;
      const rendered = Stack.of(fn).resolve(configs) as Array<{ s3FilesConfig?: { directS3Read?: string } }>;
      expect(directS3ReadOf(value)).toEqual({ mode: rendered[0].s3FilesConfig?.directS3Read, wantsGrant });
    });
  });

  test('jsiiTypeName: jsii keeps each class\'s name under Symbol.for(\'jsii.rtti\') (a DirectS3Read has no public member to tell it by)', () => {
    expect(jsiiTypeName(lambda.DirectS3Read.auto())).toBe('aws-cdk-lib.aws_lambda.DirectS3Read');
    expect(jsiiTypeName(lambda.DirectS3Read.enabled(s3.Bucket.fromBucketName(newStack(), 'B', 'some-bucket')))).toBe('aws-cdk-lib.aws_lambda.DirectS3Read');
    expect(jsiiTypeName(new iam.AccountPrincipal('111111111111'))).toBe('aws-cdk-lib.aws_iam.AccountPrincipal');
    expect([jsiiTypeName({ _mode: 'AUTO' }), jsiiTypeName('AUTO'), jsiiTypeName(undefined)]).toEqual([undefined, undefined, undefined]);
  });

  test('subnetAvailabilityZone: an imported subnet without its AZ throws from the getter', () => {
    const stack = newStack();
    const bare = ec2.Subnet.fromSubnetId(stack, 'Bare', 'subnet-0123456789abcdef0');
    expect(() => bare.availabilityZone).toThrow();
    expect(subnetAvailabilityZone(bare)).toBeUndefined();
    expect(subnetAvailabilityZone(ec2.Subnet.fromSubnetAttributes(stack, 'Known', { subnetId: 'subnet-1', availabilityZone: 'us-east-1a' }))).toBe('us-east-1a');
  });

  test('autoScalingGroupUserData: a group made from a launch template throws from its userData getter', () => {
    const stack = newStack();
    const vpc = isolatedVpc(stack);
    const template = new ec2.LaunchTemplate(stack, 'Lt', { machineImage: AL2023, instanceType: MICRO });
    const fromTemplate = new autoscaling.AutoScalingGroup(stack, 'FromLt', { vpc, launchTemplate: template });
    expect(() => fromTemplate.userData).toThrow();
    expect(autoScalingGroupUserData(fromTemplate)).toBeUndefined();
    const own = new autoscaling.AutoScalingGroup(stack, 'Own', { vpc, machineImage: AL2023, instanceType: MICRO });
    expect(autoScalingGroupUserData(own)).toBe(own.userData);
  });

  test('launchTemplateConnections: a launch template without a security group throws from its connections getter', () => {
    const stack = newStack();
    const vpc = isolatedVpc(stack);
    const bare = new ec2.LaunchTemplate(stack, 'Bare', { machineImage: AL2023 });
    expect(() => bare.connections).toThrow();
    expect(launchTemplateConnections(bare)).toBeUndefined();
    const withSg = new ec2.LaunchTemplate(stack, 'WithSg', { machineImage: AL2023, securityGroup: new ec2.SecurityGroup(stack, 'Sg', { vpc }) });
    expect(launchTemplateConnections(withSg)).toBe(withSg.connections);
  });

  test('aliasTargetKey: an alias of this app knows its key; an imported alias throws from the getter', () => {
    const stack = newStack();
    const key = new kms.Key(stack, 'Key');
    const alias = new kms.Alias(stack, 'Alias', { aliasName: 'alias/ours', targetKey: key });
    const imported = kms.Alias.fromAliasName(stack, 'Imported', 'alias/theirs');
    expect(() => imported.aliasTargetKey).toThrow();
    expect(aliasTargetKey(alias)).toBe(key);
    expect(aliasTargetKey(imported)).toBeUndefined();
    expect(aliasTargetKey(key)).toBeUndefined();
  });

  test('renderSecurityGroupsLazily: aws-cdk-lib renders a resource\'s groups once, so a group added later is missing without the override', () => {
    const stack = newStack();
    const vpc = isolatedVpc(stack);
    const late = () => new ec2.SecurityGroup(stack, `Late${stack.node.children.length}`, { vpc });
    const plain = new lambda.Function(stack, 'Plain', { ...FN, vpc });
    const lazy = new lambda.Function(stack, 'Lazy', { ...FN, vpc });
    renderSecurityGroupsLazily(lazy.node.defaultChild as lambda.CfnFunction, 'VpcConfig.SecurityGroupIds', lazy.connections);
    plain.connections.addSecurityGroup(late());
    lazy.connections.addSecurityGroup(late());
    const fns = Template.fromStack(stack).findResources('AWS::Lambda::Function');
    const groups = (prefix: string) => Object.entries(fns).find(([id]) => id.startsWith(prefix))![1].Properties.VpcConfig.SecurityGroupIds.length;
    expect(groups('Plain')).toBe(1);
    expect(groups('Lazy')).toBe(2);
  });

  test('patchTaskDefinitionVolumes: the task definition renders its volumes into the L1 `volumes` (by name), where the config is added', () => {
    const stack = newStack();
    const task = new ecs.FargateTaskDefinition(stack, 'Task');
    task.addVolume({ name: 'data' });
    patchTaskDefinitionVolumes(task.node.defaultChild as ecs.CfnTaskDefinition, (name) => (name === 'data' ? { fileSystemArn: 'arn' } : undefined));
    task.addVolume({ name: 'later' });
    const [volumes] = Object.values(Template.fromStack(stack).findResources('AWS::ECS::TaskDefinition')).map((r) => r.Properties.Volumes);
    expect(volumes).toEqual([{ Name: 'data', S3FilesVolumeConfiguration: { FileSystemArn: 'arn' } }, { Name: 'later' }]);
  });

  test('appendJobDefinitionVolumes: the Batch job definition renders its volumes into the L1 `containerProperties`, kept beside the appended ones', () => {
    const stack = newStack();
    const container = new batch.EcsFargateContainerDefinition(stack, 'C', {
      image: ecs.ContainerImage.fromRegistry('public.ecr.aws/docker/library/busybox:latest'), cpu: 0.25, memory: { toMebibytes: () => 512 } as never,
    });
    const job = new batch.EcsJobDefinition(stack, 'Job', { container });
    appendJobDefinitionVolumes(job.node.defaultChild as batch.CfnJobDefinition, () => [{ name: 'ours' }], () => [{ sourceVolume: 'ours', containerPath: '/mnt/ours' }]);
    container.addVolume(batch.EcsVolume.host({ name: 'theirs', containerPath: '/mnt/theirs' }));
    const props = Object.values(Template.fromStack(stack).findResources('AWS::Batch::JobDefinition'))[0].Properties.ContainerProperties;
    expect(props.Volumes.map((v: { Name: string }) => v.Name)).toEqual(['theirs', 'ours']);
    expect(props.MountPoints.map((m: { SourceVolume: string }) => m.SourceVolume)).toEqual(['theirs', 'ours']);
  });

  test('warningsOf: addWarningV2 appends " [ack: <id>]" to the message, which acknowledgeWarning matches', () => {
    const stack = newStack();
    CoreAnnotations.of(stack).addWarningV2('lib:one', 'first text');
    CoreAnnotations.of(stack).addWarningV2('other:two', 'second text');
    expect(warningsOf(stack, 'lib:')).toEqual([{ id: 'lib:one', text: 'first text' }]);
    CoreAnnotations.of(stack).acknowledgeWarning('lib:one');
    expect(warningsOf(stack, 'lib:')).toEqual([]);
  });

  test('clusterVpc, clusterSecurityGroup: an imported EKS cluster without its VPC or cluster security group id throws from the getter', () => {
    const stack = new Stack(new App(), 'S');
    const vpc = eksVpc(stack);
    const bare = eks.Cluster.fromClusterAttributes(stack, 'Bare', { clusterName: 'bare' });
    expect(() => bare.vpc).toThrow(/"vpc" is not defined for this imported cluster/);
    expect(() => bare.clusterSecurityGroup).toThrow(/"clusterSecurityGroup" is not defined for this imported cluster/);
    expect([clusterVpc(bare), clusterSecurityGroup(bare)]).toEqual([undefined, undefined]);
    const full = importedCluster(stack, vpc, 'Full');
    expect(clusterVpc(full)).toBe(vpc);
    expect(stack.resolve(clusterSecurityGroup(full)!.securityGroupId)).toBe('sg-0c1a57e5000000000');
    // AND so does aws-eks-v2's
    const bareV2 = eksv2.Cluster.fromClusterAttributes(stack, 'BareV2', { clusterName: 'bare-v2' });
    expect(() => bareV2.vpc).toThrow();
    expect(() => bareV2.clusterSecurityGroup).toThrow();
    expect([clusterVpc(bareV2), clusterSecurityGroup(bareV2)]).toEqual([undefined, undefined]);
    const fullV2 = importedClusterV2(stack, vpc, 'FullV2');
    expect(clusterVpc(fullV2)).toBe(vpc);
    expect(stack.resolve(clusterSecurityGroup(fullV2)!.securityGroupId)).toBe('sg-0c1a57e5000000000');
  });

  test('eksModuleOf: each module\'s clusters, created or imported, extend a ClusterBase it does not export, just above Resource below its Cluster class', () => {
    const stack = new Stack(new App(), 'S');
    const vpc = eksVpc(stack);
    expect(eksModuleOf(newCluster(stack, vpc))).toBe('aws-eks');
    expect(eksModuleOf(eks.Cluster.fromClusterAttributes(stack, 'ImportedV1', { clusterName: 'v1' }))).toBe('aws-eks');
    expect(eksModuleOf(newClusterV2(stack, vpc, {}, 'V2', false))).toBe('aws-eks-v2');
    expect(eksModuleOf(eksv2.Cluster.fromClusterAttributes(stack, 'ImportedV2', { clusterName: 'v2' }))).toBe('aws-eks-v2');
    // and nothing else: an L1, another module's resource, a plain object
    const l1 = new eksv2.CfnCluster(stack, 'L1', { resourcesVpcConfig: { subnetIds: ['subnet-1'] }, roleArn: 'arn:aws:iam::111111111111:role/eks' });
    expect([eksModuleOf(l1), eksModuleOf(vpc), eksModuleOf({ clusterName: 'x' }), eksModuleOf('x')]).toEqual([undefined, undefined, undefined, undefined]);
  });

  test('fargateProfileSelection: aws-eks keeps a Fargate profile\'s cluster and selectors only in its custom resource\'s Config', () => {
    const stack = new Stack(new App(), 'S');
    const cluster = newCluster(stack, eksVpc(stack));
    const profile = cluster.addFargateProfile('Batch', { selectors: [{ namespace: 'batch' }, { namespace: 'jobs', labels: { on: 'fargate' } }] });
    const selection = fargateProfileSelection(profile)!;
    expect(selection.selectors).toEqual([{ namespace: 'batch' }, { namespace: 'jobs', labels: { on: 'fargate' } }]);
    expect(stack.resolve(selection.clusterName)).toEqual(stack.resolve(cluster.clusterName));
  });

  test('bucketNotificationsResource, bucketNotificationsHandler: a bucket\'s notifications are a Custom::S3BucketNotifications below it, on the stack\'s singleton handler', () => {
    const stack = new Stack(new App(), 'S');
    const plain = new s3.Bucket(stack, 'Plain');
    expect([bucketNotificationsResource(plain), bucketNotificationsHandler(stack)]).toEqual([undefined, undefined]);
    const bucket = new s3.Bucket(stack, 'Data', { eventBridgeEnabled: true });
    const resource = bucketNotificationsResource(bucket)!;
    const handler = bucketNotificationsHandler(bucket)!;
    expect(stack.resolve((resource as any)._toCloudFormation().Resources)).toEqual({
      [stack.getLogicalId(resource)]: expect.objectContaining({
        Type: 'Custom::S3BucketNotifications',
        Properties: expect.objectContaining({
          ServiceToken: { 'Fn::GetAtt': [stack.getLogicalId(handler.node.defaultChild as CfnResource), 'Arn'] },
          Managed: true,
          NotificationConfiguration: { EventBridgeConfiguration: {} },
        }),
      }),
    });
  });

  test('renderedProperties: _toCloudFormation renders an L1\'s properties with its escape hatches, as the template has them', () => {
    const stack = new Stack(new App(), 'S');
    const bucket = new s3.Bucket(stack, 'Data', { versioned: true, encryption: s3.BucketEncryption.DSSE_MANAGED });
    const cfn = bucket.node.defaultChild as s3.CfnBucket;
    cfn.addPropertyOverride('VersioningConfiguration.Status', 'Suspended');
    cfn.bucketName = 'named';
    const props = renderedProperties(cfn);
    expect(props).toMatchObject({
      BucketName: 'named',
      VersioningConfiguration: { Status: 'Suspended' },
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms:dsse' } }] },
    });
    const [template] = Object.values(Template.fromStack(stack).findResources('AWS::S3::Bucket'));
    expect(props).toEqual(template.Properties);
  });
});
