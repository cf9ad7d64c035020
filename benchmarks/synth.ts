/**
 * Synth and template benchmark: N functions sharing one file system and one access point, built
 * with the library vs the same resources per function written by hand (the floor), in the same
 * process, interleaved so machine noise hits both sides alike; CPU time beside wall time.
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
 * The floor: the same resources per function as the library, written by hand with aws-cdk-lib
 * (no S3 Files L2 exists): a versioned bucket, the service role, the file system, a mount target per
 * AZ, the mount targets' and the clients' security groups with the two NFS rules, one access point
 * and the file-system policy; per function a lambda.Function (its role, default policy and own
 * security group, as the library's) that joins the client group, mounts the access point through
 * its L1 `FileSystemConfigs`, depends on the mount targets, and gets the client actions scoped to
 * the access point, the two validation reads and the direct reads. No readiness waiter, no delete
 * guard, no checks: the library's fixed cost and its checks are what the ratio measures.
 */
export function handWiredStack(app: App, n: number): Stack {
  const stack = new Stack(app, `HandWired${n}`);
  const vpc = vpcFor(stack);
  const bucket = new s3.Bucket(stack, 'Bucket', { versioned: true, enforceSSL: true, blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL });
  const role = new iam.Role(stack, 'ServiceRole', { assumedBy: new iam.ServicePrincipal('elasticfilesystem.amazonaws.com') });
  bucket.grantReadWrite(role);
  const fs = new s3files.CfnFileSystem(stack, 'FileSystem', { bucket: bucket.bucketArn, roleArn: role.roleArn });
  const mountTargetGroup = new ec2.SecurityGroup(stack, 'MountTargetSG', { vpc, allowAllOutbound: false });
  const clientGroup = new ec2.SecurityGroup(stack, 'ClientSG', { vpc, allowAllOutbound: false });
  mountTargetGroup.addIngressRule(clientGroup, ec2.Port.tcp(2049));
  clientGroup.addEgressRule(mountTargetGroup, ec2.Port.tcp(2049));
  const mountTargets = vpc.isolatedSubnets.map((subnet, i) => new s3files.CfnMountTarget(stack, `MountTarget${i}`, {
    fileSystemId: fs.attrFileSystemId, subnetId: subnet.subnetId, securityGroups: [mountTargetGroup.securityGroupId],
  }));
  const ap = new s3files.CfnAccessPoint(stack, 'AccessPoint', {
    fileSystemId: fs.attrFileSystemId,
    posixUser: { uid: '1000', gid: '1000' },
    rootDirectory: { path: '/lambda', creationPermissions: { ownerUid: '1000', ownerGid: '1000', permissions: '755' } },
  });
  new s3files.CfnFileSystemPolicy(stack, 'FileSystemPolicy', {
    fileSystemId: fs.attrFileSystemId,
    policy: new iam.PolicyDocument({
      statements: [new iam.PolicyStatement({
        effect: iam.Effect.DENY,
        principals: [new iam.AnyPrincipal()],
        actions: ['s3files:ClientMount', 's3files:ClientWrite', 's3files:ClientRootAccess'],
        resources: [fs.attrFileSystemArn],
        conditions: { Null: { 's3files:AccessPointArn': 'true' } },
      })],
    }),
  });
  for (let i = 0; i < n; i++) {
    const fn = new lambda.Function(stack, `Fn${i}`, {
      runtime: lambda.Runtime.NODEJS_24_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline(CODE),
      vpc,
      securityGroups: [new ec2.SecurityGroup(stack, `Fn${i}SecurityGroup`, { vpc }), clientGroup],
      environment: { MOUNT_PATH: '/mnt/s3files' },
    });
    const cfn = fn.node.defaultChild as lambda.CfnFunction;
    cfn.fileSystemConfigs = [{ arn: ap.attrAccessPointArn, localMountPath: '/mnt/s3files', s3FilesConfig: { directS3Read: 'AUTO' } }];
    mountTargets.forEach((mt) => cfn.addResourceDependency(mt));
    fn.addToRolePolicy(new iam.PolicyStatement({
      actions: ['s3files:ClientMount', 's3files:ClientWrite'],
      resources: [fs.attrFileSystemArn],
      conditions: { ArnEquals: { 's3files:AccessPointArn': ap.attrAccessPointArn } },
    }));
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3files:GetAccessPoint'], resources: [ap.attrAccessPointArn] }));
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3files:ListMountTargets'], resources: [fs.attrFileSystemArn] }));
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:GetObject', 's3:GetObjectVersion'], resources: [bucket.arnForObjects('*')] }));
  }
  return stack;
}

