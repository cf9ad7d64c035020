/**
 * Synth and template benchmark: N functions sharing one file system, built with the library vs
 * hand-wired from aws-cdk-lib L1s + lambda.FileSystem.fromS3FilesAccessPoint, in the same process,
 * interleaved so machine noise hits both sides alike.
 */
import { App, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3files from 'aws-cdk-lib/aws-s3files';
import { S3FilesFileSystem, S3FilesMountedFunction } from '../src';

const CODE = 'exports.handler = async () => ({})';
export const CFN_MAX_RESOURCES = 500;
export const CFN_MAX_TEMPLATE_BYTES = 1_000_000;

function vpcFor(stack: Stack): ec2.Vpc {
  return new ec2.Vpc(stack, 'Vpc', {
    maxAzs: 2,
    natGateways: 0,
    subnetConfiguration: [{ name: 'Isolated', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }],
    gatewayEndpoints: { S3: { service: ec2.GatewayVpcEndpointAwsService.S3 } },
  });
}

export function libraryStack(app: App, n: number): Stack {
  const stack = new Stack(app, `Library${n}`);
  const fileSystem = new S3FilesFileSystem(stack, 'FileSystem', { vpc: vpcFor(stack) });
  const accessPoint = fileSystem.addAccessPoint('AccessPoint');
  for (let i = 0; i < n; i++) {
    new S3FilesMountedFunction(stack, `Fn${i}`, {
      runtime: lambda.Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline(CODE),
      fileSystem,
      accessPoint,
    });
  }
  return stack;
}

/**
 * The same infrastructure by hand: versioned bucket, service role, CfnFileSystem, a mount target
 * per AZ, and (since fromS3FilesAccessPoint cannot share one) a CfnAccessPoint per function. It
 * has no readiness waiter, no file-system policy and no prefix-scoped IAM: it is the floor.
 */
export function handWiredStack(app: App, n: number): Stack {
  const stack = new Stack(app, `HandWired${n}`);
  const vpc = vpcFor(stack);
  const bucket = new s3.Bucket(stack, 'Bucket', { versioned: true, enforceSSL: true, blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL });
  const role = new iam.Role(stack, 'ServiceRole', { assumedBy: new iam.ServicePrincipal('elasticfilesystem.amazonaws.com') });
  bucket.grantReadWrite(role);
  const fs = new s3files.CfnFileSystem(stack, 'FileSystem', { bucket: bucket.bucketArn, roleArn: role.roleArn });
  const sg = new ec2.SecurityGroup(stack, 'MountTargetSG', { vpc, allowAllOutbound: false });
  vpc.isolatedSubnets.forEach((subnet, i) => new s3files.CfnMountTarget(stack, `MountTarget${i}`, {
    fileSystemId: fs.attrFileSystemId, subnetId: subnet.subnetId, securityGroups: [sg.securityGroupId],
  }));
  for (let i = 0; i < n; i++) {
    const ap = new s3files.CfnAccessPoint(stack, `AccessPoint${i}`, {
      fileSystemId: fs.attrFileSystemId,
      posixUser: { uid: '1000', gid: '1000' },
      rootDirectory: { path: '/lambda', creationPermissions: { ownerUid: '1000', ownerGid: '1000', permissions: '755' } },
    });
    new lambda.Function(stack, `Fn${i}`, {
      runtime: lambda.Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline(CODE),
      vpc,
      filesystem: lambda.FileSystem.fromS3FilesAccessPoint(ap, '/mnt/s3files', { directS3Read: lambda.DirectS3Read.enabled(bucket) }),
    });
  }
  return stack;
}

export interface SynthSample { readonly ms: number; readonly resources: number; readonly bytes: number }

export function measure(build: (app: App, n: number) => Stack, n: number): SynthSample {
  const start = process.hrtime.bigint();
  const app = new App();
  const stack = build(app, n);
  const template = app.synth().getStackByName(stack.stackName).template;
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  return { ms, resources: Object.keys(template.Resources).length, bytes: Buffer.byteLength(JSON.stringify(template)) };
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export interface SynthRow {
  readonly n: number;
  readonly library: SynthSample;
  readonly handWired: SynthSample;
  readonly ratio: number;
}

/** Interleaves library and hand-wired synths `reps` times per size; medians per side. */
export function runSynthBenchmark(sizes: number[] = [1, 10, 50], reps = 5): SynthRow[] {
  measure(libraryStack, 1); measure(handWiredStack, 1); // warm the module caches
  return sizes.map((n) => {
    const lib: SynthSample[] = [];
    const hand: SynthSample[] = [];
    for (let r = 0; r < reps; r++) {
      lib.push(measure(libraryStack, n));
      hand.push(measure(handWiredStack, n));
    }
    const library = { ...lib[0], ms: median(lib.map((s) => s.ms)) };
    const handWired = { ...hand[0], ms: median(hand.map((s) => s.ms)) };
    return { n, library, handWired, ratio: library.ms / handWired.ms };
  });
}

/** Resources and bytes per added function, and the largest function count that fits one stack. */
export function templateBudget(rows: SynthRow[]) {
  const first = rows[0];
  const last = rows[rows.length - 1];
  const dn = last.n - first.n;
  const perFnResources = (last.library.resources - first.library.resources) / dn;
  const perFnBytes = (last.library.bytes - first.library.bytes) / dn;
  const baseResources = first.library.resources - perFnResources * first.n;
  const baseBytes = first.library.bytes - perFnBytes * first.n;
  const maxByResources = Math.floor((CFN_MAX_RESOURCES - baseResources) / perFnResources);
  const maxByBytes = Math.floor((CFN_MAX_TEMPLATE_BYTES - baseBytes) / perFnBytes);
  return {
    perFnResources,
    perFnBytes,
    baseResources,
    baseBytes,
    maxFunctions: Math.min(maxByResources, maxByBytes),
    maxByResources,
    maxByBytes,
  };
}

if (require.main === module) {
  const rows = runSynthBenchmark();
  console.log('| functions | library ms | hand-wired ms | ratio | library resources | hand-wired resources | library bytes |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    console.log(`| ${r.n} | ${r.library.ms.toFixed(0)} | ${r.handWired.ms.toFixed(0)} | ${r.ratio.toFixed(2)} | ${r.library.resources} | ${r.handWired.resources} | ${r.library.bytes} |`);
  }
  console.log(JSON.stringify(templateBudget(rows), null, 2));
}
