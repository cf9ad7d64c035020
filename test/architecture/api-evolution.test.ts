import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

// The API as jsii sees it (the .jsii assembly `npx projen compile` writes; test:ci compiles before
// jest): what jsii-diff can hold a later release to, and what each binding sees.

const ROOT = path.join(__dirname, '..', '..');
const FQN = 'cdk-s3files-lambda';

interface Member { readonly name: string; readonly static?: boolean; readonly abstract?: boolean; readonly const?: boolean }
interface JsiiType {
  readonly kind: 'class' | 'interface' | 'enum';
  readonly name: string;
  readonly docs?: { readonly subclassable?: boolean };
  readonly initializer?: unknown;
  readonly methods?: Member[];
  readonly properties?: Member[];
  readonly datatype?: boolean;
}

function assembly(): { types: Record<string, JsiiType> } & Record<string, unknown> {
  const file = path.join(ROOT, '.jsii');
  if (!fs.existsSync(file)) throw new Error(`${file} is missing: run 'npx projen compile' first (test:ci does)`);
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

/** jsii-diff's findings from the current assembly to one changed by `change` (both under test/.tmp, so aws-cdk-lib resolves). */
function diffAfter(change: (types: Record<string, JsiiType>) => void): string[] {
  const dir = fs.mkdtempSync(path.join(ROOT, 'test', '.tmp-api-'));
  try {
    const updated = assembly();
    change(updated.types);
    fs.writeFileSync(path.join(dir, '.jsii'), JSON.stringify(updated));
    fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(dir, 'package.json'));
    const r = spawnSync(process.execPath, [require.resolve('jsii-diff/bin/jsii-diff.js'), ROOT, dir, '--error-on', 'all'], { encoding: 'utf8' });
    return `${r.stdout}\n${r.stderr}`.split('\n').filter((l) => /^(err|warn)\s+-/.test(l));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const required = (name: string): Member & Record<string, unknown> => ({ name, abstract: true, docs: { summary: 'new' }, locationInModule: { filename: 'x.ts', line: 1 } });

describe('types users implement or extend are @subclassable, so jsii-diff holds them', () => {
  const implemented = ['IS3FilesFileSystem', 'IS3FilesAccessPoint', 'S3FilesFileSystemBase', 'S3FilesAccessPointBase'];

  test.each(implemented)('%s is tagged @subclassable', (name) => {
    expect(assembly().types[`${FQN}.${name}`].docs?.subclassable).toBe(true);
  });

  test('a release that adds a required member to any of them is reported as a break', () => {
    // GIVEN the assembly with one new required method on each
    const findings = diffAfter((types) => {
      for (const name of implemented) {
        const t = types[`${FQN}.${name}`] as { methods?: Member[] };
        t.methods = [...(t.methods ?? []), required('addedLater')];
      }
    });
    // THEN jsii-diff names each one (without the tag it reports nothing)
    for (const name of implemented) {
      expect(findings).toContainEqual(expect.stringContaining(`${FQN}.${name}.addedLater: adds requirement for subclasses to implement`));
    }
  });

  test('the compat task fails on such a finding: every change is an error (jsii-diff only warns about experimental APIs by default)', () => {
    const tasks = JSON.parse(fs.readFileSync(path.join(ROOT, '.projen', 'tasks.json'), 'utf8'));
    expect(tasks.tasks.compat.steps.map((s: { exec?: string }) => s.exec)).toEqual(['jsii-diff npm:cdk-s3files-lambda -k --error-on all --ignore-file .compatignore']);
  });
});

describe('classes of static methods only cannot be constructed', () => {
  test('every such class has no initializer in any language (a private constructor), the six mount classes among them', () => {
    const types = Object.values(assembly().types);
    const staticOnly = types.filter((t) => t.kind === 'class' && (t.methods ?? []).length > 0
      && [...(t.methods ?? []), ...(t.properties ?? [])].every((m) => m.static));
    expect(staticOnly.map((t) => t.name)).toEqual(expect.arrayContaining(['LambdaMount', 'EcsMount', 'BatchMount', 'Ec2Mount', 'AgentCoreMount', 'EksMount']));
    expect(staticOnly.filter((t) => t.initializer !== undefined).map((t) => t.name)).toEqual([]);
  });
});

describe('IAM strings users pass are string constants, not enums', () => {
  test('no enum in the API (a jsii enum member\'s value is its name in Python, Java and Go)', () => {
    expect(Object.values(assembly().types).filter((t) => t.kind === 'enum').map((t) => t.name)).toEqual([]);
  });

  test('S3FilesClientAction holds the IAM action names as constants', () => {
    const t = assembly().types[`${FQN}.S3FilesClientAction`];
    expect(t.kind).toBe('class');
    expect(t.initializer).toBeUndefined();
    expect((t.properties ?? []).map((p) => [p.name, p.const, p.static])).toEqual([['MOUNT', true, true], ['ROOT_ACCESS', true, true], ['WRITE', true, true]]);
  });
});

describe('the input interfaces hold what the mount pipeline needs, and nothing a user\'s implementation need not write', () => {
  const members = (name: string) => {
    const t = assembly().types[`${FQN}.${name}`];
    return { methods: (t.methods ?? []).map((m) => m.name).sort(), properties: (t.properties ?? []).map((p) => p.name).sort() };
  };

  test('IS3FilesFileSystem: identity, readiness and what mounts read; no grants or metrics (S3FilesFileSystemGrants, S3FilesFileSystemMetrics)', () => {
    expect(members('IS3FilesFileSystem')).toEqual({
      methods: [],
      properties: ['bucket', 'bucketEncryptionKey', 'clientSecurityGroup', 'fileSystemArn', 'fileSystemId', 'mountTargetAvailabilityZones',
        'mountTargetsAvailable', 'prefix', 'vpc'],
    });
  });

  test('IS3FilesAccessPoint: identity, its file system and readiness; no grants (S3FilesAccessPointGrants)', () => {
    expect(members('IS3FilesAccessPoint')).toEqual({ methods: [], properties: ['accessPointArn', 'accessPointId', 'available', 'fileSystem'] });
  });
});
