import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { ASSERTIONS, Suite } from '../../integ/verify/catalogue';
import { estimate, phases, standingHours } from '../../integ/verify/plan';
import { parseArgs, preflight, UsageError } from '../../integ/verify/run';

const ROOT = path.join(__dirname, '..', '..');

/** The command as a user runs it (ts-node, no credentials: AWS variables cleared). */
function runVerify(...args: string[]) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AWS_')));
  return spawnSync(path.join(ROOT, 'node_modules', '.bin', 'ts-node'), ['--transpile-only', '--project', 'test/tsconfig.json', 'integ/verify/run.ts', ...args], {
    cwd: ROOT, env: { ...env, AWS_CONFIG_FILE: '/nonexistent', AWS_SHARED_CREDENTIALS_FILE: '/nonexistent' }, encoding: 'utf8', timeout: 60_000,
  });
}

describe('npx projen verify, without credentials', () => {
  const dry = runVerify('--dry-run', '--with', 'batch');

  test('--dry-run prints the plan, every assertion it would run, the cost and the duration, and exits 0', () => {
    expect([dry.status, dry.stderr]).toEqual([0, '']);
    expect(dry.stdout).toContain('Stacks: S3FilesVerifyCore, S3FilesVerifyRetain, S3FilesVerifyBenchmark, S3FilesVerifyLifecycle, S3FilesVerifyBatch');
    for (const a of ASSERTIONS) {
      const mark = ['core', 'lifecycle', 'batch'].includes(a.suite) ? '[run]' : '[not run]';
      expect(dry.stdout).toMatch(new RegExp(`\\${mark}\\s+${a.id.replace(/\./g, '\\.')} \\(`));
    }
    const { totalUsd, hours } = estimate(['core', 'lifecycle', 'batch']);
    expect(dry.stdout).toContain(`Expected cost: about $${totalUsd.toFixed(2)} (an estimate`);
    expect(dry.stdout).toContain(`Expected duration: about ${Math.round(hours * 60)} minutes`);
    expect(dry.stdout).toContain('https://aws.amazon.com/vpc/pricing/');
    expect(dry.stdout).toContain('Dry run: nothing was deployed and no AWS API was called.');
  });

  test('without --confirm it prints the plan and refuses to start (exit 2)', () => {
    const refused = runVerify('--region', 'eu-west-1');
    expect(refused.status).toBe(2);
    expect(refused.stdout).toContain('Expected cost: about $');
    expect(refused.stdout).toContain('Refusing to start: this deploys billed resources into your account.');
  });

  test('a wrong option or an AgentCore run without an image is refused before anything else', () => {
    expect(runVerify('--with', 'lambda').stderr).toContain('verify: --with takes batch, agentcore, eks; got lambda');
    expect(() => parseArgs(['--with', 'agentcore', '--confirm'])).toThrow(UsageError);
  });
});

