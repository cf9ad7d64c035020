import * as crypto from 'crypto';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as autoscaling from 'aws-cdk-lib/aws-autoscaling';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as eks from 'aws-cdk-lib/aws-eks';
import { EksMount, S3FilesAccessPoint, S3FilesFileSystem } from '../../src';
import { eksVpc, importedCluster, manifestsOf, newCluster } from '../util/eks';
import { warnings } from '../util/template';

// What an adversarial review of EksMount found (each failed on the code before its fix): names of
// cluster-wide objects, immutable Kubernetes fields, state shared across clusters, storage-class
// parameters the driver would refuse at run time, and the refusals' wording.

const ENV = { account: '111111111111', region: 'us-east-1' };
const VERSION = 'v3.0.0-eksbuild.1';
type Json = any;

function setUp() {
  const stack = new Stack(new App(), 'S', { env: ENV });
  const vpc = eksVpc(stack);
  const fileSystem = new S3FilesFileSystem(stack, 'Files', { vpc, vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS } });
  const accessPoint = fileSystem.addAccessPoint('Data', { path: '/data' });
  const cluster = newCluster(stack, vpc);
  return { stack, vpc, fileSystem, accessPoint, cluster };
}

/** The PersistentVolume and claim names each volume manifest applies, by logical id. */
function volumeNames(stack: Stack): Record<string, { pv: string; pvc: string }> {
  const out: Record<string, { pv: string; pvc: string }> = {};
  for (const [id, objects] of Object.entries(manifestsOf(Template.fromStack(stack).toJSON()))) {
    const pv = objects.find((o: Json) => o.kind === 'PersistentVolume');
    const pvc = objects.find((o: Json) => o.kind === 'PersistentVolumeClaim');
    if (pv) out[id] = { pv: pv.metadata.name, pvc: pvc.metadata.name };
  }
  return out;
}

describe('volume names', () => {
  test('claims of two namespaces never share a PersistentVolume name (volumes are cluster-wide)', () => {
    const { stack, cluster, accessPoint } = setUp();
    EksMount.installDriver(cluster, { addonVersion: VERSION });
    // "team-a" + "data" and "team" + "a-data" once joined to the same "s3files-team-a-data-<ap>"
    const a = EksMount.onCluster(cluster, accessPoint, { namespace: 'team-a', claimName: 'data' });
    const b = EksMount.onCluster(cluster, accessPoint, { namespace: 'team', claimName: 'a-data' });
    const names = Object.values(volumeNames(stack)).map((n) => n.pv);
    expect(names).toHaveLength(2);
    expect(new Set(names).size).toBe(2);
    expect(stack.resolve(a.persistentVolumeName)).not.toEqual(stack.resolve(b.persistentVolumeName));
  });

  test('a change of readOnly gives a new volume and claim (a PersistentVolume\'s source and a claim\'s volumeName are immutable)', () => {
    const build = (readOnly: boolean) => {
      const { stack, cluster, accessPoint } = setUp();
      EksMount.installDriver(cluster, { addonVersion: VERSION });
      const volume = EksMount.onCluster(cluster, accessPoint, { claimName: 'data', readOnly });
      return { names: volumeNames(stack), claim: JSON.stringify(stack.resolve(volume.claimName)) };
    };
    const rw = build(false);
    const ro = build(true);
    // the same resource (updated in place by kubectl apply, which prunes the old pair) ...
    expect(Object.keys(ro.names)).toEqual(Object.keys(rw.names));
    const [id] = Object.keys(rw.names);
    // ... applying objects of other names, the claim the workloads reference included
    expect(ro.names[id].pv).not.toBe(rw.names[id].pv);
    expect(ro.names[id].pvc).not.toBe(rw.names[id].pvc);
    expect(ro.claim).not.toBe(rw.claim);
  });
});

