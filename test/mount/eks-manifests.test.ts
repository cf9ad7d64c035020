import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ts from 'typescript';
import { EksMount, S3FilesFileSystem } from '../../src';
import { eksVpc, manifestsOf, newCluster, newClusterV2 } from '../util/eks';

// The Kubernetes objects the library renders, checked offline against the Kubernetes v1.36.0
// OpenAPI definitions (EKS supports 1.36; aws-cdk-lib's newest KubernetesVersion) as the npm
// package kubernetes-models 5.1.0 ships them (a test-only devDependency; its CHANGELOG: "Update to
// Kubernetes v1.36.0"): the JSON-schema validators compiled from them (types, enums, required
// fields), and their TypeScript types for unknown fields, which the validators let through and
// `kubectl apply` refuses (its --validate=strict). The CSI fields, which the Kubernetes schema
// leaves open, are checked against kubernetes-sigs/aws-efs-csi-driver (its docs and parser).

type Json = any;
const root = path.join(__dirname, '..', '..');

/** The objects of an app with a volume (read-write and read-only) and a storage class using every parameter. */
function rendered(): Json[] {
  const stack = new Stack(new App(), 'S', { env: { account: '111111111111', region: 'us-east-1' } });
  const vpc = eksVpc(stack);
  const fileSystem = new S3FilesFileSystem(stack, 'Files', { vpc, vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS } });
  const cluster = newCluster(stack, vpc);
  EksMount.installDriver(cluster, { addonVersion: 'v3.0.0-eksbuild.1' });
  EksMount.onCluster(cluster, fileSystem.addAccessPoint('Data', { path: '/data' }), { claimName: 'data', namespace: 'app' });
  EksMount.onCluster(cluster, fileSystem.addAccessPoint('Models', { path: '/models' }), { claimName: 'models', namespace: 'app', readOnly: true });
  EksMount.addStorageClass(cluster, fileSystem, {
    storageClassName: 's3files', directoryPerms: '750', basePath: '/dynamic', uid: 1000, gid: 1000, subPathPattern: '${.PVC.namespace}/${.PVC.name}',
  });
  EksMount.addStorageClass(cluster, fileSystem, { storageClassName: 's3files-range', gidRangeStart: 1000, gidRangeEnd: 2000 });
  return Object.values(manifestsOf(Template.fromStack(stack).toJSON())).flat();
}

const MODELS: Record<string, { module: string; type: string }> = {
  PersistentVolume: { module: 'kubernetes-models/v1/PersistentVolume', type: 'IPersistentVolume' },
  PersistentVolumeClaim: { module: 'kubernetes-models/v1/PersistentVolumeClaim', type: 'IPersistentVolumeClaim' },
  StorageClass: { module: 'kubernetes-models/storage.k8s.io/v1/StorageClass', type: 'IStorageClass' },
};

/** The schema validators' verdict on each object ('ok' or the errors), run in Node as the ESM package requires. */
function validate(objects: Json[]): string[] {
  const imports = Object.entries(MODELS).map(([kind, m]) => `import { ${kind} } from '${m.module}';`).join('\n');
  const script = `${imports}
const models = { ${Object.keys(MODELS).join(', ')} };
let input = '';
process.stdin.on('data', (d) => { input += d; });
process.stdin.on('end', () => {
  const out = JSON.parse(input).map((o) => { try { new models[o.kind](o).validate(); return 'ok'; } catch (e) { return String(e.message); } });
  process.stdout.write(JSON.stringify(out));
});`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, input: JSON.stringify(objects), encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout);
}

