import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as eks from 'aws-cdk-lib/aws-eks';
import * as iam from 'aws-cdk-lib/aws-iam';
import { EksMount, S3FilesAccessPoint, S3FilesFileSystem } from '../../src';
import { eksVpc, importedCluster, manifestsOf, newCluster } from '../util/eks';
import { warnings } from '../util/template';

const ENV = { account: '111111111111', region: 'us-east-1' };
const VERSION = 'v3.0.0-eksbuild.1';

function setUp(options: Partial<eks.ClusterProps> = {}) {
  const stack = new Stack(new App(), 'S', { env: ENV });
  const vpc = eksVpc(stack);
  const fileSystem = new S3FilesFileSystem(stack, 'Files', { vpc, vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS } });
  const accessPoint = fileSystem.addAccessPoint('Data', { path: '/data' });
  const cluster = newCluster(stack, vpc, options);
  return { stack, vpc, fileSystem, accessPoint, cluster };
}

type Json = any;
const ofType = (t: Template, type: string): Array<[string, Json]> => Object.entries(t.findResources(type));
function statementsOf(t: Template, rolePrefix: string): Json[] {
  return ofType(t, 'AWS::IAM::Policy')
    .filter(([, p]) => JSON.stringify(p.Properties.Roles).includes(rolePrefix))
    .flatMap(([, p]) => p.Properties.PolicyDocument.Statement);
}

