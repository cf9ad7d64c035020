/** What `grantRead` gives: mounting is reading (aws-efs names it the same way). */
export const CLIENT_READ_ACTIONS = ['s3files:ClientMount'];
/** What `grantReadWrite` gives: ClientWrite alone mounts nothing, so it always comes with ClientMount. */
export const CLIENT_READ_WRITE_ACTIONS = ['s3files:ClientMount', 's3files:ClientWrite'];
/** What `grantRootAccess` gives. */
export const CLIENT_ROOT_ACTIONS = ['s3files:ClientMount', 's3files:ClientWrite', 's3files:ClientRootAccess'];