/** TypeScript's diagnostics for each object assigned to its kubernetes-models type (excess properties are errors). */
function typeErrors(objects: Json[]): string[] {
  const dir = fs.mkdtempSync(path.join(root, 'test', '.eks-manifests-'));
  try {
    const file = path.join(dir, 'objects.mts');
    const lines = Object.entries(MODELS).map(([, m]) => `import type { ${m.type} } from '${m.module}';`);
    objects.forEach((o, i) => lines.push(`export const o${i}: ${MODELS[o.kind].type} = ${JSON.stringify(o)};`));
    fs.writeFileSync(file, lines.join('\n'));
    const program = ts.createProgram([file], {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
    });
    return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('the rendered Kubernetes objects, against the Kubernetes v1.36.0 OpenAPI definitions (kubernetes-models 5.1.0)', () => {
  const objects = rendered();

  test('there are two volumes, two claims and two storage classes', () => {
    expect(objects.map((o) => o.kind).sort()).toEqual(['PersistentVolume', 'PersistentVolume', 'PersistentVolumeClaim', 'PersistentVolumeClaim', 'StorageClass', 'StorageClass']);
  });

  test('each one is valid, and the validators do refuse a broken one', () => {
    expect(validate(objects)).toEqual(objects.map(() => 'ok'));
    // (a control: the validators run and look inside the CSI source)
    const broken = JSON.parse(JSON.stringify(objects.find((o) => o.kind === 'PersistentVolume')));
    broken.spec.accessModes = ['ReadWriteSometimes'];
    delete broken.spec.csi.volumeHandle;
    expect(validate([broken])[0]).toMatch(/accessModes\/0 must be equal to one of the allowed values.*csi must have required property volumeHandle/);
  });

  test('no field the API does not know (kubectl apply validates strictly), and a misspelt one is caught', () => {
    expect(typeErrors(objects)).toEqual([]);
    const misspelt = JSON.parse(JSON.stringify(objects.find((o) => o.kind === 'PersistentVolume')));
    misspelt.spec.csi.volumeHandel = misspelt.spec.csi.volumeHandle;
    expect(typeErrors([misspelt]).join('\n')).toMatch(/'"volumeHandel"' does not exist in type 'ICSIPersistentVolumeSource'/);
  }, 60_000);
});

test('an aws-eks-v2 cluster gets the same objects (through its own kubectl handler)', () => {
  const stack = new Stack(new App(), 'S', { env: { account: '111111111111', region: 'us-east-1' } });
  const vpc = eksVpc(stack);
  const fileSystem = new S3FilesFileSystem(stack, 'Files', { vpc, vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS } });
  const cluster = newClusterV2(stack, vpc);
  EksMount.installDriver(cluster, { addonVersion: 'v3.0.0-eksbuild.1' });
  EksMount.onCluster(cluster, fileSystem.addAccessPoint('Data', { path: '/data' }), { claimName: 'data', namespace: 'app' });
  EksMount.onCluster(cluster, fileSystem.addAccessPoint('Models', { path: '/models' }), { claimName: 'models', namespace: 'app', readOnly: true });
  EksMount.addStorageClass(cluster, fileSystem, {
    storageClassName: 's3files', directoryPerms: '750', basePath: '/dynamic', uid: 1000, gid: 1000, subPathPattern: '${.PVC.namespace}/${.PVC.name}',
  });
  EksMount.addStorageClass(cluster, fileSystem, { storageClassName: 's3files-range', gidRangeStart: 1000, gidRangeEnd: 2000 });
  const withoutPruneLabels = (objects: Json[]) => JSON.parse(JSON.stringify(objects).replace(/"aws\.cdk\.eks\/prune-[0-9a-f]+":""/g, '"prune":""'));
  expect(withoutPruneLabels(Object.values(manifestsOf(Template.fromStack(stack).toJSON())).flat())).toEqual(withoutPruneLabels(rendered()));
});

describe('the CSI fields, against what aws-efs-csi-driver documents and parses', () => {
  const objects = rendered();
  const volumes = objects.filter((o) => o.kind === 'PersistentVolume');
  const classes = objects.filter((o) => o.kind === 'StorageClass');

  test('volumes: driver efs.csi.aws.com, a volumeHandle of the s3files format through an access point, access modes the driver serves', () => {
    for (const pv of volumes) {
      expect(pv.spec.csi.driver).toBe('efs.csi.aws.com');
      // pkg/driver/node.go parseVolumeId: `{fsType}:{fileSystemID}:{mountPath}:{accessPointID}`, fs-[0-9a-f]{8,40}, fsap-[0-9a-f]{8,40};
      // the access_points example: `s3files:[FileSystemId]::[AccessPointId]` ("The double colon ... is intentional")
      expect(pv.spec.csi.volumeHandle).toMatch(/^s3files:fs-[0-9a-f]{8,40}::fsap-[0-9a-f]{8,40}$/);
      // pkg/driver/node.go volumeCapAccessModes: SINGLE_NODE_WRITER and MULTI_NODE_MULTI_WRITER only
      expect(pv.spec.accessModes.every((m: string) => ['ReadWriteOnce', 'ReadWriteMany'].includes(m))).toBe(true);
    }
    expect(volumes.map((pv) => pv.spec.csi.readOnly)).toEqual([undefined, true]);
    // the read-only mount is the volume's mountOptions, which kubelet passes to the node plugin (pkg/driver/node.go, NodePublishVolume)
    expect(volumes.map((pv) => pv.spec.mountOptions)).toEqual([undefined, ['ro']]);
  });

  test('storage classes: provisioner efs.csi.aws.com, provisioningMode s3files-ap, only the parameters the driver documents, as strings', () => {
    // docs/parameters.md and the s3files dynamic_provisioning README; pkg/driver/controller.go rejects
    // reuseAccessPoint and az for S3 Files; enableTagging stays unset (true): the controller's policy needs the tag
    const documented = ['provisioningMode', 'fileSystemId', 'directoryPerms', 'uid', 'gid', 'gidRangeStart', 'gidRangeEnd', 'basePath', 'subPathPattern'];
    for (const sc of classes) {
      expect(sc.provisioner).toBe('efs.csi.aws.com');
      expect(sc.parameters.provisioningMode).toBe('s3files-ap');
      expect(sc.parameters.fileSystemId).toMatch(/^fs-[0-9a-f]{8,40}$/);
      expect(Object.keys(sc.parameters).filter((k) => !documented.includes(k))).toEqual([]);
      expect(Object.values(sc.parameters).every((v) => typeof v === 'string')).toBe(true);
    }
  });
});
