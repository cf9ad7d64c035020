// Jest globalSetup/globalTeardown: gives the run an id, so suites can share work done once per run
// (test/validators/templates.ts synthesizes the validator app once for the six suites that read
// it) without ever reading a previous run's output. Workers start after this and inherit the env.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const shared = () => path.join(os.tmpdir(), `s3files-jest-${process.env.S3FILES_JEST_RUN}`);

module.exports = async function setup() {
  process.env.S3FILES_JEST_RUN = `${process.pid}-${Date.now()}`;
};
module.exports.teardown = async function teardown() {
  fs.rmSync(shared(), { recursive: true, force: true });
};
