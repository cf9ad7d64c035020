/**
 * `npx projen verify`: proves the library in your AWS account (docs/verification.md).
 *
 *   npx projen verify -- --dry-run [--with batch,eks]        the plan, the assertions, the estimates; no AWS call
 *   npx projen verify -- --region eu-west-1 --confirm [--profile p] [--with batch,agentcore,eks]
 *                        [--agentcore-image <ecr uri>] [--out verify-report]
 *
 * Without --confirm it prints the plan and refuses to start (exit 2).
 */
import { OPT_IN_SUITES, Suite } from './catalogue';
import { verify } from './orchestrate';
import { renderPlan } from './plan';

export interface RunOptions {
  readonly region?: string;
  readonly profile?: string;
  readonly suites: Suite[];
  readonly agentcoreImage?: string;
  readonly confirm: boolean;
  readonly dryRun: boolean;
  readonly out: string;
  readonly help: boolean;
}

export function parseArgs(argv: readonly string[]): RunOptions {
  const value = (name: string): string | undefined => {
    const i = argv.indexOf(name);
    if (i < 0) return undefined;
    const v = argv[i + 1];
    if (v === undefined || v.startsWith('--')) throw new UsageError(`${name} needs a value`);
    return v;
  };
  const known = new Set(['--region', '--profile', '--with', '--agentcore-image', '--out', '--confirm', '--dry-run', '--help']);
  argv.forEach((a, i) => {
    if (a.startsWith('--') && !known.has(a)) throw new UsageError(`unknown option ${a}`);
    if (!a.startsWith('--') && !['--region', '--profile', '--with', '--agentcore-image', '--out'].includes(argv[i - 1] ?? '')) throw new UsageError(`unexpected argument ${a}`);
  });
  const optIns = (value('--with') ?? '').split(',').filter(Boolean);
  for (const s of optIns) {
    if (!OPT_IN_SUITES.includes(s as Suite)) throw new UsageError(`--with takes ${OPT_IN_SUITES.join(', ')}; got ${s}`);
  }
  const agentcoreImage = value('--agentcore-image');
  if (optIns.includes('agentcore') && !agentcoreImage) {
    throw new UsageError('--with agentcore needs --agentcore-image <an ARM64 image URI in ECR of this account and region>');
  }
  return {
    region: value('--region') ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION,
    profile: value('--profile'),
    suites: ['core', 'lifecycle', ...OPT_IN_SUITES.filter((s) => optIns.includes(s))],
    agentcoreImage,
    confirm: argv.includes('--confirm'),
    dryRun: argv.includes('--dry-run'),
    out: value('--out') ?? 'verify-report',
    help: argv.includes('--help'),
  };
}

export class UsageError extends Error {}

/** What the command does before it touches an account; returns the exit code, or undefined to go on. */
export function preflight(options: RunOptions, print: (text: string) => void): number | undefined {
  print(renderPlan(options));
  if (options.dryRun) {
    print('\nDry run: nothing was deployed and no AWS API was called.');
    return 0;
  }
  if (!options.confirm) {
    print('\nRefusing to start: this deploys billed resources into your account. Read the plan above, then run again with --confirm.');
    return 2;
  }
  if (!options.region) {
    print('\nRefusing to start: no region. Pass --region (or set AWS_REGION).');
    return 2;
  }
  return undefined;
}

async function main(argv: string[]): Promise<number> {
  let options: RunOptions;
  try {
    options = parseArgs(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    console.error(`verify: ${e.message}\n(see the top of integ/verify/run.ts, or docs/verification.md)`);
    return 2;
  }
  if (options.help) {
    console.log('Usage: npx projen verify -- --dry-run | --region <region> --confirm [--profile p] [--with batch,agentcore,eks] [--agentcore-image uri] [--out dir]');
    return 0;
  }
  const early = preflight(options, (t) => console.log(t));
  if (early !== undefined) return early;
  return verify(options);
}

if (require.main === module) {
  main(process.argv.slice(2).filter((a) => a !== '--')).then((code) => process.exit(code), (e) => {
    console.error(e);
    process.exit(1);
  });
}
