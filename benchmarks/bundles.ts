/**
 * Bundle benchmark: bytes of every handler asset and its cold `require` time in a fresh Node
 * process. SDK clients the Lambda runtime provides (client-s3, client-lambda) stay external and
 * resolve from node_modules here, so their load time is included, as it is in Lambda.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { BUNDLE_BUDGET_BYTES } from './format';
import type { BundleRow } from './results';
import { median } from './synth';

/** Shipped handlers (in the npm package) and the integ app's handlers (not shipped). */
const ASSET_DIRS = [
  { dir: path.join(__dirname, '..', 'assets', 'lambda'), shipped: true },
  { dir: path.join(__dirname, '..', 'assets', 'integ', 'handlers'), shipped: false },
];


function findBundles(dir: string, rel = ''): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const r = path.join(rel, e.name);
    if (e.isDirectory()) return findBundles(path.join(dir, e.name), r);
    return e.name === 'index.js' ? [r] : [];
  });
}

function coldRequireMs(file: string): number {
  const script = `const t=process.hrtime.bigint();require(${JSON.stringify(file)});console.log(Number(process.hrtime.bigint()-t)/1e6)`;
  const out = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { ...process.env, AWS_REGION: 'us-east-1' } });
  if (out.status !== 0) throw new Error(`require(${file}) failed: ${out.stderr}`);
  return Number(out.stdout.trim().split('\n').pop());
}

export const BUNDLE_REPS = 7;

export function runBundleBenchmark(reps = BUNDLE_REPS): BundleRow[] {
  return ASSET_DIRS.flatMap(({ dir, shipped }) => {
    if (!fs.existsSync(dir)) throw new Error(`${dir} is missing: run 'npx projen bundle' first`);
    return findBundles(dir).sort().map((rel) => {
      const file = path.join(dir, rel);
      const times = Array.from({ length: reps }, () => coldRequireMs(file));
      return { name: path.dirname(rel), bytes: fs.statSync(file).size, requireMs: median(times), shipped };
    });
  });
}

if (require.main === module) {
  for (const r of runBundleBenchmark()) {
    console.log(`${r.name}\t${(r.bytes / 1024).toFixed(1)} KiB\t${r.requireMs.toFixed(1)} ms\t${r.bytes <= BUNDLE_BUDGET_BYTES ? 'ok' : 'OVER BUDGET'}`);
  }
}
