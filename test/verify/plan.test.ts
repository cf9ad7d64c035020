import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { ASSERTIONS } from '../../integ/verify/catalogue';
import { estimate, phases } from '../../integ/verify/plan';
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
  });
});
