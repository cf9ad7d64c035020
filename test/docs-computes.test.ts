import * as fs from 'fs';
import * as path from 'path';

// Lists of computes written by hand (the package description, option and metric docs) against the
// compute adapters themselves (src/mount/), so a seventh compute cannot be left out of them.

const ROOT = path.join(__dirname, '..');
const MOUNT = path.join(ROOT, 'src', 'mount');

/** How the docs name the compute of each adapter file. */
const NAMES: Record<string, string> = { lambda: 'Lambda', ecs: 'ECS', batch: 'Batch', ec2: 'EC2', agentcore: 'AgentCore', eks: 'EKS' };

/** The adapter files (every src/mount file but the shared options). */
const adapters = () => fs.readdirSync(MOUNT).filter((f) => f.endsWith('.ts') && f !== 'options.ts').map((f) => f.replace(/\.ts$/, ''));

function jsiiDocs(fqn: string, member?: string): string {
  const file = path.join(ROOT, '.jsii');
  if (!fs.existsSync(file)) throw new Error(`${file} is missing: run 'npx projen compile' first (test:ci does)`);
  const type = JSON.parse(fs.readFileSync(file, 'utf8')).types[`cdk-s3files-lambda.${fqn}`];
  const docs = member ? [...(type.methods ?? []), ...(type.properties ?? [])].find((m: { name: string }) => m.name === member).docs : type.docs;
  return `${docs.summary ?? ''} ${docs.remarks ?? ''}`;
}

test('every adapter has a name the docs use', () => {
  expect(adapters().filter((a) => NAMES[a] === undefined)).toEqual([]);
});

test('the package description names every compute', () => {
  const description = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).description as string;
  expect(adapters().filter((a) => !description.includes(NAMES[a]))).toEqual([]);
});

test('S3FilesMountOptions names every compute whose options extend it', () => {
  const types = JSON.parse(fs.readFileSync(path.join(ROOT, '.jsii'), 'utf8')).types as Record<string, { name: string; interfaces?: string[] }>;
  const extending = Object.values(types).filter((t) => (t.interfaces ?? []).includes('cdk-s3files-lambda.S3FilesMountOptions')).map((t) => t.name);
  const computes = adapters().filter((a) => extending.some((name) => name.toLowerCase().startsWith(a)));
  expect(computes.sort()).toEqual(['agentcore', 'batch', 'ec2', 'ecs', 'eks']);
  const docs = jsiiDocs('S3FilesMountOptions');
  expect(computes.filter((a) => !docs.includes(NAMES[a]))).toEqual([]);
});

test('the amazon-efs-utils client metrics name every compute that mounts with amazon-efs-utils', () => {
  // The adapter's own file, and the private module it delegates to (src/private/mount/<adapter>-*.ts).
  const privateMount = path.join(ROOT, 'src', 'private', 'mount');
  const sources = (a: string) => [path.join(MOUNT, `${a}.ts`), ...fs.readdirSync(privateMount).filter((f) => f.startsWith(`${a}-`)).map((f) => path.join(privateMount, f))];
  const withEfsUtils = adapters().filter((a) => sources(a).some((f) => /efsUtils: true/.test(fs.readFileSync(f, 'utf8'))));
  expect(withEfsUtils.sort()).toEqual(['batch', 'ec2', 'ecs', 'eks']);
  for (const [fqn, member] of [['S3FilesFileSystemMetrics', 'clientBucketAccessible'], ['S3FilesFileSystemMetrics', 'clientBucketReachable'], ['GrantMountOptions', 'amazonEfsUtils']]) {
    const docs = jsiiDocs(fqn, member);
    expect({ member, missing: withEfsUtils.filter((a) => !docs.includes(NAMES[a])) }).toEqual({ member, missing: [] });
  }
});