test('a Cluster of this app gets its own Pod Identity agent, whatever an imported cluster of the same stack was given first', () => {
  for (const order of ['imported-first', 'new-first']) {
    const stack = new Stack(new App(), 'S', { env: ENV });
    const vpc = eksVpc(stack);
    const old = importedCluster(stack, vpc, 'Old');
    const cluster = newCluster(stack, vpc, {}, 'New');
    const install = [
      () => EksMount.installDriver(old, { existingDriverVersion: '3.4.1', installPodIdentityAgent: true }),
      () => EksMount.installDriver(cluster, { addonVersion: VERSION }),
    ];
    (order === 'imported-first' ? install : install.reverse()).forEach((f) => f());
    const addons = Object.entries<Json>(Template.fromStack(stack).findResources('AWS::EKS::Addon'));
    const agents = addons.filter(([, r]) => r.Properties.AddonName === 'eks-pod-identity-agent');
    expect(agents.map(([, r]) => stack.resolve(r.Properties.ClusterName))).toEqual(expect.arrayContaining(['old-cluster', { Ref: expect.stringMatching(/^New/) }]));
    // the driver add-on of the new cluster waits for that cluster's agent
    const [, driver] = addons.find(([, r]) => r.Properties.AddonName === 'aws-efs-csi-driver')!;
    const [newAgentId] = agents.find(([, r]) => r.Properties.ClusterName.Ref !== undefined)!;
    expect(driver.DependsOn).toContain(newAgentId);
  }
});

describe('an imported file system', () => {
  const imported = (stack: Stack, vpc: ec2.IVpc, region = 'us-east-1', securityGroups = false) => S3FilesFileSystem.fromFileSystemAttributes(stack, 'Theirs', {
    fileSystemArn: `arn:aws:s3files:${region}:111111111111:file-system/fs-0123456789abcdef0`,
    vpc,
    clientSecurityGroup: ec2.SecurityGroup.fromSecurityGroupId(stack, 'Client', 'sg-0c11e57000000000a'),
    ...(securityGroups ? { securityGroups: [ec2.SecurityGroup.fromSecurityGroupId(stack, 'Mt', 'sg-0123456789abcdef0')] } : {}),
  });

  test('with a client group only: the refusal says the nodes cannot join it and asks for the mount targets\' groups; given those, it mounts', () => {
    const stack = new Stack(new App(), 'S', { env: ENV });
    const vpc = eksVpc(stack);
    const fileSystem = imported(stack, vpc);
    const accessPoint = S3FilesAccessPoint.fromAccessPointAttributes(stack, 'Ap', { fileSystem, accessPointId: 'fsap-0123456789abcdef0' });
    const cluster = newCluster(stack, vpc);
    EksMount.installDriver(cluster, { addonVersion: VERSION });
    expect(() => EksMount.onCluster(cluster, accessPoint, { claimName: 'data', grantDirectReads: false })).toThrow(
      'S/Cluster/S3FilesCsiDriver: invalid fileSystem "S/Theirs": mounting it needs what it was imported without: `securityGroups` (the mount targets\' groups), to let the cluster in over NFS '
      + '(it cannot join a `clientSecurityGroup`: the library adds a rule to the mount targets\' groups instead). Fix: give it to `S3FilesFileSystem.fromFileSystemAttributes()`.');
    // (a storage class goes through the same pipeline, and meets the same refusal)
    expect(() => EksMount.addStorageClass(cluster, fileSystem, { storageClassName: 's3files', grantDirectReads: false })).toThrow(
      'S/Cluster/S3FilesCsiDriver: invalid fileSystem "S/Theirs": mounting it needs what it was imported without: `securityGroups` (the mount targets\' groups), to let the cluster in over NFS '
      + '(it cannot join a `clientSecurityGroup`: the library adds a rule to the mount targets\' groups instead). Fix: give it to `S3FilesFileSystem.fromFileSystemAttributes()`.');

    const ok = new Stack(new App(), 'S', { env: ENV });
    const okVpc = eksVpc(ok);
    const okFs = imported(ok, okVpc, 'us-east-1', true);
    const okCluster = newCluster(ok, okVpc);
    EksMount.installDriver(okCluster, { addonVersion: VERSION });
    EksMount.onCluster(okCluster, S3FilesAccessPoint.fromAccessPointAttributes(ok, 'Ap', { fileSystem: okFs, accessPointId: 'fsap-0123456789abcdef0' }), { claimName: 'data', grantDirectReads: false });
    const rules = Object.values<Json>(Template.fromStack(ok).findResources('AWS::EC2::SecurityGroupIngress')).filter((r) => r.Properties.FromPort === 2049);
    expect(rules.map((r) => r.Properties.GroupId)).toEqual(['sg-0123456789abcdef0']);
  });

  test('in another region: the region is the error, not the attributes it lacks', () => {
    const stack = new Stack(new App(), 'S', { env: ENV });
    const vpc = eksVpc(stack);
    const fileSystem = imported(stack, vpc, 'eu-west-1');
    const cluster = newCluster(stack, vpc);
    EksMount.installDriver(cluster, { addonVersion: VERSION });
    expect(() => EksMount.onCluster(cluster, S3FilesAccessPoint.fromAccessPointAttributes(stack, 'Ap', { fileSystem, accessPointId: 'fsap-0123456789abcdef0' }), { claimName: 'data' }))
      .toThrow(/invalid fileSystem "S\/Theirs": it is in eu-west-1 \(its ARN\) and S in us-east-1, and clients mount a file system only from a VPC in its region/);
  });
});