/** One synthesis: its times, and what it made (as TemplateSide counts it). */
export interface SynthSample extends TemplateSide {
  /** Whole thing: new App + construct tree + app.synth(), wall time. */
  readonly ms: number;
  /** The same, CPU time of this process (user + system): what a busy machine changes least. */
  readonly cpuMs: number;
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

/** How a sample synthesizes: with aws-cdk-lib's CloudFormation validation (as users run), and past 500 resources. */
export interface MeasureOptions {
  /** aws-cdk-lib's validation plugin on (`CDK_VALIDATION`); off by default here. */
  readonly validation?: boolean;
  /** No 500-resource limit (aws-cdk-lib's `@aws-cdk/core:stackResourceLimit` 0), for sizes one stack cannot hold. */
  readonly unlimited?: boolean;
}

export function measure(build: (app: App, n: number) => Stack, n: number, options: MeasureOptions = {}): SynthSample {
  const before = process.env.CDK_VALIDATION;
  process.env.CDK_VALIDATION = options.validation ? 'true' : 'false';
  try {
    return sample(build, n, options);
  } finally {
    if (before === undefined) delete process.env.CDK_VALIDATION;
    else process.env.CDK_VALIDATION = before;
  }
}

function sample(build: (app: App, n: number) => Stack, n: number, options: MeasureOptions): SynthSample {
  collectGarbage();
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  const app = new App(options.unlimited ? { context: { '@aws-cdk/core:stackResourceLimit': 0 } } : {});
  const stack = build(app, n);
  const built = process.hrtime.bigint();
  const assembly = app.synth();
  const end = process.hrtime.bigint();
  const used = process.cpuUsage(cpu);
  const artifact = assembly.getStackByName(stack.stackName);
  const template = artifact.template;
  // The file cdk deploy uploads (CDK writes it indented), which is what the 1 MB limit applies to.
  const bytes = statSync(artifact.templateFullPath).size;
  rmSync(assembly.directory, { recursive: true, force: true });
  const ms = (a: bigint, b: bigint): number => Number(b - a) / 1e6;
  return {
    ms: ms(start, end),
    cpuMs: (used.user + used.system) / 1000,
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
  /** Medians of ms/cpuMs/buildMs/synthMs over the reps; resources and bytes (identical every rep). */
  readonly library: SynthSample;
  readonly handWired: SynthSample;
  /** median library CPU ms / median hand-wired CPU ms */
  readonly ratio: number;
  /** Every rep's total ms. */
  readonly librarySamples: number[];
  readonly handWiredSamples: number[];
}

function medianSample(samples: SynthSample[]): SynthSample {
  return {
    ...samples[0],
    ms: median(samples.map((s) => s.ms)),
    cpuMs: median(samples.map((s) => s.cpuMs)),
    buildMs: median(samples.map((s) => s.buildMs)),
    synthMs: median(samples.map((s) => s.synthMs)),
  };
}

/** Interleaves library and hand-wired synths `reps` times per size; medians per side. */
export function runSynthBenchmark(sizes: number[] = [1, 10, 50], reps = 5, validation = false): SynthRow[] {
  // Warm module caches and the JIT on both sides before anything is timed.
  for (let i = 0; i < 3; i++) {
    measure(libraryStack, 10, { validation });
    measure(handWiredStack, 10, { validation });
  }
  const options = (n: number): MeasureOptions => ({ validation, unlimited: n > 100 });
  return sizes.map((n) => {
    const lib: SynthSample[] = [];
    const hand: SynthSample[] = [];
    // Alternate who goes first: neither side always runs right after a GC-heavy synth.
    for (let r = 0; r < reps; r++) {
      if (r % 2 === 0) {
        lib.push(measure(libraryStack, n, options(n)));
        hand.push(measure(handWiredStack, n, options(n)));
      } else {
        hand.push(measure(handWiredStack, n, options(n)));
        lib.push(measure(libraryStack, n, options(n)));
      }
    }
    const library = medianSample(lib);
    const handWired = medianSample(hand);
    return {
      n,
      library,
      handWired,
      ratio: library.cpuMs / handWired.cpuMs,
      librarySamples: lib.map((s) => s.cpuMs),
      handWiredSamples: hand.map((s) => s.cpuMs),
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
