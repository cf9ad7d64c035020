import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as eks from 'aws-cdk-lib/aws-eks';
import * as eksv2 from 'aws-cdk-lib/aws-eks-v2';
import * as iam from 'aws-cdk-lib/aws-iam';
import { EksMount, S3FilesAccessPoint, S3FilesFileSystem } from '../../src';
import { eksVpc, importedCluster, importedClusterV2, manifestsOf, newCluster, newClusterV2 } from '../util/eks';
import { warnings } from '../util/template';

// EKS, round two (issue 40, and issue 37 items 7 and 10 as they apply to EKS): what an EKS
// platform engineer met. Each test failed on the code before its fix (see the report of issue 40).

const ENV = { account: '111111111111', region: 'us-east-1' };
const VERSION = 'v3.0.0-eksbuild.1';
type Json = any;

function storage(stack: Stack, vpc: ec2.IVpc) {
  const fileSystem = new S3FilesFileSystem(stack, 'Files', { vpc, vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS } });
  return { fileSystem, accessPoint: fileSystem.addAccessPoint('Data', { path: '/data' }) };
}

function setUp(options: Partial<eks.ClusterProps> = {}) {
  const stack = new Stack(new App(), 'S', { env: ENV });
  const vpc = eksVpc(stack);
  return { stack, vpc, ...storage(stack, vpc), cluster: newCluster(stack, vpc, options) };
}

const ofType = (t: Template, type: string): Array<[string, Json]> => Object.entries(t.findResources(type));
function statementsOf(t: Template, rolePrefix: string): Json[] {
  return ofType(t, 'AWS::IAM::Policy').filter(([, p]) => JSON.stringify(p.Properties.Roles).includes(rolePrefix)).flatMap(([, p]) => p.Properties.PolicyDocument.Statement);
}
const NODE_ROLE = 'ClusterS3FilesCsiDriverNodeRole';
const volumes = (t: Template) => Object.values(manifestsOf(t.toJSON())).flat().filter((o: Json) => o.kind === 'PersistentVolume');

describe('40.1 a read-only volume holds', () => {
  test('the PersistentVolume carries `ro` in its mountOptions (the driver never sees csi.readOnly)', () => {
    const { stack, cluster, accessPoint } = setUp();
    EksMount.installDriver(cluster, { addonVersion: VERSION });
    EksMount.onCluster(cluster, accessPoint, { claimName: 'data', readOnly: true });
    EksMount.onCluster(cluster, accessPoint, { claimName: 'data', namespace: 'writer' });
    const [ro, rw] = volumes(Template.fromStack(stack));
    expect(ro.spec.mountOptions).toEqual(['ro']);
    expect(ro.spec.csi.readOnly).toBe(true);
    expect(rw.spec.mountOptions).toBeUndefined();
  });

  test('beside a storage class of the same file system, the node role is denied ClientWrite through the read-only volume\'s access point only', () => {
    const { stack, cluster, fileSystem, accessPoint } = setUp();
    EksMount.installDriver(cluster, { addonVersion: VERSION });
    EksMount.addStorageClass(cluster, fileSystem, { storageClassName: 's3files' });
    EksMount.onCluster(cluster, accessPoint, { claimName: 'data', readOnly: true });
    EksMount.onCluster(cluster, fileSystem.addAccessPoint('Logs', { path: '/logs' }), { claimName: 'logs' });
    const t = Template.fromStack(stack);
    const denies = statementsOf(t, NODE_ROLE).filter((s) => s.Effect === 'Deny');
    expect(denies).toEqual([{
      Action: 's3files:ClientWrite',
      Condition: { ArnEquals: { 's3files:AccessPointArn': { 'Fn::GetAtt': [expect.stringMatching(/^FilesData/), 'AccessPointArn'] } } },
      Effect: 'Deny',
      Resource: { 'Fn::GetAtt': [expect.stringMatching(/^Files[0-9A-F]{8}$/), 'FileSystemArn'] },
    }]);
    // AND no warning: the Deny holds the mount read-only
    expect(warnings(stack).join('\n')).not.toContain('readOnlySharedRole');
  });

  test('a read-write and a read-only volume of one access point: no Deny (the writer needs ClientWrite); the warning says what holds on a cluster', () => {
    for (const order of ['reader-first', 'writer-first']) {
      const { stack, cluster, accessPoint } = setUp();
      EksMount.installDriver(cluster, { addonVersion: VERSION });
      const reader = () => EksMount.onCluster(cluster, accessPoint, { claimName: 'reader', readOnly: true });
      const writer = () => EksMount.onCluster(cluster, accessPoint, { claimName: 'writer' });
      (order === 'reader-first' ? [reader, writer] : [writer, reader]).forEach((f) => f());
      const t = Template.fromStack(stack);
      expect({ order, denies: statementsOf(t, NODE_ROLE).filter((s) => s.Effect === 'Deny') }).toEqual({ order, denies: [] });
      const found = warnings(stack).filter((w) => w.includes('readOnlySharedRole'));
      expect(found).toHaveLength(1);
      expect(found[0]).toContain('The volume mounts read-only (`ro` in its mount options), but the driver\'s node role mounts every S3 Files volume of the cluster, so any other '
        + 'PersistentVolume on this access point (one a cluster user with rights to create volumes writes) mounts read-write. Mount the read-only data through an access point no '
        + 'read-write volume of this cluster uses: the library then denies the node role s3files:ClientWrite through it.');
      expect(found[0]).not.toContain('anything else running with that role');
    }
  });

  test('one node role of your own on two clusters, read-only on one and read-write on the other: no Deny that would stop the writer', () => {
    const { stack, vpc, cluster, accessPoint } = setUp();
    const nodeRole = new iam.Role(stack, 'Shared', { assumedBy: new iam.ServicePrincipal('pods.eks.amazonaws.com') });
    const other = importedCluster(stack, vpc, 'Other');
    EksMount.installDriver(cluster, { addonVersion: VERSION, nodeRole });
    EksMount.installDriver(other, { existingDriverVersion: '3.4.1', nodeRole });
    EksMount.onCluster(cluster, accessPoint, { claimName: 'data', readOnly: true });
    EksMount.onCluster(other, accessPoint, { claimName: 'data' });
    expect(statementsOf(Template.fromStack(stack), 'Shared').filter((s) => s.Effect === 'Deny')).toEqual([]);
  });
});

