import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

const root = path.join(__dirname, '..', '..');
const readme = path.join(root, 'examples', 'readme');
const cache = new Map<string, Record<string, any>>();
const warningsCache = new Map<string, string[]>();

/**
 * Runs examples/readme/<file> against this checkout's source (the package name mapped to src/)
 * and returns the synthesized templates by stack name. A suite that asks for a second program
 * gets every remaining TypeScript program of examples/readme synthesized in one Node process
 * (aws-cdk-lib loads once; each program makes its own App writing to its own CDK_OUTDIR), and
 * later calls read from that run.
 */
export function synthExample(file: string): Record<string, any> {
  if (!cache.has(file)) {
    const programs = cache.size === 0 ? [file]
      : [file, ...fs.readdirSync(readme).filter((f) => f.endsWith('.ts') && f !== file && !cache.has(f))];
    for (const [name, { templates, warnings }] of synthPrograms(programs)) {
      cache.set(name, templates);
      warningsCache.set(name, warnings);
    }
  }
  return cache.get(file)!;
}

/** The warnings the program's synthesis gave (path: text), as a user's `cdk synth` prints them. */
export function exampleWarnings(file: string): string[] {
  synthExample(file);
  return warningsCache.get(file)!;
}

function synthPrograms(files: string[]): Map<string, { templates: Record<string, any>; warnings: string[] }> {
  const dir = fs.mkdtempSync(path.join(root, 'test', '.readme-'));
  try {
    for (const file of files) {
      const source = fs.readFileSync(path.join(readme, file), 'utf8')
        .replace(/from 'cdk-s3files-lambda'/g, `from '${path.join(root, 'src')}'`)
        .replace(/lambda\.Code\.fromAsset\('worker'\)/g, `lambda.Code.fromAsset('${path.join(readme, 'worker')}')`);
      fs.writeFileSync(path.join(dir, file), source);
    }
    // Each program in turn, with its own output directory (test/util/run-programs.js).
    const pairs = files.map((file) => `${path.join(dir, file)}=${path.join(dir, 'out', file)}`);
    const r = spawnSync(process.execPath, ['-r', 'ts-node/register/transpile-only', path.join(__dirname, 'run-programs.js'), ...pairs], {
      cwd: root,
      encoding: 'utf8',
      timeout: 180_000,
      // aws-cdk-lib's CloudFormation validation on, as users synthesize (the test setup turns it off).
      env: { ...process.env, CDK_VALIDATION: 'true', TS_NODE_PROJECT: path.join(root, 'test', 'tsconfig.json') },
    });
    if (r.status !== 0) throw new Error(`examples/readme failed to synthesize: ${r.stderr}`);
    const result = new Map<string, { templates: Record<string, any>; warnings: string[] }>();
    for (const file of files) {
      const out = path.join(dir, 'out', file);
      // The validation report lists a plugin only when it found something: a README program has nothing.
      const report = JSON.parse(fs.readFileSync(path.join(out, 'validation-report.json'), 'utf8'));
      if (report.pluginReports.length > 0) throw new Error(`aws-cdk-lib's validation reports on examples/readme/${file}: ${r.stderr}`);
      const templates: Record<string, any> = {};
      const warnings: string[] = [];
      for (const f of fs.readdirSync(out)) {
        if (f.endsWith('.template.json')) templates[f.replace('.template.json', '')] = JSON.parse(fs.readFileSync(path.join(out, f), 'utf8'));
        if (!f.endsWith('.metadata.json')) continue;
        for (const [at, entries] of Object.entries<Array<{ type: string; data: unknown }>>(JSON.parse(fs.readFileSync(path.join(out, f), 'utf8')))) {
          for (const e of entries) if (e.type === 'aws:cdk:warning') warnings.push(`${at}: ${String(e.data)}`);
        }
      }
      result.set(file, { templates, warnings });
    }
    return result;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
