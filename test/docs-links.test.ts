import * as fs from 'fs';
import * as path from 'path';

// Every relative link and anchor in the user's and contributor's pages leads somewhere: the file
// exists, and an anchor is a heading of the target as GitHub names it (or an explicit <a name>).

const root = path.join(__dirname, '..');
const PAGES = ['README.md', 'CONTRIBUTING.md', 'examples/README.md', 'integ/README.md', 'benchmarks/RESULTS.md',
  ...fs.readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md') && !/^API\./.test(f)).map((f) => `docs/${f}`)];

/** The text outside fenced code blocks. */
function prose(markdown: string): string {
  return markdown.split(/^```.*$/m).filter((_, i) => i % 2 === 0).join('\n');
}

/** GitHub's anchor for a heading (github-slugger): lower case, punctuation dropped, spaces to "-", repeats numbered. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, text] of prose(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const plain = text.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, '');
    const slug = plain.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  for (const [, name] of markdown.matchAll(/<a (?:name|id)="([^"]+)"/g)) anchors.add(name);
  return anchors;
}

function linksOf(markdown: string): string[] {
  return [...prose(markdown).replace(/`[^`\n]*`/g, '').matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1])
    .filter((target) => !/^[a-z]+:/i.test(target));
}

test('the anchor rule: headings with code, punctuation and repeats', () => {
  expect([...anchorsOf('# Install\n## `S3FilesFileSystem`: props\n### Containers, batch jobs, instances and agents\n## Install\n```\n# not a heading\n```')])
    .toEqual(['install', 's3filesfilesystem-props', 'containers-batch-jobs-instances-and-agents', 'install-1']);
});

test.each(PAGES)('%s: every relative link and anchor resolves', (page) => {
  const file = path.join(root, page);
  const text = fs.readFileSync(file, 'utf8');
  const broken: string[] = [];
  for (const link of linksOf(text)) {
    const [target, anchor] = link.split('#');
    const resolved = target === '' ? file : path.resolve(path.dirname(file), decodeURIComponent(target));
    if (!fs.existsSync(resolved)) {
      broken.push(`${link}: no ${path.relative(root, resolved)}`);
      continue;
    }
    if (anchor !== undefined && resolved.endsWith('.md') && !anchorsOf(fs.readFileSync(resolved, 'utf8')).has(anchor)) {
      broken.push(`${link}: no heading "#${anchor}" in ${path.relative(root, resolved)}`);
    }
  }
  expect(broken).toEqual([]);
});

/** The page sections the library's messages send users to: `README, "Who can mount"`, `docs/lifecycle.md, "Lifecycle"`. */
export function messageReferences(source: string): Array<{ page: string; section: string }> {
  return [...source.matchAll(/\b(README|docs\/[a-z-]+\.md), "([^"]+)"/g)].map(([, page, section]) => ({ page: page === 'README' ? 'README.md' : page, section }));
}

describe('the pages the library\'s messages point to', () => {
  const src = path.join(root, 'src');
  const sources = fs.readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'))
    .map((f) => fs.readFileSync(path.join(src, f), 'utf8')).join('\n');

  test('every section a message names is a heading of that page', () => {
    const refs = messageReferences(sources);
    expect(refs.length).toBeGreaterThanOrEqual(3);
    const missing = refs.filter(({ page, section }) => !new RegExp(`^#{1,6} ${section.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`, 'm')
      .test(fs.readFileSync(path.join(root, page), 'utf8')));
    expect(missing).toEqual([]);
  });

  test('and the check can fail: a section the page does not have is found', () => {
    expect(messageReferences('see the README, "Lifecycle", and docs/lifecycle.md, "Lifecycle"')).toEqual([
      { page: 'README.md', section: 'Lifecycle' }, { page: 'docs/lifecycle.md', section: 'Lifecycle' },
    ]);
  });
});