describe('EksMount.installDriver', () => {
  test('the aws-efs-csi-driver add-on at the version given, after the node role\'s Pod Identity association and the Pod Identity agent', () => {
    // GIVEN / WHEN
    const { stack, cluster } = setUp();
    EksMount.installDriver(cluster, { addonVersion: VERSION });
    // THEN
    const t = Template.fromStack(stack);
    const addons = Object.fromEntries(ofType(t, 'AWS::EKS::Addon').map(([id, r]) => [r.Properties.AddonName, { id, ...r }]));
    expect(addons['aws-efs-csi-driver'].Properties.AddonVersion).toBe(VERSION);
    const [[associationId, association]] = ofType(t, 'AWS::EKS::PodIdentityAssociation').filter(([, r]) => r.Properties.ServiceAccount === 'efs-csi-node-sa');
    expect(association.Properties).toEqual({
      ClusterName: { Ref: expect.stringMatching(/^Cluster/) },
      Namespace: 'kube-system',
      ServiceAccount: 'efs-csi-node-sa',
      RoleArn: { 'Fn::GetAtt': [expect.stringMatching(/^ClusterS3FilesCsiDriverNodeRole/), 'Arn'] },
    });
    // the pods start with credentials: the add-on waits for the association and the agent
    expect(addons['aws-efs-csi-driver'].DependsOn).toEqual(expect.arrayContaining([associationId, addons['eks-pod-identity-agent'].id]));
    // the role is EKS Pod Identity's (the EKS user guide's trust policy)
    const [, role] = ofType(t, 'AWS::IAM::Role').find(([id]) => id.startsWith('ClusterS3FilesCsiDriverNodeRole'))!;
    expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      { Action: ['sts:AssumeRole', 'sts:TagSession'], Effect: 'Allow', Principal: { Service: 'pods.eks.amazonaws.com' } },
    ]);
    // the controller's role and association too (a storage class may come in a later deployment), its rights only with a storage class
    const [[controllerId, controller]] = ofType(t, 'AWS::EKS::PodIdentityAssociation').filter(([, r]) => r.Properties.ServiceAccount === 'efs-csi-controller-sa');
    expect(controller.Properties.RoleArn).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^ClusterS3FilesCsiDriverControllerRole/), 'Arn'] });
    expect(addons['aws-efs-csi-driver'].DependsOn).toContain(controllerId);
    expect(statementsOf(t, 'ClusterS3FilesCsiDriverControllerRole')).toEqual([]);
  });

  test('a driver already on the cluster: no add-on, the associations all the same; an imported cluster gets no agent unless asked', () => {
    const stack = new Stack(new App(), 'S', { env: ENV });
    const vpc = eksVpc(stack);
    EksMount.installDriver(importedCluster(stack, vpc, 'Theirs'), { existingDriverVersion: '3.4.1' });
    EksMount.installDriver(importedCluster(stack, vpc, 'Asked'), { existingDriverVersion: 'v3.0.1', installPodIdentityAgent: true });
    const t = Template.fromStack(stack);
    expect(ofType(t, 'AWS::EKS::Addon').map(([, r]) => r.Properties)).toEqual([{ AddonName: 'eks-pod-identity-agent', ClusterName: 'asked-cluster' }]);
    expect(ofType(t, 'AWS::EKS::PodIdentityAssociation').map(([, r]) => `${r.Properties.ClusterName} ${r.Properties.ServiceAccount}`)).toEqual([
      'theirs-cluster efs-csi-node-sa', 'theirs-cluster efs-csi-controller-sa', 'asked-cluster efs-csi-node-sa', 'asked-cluster efs-csi-controller-sa',
    ]);
  });

  test('roles of your own: granted, with no association created for them; an agent add-on of your own is not duplicated', () => {
    const { stack, cluster, accessPoint } = setUp();
    new eks.Addon(stack, 'Agent', { cluster, addonName: 'eks-pod-identity-agent' });
    const nodeRole = new iam.Role(stack, 'MyNodeRole', { assumedBy: new iam.ServicePrincipal('pods.eks.amazonaws.com') });
    const controllerRole = new iam.Role(stack, 'MyControllerRole', { assumedBy: new iam.ServicePrincipal('pods.eks.amazonaws.com') });
    EksMount.installDriver(cluster, { addonVersion: VERSION, nodeRole, controllerRole });
    EksMount.onCluster(cluster, accessPoint, { claimName: 'data' });
    const t = Template.fromStack(stack);
    expect(ofType(t, 'AWS::EKS::PodIdentityAssociation')).toEqual([]);
    expect(ofType(t, 'AWS::EKS::Addon').filter(([, r]) => r.Properties.AddonName === 'eks-pod-identity-agent')).toHaveLength(1);
    expect(statementsOf(t, 'MyNodeRole')).toEqual(expect.arrayContaining([expect.objectContaining({ Action: ['s3files:ClientMount', 's3files:ClientWrite'] })]));
  });

  test.each<[string, (c: eks.ICluster) => void, RegExp]>([
    ['an add-on below 3.0.0', (c) => EksMount.installDriver(c, { addonVersion: 'v2.1.9-eksbuild.1' }),
      /S\/Cluster: invalid addonVersion "v2.1.9-eksbuild.1": "Amazon S3 Files support in Amazon EFS CSI driver starts from version 3.0.0" \(EKS user guide\)\. Fix: use version 3\.0\.0 or later \(e\.g\. "v3\.0\.0-eksbuild\.1"\)\./],
    ['a driver already there below 3.0.0', (c) => EksMount.installDriver(c, { existingDriverVersion: '2.1.8' }),
      /invalid existingDriverVersion "2.1.8": .*starts from version 3\.0\.0.*Fix: use version 3\.0\.0 or later \(e\.g\. "3\.4\.1"\), upgrading the driver first\./],
    ['an add-on version in another format', (c) => EksMount.installDriver(c, { addonVersion: '3.0.0' }),
      /invalid addonVersion "3.0.0": it is not a version of the Amazon EFS CSI driver\. Fix: use a version such as "v3\.0\.0-eksbuild\.1"\./],
    ['neither version', (c) => EksMount.installDriver(c, {}),
      /invalid addonVersion undefined: give either the add-on version to install \(`addonVersion`\) or the version of the driver the cluster already runs \(`existingDriverVersion`\)/],
    ['both versions', (c) => EksMount.installDriver(c, { addonVersion: VERSION, existingDriverVersion: '3.4.1' }), /give either the add-on version/],
    ['twice on one cluster', (c) => { EksMount.installDriver(c, { addonVersion: VERSION }); EksMount.installDriver(c, { addonVersion: VERSION }); },
      /invalid cluster "S\/Cluster": the Amazon EFS CSI driver of this cluster is already declared/],
  ])('refused at synth: %s', (_what, act, message) => {
    const stack = new Stack(new App(), 'S', { env: ENV });
    expect(() => act(importedCluster(stack, eksVpc(stack)))).toThrow(message);
  });
});

