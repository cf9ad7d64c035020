import { ASSERTIONS, ASSUMPTIONS, OPT_IN_SUITES, Suite } from './catalogue';
import { SUITE_STACKS } from './stacks';

// What `npx projen verify` will do, cost and take, printed before it starts (and by --dry-run).
// Estimates, not quotes: us-east-1 on-demand list prices as given by the pages below in 2026,
// multiplied by how long each resource stands in the run's timeline (the duration estimate). The
// run deploys every stack of every suite at the start, in one `cdk deploy`, and destroys them all
// at the end (orchestrate.ts), so each resource billed by the hour is charged from the start of
// the deploy phase to the end of the destroy phase (an upper bound). Other regions cost more.

export interface PlanOptions {
  readonly region?: string;
  /** Always includes 'core' and 'lifecycle'; opt-ins added with --with. */
  readonly suites: readonly Suite[];
}

/** Minutes per phase: from the sources in `why` (mount targets 3–5 min, Lambda VPC ENIs, EKS). */
export interface Phase {
  readonly phase: string;
  readonly minutes: number;
  readonly why: string;
  /** The run's stacks stand during this phase (from the deploy phase to the destroy phase, both included). */
  readonly stacksStand: boolean;
}

export interface CostLine {
  readonly item: string;
  readonly rate: string;
  readonly usage: string;
  readonly usd: number;
  readonly source: string;
}

const VPC_PRICING = 'https://aws.amazon.com/vpc/pricing/';
const MT = 'mount targets take 3–5 min to become available (two third-party write-ups; README)';

export function phases(suites: readonly Suite[]): Phase[] {
  const has = (s: Suite) => suites.includes(s);
  return [
    { phase: 'synthesize, check the snapshot', minutes: 2, why: 'two synths of the app', stacksStand: false },
    { phase: 'deploy the test stacks (side by side)', minutes: 25 + (has('eks') ? 20 : 0), why: `${MT}; the instance installs amazon-efs-utils; an EKS cluster takes ~15 min more`, stacksStand: true },
    { phase: 'assertions', minutes: 20 + (has('batch') ? 10 : 0) + (has('eks') ? 10 : 0), why: 'two chains: the Lambda probes (imports and exports wait up to minutes), then EC2 and three Fargate tasks', stacksStand: true },
    { phase: 'lifecycle updates (4 steps)', minutes: 40, why: `the prefix change replaces the file system (${MT}), each step re-runs its assertion`, stacksStand: true },
    { phase: 'benchmarks', minutes: 15, why: '20 files × 3 runs with sync delays, 5 cold-start samples, 10 files × 3 runs × 3 direct-read modes', stacksStand: true },
    {
      phase: 'destroy, retained cleanup, leftovers check',
      minutes: 30 + (has('eks') ? 15 : 0),
      why: 'Lambda releases VPC network interfaces slowly; the delete guard waits for pending exports; the bucket stays attached for a while after its file system',
      stacksStand: true,
    },
  ];
}

/**
 * Hours the run's stacks stand: from the start of the deploy phase to the end of the destroy phase.
 * Every stack, the opt-ins' too, is deployed in the first `cdk deploy` and destroyed in the one
 * `cdk destroy` (orchestrate.ts), so this is the time of each resource billed by the hour.
 */
export function standingHours(suites: readonly Suite[]): number {
  return phases(suites).filter((p) => p.stacksStand).reduce((n, p) => n + p.minutes, 0) / 60;
}

