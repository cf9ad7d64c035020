import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import madge from 'madge';
import { unspelledMessageWords } from './messages-spelled';

// The shape the codebase keeps (issue 29): no import cycles, files one can hold in one's head,
// contracts free of compute-specific members, and messages every binding can read.

const SRC = path.join(__dirname, '..', '..', 'src');
const MAX_LINES = 400;

const sourceFiles = (): string[] => fs.readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));

describe('the import graph of src/', () => {
  test('has no cycle', async () => {
    const graph = await madge(SRC, { fileExtensions: ['ts'], detectiveOptions: { ts: { skipTypeImports: false } } });
    expect(Object.keys(graph.obj()).length).toBeGreaterThan(30); // it did read the sources
    expect(graph.circular()).toEqual([]);
  });

  test('and the test above can fail: madge finds a cycle it is given', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cycle-'));
    fs.writeFileSync(path.join(dir, 'a.ts'), 'import { b } from \'./b\';\nexport const a = () => b;\n');
    fs.writeFileSync(path.join(dir, 'b.ts'), 'import type { a } from \'./a\';\nexport const b = (x?: typeof a) => x;\n');
    const graph = await madge(dir, { fileExtensions: ['ts'], detectiveOptions: { ts: { skipTypeImports: false } } });
    expect(graph.circular()).toEqual([['a.ts', 'b.ts']]);
  });
});

/** Contract modules: the input interfaces and props, which import nothing of the library but each other. */
const isContract = (f: string) => /^s3files-[a-z-]+-(contract|props)\.ts$/.test(f);
const isPrivate = (f: string) => f.startsWith('private/');

/** The imports that run the wrong way: a private module into a public one, a contract into anything but a contract. */
export function upwardImports(graph: Record<string, string[]>): string[] {
  return Object.entries(graph).flatMap(([from, deps]) => deps
    .filter((to) => (isContract(from) && !isContract(to)) || (isPrivate(from) && !isPrivate(to) && !isContract(to)))
    .map((to) => `${from} -> ${to}`));
}

describe('every import runs one way: public -> private, everything -> contracts', () => {
  test('no private module imports a public one, and contracts import only contracts', async () => {
    const graph = (await madge(SRC, { fileExtensions: ['ts'], detectiveOptions: { ts: { skipTypeImports: false } } })).obj();
    expect(Object.keys(graph).filter(isContract).length).toBeGreaterThanOrEqual(3);
    expect(upwardImports(graph)).toEqual([]);
  });

  test('and the rule can fail: it names each import that runs back up', () => {
    expect(upwardImports({
      'private/mount/x.ts': ['s3files-file-system-base.ts', 's3files-file-system-contract.ts', 'private/messages.ts'],
      's3files-access-point-contract.ts': ['mount/options.ts', 's3files-file-system-contract.ts'],
      's3files-file-system.ts': ['private/messages.ts'],
    })).toEqual(['private/mount/x.ts -> s3files-file-system-base.ts', 's3files-access-point-contract.ts -> mount/options.ts']);
  });

  test('src/private/ is grouped by purpose: nothing but shared helpers beside the mount, file-system and provider folders', () => {
    const top = fs.readdirSync(path.join(SRC, 'private'), { withFileTypes: true });
    expect(top.filter((e) => e.isDirectory()).map((e) => e.name).sort()).toEqual(['file-system', 'mount', 'provider']);
    expect(top.filter((e) => e.isFile()).length).toBeLessThanOrEqual(8);
  });
});

/** Reliances on aws-cdk-lib's private construct ids: a child looked up by a literal id. */
export function literalChildLookups(file: string, text: string): string[] {
  return text.split('\n').flatMap((line, i) => (/\b(tryFindChild|findChild)\(\s*['"`]/.test(line) ? [`${file}:${i + 1}`] : []));
}

describe('reliance on aws-cdk-lib internals lives in compat.ts', () => {
  test('no module but compat.ts looks up a construct\'s child by a literal id', () => {
    const found = sourceFiles().filter((f) => f !== path.join('private', 'compat.ts'))
      .flatMap((f) => literalChildLookups(f, fs.readFileSync(path.join(SRC, f), 'utf8')));
    expect(found).toEqual([]);
  });

  test('and the check can fail', () => {
    expect(literalChildLookups('x.ts', "const a = provider.node.tryFindChild('framework-isComplete');\nconst b = scope.node.tryFindChild(ID);")).toEqual(['x.ts:1']);
  });
});

describe('file sizes', () => {
  test(`no src/ file is longer than ${MAX_LINES} lines (generated handler wrappers aside)`, () => {
    const long = sourceFiles()
      .filter((f) => !/s3files-provider-.*-function\.ts$/.test(f))
      .map((f) => [f, fs.readFileSync(path.join(SRC, f), 'utf8').split('\n').length] as const)
      .filter(([, lines]) => lines > MAX_LINES);
    expect(long).toEqual([]);
  });
});

describe('line lengths', () => {
  const MAX_LINE = 180;
  // The EC2 boot script's log lines are its messages, shipped as shell text inside a template literal.
  const shellMessage = (f: string, line: string) => f.endsWith('ec2-user-data.ts') && /^\s+log "/.test(line);

  test(`no src/ line is longer than ${MAX_LINE} characters (the boot script's log messages aside)`, () => {
    const long = sourceFiles().filter((f) => !/s3files-provider-.*-function\.ts$/.test(f)).flatMap((f) => fs.readFileSync(path.join(SRC, f), 'utf8').split('\n')
      .flatMap((line, i) => (line.length > MAX_LINE && !shellMessage(f, line) ? [`${f}:${i + 1}`] : [])));
    expect(long).toEqual([]);
  });

  test('no test names the API removed before 1.0 (mountOnFunction and its siblings became the *Mount classes)', () => {
    const tests = fs.readdirSync(path.join(__dirname, '..'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts') && f !== path.join('architecture', 'architecture.test.ts'));
    const stale = tests.flatMap((f) => fs.readFileSync(path.join(__dirname, '..', f), 'utf8').split('\n')
      .flatMap((line, i) => (/\bmountOn(Function|TaskDefinition|Service|JobDefinition|Instance|AutoScalingGroup|LaunchTemplate|AgentCoreRuntime|Runtime|Cluster)\b/.test(line) ? [`${f}:${i + 1}`] : [])));
    expect(stale).toEqual([]);
  });
});

describe('messages', () => {
  test('every identifier a message names outside its prop is backticked, so each binding\'s spelling follows', () => {
    expect(unspelledMessageWords(SRC).map((u) => `${u.file}:${u.line} ${u.word}`)).toEqual([]);
  });
});