describe('40.2 a storage class goes through the mount pipeline', () => {
  test('the node role gets the reads that validate a mount, for the access points the controller creates', () => {
    const { stack, cluster, fileSystem } = setUp();
    EksMount.installDriver(cluster, { addonVersion: VERSION });
    EksMount.addStorageClass(cluster, fileSystem, { storageClassName: 's3files' });
    const fsArn = { 'Fn::GetAtt': [expect.stringMatching(/^Files[0-9A-F]{8}$/), 'FileSystemArn'] };
    expect(statementsOf(Template.fromStack(stack), NODE_ROLE)).toEqual(expect.arrayContaining([
      { Action: 's3files:GetAccessPoint', Effect: 'Allow', Resource: { 'Fn::Join': ['', [fsArn, '/access-point/*']] } },
      { Action: 's3files:ListMountTargets', Effect: 'Allow', Resource: fsArn },
    ]));
  });

  test('a node group in an AZ without a mount target is refused for a storage class too, naming the node group', () => {
    const stack = new Stack(new App(), 'S', { env: ENV });
    const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 3, natGateways: 1 });
    // mount targets in two of the three AZs
    const fileSystem = new S3FilesFileSystem(stack, 'Files', { vpc, vpcSubnets: { subnets: vpc.privateSubnets.slice(0, 2) } });
    const cluster = newCluster(stack, vpc, { defaultCapacity: 0 });
    cluster.addNodegroupCapacity('Nodes', { instanceTypes: [new ec2.InstanceType('m7g.large')] });
    EksMount.installDriver(cluster, { addonVersion: VERSION });
    EksMount.addStorageClass(cluster, fileSystem, { storageClassName: 's3files' });
    expect(() => Template.fromStack(stack)).toThrow(/S\/Cluster\/NodegroupNodes: invalid subnets \[.*\]: node group S\/Cluster\/NodegroupNodes has subnets in dummy1c, where S\/Files has no mount target/);
  });
});

describe('40.3 the controller has credentials whenever a storage class comes', () => {
  test('installDriver() creates the controller\'s role and Pod Identity association, and the add-on waits for them', () => {
    const { stack, cluster } = setUp();
    EksMount.installDriver(cluster, { addonVersion: VERSION });
    const t = Template.fromStack(stack);
    const [[associationId]] = ofType(t, 'AWS::EKS::PodIdentityAssociation').filter(([, r]) => r.Properties.ServiceAccount === 'efs-csi-controller-sa');
    const [, addon] = ofType(t, 'AWS::EKS::Addon').find(([, r]) => r.Properties.AddonName === 'aws-efs-csi-driver')!;
    expect(addon.DependsOn).toContain(associationId);
    // (its rights come with the first storage class)
    expect(statementsOf(t, 'ClusterS3FilesCsiDriverControllerRole')).toEqual([]);
  });
});