/** The `npx projen verify` command lines of docs/verification.md, verbatim (comments dropped), as the arguments run.ts's main gets. */
function documentedCommands(): Array<{ line: string; argv: string[] }> {
  const docs = fs.readFileSync(path.join(ROOT, 'docs', 'verification.md'), 'utf8');
  return docs.split('\n').filter((l) => l.startsWith('npx projen verify ')).map((l) => {
    const line = l.replace(/\s+#.*$/, '').trim();
    // What main() receives: the words after `npx projen verify`, without projen's `--`.
    return { line, argv: line.split(/\s+/).slice(3).filter((a) => a !== '--') };
  });
}

describe('the command line', () => {
  test('every command line docs/verification.md gives parses, and the one with two --with runs every suite it names', () => {
    const commands = documentedCommands();
    expect(commands.length).toBeGreaterThanOrEqual(3);
    for (const c of commands) expect(() => parseArgs(c.argv)).not.toThrow();
    const all = commands.find((c) => c.argv.filter((a) => a === '--with').length > 1);
    expect(all?.line).toBe('npx projen verify -- --region eu-west-1 --confirm --with batch,eks --agentcore-image <uri> --with agentcore');
    expect(parseArgs(all!.argv)).toMatchObject({ suites: ['core', 'lifecycle', 'batch', 'agentcore', 'eks'], agentcoreImage: '<uri>', region: 'eu-west-1', confirm: true });
  });

  test('the documented command with --dry-run prints every suite it names, none left out', () => {
    const all = documentedCommands().find((c) => c.argv.includes('agentcore'))!;
    const dry = runVerify(...all.argv, '--dry-run');
    expect([dry.status, dry.stderr]).toEqual([0, '']);
    expect(dry.stdout).toContain('Suites: core, lifecycle, batch, agentcore, eks\n');
    expect(dry.stdout).toContain('S3FilesVerifyBatch, S3FilesVerifyAgentCore, S3FilesVerifyEks');
  });

  test('--with repeats and takes comma lists: the suites add up, each once, in the catalogue\'s order', () => {
    const suites = (...argv: string[]) => parseArgs(['--dry-run', ...argv]).suites;
    expect(suites()).toEqual(['core', 'lifecycle']);
    expect(suites('--with', 'eks', '--with', 'batch')).toEqual(['core', 'lifecycle', 'batch', 'eks']);
    expect(suites('--with', 'eks,batch', '--with', 'eks')).toEqual(['core', 'lifecycle', 'batch', 'eks']);
    expect(suites('--with', 'batch', '--agentcore-image', 'img', '--with', 'eks,agentcore')).toEqual(['core', 'lifecycle', 'batch', 'agentcore', 'eks']);
  });

  test('an unknown suite, an empty one, a repeated single option or an image without agentcore is refused, naming what is wrong', () => {
    const refusal = (...argv: string[]) => {
      try {
        parseArgs(argv);
      } catch (e) {
        expect(e).toBeInstanceOf(UsageError);
        return (e as Error).message;
      }
      return 'accepted';
    };
    expect(refusal('--with', 'batch', '--with', 'ekss')).toBe('--with takes batch, agentcore, eks; got ekss');
    expect(refusal('--with', 'batch,,eks')).toBe('--with takes batch, agentcore, eks; got an empty name in "batch,,eks"');
    expect(refusal('--with', 'core')).toBe('--with takes batch, agentcore, eks; got core (core always runs)');
    expect(refusal('--with')).toBe('--with needs a value');
    expect(refusal('--with', '--confirm')).toBe('--with needs a value');
    expect(refusal('--region', 'eu-west-1', '--region', 'us-east-1')).toBe('--region given 2 times (eu-west-1, us-east-1); give it once');
    expect(refusal('--agentcore-image', 'img')).toBe('--agentcore-image is only used with --with agentcore; add it, or leave the image out');
    expect(refusal('--with', 'batch', 'eks')).toBe('unexpected argument eks');
    expect(refusal('--wiht', 'eks')).toBe('unknown option --wiht');
  });
});

describe('the plan', () => {
  test('with --confirm but no region it still refuses; with both it goes on', () => {
    const printed: string[] = [];
    expect(preflight({ ...parseArgs(['--confirm']), region: undefined }, (t) => printed.push(t))).toBe(2);
    expect(printed.join('\n')).toContain('no region');
    expect(preflight(parseArgs(['--confirm', '--region', 'us-east-1']), () => undefined)).toBeUndefined();
  });

  test('docs/verification.md quotes the default duration and cost the plan computes, and the EKS supplement', () => {
    const docs = fs.readFileSync(path.join(ROOT, 'docs', 'verification.md'), 'utf8').replace(/\s+/g, ' ');
    const base = estimate(['core', 'lifecycle']);
    const minutes = phases(['core', 'lifecycle']).reduce((n, p) => n + p.minutes, 0);
    expect(docs).toContain(`(about ${Math.floor(minutes / 60)} hours ${minutes % 60} minutes for the default suites)`);
    expect(docs).toContain(`(about $${base.totalUsd.toFixed(1)} at us-east-1 list prices`);
    const eks = estimate(['core', 'lifecycle', 'eks']);
    expect(docs).toContain(`\`--with eks\` adds about $${(eks.totalUsd - base.totalUsd).toFixed(2)} and ${Math.round(eks.hours - base.hours)} hour`);
    expect(docs).toContain(`${standingHours(['core', 'lifecycle']).toFixed(2)} hours for the default suites, ${standingHours(['core', 'lifecycle', 'eks']).toFixed(2)} with \`--with eks\``);
  });

  test('every resource billed by the hour, the EKS cluster and node included, is charged from the deploy phase\'s start to the destroy phase\'s end', () => {
    // The run deploys every stack in its first `cdk deploy` and destroys them all in one `cdk destroy` (orchestrate.ts).
    const cases: Suite[][] = [['core', 'lifecycle'], ['core', 'lifecycle', 'eks'], ['core', 'lifecycle', 'batch', 'agentcore', 'eks']];
    for (const suites of cases) {
      const all = phases(suites);
      const from = all.findIndex((p) => p.phase.startsWith('deploy'));
      const to = all.findIndex((p) => p.phase.startsWith('destroy'));
      const standing = all.slice(from, to + 1).reduce((n, p) => n + p.minutes, 0) / 60;
      expect(standingHours(suites)).toBeCloseTo(standing, 10);
      const usd = (item: string) => estimate(suites).lines.find((l) => l.item.startsWith(item))?.usd;
      expect(usd('public IPv4 address')).toBeCloseTo(0.005 * standing, 10);
      expect(usd('EC2 t4g.micro')).toBeCloseTo(0.0084 * standing, 10);
      expect(usd('NAT gateway')).toBeCloseTo(0.045 * standing + 0.045, 10);
      if (suites.includes('eks')) {
        expect(usd('EKS cluster')).toBeCloseTo(0.10 * standing, 10);
        expect(usd('EKS node')).toBeCloseTo(0.0336 * standing, 10);
      }
    }
  });

  test('docs/verification.md\'s excerpt of the dry run\'s cost is what the dry run prints', () => {
    const docs = fs.readFileSync(path.join(ROOT, 'docs', 'verification.md'), 'utf8');
    const intro = 'The cost part of `npx projen verify -- --dry-run --with eks`:';
    const block = docs.slice(docs.indexOf(intro)).match(/```text\n([\s\S]*?)\n\s*```/)?.[1];
    expect(block).toContain('Expected cost: about $');
    const excerpt = block!.split('\n').map((l) => l.replace(/^ {2}/, '')).join('\n');
    const dry = runVerify('--dry-run', '--with', 'eks');
    expect(dry.status).toBe(0);
    expect(dry.stdout).toContain(excerpt);
  });
});
