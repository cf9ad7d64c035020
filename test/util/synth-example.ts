import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

const root = path.join(__dirname, '..', '..');

/**
 * Runs examples/readme/<file> against this checkout's source (the package name mapped to src/)
 * and returns the synthesized templates by stack name.
 */
export function synthExample(file: string): Record<string, any> {
  const source = fs.readFileSync(path.join(root, 'examples', 'readme', file), 'utf8')
    .replace(/from 'cdk-s3files-lambda'/g, `from '${path.join(root, 'src')}'`)
    .replace(/path\.join\(__dirname, 'worker\.ts'\)/g, `'${path.join(root, 'examples', 'readme', 'worker.ts')}'`);
  const dir = fs.mkdtempSync(path.join(root, 'test', '.readme-'));
  const out = path.join(dir, 'out');
  try {
    fs.writeFileSync(path.join(dir, file), source);
    const r = spawnSync(path.join(root, 'node_modules', '.bin', 'ts-node'),
      ['--transpile-only', '--project', path.join(root, 'test', 'tsconfig.json'), path.join(dir, file)],
      { env: { ...process.env, CDK_OUTDIR: out }, encoding: 'utf8', timeout: 120_000 });
    if (r.status !== 0) throw new Error(`${file} failed: ${r.stderr}`);
    const templates: Record<string, any> = {};
    for (const f of fs.readdirSync(out).filter((n) => n.endsWith('.template.json'))) {
      templates[f.replace('.template.json', '')] = JSON.parse(fs.readFileSync(path.join(out, f), 'utf8'));
    }
    return templates;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