describe('EksMount.onCluster', () => {
  test('a PersistentVolume on the access point and a claim bound to it, created once the access point and the mount targets are available', () => {
    // GIVEN
    const { stack, cluster, accessPoint } = setUp();
    EksMount.installDriver(cluster, { addonVersion: VERSION });
    // WHEN
    const volume = EksMount.onCluster(cluster, accessPoint, { claimName: 'data', namespace: 'app' });
    // THEN the objects, with the ids made concrete
    const t = Template.fromStack(stack);
    const manifests = manifestsOf(t.toJSON());
    const [[manifestId, [pv, pvc]]] = Object.entries(manifests);
    const ap = /^fsap-[0-9a-f]{17}$/;
    expect(pv.metadata.name).toMatch(/^s3files\.app\.data-fsap-[0-9a-f]{17}$/);
    expect(pv.spec).toEqual({
      capacity: { storage: '5Gi' },
      volumeMode: 'Filesystem',
      accessModes: ['ReadWriteMany'],
      persistentVolumeReclaimPolicy: 'Retain',
      storageClassName: '',
      claimRef: { namespace: 'app', name: pvc.metadata.name },
      csi: { driver: 'efs.csi.aws.com', volumeHandle: expect.stringMatching(/^s3files:fs-0123456789abcdef0::fsap-[0-9a-f]{17}$/) },
      nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/os', operator: 'In', values: ['linux'] }] }] } },
    });
    expect(pvc.metadata).toEqual(expect.objectContaining({ namespace: 'app', name: expect.stringMatching(/^data-fsap-[0-9a-f]{17}$/) }));
    expect(pvc.spec).toEqual({ accessModes: ['ReadWriteMany'], storageClassName: '', volumeName: pv.metadata.name, resources: { requests: { storage: '5Gi' } } });
    expect(pv.spec.csi.volumeHandle.split('::')[1]).toMatch(ap);
    // AND what the method returns names the same objects
    expect(stack.resolve(volume.claimName)).toEqual({ 'Fn::Join': ['', ['data-', { 'Fn::GetAtt': [expect.stringMatching(/^FilesData/), 'AccessPointId'] }]] });
    expect(volume.namespace).toBe('app');
    // AND it waits for the access point and the mount targets, and for the driver
    const dependsOn = t.toJSON().Resources[manifestId].DependsOn;
    expect(dependsOn).toEqual(expect.arrayContaining([
      expect.stringMatching(/^FilesMountTargetsAvailable/), expect.stringMatching(/^FilesFileSystemPolicy/), expect.stringMatching(/^ClusterS3FilesCsiDriverAddon/),
    ]));
  });

  test('the node role: the client actions through the access point only, what validates a mount, direct reads and amazon-efs-utils\' telemetry', () => {
    const { stack, cluster, accessPoint } = setUp();
    EksMount.installDriver(cluster, { addonVersion: VERSION });
    EksMount.onCluster(cluster, accessPoint, { claimName: 'data' });
    const statements = statementsOf(Template.fromStack(stack), 'ClusterS3FilesCsiDriverNodeRole');
    expect(statements).toEqual(expect.arrayContaining([
      {
        Action: ['s3files:ClientMount', 's3files:ClientWrite'],
        Condition: { ArnEquals: { 's3files:AccessPointArn': { 'Fn::GetAtt': [expect.stringMatching(/^FilesData/), 'AccessPointArn'] } } },
        Effect: 'Allow',
        Resource: { 'Fn::GetAtt': [expect.stringMatching(/^Files[0-9A-F]{8}$/), 'FileSystemArn'] },
      },
      expect.objectContaining({ Action: 's3files:GetAccessPoint' }),
      expect.objectContaining({ Action: ['s3:GetObject', 's3:GetObjectVersion'] }),
      expect.objectContaining({ Action: 's3:ListBucket' }),
      expect.objectContaining({ Action: 'cloudwatch:PutMetricData' }),
    ]));
  });

  test('read-only: ClientMount only, ClientWrite denied through the access point, and a read-only mount (`ro`; the driver serves no ReadOnlyMany)', () => {
    const { stack, cluster, accessPoint } = setUp();
    EksMount.installDriver(cluster, { addonVersion: VERSION });
    EksMount.onCluster(cluster, accessPoint, { claimName: 'data', readOnly: true, grantDirectReads: false });
    const t = Template.fromStack(stack);
    const [[, [pv]]] = Object.entries(manifestsOf(t.toJSON()));
    expect(pv.spec.mountOptions).toEqual(['ro']);
    expect(pv.spec.csi.readOnly).toBe(true);
    expect(pv.spec.accessModes).toEqual(['ReadWriteMany']);
    expect(pv.metadata.name).toMatch(/^s3files\.default\.data-fsap-[0-9a-f]{17}-ro$/);
    const statements = statementsOf(t, 'ClusterS3FilesCsiDriverNodeRole');
    const allowed = statements.filter((st) => st.Effect === 'Allow');
    expect(allowed).toEqual(expect.arrayContaining([expect.objectContaining({ Action: 's3files:ClientMount' })]));
    expect(JSON.stringify(allowed)).not.toMatch(/ClientWrite|s3:GetObject/);
    expect(statements.filter((st) => st.Effect === 'Deny').map((st) => st.Action)).toEqual(['s3files:ClientWrite']);
  });

  test('network: one NFS rule from the cluster security group, however many volumes and storage classes', () => {
    const { stack, cluster, accessPoint, fileSystem } = setUp();
    EksMount.installDriver(cluster, { addonVersion: VERSION });
    EksMount.onCluster(cluster, accessPoint, { claimName: 'data' });
    EksMount.onCluster(cluster, fileSystem.addAccessPoint('Logs', { path: '/logs' }), { claimName: 'logs' });
    EksMount.onCluster(cluster, accessPoint, { claimName: 'data', namespace: 'other' });
    EksMount.addStorageClass(cluster, fileSystem, { storageClassName: 's3files' });
    const rules = ofType(Template.fromStack(stack), 'AWS::EC2::SecurityGroupIngress').filter(([, r]) => r.Properties.FromPort === 2049);
    // the file system's own rule (client group) and the cluster's
    expect(rules.map(([, r]) => r.Properties.SourceSecurityGroupId)).toEqual(expect.arrayContaining([
      { 'Fn::GetAtt': [expect.stringMatching(/^Cluster[0-9A-F]{8}$/), 'ClusterSecurityGroupId'] },
    ]));
    expect(rules).toHaveLength(2);
  });

  test.each<[string, (s: ReturnType<typeof setUp>) => void, RegExp]>([
    ['no driver declared', (s) => EksMount.onCluster(s.cluster, s.accessPoint, { claimName: 'data' }),
      /S\/Cluster: invalid cluster "S\/Cluster": the library does not know how the Amazon EFS CSI driver \(3\.0\.0 or later\) runs on this cluster\. Fix: call `EksMount\.installDriver\(\)` first/],
    ['a claim name that is no DNS label', (s) => { EksMount.installDriver(s.cluster, { addonVersion: VERSION }); EksMount.onCluster(s.cluster, s.accessPoint, { claimName: 'My_Data' }); },
      /invalid claimName "My_Data": Kubernetes names are lower-case letters, digits and "-", starting and ending with a letter or digit, at most 63 characters/],
    ['the same claim twice', (s) => {
      EksMount.installDriver(s.cluster, { addonVersion: VERSION });
      EksMount.onCluster(s.cluster, s.accessPoint, { claimName: 'data' });
      EksMount.onCluster(s.cluster, s.accessPoint, { claimName: 'data' });
    }, /invalid claimName "data": the cluster already has an S3 Files claim of that name in namespace default/],
  ])('refused: %s', (_what, act, message) => {
    const s = setUp();
    expect(() => act(s)).toThrow(message);
  });
});