describe('storage classes', () => {
  let one: ReturnType<typeof setUp> | undefined;
  const shared = () => {
    if (!one) {
      one = setUp();
      EksMount.installDriver(one.cluster, { addonVersion: VERSION });
    }
    return one;
  };

  test('two storage classes of one file system must agree on grantDirectReads (one node role mounts both); agreeing, they pass', () => {
    for (const [first, second] of [[false, true], [true, false]]) {
      const { cluster, fileSystem } = setUp();
      EksMount.installDriver(cluster, { addonVersion: VERSION });
      EksMount.addStorageClass(cluster, fileSystem, { storageClassName: 'a', grantDirectReads: first });
      expect(() => EksMount.addStorageClass(cluster, fileSystem, { storageClassName: 'b', grantDirectReads: second })).toThrow(
        `S/Cluster: invalid grantDirectReads ${second}: another storage class of S/Files on this cluster has \`grantDirectReads\` ${first}, and one node role (the driver's) mounts the volumes of both. `
        + 'Fix: give every storage class of one file system on one cluster the same `grantDirectReads`.');
    }
    const { cluster, fileSystem } = setUp();
    EksMount.installDriver(cluster, { addonVersion: VERSION });
    EksMount.addStorageClass(cluster, fileSystem, { storageClassName: 'a', grantDirectReads: false });
    expect(() => EksMount.addStorageClass(cluster, fileSystem, { storageClassName: 'b', grantDirectReads: false })).not.toThrow();
  });

  test('the same storageClassName twice is refused by name', () => {
    const { cluster, fileSystem } = setUp();
    EksMount.installDriver(cluster, { addonVersion: VERSION });
    EksMount.addStorageClass(cluster, fileSystem, { storageClassName: 's3files' });
    expect(() => EksMount.addStorageClass(cluster, fileSystem, { storageClassName: 's3files' })).toThrow(
      'S/Cluster: invalid storageClassName "s3files": the cluster already has an S3 Files StorageClass of that name (StorageClasses are cluster-wide). Fix: give each storage class its own `storageClassName`.');
  });

  test.each<[string, { basePath?: string; subPathPattern?: string }, string | undefined]>([
    ['a basePath of 4 components (the driver adds a fifth)', { basePath: '/a/b/c/d' },
      'invalid basePath "/a/b/c/d": each access point\'s directory would be "/a/b/c/d/<PV name>", 5 components, and S3 Files allows at most 4. Fix: use fewer components in `basePath` and `subPathPattern` together.'],
    ['a hidden basePath component', { basePath: '.hidden' },
      'invalid basePath ".hidden": component ".hidden" starts with "." (S3 Files refuses hidden, "." and ".." components in an access point\'s path). Fix: rename the component so it does not start with ".".'],
    ['a basePath with ".."', { basePath: '/a/../b' }, 'component ".." starts with "."'],
    ['a basePath too long for the volume\'s name after it', { basePath: `/${'x'.repeat(59)}` },
      `invalid basePath "/${'x'.repeat(59)}": each access point's directory would be "/${'x'.repeat(59)}/<PV name>", at least 101 characters (a PV's name is 40), and S3 Files allows 100. Fix: shorten \`basePath\` or \`subPathPattern\`.`],
    ['a pattern ending in "/" (the id becomes a component of its own)', { basePath: '/a/b/c', subPathPattern: '${.PVC.namespace}/' },
      'invalid basePath "/a/b/c": each access point\'s directory would be "/a/b/c/${.PVC.namespace}/-<id>", 5 components, and S3 Files allows at most 4.'],
    ['a subPathPattern of 5 components', { subPathPattern: 'a/b/c/d/${.PVC.name}' }, '5 components, and S3 Files allows at most 4'],
    ['basePath and subPathPattern together over 4', { basePath: '/dynamic/team', subPathPattern: '${.PVC.namespace}/x/${.PVC.name}' }, '"/dynamic/team/${.PVC.namespace}/x/${.PVC.name}-<id>", 5 components'],
    ['a variable the driver does not replace', { subPathPattern: '${.PVC.labels.app}/${.PVC.name}' },
      'invalid subPathPattern "${.PVC.labels.app}/${.PVC.name}": the driver replaces only ${.PVC.name}, ${.PVC.namespace}, ${.PV.name}, and refuses a pattern with anything else in "${…}". Fix: use only those variables, e.g. "${.PVC.namespace}/${.PVC.name}".'],
    ['a pattern of slashes only (the driver\'s path.Join cleans them away)', { subPathPattern: '//' }, undefined],
    ['the shortest a basePath may be before the volume\'s name', { basePath: `/${'x'.repeat(58)}` }, undefined],
    ['the driver\'s own example: basePath and a namespace/name pattern', { basePath: '/dynamic_provisioning', subPathPattern: '${.PVC.namespace}/${.PVC.name}' }, undefined],
    ['a relative basePath (the driver joins it under "/")', { basePath: 'team/dynamic' }, undefined],
  ])('basePath and subPathPattern: %s', (what, options, message) => {
    // (one cluster for all the cases: each adds a storage class of its own name, and the checks run before anything is added)
    const { cluster, fileSystem } = shared();
    const act = () => EksMount.addStorageClass(cluster, fileSystem, { storageClassName: `sc-${crypto.createHash('sha256').update(what).digest('hex').slice(0, 8)}`, ...options });
    if (message === undefined) expect(act).not.toThrow();
    else expect(act).toThrow(message);
  });
});

