// See run-id.js: removes what the run shared.
module.exports = require('./run-id').teardown;
