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
import { CFN_MAX_RESOURCES, CFN_MAX_TEMPLATE_BYTES, MAX_FILE_SYSTEM_POLICY_CHARS, MAX_INBOUND_RULES } from './format';
import type { TemplateResults, TemplateRow, TemplateSide } from './results';
import { summarize } from '../integ/handlers/shared/stats';
import { S3FilesFileSystem, S3FilesMountedFunction } from '../src';

const CODE = 'exports.handler = async () => ({})';

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

/** One synthesis: its times, and what it made (as TemplateSide counts it). */
export interface SynthSample extends TemplateSide {
  /** Whole thing: new App + construct tree + app.synth(). */
  readonly ms: number;
  /** Constructing the tree only (constructors, grants, validations done eagerly). */
  readonly buildMs: number;
  /** app.synth(): aspects, lazy resolution, validation, template rendering, asset staging. */
  readonly synthMs: number;
}

type TemplateJson = { Resources: Record<string, { Type: string; Properties?: any; DependsOn?: string | string[] }> };

/** A file-system ARN as S3 Files returns it (us-east-1, an id of the documented 17-hex form). */
const FILE_SYSTEM_ARN = 'arn:aws:s3files:us-east-1:123456789012:file-system/fs-0123456789abcdef0';

/**
 * Characters of the file-system policy once CloudFormation has put in the file system's ARN, as
 * compact JSON: what S3 Files holds against its 20,000-character limit. The template's own
 * rendering, with unresolved `Fn::GetAtt`s, is a different number. Any other intrinsic throws.
 */
export function policyChars(template: TemplateJson): number {
  const policies = Object.values(template.Resources).filter((r) => r.Type === 'AWS::S3Files::FileSystemPolicy');
  return Math.max(0, ...policies.map((p) => policyCharacters(p.Properties.Policy)));
}

/** The same for one policy document as its template renders it. */
export function policyCharacters(policy: unknown): number {
  const resolve = (v: any): any => {
    if (Array.isArray(v)) return v.map(resolve);
    if (v && typeof v === 'object') {
      const keys = Object.keys(v);
      if (keys.length === 1 && keys[0] === 'Fn::GetAtt' && v['Fn::GetAtt'][1] === 'FileSystemArn') return FILE_SYSTEM_ARN;
      if (keys.some((k) => k === 'Ref' || k.startsWith('Fn::'))) throw new Error(`unexpected intrinsic in the policy: ${JSON.stringify(v)}`);
      return Object.fromEntries(keys.map((k) => [k, resolve(v[k])]));
    }
    return v;
  };
  return JSON.stringify(resolve(policy)).length;
}

const dependsOnOf = (r: { DependsOn?: string | string[] }): string[] => (r.DependsOn === undefined ? [] : [r.DependsOn].flat());

/**
 * lambda.Function makes its CfnFunction depend on every ingress rule that exists on its mount's
 * security groups at construction time; counting them shows whether that grows with n.
 */
function dependencyCounts(stack: Stack, template: TemplateJson): { dependsOn: number; functionIngressDependsOn: number } {
  const resources = template.Resources;
  // Both benchmark stacks name their functions Fn0..Fn{n-1}.
  const functionIds = stack.node.children.filter((c) => /^Fn\d+$/.test(c.node.id))
    .map((c) => stack.getLogicalId(c.node.defaultChild as CfnElement));
  return {
    dependsOn: Object.values(resources).reduce((sum, r) => sum + dependsOnOf(r).length, 0),
    functionIngressDependsOn: functionIds.reduce((sum, id) =>
      sum + dependsOnOf(resources[id]).filter((d) => resources[d]?.Type === 'AWS::EC2::SecurityGroupIngress').length, 0),
  };
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
    ...dependencyCounts(stack, template),
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
  /** Every rep's total ms. */
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

/** A template's figures in results.json (the timings left out). */
export function templateSide(s: SynthSample): TemplateSide {
  const { resources, bytes, policyChars: chars, nfsInboundRules: rules, dependsOn, functionIngressDependsOn } = s;
  return { resources, bytes, policyChars: chars, nfsInboundRules: rules, dependsOn, functionIngressDependsOn };
}

/** The templates of both stacks at each size, synthesized once (they do not vary between repeats). */
export function measureTemplates(sizes: number[]): TemplateRow[] {
  return sizes.map((n) => ({ n, library: templateSide(measure(libraryStack, n)), handWired: templateSide(measure(handWiredStack, n)) }));
}

type Fit = { n: number; resources: number; fits: boolean; binding: string[]; sample?: SynthSample };

/**
 * Synthesizes the library stack at `n` functions: whether it fits one stack, and which limits it
 * breaks. aws-cdk-lib itself refuses to synthesize a stack over 500 resources; that counts as "does not fit".
 */
function libraryFits(n: number): Fit {
  try {
    const s = measure(libraryStack, n);
    const binding = [
      s.resources > CFN_MAX_RESOURCES ? 'resources' : '',
      s.bytes > CFN_MAX_TEMPLATE_BYTES ? 'template bytes' : '',
      s.policyChars > MAX_FILE_SYSTEM_POLICY_CHARS ? 'file-system policy characters' : '',
      s.nfsInboundRules > MAX_INBOUND_RULES ? 'mount-target inbound rules' : '',
    ].filter(Boolean);
    return { n, resources: s.resources, fits: binding.length === 0, binding, sample: s };
  } catch (e) {
    const m = /Number of resources in stack '[^']*': (\d+)/.exec(String(e));
    if (!m) throw e;
    return { n, resources: Number(m[1]), fits: false, binding: ['resources'] };
  }
}

/**
 * The largest library stack that fits, found by synthesis: from a straight-line estimate through
 * the first and last rows' resources, walked to the real boundary.
 */
export function largestThatFits(rows: TemplateRow[]): TemplateResults['largest'] {
  const [first, last] = [rows[0], rows[rows.length - 1]];
  const perFn = (last.library.resources - first.library.resources) / (last.n - first.n);
  const estimate = Math.max(1, Math.floor((CFN_MAX_RESOURCES - (first.library.resources - perFn * first.n)) / perFn));
  let atMax = libraryFits(estimate);
  let overMax = libraryFits(estimate + 1);
  while (overMax.fits) [atMax, overMax] = [overMax, libraryFits(overMax.n + 1)];
  while (!atMax.fits && atMax.n > 1) [overMax, atMax] = [atMax, libraryFits(atMax.n - 1)];
  if (!atMax.fits || !atMax.sample) throw new Error('not even one function fits one stack');
  const { resources, bytes, policyChars: chars, nfsInboundRules: rules } = atMax.sample;
  return {
    fits: { n: atMax.n, resources, bytes, policyChars: chars, nfsInboundRules: rules },
    over: { n: overMax.n, resources: overMax.resources, binding: overMax.binding },
  };
}

if (require.main === module) {
  const rows = runSynthBenchmark();
  console.log('| functions | library ms | hand-wired ms | ratio | library resources | hand-wired resources | library bytes |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    console.log(`| ${r.n} | ${r.library.ms.toFixed(0)} | ${r.handWired.ms.toFixed(0)} | ${r.ratio.toFixed(2)} | ${r.library.resources} | ${r.handWired.resources} | ${r.library.bytes} |`);
  }
}