test('addonVersion beside another aws-efs-csi-driver add-on of the cluster is refused; with existingDriverVersion it passes', () => {
  const refused = setUp();
  new eks.Addon(refused.stack, 'MyDriver', { cluster: refused.cluster, addonName: 'aws-efs-csi-driver', addonVersion: 'v3.1.0-eksbuild.1' });
  EksMount.installDriver(refused.cluster, { addonVersion: VERSION });
  expect(() => Template.fromStack(refused.stack)).toThrow(
    'S/Cluster: invalid addonVersion "v3.0.0-eksbuild.1": the app already declares the aws-efs-csi-driver add-on of this cluster (S/MyDriver/Resource), and a cluster has each add-on once. '
    + 'Fix: pass `existingDriverVersion` (that add-on\'s version) instead of `addonVersion`, or remove the other add-on.');
  const ok = setUp();
  new eks.Addon(ok.stack, 'MyDriver', { cluster: ok.cluster, addonName: 'aws-efs-csi-driver', addonVersion: 'v3.1.0-eksbuild.1' });
  EksMount.installDriver(ok.cluster, { existingDriverVersion: '3.1.0' });
  expect(() => Template.fromStack(ok.stack)).not.toThrow();
  // AND another cluster's driver add-on in the same app is not this cluster's
  const other = setUp();
  new eks.Addon(other.stack, 'TheirDriver', { cluster: importedCluster(other.stack, other.vpc, 'Theirs'), addonName: 'aws-efs-csi-driver', addonVersion: 'v3.1.0-eksbuild.1' });
  EksMount.installDriver(other.cluster, { addonVersion: VERSION });
  expect(() => Template.fromStack(other.stack)).not.toThrow();
});

test.each<[string, string, boolean]>([
  ['server*', 'serverless', true],
  ['*', 'app', true],
  ['team-?', 'team-a', true],
  ['team-?', 'team-ab', false],
  ['prod', 'production', false],
  ['a.b', 'axb', false],
])('a Fargate selector "%s" and a claim in "%s": refused %s (EKS "Fargate profile wildcards")', (selector, namespace, refused) => {
  const s = setUp();
  s.cluster.addFargateProfile('Serverless', { selectors: [{ namespace: selector }] });
  EksMount.installDriver(s.cluster, { addonVersion: VERSION });
  EksMount.onCluster(s.cluster, s.accessPoint, { claimName: 'data', namespace });
  // the driver's own validations, which synthesis runs (test/mount/eks.test.ts shows the refusal through a synthesis)
  const errors = s.cluster.node.findChild('S3FilesCsiDriver').node.validate();
  if (refused) expect(errors).toEqual([expect.stringContaining(`invalid namespace "${namespace}": the Fargate profile S/Cluster/fargate-profile-Serverless selects every pod of it`)]);
  else expect(errors).toEqual([]);
});

