// Synthesizes several CDK programs in one Node process, so aws-cdk-lib loads once: each argument is
// "program=outdir"; each program makes its own App, which reads CDK_OUTDIR when it is constructed.
// Run with `node -r ts-node/register/transpile-only` for TypeScript programs. A failure names the
// program and exits 1. Used by test/util/synth-example.ts and test/bindings/run.sh.
const path = require('path');

for (const pair of process.argv.slice(2)) {
  const [program, out] = pair.split('=');
  process.env.CDK_OUTDIR = out;
  try {
    require(path.resolve(program));
  } catch (e) {
    console.error(`${program} failed: ${(e && e.stack) || e}`);
    process.exit(1);
  }
}
