// The worker of the README's "Your own function", as plain JavaScript for the Python and Java
// programs (Code.fromAsset of this directory; TypeScript bundles worker.ts with NodejsFunction).
const { readdir } = require('fs/promises');

exports.handler = async () => readdir(process.env.MOUNT_PATH);