test('readOnlySharedRole on a cluster names the way out there: the driver\'s one node role mounts every volume', () => {
  const { stack, cluster, accessPoint } = setUp();
  EksMount.installDriver(cluster, { addonVersion: VERSION });
  EksMount.onCluster(cluster, accessPoint, { claimName: 'reader', readOnly: true });
  EksMount.onCluster(cluster, accessPoint, { claimName: 'writer' });
  const found = warnings(stack).filter((w) => w.includes('readOnlySharedRole'));
  expect(found).toHaveLength(1);
  expect(found[0]).toContain('Mount the read-only data through an access point no read-write volume of this cluster uses: the library then denies the node role s3files:ClientWrite '
    + 'through it.');
  expect(found[0]).not.toContain('a role of its own');
});

describe('what a second review found', () => {
  test('the library\'s manifests are pruned even on a cluster with prune: false (a renamed pair must replace the old one)', () => {
    const stack = new Stack(new App(), 'S', { env: ENV });
    const vpc = eksVpc(stack);
    const fileSystem = new S3FilesFileSystem(stack, 'Files', { vpc, vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS } });
    const cluster = newCluster(stack, vpc, { prune: false });
    EksMount.installDriver(cluster, { addonVersion: VERSION });
    EksMount.onCluster(cluster, fileSystem.addAccessPoint('Data', { path: '/data' }), { claimName: 'data' });
    EksMount.addStorageClass(cluster, fileSystem, { storageClassName: 's3files' });
    const manifests = Object.entries<Json>(Template.fromStack(stack).findResources('Custom::AWSCDK-EKS-KubernetesResource')).filter(([id]) => id.includes('S3FilesCsiDriver'));
    expect(manifests).toHaveLength(2);
    for (const [, m] of manifests) expect(m.Properties.PruneLabel).toMatch(/^aws\.cdk\.eks\/prune-/);
  });

  test('a driver add-on of the cluster in another stack, and an agent add-on declared after installDriver(), are refused', () => {
    const driverElsewhere = setUp();
    new eks.Addon(new Stack(driverElsewhere.stack.node.root as App, 'Addons', { env: ENV }), 'Efs', { cluster: driverElsewhere.cluster, addonName: 'aws-efs-csi-driver', addonVersion: 'v3.1.0-eksbuild.1' });
    EksMount.installDriver(driverElsewhere.cluster, { addonVersion: VERSION });
    expect(() => Template.fromStack(driverElsewhere.stack)).toThrow('the app already declares the aws-efs-csi-driver add-on of this cluster (Addons/Efs/Resource)');

    const agentLater = setUp();
    EksMount.installDriver(agentLater.cluster, { addonVersion: VERSION });
    new eks.Addon(agentLater.stack, 'MyAgent', { cluster: agentLater.cluster, addonName: 'eks-pod-identity-agent' });
    expect(() => Template.fromStack(agentLater.stack)).toThrow(
      'S/Cluster: invalid installPodIdentityAgent true: the app declares the eks-pod-identity-agent add-on of this cluster (S/MyAgent/Resource) besides the one `EksMount.installDriver()` added, and a cluster has each add-on once. '
      + 'Fix: declare your agent add-on before `EksMount.installDriver()` in the same stack (the library then uses it), or pass `installPodIdentityAgent` false.');
  });

  test('Fargate profiles beside self-managed nodes connected with connectAutoScalingGroupCapacity(): not refused as Fargate-only', () => {
    const stack = new Stack(new App(), 'S', { env: ENV });
    const vpc = eksVpc(stack);
    const fileSystem = new S3FilesFileSystem(stack, 'Files', { vpc, vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS } });
    const cluster = newCluster(stack, vpc, { defaultCapacity: 0 });
    for (const ng of cluster.node.findAll().filter((c) => c instanceof eks.Nodegroup)) cluster.node.tryRemoveChild(ng.node.id);
    cluster.addFargateProfile('Jobs', { selectors: [{ namespace: 'batch-jobs' }] });
    const nodes = new autoscaling.AutoScalingGroup(stack, 'Nodes', {
      vpc, instanceType: new ec2.InstanceType('m7g.large'), machineImage: new eks.EksOptimizedImage({ cpuArch: eks.CpuArch.ARM_64, kubernetesVersion: '1.36' }),
    });
    cluster.connectAutoScalingGroupCapacity(nodes, {});
    EksMount.installDriver(cluster, { addonVersion: VERSION });
    EksMount.onCluster(cluster, fileSystem.addAccessPoint('Data', { path: '/data' }), { claimName: 'data', namespace: 'app' });
    expect(() => Template.fromStack(stack)).not.toThrow();
  });
});