describe('refusals at synth: where S3 Files does not mount', () => {
  test('a Fargate-only cluster: a claim in a namespace its profile selects is refused; elsewhere its pods need nodes the library cannot see (a warning)', () => {
    const build = (namespace: string) => {
      const stack = new Stack(new App(), 'S', { env: ENV });
      const vpc = eksVpc(stack);
      const fileSystem = new S3FilesFileSystem(stack, 'Files', { vpc, vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS } });
      const { KubectlV36Layer } = jest.requireActual('@aws-cdk/lambda-layer-kubectl-v36');
      const cluster = new eks.FargateCluster(stack, 'Cluster', { vpc, version: eks.KubernetesVersion.V1_36, kubectlLayer: new KubectlV36Layer(stack, 'Layer') });
      EksMount.installDriver(cluster, { addonVersion: VERSION });
      EksMount.onCluster(cluster, fileSystem.addAccessPoint('Data', { path: '/data' }), { claimName: 'data', namespace });
      return stack;
    };
    expect(() => Template.fromStack(build('default'))).toThrow(
      /S\/Cluster: invalid namespace "default": the Fargate profile S\/Cluster\/fargate-profile-default selects every pod of it, so the pods of claim "data" run on Fargate, and "EKS Fargate doesn't support S3 Files" \(EKS user guide\)/);
    const app = build('app');
    expect(() => Template.fromStack(app)).not.toThrow();
    expect(warnings(app).join('\n')).toContain('cdk-s3files-lambda:eksNodesUnseen');
  });

  test('a claim in a namespace a Fargate profile selects (the profile is the target); a profile with labels, or another namespace, passes', () => {
    const build = (labels: Record<string, string> | undefined, namespace: string) => {
      const s = setUp();
      s.cluster.addFargateProfile('Batch', { selectors: [{ namespace: 'batch', labels }] });
      EksMount.installDriver(s.cluster, { addonVersion: VERSION });
      EksMount.onCluster(s.cluster, s.accessPoint, { claimName: 'data', namespace });
      return () => Template.fromStack(s.stack);
    };
    expect(build(undefined, 'batch')).toThrow(
      /invalid namespace "batch": the Fargate profile S\/Cluster\/fargate-profile-Batch selects every pod of it, so the pods of claim "data" run on Fargate, and "EKS Fargate doesn't support S3 Files".*Fix: put the claim in a namespace no Fargate profile selects/);
    expect(build({ compute: 'fargate' }, 'batch')).not.toThrow();
    expect(build(undefined, 'app')).not.toThrow();
  });

  test('a cluster whose managed node groups are all Windows', () => {
    const s = setUp({ defaultCapacity: 0 });
    s.cluster.addNodegroupCapacity('Windows', { amiType: eks.NodegroupAmiType.WINDOWS_CORE_2022_X86_64, instanceTypes: [new ec2.InstanceType('m7i.large')] });
    EksMount.installDriver(s.cluster, { addonVersion: VERSION });
    EksMount.onCluster(s.cluster, s.accessPoint, { claimName: 'data' });
    expect(() => Template.fromStack(s.stack)).toThrow(
      /S\/Cluster\/NodegroupWindows: invalid amiType "WINDOWS_CORE_2022_x86_64": the cluster's managed node groups are all Windows, and "The Amazon EFS CSI driver isn't compatible with Windows-based container images" \(EKS user guide\)\. Fix: add a node group with a Linux AMI type/);
    // AND with a Linux node group beside it, the volume's node affinity keeps the pods on Linux
    const mixed = setUp();
    mixed.cluster.addNodegroupCapacity('Windows', { amiType: eks.NodegroupAmiType.WINDOWS_CORE_2022_X86_64, instanceTypes: [new ec2.InstanceType('m7i.large')] });
    EksMount.installDriver(mixed.cluster, { addonVersion: VERSION });
    EksMount.onCluster(mixed.cluster, mixed.accessPoint, { claimName: 'data' });
    expect(() => Template.fromStack(mixed.stack)).not.toThrow();
  });

  test('a cluster in another VPC than the mount targets', () => {
    const stack = new Stack(new App(), 'S', { env: ENV });
    const fileSystem = new S3FilesFileSystem(stack, 'Files', { vpc: eksVpc(stack, 'StorageVpc'), vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS } });
    const cluster = newCluster(stack, eksVpc(stack, 'ClusterVpc'));
    EksMount.installDriver(cluster, { addonVersion: VERSION });
    expect(() => EksMount.onCluster(cluster, fileSystem.addAccessPoint('Data', { path: '/data' }), { claimName: 'data' })).toThrow(
      /S\/Cluster: invalid vpc "S\/ClusterVpc": the cluster is in another VPC than the mount targets of S\/Files \(S\/StorageVpc\): "Your EKS cluster must be in the same VPC as your mount target" \(S3 user guide\)\. Fix: create the cluster in the file system's `vpc`/);
    expect(() => EksMount.addStorageClass(cluster, fileSystem, { storageClassName: 's3files' })).toThrow(/invalid vpc "S\/ClusterVpc"/);
  });

  test('a cluster in another region than the file system', () => {
    const stack = new Stack(new App(), 'S', { env: { ...ENV, region: 'eu-west-1' } });
    const vpc = eksVpc(stack);
    const fileSystem = S3FilesFileSystem.fromFileSystemAttributes(stack, 'Theirs', {
      fileSystemArn: 'arn:aws:s3files:us-east-1:111111111111:file-system/fs-0123456789abcdef0', vpc, securityGroups: [ec2.SecurityGroup.fromSecurityGroupId(stack, 'Mt', 'sg-0123456789abcdef0')],
    });
    const accessPoint = S3FilesAccessPoint.fromAccessPointAttributes(stack, 'Ap', { fileSystem, accessPointId: 'fsap-0123456789abcdef0' });
    const cluster = importedCluster(stack, vpc);
    EksMount.installDriver(cluster, { existingDriverVersion: '3.4.1' });
    expect(() => EksMount.onCluster(cluster, accessPoint, { claimName: 'data', grantDirectReads: false })).toThrow(
      /invalid fileSystem "S\/Theirs": it is in us-east-1 \(its ARN\) and S in eu-west-1, and clients mount a file system only from a VPC in its region\. Fix: mount it in a stack of us-east-1\./);
    expect(() => EksMount.addStorageClass(cluster, fileSystem, { storageClassName: 's3files', grantDirectReads: false })).toThrow(/invalid fileSystem "S\/Theirs": it is in us-east-1/);
  });

  test('an imported cluster without its cluster security group: the nodes could not be let in', () => {
    const stack = new Stack(new App(), 'S', { env: ENV });
    const vpc = eksVpc(stack);
    const fileSystem = new S3FilesFileSystem(stack, 'Files', { vpc, vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS } });
    const cluster = importedCluster(stack, vpc, 'Cluster', false);
    EksMount.installDriver(cluster, { existingDriverVersion: '3.4.1' });
    expect(() => EksMount.onCluster(cluster, fileSystem.addAccessPoint('Data', { path: '/data' }), { claimName: 'data' })).toThrow(
      /invalid clusterSecurityGroupId undefined: the nodes reach the mount targets through the cluster security group, which this imported cluster was given without, and no `nodeSecurityGroups` were given\. Fix: give `clusterSecurityGroupId` to `Cluster\.fromClusterAttributes\(\)`, or the nodes' groups in `nodeSecurityGroups`/);
  });
});