describe('40.4 a group id range the driver refuses is refused at synth', () => {
  test.each<[number, number, RegExp]>([
    [2000, 1000, /invalid gidRangeEnd 1000: it is not greater than `gidRangeStart` \(2000\), and the driver's controller answers every claim with "`gidRangeEnd` must be greater than `gidRangeStart`"/],
    [1000, 1000, /invalid gidRangeEnd 1000: it is not greater than `gidRangeStart` \(1000\)/],
    [0, 1000, /invalid gidRangeStart 0: the driver's controller answers every claim with "`gidRangeStart` must be greater than 0"/],
  ])('%i..%i', (gidRangeStart, gidRangeEnd, message) => {
    const { cluster, fileSystem } = setUp();
    EksMount.installDriver(cluster, { addonVersion: VERSION });
    expect(() => EksMount.addStorageClass(cluster, fileSystem, { storageClassName: 's3files', gidRangeStart, gidRangeEnd })).toThrow(message);
    expect(() => EksMount.addStorageClass(cluster, fileSystem, { storageClassName: 's3files', gidRangeStart: 1, gidRangeEnd: 2 })).not.toThrow();
  });
});

describe('40.5 the cluster shapes users run', () => {
  /** EKS Blueprints' "Karpenter on EKS Fargate": profiles for karpenter and kube-system, no node group in the app. */
  function karpenterOnFargate() {
    const stack = new Stack(new App(), 'S', { env: ENV });
    const vpc = eksVpc(stack);
    const cluster = newCluster(stack, vpc, { defaultCapacity: 0 });
    for (const ng of cluster.node.findAll().filter((c) => c instanceof eks.Nodegroup)) cluster.node.tryRemoveChild(ng.node.id);
    cluster.addFargateProfile('Karpenter', { selectors: [{ namespace: 'karpenter' }] });
    cluster.addFargateProfile('System', { selectors: [{ namespace: 'kube-system' }] });
    EksMount.installDriver(cluster, { addonVersion: VERSION });
    return { stack, vpc, cluster, ...storage(stack, vpc) };
  }

  test('Karpenter on Fargate: a claim in a namespace no profile selects synthesizes, and a warning says the nodes cannot be seen', () => {
    const { stack, cluster, accessPoint } = karpenterOnFargate();
    EksMount.onCluster(cluster, accessPoint, { claimName: 'data', namespace: 'app' });
    expect(() => Template.fromStack(stack)).not.toThrow();
    expect(warnings(stack).join('\n')).toMatch(/The library cannot see the nodes of S\/Cluster \(it has no managed node group, and no Auto Scaling group the library can tie to it \(Karpenter, `connectAutoScalingGroupCapacity\(\)`, or nodes added elsewhere\)\).*\[ack: cdk-s3files-lambda:eksNodesUnseen\]/);
  });

  test('Karpenter on Fargate: a storage class is refused, since the controller (kube-system) would run on Fargate', () => {
    const { stack, cluster, fileSystem } = karpenterOnFargate();
    EksMount.addStorageClass(cluster, fileSystem, { storageClassName: 's3files' });
    expect(() => Template.fromStack(stack)).toThrow(/invalid storageClassName "s3files": dynamic provisioning needs the driver's controller \(kube-system\/efs-csi-controller-sa\), and the Fargate profile S\/Cluster\/fargate-profile-System selects every pod of kube-system/);
  });

  test('nodeSecurityGroups: each group is let in over NFS, and an imported cluster without its cluster security group mounts through them', () => {
    const stack = new Stack(new App(), 'S', { env: ENV });
    const vpc = eksVpc(stack);
    const { accessPoint } = storage(stack, vpc);
    const karpenterNodes = ec2.SecurityGroup.fromSecurityGroupId(stack, 'KarpenterNodes', 'sg-0ca12e47e70000000');
    const cluster = importedCluster(stack, vpc, 'Cluster', false);
    EksMount.installDriver(cluster, { existingDriverVersion: '3.4.1', nodeSecurityGroups: [karpenterNodes] });
    EksMount.onCluster(cluster, accessPoint, { claimName: 'data' });
    const rules = ofType(Template.fromStack(stack), 'AWS::EC2::SecurityGroupIngress').filter(([, r]) => r.Properties.FromPort === 2049);
    expect(rules.map(([, r]) => r.Properties.SourceSecurityGroupId)).toContain('sg-0ca12e47e70000000');
  });

  test('a managed node group whose launch template sets security groups none of which is let in: refused naming it; named in nodeSecurityGroups, it passes', () => {
    const build = (named: boolean) => {
      const { stack, vpc, cluster, accessPoint } = setUp({ defaultCapacity: 0 });
      const nodes = new ec2.SecurityGroup(stack, 'NodeGroup', { vpc });
      const launchTemplate = new ec2.LaunchTemplate(stack, 'Template', { securityGroup: nodes });
      cluster.addNodegroupCapacity('Custom', { launchTemplateSpec: { id: launchTemplate.launchTemplateId!, version: launchTemplate.latestVersionNumber } });
      EksMount.installDriver(cluster, { addonVersion: VERSION, nodeSecurityGroups: named ? [nodes] : undefined });
      EksMount.onCluster(cluster, accessPoint, { claimName: 'data' });
      return () => Template.fromStack(stack);
    };
    expect(build(false)).toThrow(/S\/Cluster\/NodegroupCustom: invalid launchTemplate \[\{"Fn::GetAtt":\["NodeGroup[0-9A-F]{8}","GroupId"\]\}\]: its launch template sets the nodes' security groups, so "Amazon EKS doesn't add the cluster security group"/);
    expect(build(true)).not.toThrow();
  });
});

test('40.6 a node group in an AZ without a mount target: the error names the node group, its `subnets` and the subnets at fault', () => {
  const stack = new Stack(new App(), 'S', { env: ENV });
  const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 3, natGateways: 1 });
  const fileSystem = new S3FilesFileSystem(stack, 'Files', { vpc, vpcSubnets: { subnets: vpc.privateSubnets.slice(0, 2) } });
  const cluster = newCluster(stack, vpc, { defaultCapacity: 0 });
  cluster.addNodegroupCapacity('Wide', { subnets: { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS } });
  EksMount.installDriver(cluster, { addonVersion: VERSION });
  EksMount.onCluster(cluster, fileSystem.addAccessPoint('Data', { path: '/data' }), { claimName: 'data' });
  expect(() => Template.fromStack(stack)).toThrow(
    'S/Cluster/NodegroupWide: invalid subnets ["S/Vpc/PrivateSubnet3"]: node group S/Cluster/NodegroupWide has subnets in dummy1c, where S/Files has no mount target (it has mount '
    + 'targets in dummy1a, dummy1b), and a pod on a node there cannot mount. Fix: give node group S/Cluster/NodegroupWide subnets in dummy1a, dummy1b only, or add those AZs to the '
    + '`vpcSubnets` of S/Files.');
});

describe('40.7 aws-eks-v2', () => {
  test('an EKS Auto Mode cluster with its kubectl handler: the add-on and both associations, no agent (built in), the volume through its handler, NFS from its security group', () => {
    const stack = new Stack(new App(), 'S', { env: ENV });
    const vpc = eksVpc(stack);
    const { accessPoint } = storage(stack, vpc);
    const cluster = newClusterV2(stack, vpc);
    EksMount.installDriver(cluster, { addonVersion: VERSION });
    const volume = EksMount.onCluster(cluster, accessPoint, { claimName: 'data' });
    expect(volume.manifest).toBeInstanceOf(eksv2.KubernetesManifest);
    const t = Template.fromStack(stack);
    expect(ofType(t, 'AWS::EKS::Addon').map(([, r]) => r.Properties.AddonName)).toEqual(['aws-efs-csi-driver']);
    expect(ofType(t, 'AWS::EKS::PodIdentityAssociation').map(([, r]) => r.Properties.ServiceAccount).sort()).toEqual(['efs-csi-controller-sa', 'efs-csi-node-sa']);
    const [[pv]] = Object.values(manifestsOf(t.toJSON()));
    expect(pv.spec.csi.volumeHandle).toMatch(/^s3files:fs-[0-9a-f]+::fsap-[0-9a-f]+$/);
    const rules = ofType(t, 'AWS::EC2::SecurityGroupIngress').filter(([, r]) => r.Properties.FromPort === 2049);
    expect(rules.map(([, r]) => r.Properties.SourceSecurityGroupId)).toEqual(expect.arrayContaining([{ 'Fn::GetAtt': [expect.stringMatching(/^Cluster/), 'ClusterSecurityGroupId'] }]));
    expect(warnings(stack).join('\n')).toMatch(/cannot see the nodes of S\/Cluster \(EKS Auto Mode makes its nodes\)/);
  });

  test('without a kubectl handler: installDriver() needs none (AWS::EKS:: resources only); a volume or a storage class is refused, naming the fix', () => {
    const stack = new Stack(new App(), 'S', { env: ENV });
    const vpc = eksVpc(stack);
    const { fileSystem, accessPoint } = storage(stack, vpc);
    const cluster = newClusterV2(stack, vpc, {}, 'Cluster', false);
    EksMount.installDriver(cluster, { addonVersion: VERSION });
    expect(() => EksMount.onCluster(cluster, accessPoint, { claimName: 'data' })).toThrow(
      /S\/Cluster: invalid cluster "S\/Cluster": a PersistentVolume and its claim are Kubernetes objects, which CloudFormation has no resource type for, and this aws-eks-v2 cluster has no kubectl handler to apply them \(aws-eks-v2 creates one only on request\)\. Fix: give the cluster `kubectlProviderOptions` \(with a `kubectlLayer`\)/);
    expect(() => EksMount.addStorageClass(cluster, fileSystem, { storageClassName: 's3files' })).toThrow(/invalid cluster "S\/Cluster": a StorageClass is a Kubernetes object, which CloudFormation has no resource type for/);
    const imported = importedClusterV2(stack, vpc, 'Theirs', false);
    EksMount.installDriver(imported, { existingDriverVersion: '3.4.1' });
    expect(() => EksMount.onCluster(imported, accessPoint, { claimName: 'data' })).toThrow(/Fix: import the cluster with a `kubectlProvider`/);
  });

  test('an aws-eks-v2 FargateCluster gets the Fargate check: a claim in a namespace its profile selects is refused', () => {
    const stack = new Stack(new App(), 'S', { env: ENV });
    const vpc = eksVpc(stack);
    const { accessPoint } = storage(stack, vpc);
    const cluster = new eksv2.FargateCluster(stack, 'Cluster', { vpc, version: eksv2.KubernetesVersion.V1_36, kubectlProviderOptions: { kubectlLayer: kubectlLayer(stack) } });
    EksMount.installDriver(cluster, { addonVersion: VERSION });
    EksMount.onCluster(cluster, accessPoint, { claimName: 'data', namespace: 'default' });
    expect(() => Template.fromStack(stack)).toThrow(/invalid namespace "default": the Fargate profile S\/Cluster\/fargate-profile-default selects every pod of it/);
  });

  test('aws-eks-v2 managed node groups: the AZ check names the node group; all-Windows node groups are refused', () => {
    const stack = new Stack(new App(), 'S', { env: ENV });
    const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 3, natGateways: 1 });
    const fileSystem = new S3FilesFileSystem(stack, 'Files', { vpc, vpcSubnets: { subnets: vpc.privateSubnets.slice(0, 2) } });
    const cluster = newClusterV2(stack, vpc, { defaultCapacityType: eksv2.DefaultCapacityType.NODEGROUP, defaultCapacity: 0 });
    cluster.addNodegroupCapacity('Nodes', { subnets: { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS } });
    EksMount.installDriver(cluster, { addonVersion: VERSION });
    EksMount.onCluster(cluster, fileSystem.addAccessPoint('Data', { path: '/data' }), { claimName: 'data' });
    expect(() => Template.fromStack(stack)).toThrow(/S\/Cluster\/NodegroupNodes: invalid subnets \["S\/Vpc\/PrivateSubnet3"\]: node group S\/Cluster\/NodegroupNodes has subnets in dummy1c/);

    const windows = new Stack(new App(), 'S', { env: ENV });
    const wvpc = eksVpc(windows);
    const wcluster = newClusterV2(windows, wvpc, { defaultCapacityType: eksv2.DefaultCapacityType.NODEGROUP, defaultCapacity: 0 });
    wcluster.addNodegroupCapacity('Windows', { amiType: eksv2.NodegroupAmiType.WINDOWS_CORE_2022_X86_64, instanceTypes: [new ec2.InstanceType('m7i.large')] });
    EksMount.installDriver(wcluster, { addonVersion: VERSION });
    EksMount.onCluster(wcluster, storage(windows, wvpc).accessPoint, { claimName: 'data' });
    expect(() => Template.fromStack(windows)).toThrow(/S\/Cluster\/NodegroupWindows: invalid amiType "WINDOWS_CORE_2022_x86_64": the cluster's managed node groups are all Windows/);
  });

  test('EKS Auto Mode with a managed node group of its own: the agent add-on is asked for (Auto Mode has it built in, the node group does not)', () => {
    const build = (installPodIdentityAgent?: boolean) => {
      const stack = new Stack(new App(), 'S', { env: ENV });
      const vpc = eksVpc(stack);
      const cluster = newClusterV2(stack, vpc);
      cluster.addNodegroupCapacity('Gpu', { instanceTypes: [new ec2.InstanceType('g6.xlarge')] });
      EksMount.installDriver(cluster, { addonVersion: VERSION, installPodIdentityAgent });
      EksMount.onCluster(cluster, storage(stack, vpc).accessPoint, { claimName: 'data' });
      return () => Template.fromStack(stack);
    };
    expect(build()).toThrow(/invalid installPodIdentityAgent undefined: the cluster runs EKS Auto Mode, which has the EKS Pod Identity agent built in .*S\/Cluster\/NodegroupGpu/);
    expect(build(true)).not.toThrow();
  });

  test.each<[string, (s: Stack) => unknown, RegExp]>([
    ['an L1 CfnCluster', (s) => new eksv2.CfnCluster(s, 'L1', { resourcesVpcConfig: { subnetIds: ['subnet-1'] }, roleArn: 'arn:aws:iam::111111111111:role/eks' }),
      /S\/L1: invalid cluster "S\/L1": it is the L1 `CfnCluster`, whose VPC, security group and kubectl handler the library cannot read\. Fix: pass a `Cluster` of aws-eks or aws-eks-v2/],
    ['an ECS cluster', (s) => new (jest.requireActual('aws-cdk-lib/aws-ecs').Cluster)(s, 'Ecs'), /S\/Ecs: invalid cluster "S\/Ecs": it is not an Amazon EKS cluster/],
    ['a string', () => 'my-cluster', /EksMount\.installDriver: invalid cluster \(string\): it is not an Amazon EKS cluster/],
  ])('what is no EKS cluster is refused by name, in every language: %s', (_what, make, message) => {
    const stack = new Stack(new App(), 'S', { env: ENV });
    expect(() => EksMount.installDriver(make(stack) as never, { addonVersion: VERSION })).toThrow(message);
  });
});

function kubectlLayer(stack: Stack) {
  const { KubectlV36Layer } = jest.requireActual('@aws-cdk/lambda-layer-kubectl-v36');
  return new KubectlV36Layer(stack, 'Layer');
}

describe('issue 37 on EKS', () => {
  test('37.10 a file system of another account is refused, quoting the driver\'s docs', () => {
    const stack = new Stack(new App(), 'S', { env: ENV });
    const vpc = eksVpc(stack);
    const theirs = S3FilesFileSystem.fromFileSystemAttributes(stack, 'Theirs', {
      fileSystemArn: 'arn:aws:s3files:us-east-1:222222222222:file-system/fs-0123456789abcdef0',
      vpc,
      securityGroups: [ec2.SecurityGroup.fromSecurityGroupId(stack, 'Mt', 'sg-0123456789abcdef0')],
    });
    const cluster = newCluster(stack, vpc);
    EksMount.installDriver(cluster, { addonVersion: VERSION });
    const message = /invalid fileSystem "S\/Theirs": it is in account 222222222222 \(its ARN\) and the cluster in 111111111111: the Amazon EFS CSI driver mounts another account's file system for Amazon EFS only \("Cross account mount \(Amazon EFS only\)", its docs\/README\.md;/;
    expect(() => EksMount.onCluster(cluster, S3FilesAccessPoint.fromAccessPointAttributes(stack, 'Ap', { fileSystem: theirs, accessPointId: 'fsap-0123456789abcdef0' }), {
      claimName: 'data', grantDirectReads: false,
    })).toThrow(message);
    expect(() => EksMount.addStorageClass(cluster, theirs, { storageClassName: 's3files', grantDirectReads: false })).toThrow(message);
  });

  test('37.7 a change of rootAccess gives a new volume and claim, as readOnly does: pods remount with the rights they now have', () => {
    const names = (rootAccess: boolean) => {
      const { stack, cluster, accessPoint } = setUp();
      EksMount.installDriver(cluster, { addonVersion: VERSION });
      const volume = EksMount.onCluster(cluster, accessPoint, { claimName: 'data', rootAccess });
      return JSON.stringify([stack.resolve(volume.claimName), stack.resolve(volume.persistentVolumeName)]);
    };
    expect(names(true)).not.toEqual(names(false));
    expect(names(true)).toContain('-root');
  });
});
