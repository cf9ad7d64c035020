import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

// The bindings check (test/bindings/run.sh) trusts this comparator to tell a real difference
// between the TypeScript, Python and Java templates from language noise. Prove both directions.
const COMPARATOR = path.join(__dirname, 'compare_templates.py');
const HASH_A = 'a'.repeat(64);
const HASH_B = '0123456789abcdef'.repeat(4);

function template(memorySize: number, assetHash: string, language: string): any {
  return {
    Resources: {
      Fn: {
        Type: 'AWS::Lambda::Function',
        Properties: { MemorySize: memorySize, Code: { S3Bucket: 'bucket', S3Key: `${assetHash}.zip` } },
        Metadata: { 'aws:cdk:path': `${language}/Fn/Resource`, 'aws:asset:path': `asset.${assetHash}` },
      },
      CDKMetadata: { Type: 'AWS::CDK::Metadata', Properties: { Analytics: `v2:deflate64:${language}` } },
    },
    Conditions: { CDKMetadataAvailable: { 'Fn::Equals': ['a', 'a'] } },
    Parameters: { BootstrapVersion: { Type: 'AWS::SSM::Parameter::Value<String>', Default: '/cdk-bootstrap/hnb659fds/version' } },
    Rules: { CheckBootstrapVersion: { Assertions: [] } },
  };
}

/** Writes a minimal cloud assembly (manifest + one stack template), as `cdk synth` would. */
function assembly(root: string, name: string, stackTemplate: any): string {
  const dir = path.join(root, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'Example.template.json'), JSON.stringify(stackTemplate));
  fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({
    version: '48.0.0',
    artifacts: { Example: { type: 'aws:cloudformation:stack', properties: { templateFile: 'Example.template.json' } } },
  }));
  return dir;
}

function compare(...args: string[]) {
  return spawnSync('python3', [COMPARATOR, ...args], { encoding: 'utf8' });
}

let work: string;
beforeEach(() => { work = fs.mkdtempSync(path.join(os.tmpdir(), 'compare-templates-')); });
afterEach(() => fs.rmSync(work, { recursive: true, force: true }));

test('templates that differ only in asset hashes and CDK metadata match', () => {
  // GIVEN the same stack synthesized by three languages (different hashes, paths, analytics)
  const ts = assembly(work, 'ts', template(1024, HASH_A, 'ts'));
  const py = assembly(work, 'py', template(1024, HASH_B, 'python'));
  const javaTemplate = template(1024, HASH_B, 'java');
  delete javaTemplate.Parameters;
  const java = assembly(work, 'java', javaTemplate);

  // WHEN they are compared
  const result = compare(`typescript=${ts}`, `python=${py}`, `java=${java}`);

  // THEN they match
  expect(result.stdout).toContain('OK: python, java match typescript');
  expect(result.status).toBe(0);
});

test('a changed property fails with a unified diff naming the stack and the property', () => {
  // GIVEN the Python template has a different memory size
  const ts = assembly(work, 'ts', template(1024, HASH_A, 'ts'));
  const py = assembly(work, 'py', template(512, HASH_A, 'python'));

  // WHEN they are compared
  const result = compare(`typescript=${ts}`, `python=${py}`);

  // THEN the comparison fails and shows both values as a readable diff
  expect(result.status).toBe(1);
  expect(result.stdout).toContain('Resources.Fn.Properties.MemorySize: 1024 -> 512');
  expect(result.stdout).toContain('--- typescript/Example');
  expect(result.stdout).toContain('+++ python/Example');
  expect(result.stdout).toMatch(/^- +"MemorySize": 1024,?$/m);
  expect(result.stdout).toMatch(/^\+ +"MemorySize": 512,?$/m);
});

test('a missing assembly is an input error, not a pass', () => {
  // GIVEN a directory where nothing was synthesized
  const ts = assembly(work, 'ts', template(1024, HASH_A, 'ts'));

  // WHEN it is compared
  const result = compare(`typescript=${ts}`, `java=${path.join(work, 'nothing')}`);

  // THEN the comparator says which manifest is missing
  expect(result.status).toBe(2);
  expect(result.stderr).toContain(path.join(work, 'nothing', 'manifest.json'));
});

test('the built-in self-test passes', () => {
  // GIVEN / WHEN the comparator checks itself (run.sh runs this before comparing)
  const result = compare('--self-test');

  // THEN noise is ignored and every kind of real difference is reported
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
});
