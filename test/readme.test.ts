import * as fs from 'fs';
import * as path from 'path';

const root = path.join(__dirname, '..');
const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');

/** The first fenced block of `lang` after `heading` in the README. */
function block(heading: string, lang: string): string {
  const start = readme.indexOf(heading);
  if (start < 0) throw new Error(`README has no '${heading}'`);
  const match = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(readme.slice(start));
  if (!match) throw new Error(`README has no ${lang} block after '${heading}'`);
  return match[1];
}

// The bindings test (test/bindings/run.sh) synthesizes examples/readme/*; these tests make sure
// those files are exactly what the README shows, so every quick-start snippet is run.
describe('README quick start', () => {
  test.each([
    ['**TypeScript**', 'quickstart.ts', 'ts'],
    ['**Python**', 'quickstart.py', 'python'],
    ['**Java**', 'QuickStart.java', 'java'],
  ])('the %s snippet is examples/readme/%s', (heading, file, lang) => {
    // GIVEN the snippet shown in the README and the file the bindings test synthesizes
    const snippet = block(heading, lang);
    const tested = fs.readFileSync(path.join(root, 'examples', 'readme', file), 'utf8');

    // THEN they are the same text
    expect(snippet).toEqual(tested);
  });

  test('names both commands, and .ci/run calls the test command', () => {
    // GIVEN the two commands the README promises
    const commands = block('### The two commands', 'bash');
    expect(commands).toContain('npx cdk synth');
    expect(commands).toContain('npm run test:ci');

    // THEN CI runs that same test command
    expect(fs.readFileSync(path.join(root, '.ci', 'run'), 'utf8')).toMatch(/^npm run test:ci$/m);
  });
});
