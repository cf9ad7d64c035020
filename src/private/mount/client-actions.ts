/** The client actions S3 Files authorizes an NFS client with (the public `S3FilesClientAction` names them). */
export const CLIENT_MOUNT = 's3files:ClientMount';
export const CLIENT_WRITE = 's3files:ClientWrite';
export const CLIENT_ROOT_ACCESS = 's3files:ClientRootAccess';

/** What `grantRead` gives: mounting is reading (aws-efs names it the same way). */
export const CLIENT_READ_ACTIONS: string[] = [CLIENT_MOUNT];
/** What `grantReadWrite` gives: ClientWrite alone mounts nothing, so it always comes with ClientMount. */
export const CLIENT_READ_WRITE_ACTIONS: string[] = [CLIENT_MOUNT, CLIENT_WRITE];
/** What `grantRootAccess` gives. */
export const CLIENT_ROOT_ACTIONS: string[] = [CLIENT_MOUNT, CLIENT_WRITE, CLIENT_ROOT_ACCESS];

/**
 * The client actions of a mount as its compute's configuration names them (`ClientMount,ClientWrite`).
 * S3 Files authorizes a client when it mounts, so a revoked right holds until it mounts again: each
 * compute carries this in what makes it mount again when it changes (a Lambda function's and an
 * AgentCore runtime's environment, an ECS task definition, the EC2 user data).
 */
export function clientActionsLabel(options: { readonly readOnly?: boolean; readonly rootAccess?: boolean }): string {
  return clientActions(options).map((a) => a.slice('s3files:'.length)).join(',');
}

/** The client actions of a mount: read, read-write, plus root access when asked. */
export function clientActions(options: { readonly readOnly?: boolean; readonly rootAccess?: boolean }): string[] {
  const actions = options.readOnly ? [...CLIENT_READ_ACTIONS] : [...CLIENT_READ_WRITE_ACTIONS];
  if (options.rootAccess) actions.push(CLIENT_ROOT_ACCESS);
  return actions;
}
