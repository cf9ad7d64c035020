// Jest globalSetup/globalTeardown: gives the run an id, so suites can share work done once per run
// (test/validators/templates.ts synthesizes the validator app once for the six suites that read
// it) without ever reading a previous run's output; and gives the run its own temporary directory
// (TMPDIR), so that what its tests leave there (an App without an outdir writes a cdk.out per
// synthesis) goes with the run. Workers start after this and inherit the env.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

/** What a run leaves in the machine's temporary directory: its shared work and its TMPDIR. */
const RUN_ENTRY = /^s3files-jest-(?:tmp-)?(\d+)-\d+$/;

/** Whether a process is alive (a run's id starts with the pid of the jest that made it; test/util/once-per-run.ts asks the same of a lock's holder). */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

/** The run's temporary directory under `base`. */
function runTmp(base, run) {
  return path.join(base, `s3files-jest-tmp-${run}`);
}

module.exports = async function setup() {
  const run = `${process.pid}-${Date.now()}`;
  const base = os.tmpdir();
  // A run that was killed never ran its teardown: remove what such runs left behind.
  for (const entry of fs.readdirSync(base)) {
    const m = RUN_ENTRY.exec(entry);
    if (m && Number(m[1]) !== process.pid && !alive(Number(m[1]))) fs.rmSync(path.join(base, entry), { recursive: true, force: true });
  }
  const tmp = runTmp(base, run);
  fs.mkdirSync(tmp);
  // as /tmp: the handler tests run processes as another user, which make their own files there
  fs.chmodSync(tmp, 0o1777);
  process.env.S3FILES_JEST_RUN = run;
  process.env.S3FILES_JEST_BASE_TMPDIR = base;
  process.env.TMPDIR = tmp;
};
module.exports.alive = alive;
module.exports.teardown = async function teardown() {
  const { S3FILES_JEST_RUN: run, S3FILES_JEST_BASE_TMPDIR: base } = process.env;
  if (!run || !base) return;
  fs.rmSync(path.join(base, `s3files-jest-${run}`), { recursive: true, force: true });
  fs.rmSync(runTmp(base, run), { recursive: true, force: true });
};
