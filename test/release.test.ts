import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';

const root = join(__dirname, '..');
const projen = join(root, 'node_modules', 'projen', 'bin', 'projen');

describe('the release workflow', () => {
  const workflow = parse(readFileSync(join(root, '.github', 'workflows', 'release.yml'), 'utf8'));

  test('releases every push to main, building with the project\'s own release task', () => {
    expect(workflow.on.push.branches).toEqual(['main']);
    const run = workflow.jobs.release.steps.map((s: { run?: string }) => s.run).filter(Boolean).join('\n');
    expect(run).toMatch(/npx projen release/);
  });

  test.each([
    ['release_npm', 'publib-npm', 'package:js', ['NPM_TOKEN']],
    ['release_pypi', 'publib-pypi', 'package:python', ['TWINE_USERNAME', 'TWINE_PASSWORD']],
    ['release_maven', 'publib-maven', 'package:java', ['MAVEN_USERNAME', 'MAVEN_PASSWORD', 'MAVEN_GPG_PRIVATE_KEY']],
  ])('%s publishes with %s after %s', (job, publib, task, secrets) => {
    const steps = workflow.jobs[job].steps as { run?: string; env?: Record<string, string> }[];
    expect(workflow.jobs[job].needs).toBe('release');
    expect(steps.some((s) => s.run?.includes(`npx projen ${task}`))).toBe(true);
    const publish = steps.find((s) => s.run?.includes(publib));
    expect(publish).toBeDefined();
    for (const secret of secrets) expect(publish!.env?.[secret]).toBe(`\${{ secrets.${secret} }}`);
  });

  test('the release task checks the metadata first; every package task builds the handler bundles, and the examples for Python and Java', () => {
    const tasks = JSON.parse(readFileSync(join(root, '.projen', 'tasks.json'), 'utf8')).tasks;
    expect(tasks.release.steps[0]).toEqual({ exec: 'node scripts/check-release-metadata.js' });
    // (every one, so that a package built on its own ships the handlers: package:go once did not)
    const packaging = Object.keys(tasks).filter((name) => name.startsWith('package:')).sort();
    expect(packaging).toEqual(['package:go', 'package:java', 'package:js', 'package:python']);
    for (const name of packaging) expect({ name, first: tasks[name].steps[0] }).toEqual({ name, first: { spawn: 'bundle' } });
    // and the Python and Java packages get the examples translated (jsii-pacmak reads the tablet)
    for (const name of ['package:python', 'package:java']) {
      const steps = tasks[name].steps.map((st: { spawn?: string; exec?: string }) => st.spawn ?? st.exec);
      expect(steps.indexOf('rosetta:extract')).toBeGreaterThan(-1);
      expect(steps.indexOf('rosetta:extract')).toBeLessThan(steps.findIndex((st: string) => st.startsWith('jsii-pacmak')));
    }
  });
});

describe('the release metadata check', () => {
  const dir = mkdtempSync(join(tmpdir(), 'release-metadata-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const check = (pkg: object) => {
    const file = join(dir, 'package.json');
    writeFileSync(file, JSON.stringify(pkg));
    return spawnSync(process.execPath, [join(root, 'scripts', 'check-release-metadata.js'), file], { encoding: 'utf8' });
  };

  test('refuses the placeholder repository and author, naming the .projenrc.ts option to set', () => {
    const res = check(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')));
    expect(res.status).toBe(1);
    expect(res.stderr).toMatch(/repository "https:\/\/github.com\/example\/cdk-s3files-lambda.git" is a placeholder: set repositoryUrl in .projenrc.ts/);
    expect(res.stderr).toMatch(/author email "team@example.com" is a placeholder: set authorAddress/);
    expect(res.stderr).toMatch(/Go module "github.com\/example\/cdk-s3files-lambda-go" is a placeholder: set publishToGo.moduleName/);
  });

  test('passes real metadata', () => {
    const res = check({
      name: 'x',
      repository: { url: 'https://github.com/acme/cdk-s3files-lambda.git' },
      author: { name: 'Acme', email: 'oss@acme.dev' },
      jsii: { targets: { go: { moduleName: 'github.com/acme/cdk-s3files-lambda-go' } } },
    });
    expect(res.stderr).toBe('');
    expect(res.status).toBe(0);
  });
});

/**
 * Runs this project's own `bump` task (.projen/tasks.json, projen's release scripts and
 * commit-and-tag-version) in a scratch git repository, as the release job does.
 */
describe('versions come from Conventional Commits: in 0.x a breaking change bumps the minor, fix and feat the patch', () => {
  let repo: string;
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
  const commit = (message: string) => {
    writeFileSync(join(repo, 'change.txt'), message);
    git('add', '-A');
    git('commit', '-q', '-m', message);
  };
  const bump = (): { version: string; changelog: string; tag: string } => {
    // (each case starts from a `git reset --hard`, which restores package.json as `unbump` would)
    execFileSync(process.execPath, [projen, 'bump'], { cwd: repo, stdio: 'pipe', env: { ...process.env, BUMP_PACKAGE: '' } });
    const read = (f: string) => readFileSync(join(repo, 'dist', f), 'utf8');
    return { version: read('version.txt'), changelog: read('changelog.md'), tag: read('releasetag.txt') };
  };

  beforeAll(() => {
    repo = mkdtempSync(join(tmpdir(), 'release-bump-'));
    mkdirSync(join(repo, '.projen'));
    cpSync(join(root, '.projen', 'tasks.json'), join(repo, '.projen', 'tasks.json'));
    // The task runs commit-and-tag-version from node_modules, like `npm ci` leaves it in the job.
    symlinkSync(join(root, 'node_modules'), join(repo, 'node_modules'));
    writeFileSync(join(repo, 'package.json'), JSON.stringify({ name: 'cdk-s3files-lambda', version: '0.0.0' }));
    writeFileSync(join(repo, '.gitignore'), 'node_modules\ndist\n');
    git('init', '-q', '-b', 'main');
    git('config', 'user.email', 'ci@localhost');
    git('config', 'user.name', 'ci');
    commit('feat: mount S3 Files in Lambda');
    git('tag', 'v0.1.0');
  });
  afterAll(() => rmSync(repo, { recursive: true, force: true }));

  test.each([
    ['fix: the waiter retries throttling', '0.1.1', /### Bug Fixes\s+\* the waiter retries throttling/],
    ['feat: ECS task mounts', '0.1.1', /### Features\s+\* ECS task mounts/],
    ['feat!: rename bucketEncryptionKey', '0.2.0', /### ⚠ BREAKING CHANGES\s+\* rename bucketEncryptionKey/],
  ])('after v0.1.0, "%s" releases %s with its changelog entry', (message, version, entry) => {
    git('reset', '-q', '--hard', 'v0.1.0');
    commit(message);
    const out = bump();
    expect(out.version).toBe(version);
    expect(out.tag).toBe(`v${version}`);
    expect(out.changelog).toMatch(entry);
  });
  // Last: it removes the tag the cases above start from.
  test('without any release tag, the first release keeps package.json\'s version (README: tag the start by hand)', () => {
    git('reset', '-q', '--hard');
    git('tag', '-d', 'v0.1.0');
    expect(bump().version).toBe('0.0.0');
  });
});