export function estimate(suites: readonly Suite[]): { lines: CostLine[]; totalUsd: number; hours: number } {
  const hours = phases(suites).reduce((n, p) => n + p.minutes, 0) / 60;
  const standing = standingHours(suites);
  const h = (n: number) => `${n.toFixed(2)} h (deploy → destroy)`;
  const lines: CostLine[] = [
    { item: 'NAT gateway (core VPC)', rate: '$0.045/h + $0.045/GB', usage: `${h(standing)}, < 1 GB`, usd: 0.045 * standing + 0.045, source: VPC_PRICING },
    { item: 'public IPv4 address of the NAT gateway', rate: '$0.005/h', usage: h(standing), usd: 0.005 * standing, source: VPC_PRICING },
    { item: 'Lambda interface endpoint, 2 AZs (benchmark stack)', rate: '$0.01/AZ-hour', usage: `2 × ${h(standing)}`, usd: 0.02 * standing, source: 'https://aws.amazon.com/privatelink/pricing/' },
    { item: 'EC2 t4g.micro (mount probe)', rate: '$0.0084/h', usage: h(standing), usd: 0.0084 * standing, source: 'https://aws.amazon.com/ec2/pricing/on-demand/' },
    { item: 'Fargate ARM tasks (3 × 0.25 vCPU, 0.5 GB)', rate: '$0.03238/vCPU-h, $0.00356/GB-h', usage: '3 × 10 min', usd: 3 * (10 / 60) * (0.25 * 0.03238 + 0.5 * 0.00356), source: 'https://aws.amazon.com/fargate/pricing/' },
    { item: 'Lambda (probes, processors, benchmark)', rate: '$0.0000133334/GB-s (arm64)', usage: 'at most 5,000 GB-s', usd: 5000 * 0.0000133334, source: 'https://aws.amazon.com/lambda/pricing/' },
    { item: 'KMS key (the file system\'s own)', rate: '$1/month, prorated', usage: 'until its 7-day deletion window ends (upper bound)', usd: 7 / 30, source: 'https://aws.amazon.com/kms/pricing/' },
    { item: 'S3 requests and CloudWatch Logs', rate: 'per request / GB', usage: 'a few thousand requests, < 50 MB of logs', usd: 0.05, source: 'https://aws.amazon.com/s3/pricing/' },
  ];
  if (suites.includes('batch')) {
    lines.push({ item: 'Batch on Fargate ARM (2 jobs)', rate: 'as Fargate', usage: '2 × 10 min', usd: 2 * (10 / 60) * (0.25 * 0.03238 + 0.5 * 0.00356), source: 'https://aws.amazon.com/fargate/pricing/' });
  }
  if (suites.includes('eks')) {
    // Deployed with the other stacks at the start and destroyed with them at the end.
    lines.push({ item: 'EKS cluster', rate: '$0.10/h', usage: h(standing), usd: 0.10 * standing, source: 'https://aws.amazon.com/eks/pricing/' });
    lines.push({ item: 'EKS node t4g.medium', rate: '$0.0336/h', usage: h(standing), usd: 0.0336 * standing, source: 'https://aws.amazon.com/ec2/pricing/on-demand/' });
  }
  if (suites.includes('agentcore')) {
    lines.push({ item: 'AgentCore runtime (created, never invoked)', rate: 'per active vCPU-second and GB-second', usage: 'none while idle', usd: 0, source: 'https://aws.amazon.com/bedrock/agentcore/pricing/' });
  }
  return { lines, totalUsd: lines.reduce((n, l) => n + l.usd, 0), hours };
}

/** The plan as text: what is deployed, the assertions, the estimates and how they were computed. */
export function renderPlan(options: PlanOptions): string {
  const { suites } = options;
  const { lines, totalUsd, hours } = estimate(suites);
  const out: string[] = [];
  out.push(`cdk-s3files-lambda verification plan (region: ${options.region ?? '(not given)'})`, '');
  out.push(`Suites: ${suites.join(', ')}${OPT_IN_SUITES.filter((s) => !suites.includes(s)).length ? ` (not run: ${OPT_IN_SUITES.filter((s) => !suites.includes(s)).join(', ')}; add with --with)` : ''}`);
  out.push(`Stacks: ${suites.flatMap((s) => SUITE_STACKS[s]).join(', ')}, and one integ-tests-alpha assertion stack per suite`, '');
  out.push('Assertions it will run, by assumption (docs/verification.md):');
  for (const a of ASSUMPTIONS) {
    out.push(`  ${a.id}: ${a.title}`);
    for (const s of ASSERTIONS.filter((x) => x.assumption === a.id)) {
      out.push(`    ${suites.includes(s.suite) ? '[run]    ' : '[not run]'} ${s.id} (${s.kind}): confirmed when ${s.confirmedWhen}`);
    }
  }
  out.push('', `Expected duration: about ${Math.round(hours * 60)} minutes (an estimate):`);
  for (const p of phases(suites)) out.push(`  ${String(p.minutes).padStart(3)} min  ${p.phase} (${p.why})`);
  out.push('', `Expected cost: about $${totalUsd.toFixed(2)} (an estimate; us-east-1 on-demand list prices, times how long each resource stands:`,
    `  every stack is deployed at the start and destroyed at the end, so ${standingHours(suites).toFixed(2)} h from the deploy phase's start to the destroy phase's end):`);
  for (const l of lines) out.push(`  $${l.usd.toFixed(3).padStart(6)}  ${l.item}: ${l.rate} × ${l.usage} (${l.source})`);
  out.push('  Not included: S3 Files storage and operations (this run stores < 100 MB while its stacks stand and makes a few thousand',
    '  metered operations; see the S3 pricing page for S3 Files rates). Prices as third-party summaries of those pages gave',
    '  them in 2026; check them for your region. The stacks are destroyed at the end, whatever the assertions say.');
  return out.join('\n');
}
