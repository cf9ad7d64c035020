import { App, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { changeSet, dependsOnTransitively, exportRefusals, findCycle, synthTemplates, Template } from './cfn';
import { EksMount, S3FilesAccessPoint, S3FilesFileSystem } from '../../src';
import { newCluster } from '../util/eks';

// EKS volumes over the lifecycle, the way CloudFormation carries the changes out: the cluster in
// another stack than the file system, volumes added and removed, an access point replaced, and
// stack deletion.

interface Volume { readonly id: string; readonly path: string; readonly readOnly?: boolean; readonly rootAccess?: boolean }

/** Storage (VPC, file system) in one stack; the cluster, its access points and volumes in another. */
function app(volumes: Volume[], storageClass = false): Record<string, Template> {
  return synthTemplates((a: App) => {
    const storage = new Stack(a, 'Storage');
    const vpc = new ec2.Vpc(storage, 'Vpc', { maxAzs: 2, natGateways: 1 });
    const fileSystem = new S3FilesFileSystem(storage, 'Files', { vpc, vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS } });
    const compute = new Stack(a, 'Compute');
    const cluster = newCluster(compute, vpc);
    EksMount.installDriver(cluster, { addonVersion: 'v3.0.0-eksbuild.1' });
    for (const v of volumes) {
      // The access points live with their clients (an access point exported to another stack cannot be replaced).
      const accessPoint = new S3FilesAccessPoint(compute, v.id, { fileSystem, path: v.path });
      EksMount.onCluster(cluster, accessPoint, { claimName: v.id.toLowerCase(), namespace: 'app', readOnly: v.readOnly, rootAccess: v.rootAccess });
    }
    if (storageClass) EksMount.addStorageClass(cluster, fileSystem, { storageClassName: 's3files' });
  });
}

const ofType = (t: Template, type: string) => Object.entries(t.Resources).filter(([, r]) => r.Type === type).map(([id]) => id).sort();
const volumesOf = (t: Template) => ofType(t, 'Custom::AWSCDK-EKS-KubernetesResource').filter((id) => id.includes('S3FilesCsiDriverVolume'));

