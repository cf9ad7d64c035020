/**
 * `npx projen verify`: proves the library in your AWS account (docs/verification.md).
 *
 *   npx projen verify -- --dry-run [--with batch,eks]        the plan, the assertions, the estimates; no AWS call
 *   npx projen verify -- --region eu-west-1 --confirm [--profile p] [--with batch,agentcore,eks]
 *                        [--agentcore-image <ecr uri>] [--out verify-report]
 *
 * `--with` may be repeated and takes comma lists; the suites add up. Every other option is given once.
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

/** The options that take a value; each may be given once, except `--with`, whose values add up. */
const VALUE_OPTIONS = ['--region', '--profile', '--with', '--agentcore-image', '--out'] as const;
const FLAGS = ['--confirm', '--dry-run', '--help'] as const;

export function parseArgs(argv: readonly string[]): RunOptions {
  const values = new Map<string, string[]>();
  const flags = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if ((FLAGS as readonly string[]).includes(a)) {
      flags.add(a);
    } else if ((VALUE_OPTIONS as readonly string[]).includes(a)) {
      const v = argv[i + 1];
      if (v === undefined || v.startsWith('--')) throw new UsageError(`${a} needs a value`);
      values.set(a, [...(values.get(a) ?? []), v]);
      i++;
    } else {
      throw new UsageError(a.startsWith('--') ? `unknown option ${a}` : `unexpected argument ${a}`);
    }
  }
  const value = (name: typeof VALUE_OPTIONS[number]): string | undefined => {
    const given = values.get(name) ?? [];
    if (given.length > 1) throw new UsageError(`${name} given ${given.length} times (${given.join(', ')}); give it once`);
    return given[0];
  };
  // `--with batch,eks --with agentcore` and `--with batch --with eks,agentcore` ask for the same suites.
  const optIns: string[] = [];
  for (const list of values.get('--with') ?? []) {
    const names = list.split(',').map((s) => s.trim());
    for (const s of names) {
      if (!OPT_IN_SUITES.includes(s as Suite)) {
        throw new UsageError(`--with takes ${OPT_IN_SUITES.join(', ')}; got ${s === '' ? `an empty name in "${list}"` : s}`
          + `${['core', 'lifecycle'].includes(s) ? ` (${s} always runs)` : ''}`);
      }
      if (!optIns.includes(s)) optIns.push(s);
    }
  }
  const agentcoreImage = value('--agentcore-image');
  if (optIns.includes('agentcore') && !agentcoreImage) {
    throw new UsageError('--with agentcore needs --agentcore-image <an ARM64 image URI in ECR of this account and region>');
  }
  if (agentcoreImage && !optIns.includes('agentcore')) {
    throw new UsageError('--agentcore-image is only used with --with agentcore; add it, or leave the image out');
  }
  return {
    region: value('--region') ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION,
    profile: value('--profile'),
    suites: ['core', 'lifecycle', ...OPT_IN_SUITES.filter((s) => optIns.includes(s))],
    agentcoreImage,
    confirm: flags.has('--confirm'),
    dryRun: flags.has('--dry-run'),
    out: value('--out') ?? 'verify-report',
    help: flags.has('--help'),
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
    console.log('Usage: npx projen verify -- --dry-run | --region <region> --confirm [--profile p] [--with batch,agentcore,eks] [--agentcore-image uri] [--out dir]\n'
      + '--with may be repeated (--with batch --with eks); the suites add up.');
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