describe('EksMount.addStorageClass', () => {
  test('a StorageClass with the driver\'s S3 Files parameters', () => {
    const { stack, cluster, fileSystem } = setUp();
    EksMount.installDriver(cluster, { addonVersion: VERSION });
    const sc = EksMount.addStorageClass(cluster, fileSystem, {
      storageClassName: 's3files', directoryPerms: '750', basePath: '/dynamic', gidRangeStart: 1000, gidRangeEnd: 2000, subPathPattern: '${.PVC.namespace}/${.PVC.name}',
    });
    const t = Template.fromStack(stack);
    const [[id, [storageClass]]] = Object.entries(manifestsOf(t.toJSON())).filter(([k]) => k.includes('StorageClass'));
    expect(storageClass).toEqual({
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: 's3files', labels: expect.any(Object) },
      provisioner: 'efs.csi.aws.com',
      parameters: {
        provisioningMode: 's3files-ap',
        fileSystemId: 'fs-0123456789abcdef0',
        directoryPerms: '750',
        basePath: '/dynamic',
        gidRangeStart: '1000',
        gidRangeEnd: '2000',
        subPathPattern: '${.PVC.namespace}/${.PVC.name}',
      },
    });
    expect(sc.storageClassName).toBe('s3files');
    expect(t.toJSON().Resources[id].DependsOn).toEqual(expect.arrayContaining([expect.stringMatching(/^FilesMountTargetsAvailable/), expect.stringMatching(/^ClusterS3FilesCsiDriverAddon/)]));
  });

  test('the controller: AmazonS3FilesCSIDriverPolicy scoped to this file system where its resource types allow; its association before the add-on', () => {
    const { stack, cluster, fileSystem } = setUp();
    EksMount.installDriver(cluster, { addonVersion: VERSION });
    EksMount.addStorageClass(cluster, fileSystem, { storageClassName: 's3files' });
    EksMount.addStorageClass(cluster, fileSystem, { storageClassName: 's3files-other', uid: 1000, gid: 1000 });
    const t = Template.fromStack(stack);
    const fsArn = { 'Fn::GetAtt': [expect.stringMatching(/^Files[0-9A-F]{8}$/), 'FileSystemArn'] };
    const tagged = { 'Null': { 'aws:RequestTag/efs.csi.aws.com/cluster': 'false' }, 'ForAllValues:StringEquals': { 'aws:TagKeys': 'efs.csi.aws.com/cluster' } };
    expect(statementsOf(t, 'ClusterS3FilesCsiDriverControllerRole')).toEqual([
      { Action: ['s3files:ListAccessPoints', 's3files:ListFileSystems'], Effect: 'Allow', Resource: '*' },
      { Action: 's3files:CreateAccessPoint', Condition: tagged, Effect: 'Allow', Resource: fsArn },
      { Action: 's3files:TagResource', Condition: { StringEquals: { 's3files:CreateAction': 'CreateAccessPoint' }, ...tagged }, Effect: 'Allow', Resource: '*' },
      { Action: 's3files:DeleteAccessPoint', Condition: { Null: { 'aws:ResourceTag/efs.csi.aws.com/cluster': 'false' } }, Effect: 'Allow', Resource: { 'Fn::Join': ['', [fsArn, '/access-point/*']] } },
    ]);
    const associations = ofType(t, 'AWS::EKS::PodIdentityAssociation');
    const controller = associations.find(([, r]) => r.Properties.ServiceAccount === 'efs-csi-controller-sa')!;
    const [, addon] = ofType(t, 'AWS::EKS::Addon').find(([, r]) => r.Properties.AddonName === 'aws-efs-csi-driver')!;
    expect(addon.DependsOn).toContain(controller[0]);
    // AND the nodes mount through any access point of the file system (never its root)
    expect(statementsOf(t, 'ClusterS3FilesCsiDriverNodeRole')).toEqual(expect.arrayContaining([{
      Action: ['s3files:ClientMount', 's3files:ClientWrite'],
      Condition: { ArnLike: { 's3files:AccessPointArn': { 'Fn::Join': ['', [fsArn, '/access-point/*']] } } },
      Effect: 'Allow',
      Resource: fsArn,
    }]));
  });

  test('grant() renders the controller\'s actions on their documented resource types, and refuses the account-wide listing', () => {
    const { stack, fileSystem } = setUp();
    const role = new iam.Role(stack, 'Controller', { assumedBy: new iam.ServicePrincipal('pods.eks.amazonaws.com') });
    fileSystem.grant(role, 's3files:CreateAccessPoint', 's3files:DeleteAccessPoint', 's3files:ListAccessPoints', 's3files:TagResource');
    const fsArn = { 'Fn::GetAtt': [expect.stringMatching(/^Files[0-9A-F]{8}$/), 'FileSystemArn'] };
    const aps = { 'Fn::Join': ['', [fsArn, '/access-point/*']] };
    expect(statementsOf(Template.fromStack(stack), 'Controller')).toEqual(expect.arrayContaining([
      { Action: 's3files:CreateAccessPoint', Effect: 'Allow', Resource: fsArn },
      { Action: ['s3files:DeleteAccessPoint', 's3files:ListAccessPoints'], Effect: 'Allow', Resource: aps },
      { Action: 's3files:TagResource', Effect: 'Allow', Resource: [aps, fsArn] },
    ]));
    expect(() => fileSystem.grant(role, 's3files:ListFileSystems')).toThrow(
      /invalid actions "s3files:ListFileSystems": it lists the account's file systems, which no one file system scopes, so it cannot be granted on one file system\. Fix: add the statement yourself/);
  });

  test.each<[string, (s: ReturnType<typeof setUp>) => void, RegExp]>([
    ['one end of the gid range', (s) => EksMount.addStorageClass(s.cluster, s.fileSystem, { storageClassName: 's3files', gidRangeStart: 1000 }),
      /invalid gidRangeStart 1000: the driver takes a custom group id range only with both ends/],
    ['a name that is no DNS subdomain', (s) => EksMount.addStorageClass(s.cluster, s.fileSystem, { storageClassName: 'S3 Files' }), /invalid storageClassName "S3 Files"/],
    ['a negative uid', (s) => EksMount.addStorageClass(s.cluster, s.fileSystem, { storageClassName: 's3files', uid: -1 }), /invalid uid -1: POSIX ids must be integers/],
  ])('refused: %s', (_what, act, message) => {
    const s = setUp();
    EksMount.installDriver(s.cluster, { addonVersion: VERSION });
    expect(() => act(s)).toThrow(message);
  });
});

