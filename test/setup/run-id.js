// Jest globalSetup/globalTeardown: gives the run an id, so suites can share work done once per run
// (test/validators/templates.ts synthesizes the validator app once for the six suites that read
// it) without ever reading a previous run's output. Workers start after this and inherit the env.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const shared = () => path.join(os.tmpdir(), `s3files-jest-${process.env.S3FILES_JEST_RUN}`);

/** Whether a process is alive (a run's id starts with the pid of the jest that made it). */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

module.exports = async function setup() {
  process.env.S3FILES_JEST_RUN = `${process.pid}-${Date.now()}`;
  // A run that was killed never ran its teardown: remove what such runs left behind.
  for (const entry of fs.readdirSync(os.tmpdir())) {
    const m = /^s3files-jest-(\d+)-\d+$/.exec(entry);
    if (m && Number(m[1]) !== process.pid && !alive(Number(m[1]))) fs.rmSync(path.join(os.tmpdir(), entry), { recursive: true, force: true });
  }
};
module.exports.alive = alive;
module.exports.teardown = async function teardown() {
  fs.rmSync(shared(), { recursive: true, force: true });
};
