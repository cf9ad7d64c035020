/**
 * Synth and template benchmark: N functions sharing one file system, built with the library vs
 * hand-wired from aws-cdk-lib L1s + lambda.FileSystem.fromS3FilesAccessPoint, in the same process,
 * interleaved so machine noise hits both sides alike.
 */
import { rmSync, statSync } from 'fs';
import * as v8 from 'v8';
import * as vm from 'vm';
import { App, CfnElement, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3files from 'aws-cdk-lib/aws-s3files';
import { summarize } from '../integ/handlers/shared/stats';
import { S3FilesFileSystem, S3FilesMountedFunction } from '../src';

const CODE = 'exports.handler = async () => ({})';
export const CFN_MAX_RESOURCES = 500;
export const CFN_MAX_TEMPLATE_BYTES = 1_000_000;
/** S3 Files rejects a file system policy over this many characters. */
export const MAX_FILE_SYSTEM_POLICY_CHARS = 20_000;
/** A security group holds this many inbound rules by default. */
export const MAX_INBOUND_RULES = 60;

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
  const accessPoint = fileSystem.addAccessPoint('AccessPoint', { path: '/lambda' });
  for (let i = 0; i < n; i++) {
    new S3FilesMountedFunction(stack, `Fn${i}`, {
      runtime: lambda.Runtime.NODEJS_24_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline(CODE),
      s3FileSystem: fileSystem,
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
      runtime: lambda.Runtime.NODEJS_24_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline(CODE),
      vpc,
      filesystem: lambda.FileSystem.fromS3FilesAccessPoint(ap, '/mnt/s3files', { directS3Read: lambda.DirectS3Read.enabled(bucket) }),
    });
  }
  return stack;
}

export interface SynthSample {
  /** Whole thing: new App + construct tree + app.synth(). */
  readonly ms: number;
  /** Constructing the tree only (constructors, grants, validations done eagerly). */
  readonly buildMs: number;
  /** app.synth(): aspects, lazy resolution, validation, template rendering, asset staging. */
  readonly synthMs: number;
  readonly resources: number;
  readonly bytes: number;
  /** Characters of the file system policy as rendered (0 without one). */
  readonly policyChars: number;
  /** Inbound NFS (2049) rules in the template: each lands on the mount-target security group. */
  readonly nfsInboundRules: number;
}

type TemplateJson = { Resources: Record<string, { Type: string; Properties?: any }> };

function policyChars(template: TemplateJson): number {
  const policies = Object.values(template.Resources).filter((r) => r.Type === 'AWS::S3Files::FileSystemPolicy');
  return Math.max(0, ...policies.map((p) => JSON.stringify(p.Properties.Policy).length));
}

function nfsInboundRules(template: TemplateJson): number {
  const standalone = Object.values(template.Resources).filter((r) => r.Type === 'AWS::EC2::SecurityGroupIngress' && r.Properties.FromPort === 2049);
  const inline = Object.values(template.Resources).filter((r) => r.Type === 'AWS::EC2::SecurityGroup')
    .flatMap((r) => r.Properties.SecurityGroupIngress ?? []).filter((i: { FromPort?: number }) => i.FromPort === 2049);
  return standalone.length + inline.length;
}

// A full GC before each sample, so one synth's garbage is not collected on the next one's clock.
v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc') as () => void;

export function measure(build: (app: App, n: number) => Stack, n: number): SynthSample {
  collectGarbage();
  const start = process.hrtime.bigint();
  const app = new App();
  const stack = build(app, n);
  const built = process.hrtime.bigint();
  const assembly = app.synth();
  const end = process.hrtime.bigint();
  const artifact = assembly.getStackByName(stack.stackName);
  const template = artifact.template;
  // The file cdk deploy uploads (CDK writes it indented), which is what the 1 MB limit applies to.
  const bytes = statSync(artifact.templateFullPath).size;
  rmSync(assembly.directory, { recursive: true, force: true });
  const ms = (a: bigint, b: bigint): number => Number(b - a) / 1e6;
  return {
    ms: ms(start, end),
    buildMs: ms(start, built),
    synthMs: ms(built, end),
    resources: Object.keys(template.Resources).length,
    bytes,
    policyChars: policyChars(template),
    nfsInboundRules: nfsInboundRules(template),
  };
}

/** The handlers' own min/median/max helper, so the suite has one definition of a median. */
export function median(xs: number[]): number {
  return summarize(xs).median;
}

export interface SynthRow {
  readonly n: number;
  /** Medians of ms/buildMs/synthMs over the reps; resources and bytes (identical every rep). */
  readonly library: SynthSample;
  readonly handWired: SynthSample;
  /** median library ms / median hand-wired ms */
  readonly ratio: number;
  /** Every rep's total ms, for fits. */
  readonly librarySamples: number[];
  readonly handWiredSamples: number[];
}

function medianSample(samples: SynthSample[]): SynthSample {
  return {
    ...samples[0],
    ms: median(samples.map((s) => s.ms)),
    buildMs: median(samples.map((s) => s.buildMs)),
    synthMs: median(samples.map((s) => s.synthMs)),
  };
}

