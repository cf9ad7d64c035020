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

describe('file sizes', () => {
  test(`no src/ file is longer than ${MAX_LINES} lines (generated handler wrappers aside)`, () => {
    const long = sourceFiles()
      .filter((f) => !/s3files-provider-.*-function\.ts$/.test(f))
      .map((f) => [f, fs.readFileSync(path.join(SRC, f), 'utf8').split('\n').length] as const)
      .filter(([, lines]) => lines > MAX_LINES);
    expect(long).toEqual([]);
  });
});

describe('messages', () => {
  test('every identifier a message names outside its prop is backticked, so each binding\'s spelling follows', () => {
    expect(unspelledMessageWords(SRC).map((u) => `${u.file}:${u.line} ${u.word}`)).toEqual([]);
  });
});