test('an imported cluster with a kubectl provider: the same manifests, through its provider', () => {
  const stack = new Stack(new App(), 'S', { env: ENV });
  const vpc = eksVpc(stack);
  const fileSystem = new S3FilesFileSystem(stack, 'Files', { vpc, vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS } });
  const cluster = importedCluster(stack, vpc);
  EksMount.installDriver(cluster, { existingDriverVersion: '3.4.1' });
  EksMount.onCluster(cluster, fileSystem.addAccessPoint('Data', { path: '/data' }), { claimName: 'data' });
  const t = Template.fromStack(stack);
  const [[, manifest]] = ofType(t, 'Custom::AWSCDK-EKS-KubernetesResource');
  expect(manifest.Properties.ServiceToken).toBe('arn:aws:lambda:us-east-1:111111111111:function:kubectl-provider');
  expect(manifest.Properties.ClusterName).toBe('cluster-cluster');
  // the nodes are not in this app: a warning says their AZs and security groups could not be checked
  expect(warnings(stack).join('\n')).toMatch(/The library cannot see the nodes of S\/Cluster \(it is imported\).*cannot check that the nodes' AZs have mount targets.*\[ack: cdk-s3files-lambda:eksNodesUnseen\]/);
});

test('a VPC of the same construct id in another stack is not taken for the nodes\' VPC (their subnets resolve alike)', () => {
  // GIVEN an earlier stack of the app with a VPC named 'Vpc' too
  const app = new App();
  eksVpc(new Stack(app, 'Earlier', { env: ENV }));
  const stack = new Stack(app, 'S', { env: ENV });
  const vpc = eksVpc(stack);
  const fileSystem = new S3FilesFileSystem(stack, 'Files', { vpc, vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS } });
  const cluster = newCluster(stack, vpc);
  EksMount.installDriver(cluster, { addonVersion: VERSION });
  // WHEN / THEN the mount is not refused for "another VPC"
  expect(() => EksMount.onCluster(cluster, fileSystem.addAccessPoint('Data', { path: '/data' }), { claimName: 'data' })).not.toThrow();
});
