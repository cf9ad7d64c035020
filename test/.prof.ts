import { App } from 'aws-cdk-lib';
import { libraryStack, handWiredStack } from '/work/main/benchmarks/synth';
const n = Number(process.argv[2] ?? 50);
const which = process.argv[3] ?? 'lib';
const build = which === 'lib' ? libraryStack : handWiredStack;
for (let i = 0; i < 2; i++) { const app = new App(); build(app, n); app.synth(); }
const t0 = process.cpuUsage(); const w0 = Date.now();
for (let i = 0; i < 5; i++) { const app = new App(); build(app, n); app.synth(); }
const c = process.cpuUsage(t0);
console.log(which, n, 'cpu ms/synth', ((c.user + c.system) / 1000 / 5).toFixed(0), 'wall ms/synth', ((Date.now() - w0) / 5).toFixed(0));