/** Least-squares fit y = a + b*x and its R^2. */
export function linearFit(xs: number[], ys: number[]): { a: number; b: number; r2: number } {
  const n = xs.length;
  const mx = xs.reduce((p, x) => p + x, 0) / n;
  const my = ys.reduce((p, y) => p + y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (xs[i] - mx) * (ys[i] - my);
    sxx += (xs[i] - mx) ** 2;
    syy += (ys[i] - my) ** 2;
  }
  const b = sxx === 0 ? 0 : sxy / sxx;
  const a = my - b * mx;
  const ssRes = xs.reduce((p, x, i) => p + (ys[i] - (a + b * x)) ** 2, 0);
  return { a, b, r2: syy === 0 ? 1 : 1 - ssRes / syy };
}

/** Interleaves library and hand-wired synths `reps` times per size; medians per side. */
export function runSynthBenchmark(sizes: number[] = [1, 10, 50], reps = 5): SynthRow[] {
  // Warm module caches and the JIT on both sides before anything is timed.
  for (let i = 0; i < 3; i++) {
    measure(libraryStack, 10);
    measure(handWiredStack, 10);
  }
  return sizes.map((n) => {
    const lib: SynthSample[] = [];
    const hand: SynthSample[] = [];
    // Alternate who goes first: neither side always runs right after a GC-heavy synth.
    for (let r = 0; r < reps; r++) {
      if (r % 2 === 0) {
        lib.push(measure(libraryStack, n));
        hand.push(measure(handWiredStack, n));
      } else {
        hand.push(measure(handWiredStack, n));
        lib.push(measure(libraryStack, n));
      }
    }
    const library = medianSample(lib);
    const handWired = medianSample(hand);
    return {
      n,
      library,
      handWired,
      ratio: library.ms / handWired.ms,
      librarySamples: lib.map((s) => s.ms),
      handWiredSamples: hand.map((s) => s.ms),
    };
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

export interface DependencyStats {
  /** DependsOn entries over the whole template. */
  readonly dependsOn: number;
  /** DependsOn entries of the N functions that point at a security-group ingress rule. */
  readonly ingressDependsOn: number;
  /** Of those, the ones beyond one per function (i.e. on other functions' rules), and their bytes. */
  readonly extraIngressDependsOn: number;
  readonly extraIngressBytes: number;
  /** Ingress DependsOn of the last function. */
  readonly lastFunctionIngressDependsOn: number;
}

/**
 * lambda.Function makes its CfnFunction depend on every ingress rule that exists on the file
 * system's security groups at construction time; counting them shows whether that grows with n.
 */
export function dependencyStats(build: (app: App, n: number) => Stack, n: number): DependencyStats {
  const app = new App();
  const stack = build(app, n);
  const assembly = app.synth();
  const resources: Record<string, { Type: string; DependsOn?: string[] }> = assembly.getStackByName(stack.stackName).template.Resources;
  rmSync(assembly.directory, { recursive: true, force: true });
  // Both stacks name their functions Fn0..Fn{n-1}.
  const functionIds = Array.from({ length: n }, (_, i) =>
    stack.getLogicalId(stack.node.findChild(`Fn${i}`).node.defaultChild as CfnElement));
  const ingressOf = (id: string): string[] =>
    (resources[id].DependsOn ?? []).filter((d) => resources[d]?.Type === 'AWS::EC2::SecurityGroupIngress');
  const dependsOn = Object.values(resources).reduce((sum, r) => sum + (r.DependsOn ?? []).length, 0);
  const perFunction = functionIds.map(ingressOf);
  const extra = perFunction.flatMap((rules) => rules.slice(1));
  return {
    dependsOn,
    ingressDependsOn: perFunction.reduce((sum, rules) => sum + rules.length, 0),
    extraIngressDependsOn: extra.length,
    // As written in the indented template: the quoted id, a comma, a newline and indentation.
    extraIngressBytes: extra.reduce((sum, d) => sum + d.length + 7, 0),
    lastFunctionIngressDependsOn: perFunction[n - 1].length,
  };
}

/**
 * Synthesizes the library stack at `n` functions: resources, bytes, and whether it fits one stack.
 * aws-cdk-lib itself refuses to synthesize a stack over 500 resources; that counts as "does not fit".
 */
export function libraryFits(n: number): {
  n: number; resources: number; bytes?: number; policyChars?: number; nfsInboundRules?: number; fits: boolean; binding: string[];
} {
  try {
    const s = measure(libraryStack, n);
    const binding = [
      s.resources > CFN_MAX_RESOURCES ? 'resources' : '',
      s.bytes > CFN_MAX_TEMPLATE_BYTES ? 'template bytes' : '',
      s.policyChars > MAX_FILE_SYSTEM_POLICY_CHARS ? 'file system policy characters' : '',
      s.nfsInboundRules > MAX_INBOUND_RULES ? 'mount-target inbound rules' : '',
    ].filter(Boolean);
    const { resources, bytes } = s;
    return { n, resources, bytes, policyChars: s.policyChars, nfsInboundRules: s.nfsInboundRules, fits: binding.length === 0, binding };
  } catch (e) {
    const m = /Number of resources in stack '[^']*': (\d+)/.exec(String(e));
    if (!m) throw e;
    return { n, resources: Number(m[1]), fits: false, binding: ['resources'] };
  }
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