describe('EKS volumes over the lifecycle', () => {
  test('the cluster in another stack than the file system: no cycle, only the cluster\'s stack depends on storage, and adding volumes leaves the storage stack unchanged', () => {
    const one = app([{ id: 'Data', path: '/data' }]);
    const three = app([{ id: 'Data', path: '/data' }, { id: 'Logs', path: '/logs' }, { id: 'Models', path: '/models' }], true);
    for (const [name, t] of Object.entries(three)) expect({ name, cycle: findCycle(t) }).toEqual({ name, cycle: undefined });
    expect(three.Storage).toEqual(one.Storage);
    expect(JSON.stringify(three.Storage)).not.toContain('Compute');
    expect(exportRefusals(one, three)).toEqual([]);
    // the compute stack gains the two volumes, the storage class and the controller's role; nothing else changes
    const change = changeSet(one.Compute, three.Compute);
    expect(change.removed).toEqual([]);
    expect(change.replaced).toEqual([]);
    expect(volumesOf(three.Compute)).toHaveLength(3);
  });

  test('removing a volume removes its manifest only (its objects are deleted); the other volumes are untouched', () => {
    const before = app([{ id: 'Data', path: '/data' }, { id: 'Logs', path: '/logs' }]);
    const after = app([{ id: 'Data', path: '/data' }]);
    const change = changeSet(before.Compute, after.Compute);
    const [logs] = volumesOf(before.Compute).filter((id) => /Volumeapplogs/.test(id));
    const [data] = volumesOf(before.Compute).filter((id) => /Volumeappdata/.test(id));
    expect(change.removed).toEqual(expect.arrayContaining([logs]));
    expect(change.removed.filter((id) => !/^Logs|Volumeapplogs/.test(id))).toEqual([]);
    expect(change.unchanged).toContain(data);
    expect(exportRefusals(before, after)).toEqual([]);
    expect(after.Storage).toEqual(before.Storage);
  });

  test('the access point replaced: the volume manifest is updated in place to a new volume and claim on the new access point (the old pair is pruned)', () => {
    const before = app([{ id: 'Data', path: '/data' }]);
    const after = app([{ id: 'Data', path: '/data-v2' }]);
    const change = changeSet(before.Compute, after.Compute);
    const [ap] = ofType(before.Compute, 'AWS::S3Files::AccessPoint');
    const [volume] = volumesOf(before.Compute);
    expect(change.replaced).toContain(ap);
    expect(change.updated).toContain(volume);
    // the volume's names and volumeHandle come from the access point's id: a new volume and a new claim
    const manifest = JSON.stringify(after.Compute.Resources[volume].Properties.Manifest);
    expect(manifest.split(JSON.stringify({ 'Fn::GetAtt': [ap, 'AccessPointId'] })).length - 1).toBe(5);
    // pruning removes what the manifest no longer holds
    expect(after.Compute.Resources[volume].Properties.PruneLabel).toMatch(/^aws\.cdk\.eks\/prune-/);
    expect(exportRefusals(before, after)).toEqual([]);
  });

  test('stack deletion: each volume goes before its access point, the mount targets\' readiness and the driver add-on', () => {
    const t = app([{ id: 'Data', path: '/data' }], true).Compute;
    const [volume] = volumesOf(t);
    const [storageClass] = ofType(t, 'Custom::AWSCDK-EKS-KubernetesResource').filter((id) => id.includes('StorageClass'));
    const [ap] = ofType(t, 'AWS::S3Files::AccessPoint');
    const [waiter] = ofType(t, 'Custom::S3FilesMountTargetsAvailable');
    const [addon] = ofType(t, 'AWS::EKS::Addon').filter((id) => id.includes('S3FilesCsiDriver'));
    const deps = dependsOnTransitively(t, volume);
    for (const id of [ap, waiter, addon]) expect(deps).toContain(id);
    expect(dependsOnTransitively(t, storageClass)).toContain(addon);
    // and the add-on waits for the Pod Identity associations (it is deleted before them)
    for (const id of ofType(t, 'AWS::EKS::PodIdentityAssociation')) expect(dependsOnTransitively(t, addon)).toContain(id);
  });

  test('a storage class added in a later deployment: the controller\'s role and Pod Identity association were there before, and the add-on is untouched', () => {
    // (Pod Identity credentials reach pods that start after their association exists: the add-on's
    // controller pods started in the first deployment, and nothing restarts them in the second)
    const before = app([{ id: 'Data', path: '/data' }]);
    const after = app([{ id: 'Data', path: '/data' }], true);
    const associations = ofType(before.Compute, 'AWS::EKS::PodIdentityAssociation');
    expect(associations.map((id) => before.Compute.Resources[id].Properties.ServiceAccount).sort()).toEqual(['efs-csi-controller-sa', 'efs-csi-node-sa']);
    const change = changeSet(before.Compute, after.Compute);
    const [addon] = ofType(before.Compute, 'AWS::EKS::Addon').filter((id) => id.includes('S3FilesCsiDriver'));
    const [controllerRole] = ofType(before.Compute, 'AWS::IAM::Role').filter((id) => id.includes('ControllerRole'));
    for (const id of [addon, controllerRole, ...associations]) expect(change.unchanged).toContain(id);
    expect(change.removed).toEqual([]);
    expect(change.replaced).toEqual([]);
    expect(change.added.filter((id) => id.includes('StorageClass'))).toHaveLength(1);
  });

  test.each<[string, Volume]>([
    ['readOnly', { id: 'Data', path: '/data', readOnly: true }],
    ['rootAccess', { id: 'Data', path: '/data', rootAccess: true }],
  ])('%s toggled: the volume manifest is updated to a volume and claim of other names (pods that follow claimName remount with the new rights)', (_what, changed) => {
    const before = app([{ id: 'Data', path: '/data' }]);
    const after = app([changed]);
    const [volume] = volumesOf(before.Compute);
    const change = changeSet(before.Compute, after.Compute);
    expect(change.updated).toContain(volume);
    expect(change.replaced).toEqual([]);
    // the names end in the access point id, then `-ro` or `-root`: each name of the pair, and the claim's volumeName, change
    const suffix = changed.readOnly ? '-ro' : '-root';
    const count = (t: Template) => JSON.stringify(t.Resources[volume].Properties.Manifest).split(suffix).length - 1;
    expect([count(before.Compute), count(after.Compute)]).toEqual([0, 4]);
  });
});
