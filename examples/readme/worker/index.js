// The worker of the README's "Your own function" (Code.fromAsset of this directory): it lists
// the mount.
const { readdir } = require('fs/promises');

exports.handler = async () => readdir(process.env.MOUNT_PATH);
