import * as fs from 'fs';
import * as path from 'path';

const root = path.join(__dirname, '..', '..');

/** The user-facing documentation files: the README first, then docs/ (not the generated API pages) and CONTRIBUTING.md. */
export function docFiles(): string[] {
  const docs = fs.readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md') && !f.startsWith('API.')).sort().map((f) => path.join(root, 'docs', f));
  return [path.join(root, 'README.md'), ...docs, path.join(root, 'CONTRIBUTING.md')];
}

/** Their text, one after another: a claim tested here may live in any of them. */
export function docsText(): string {
  return docFiles().map((f) => fs.readFileSync(f, 'utf8')).join('\n');
}
