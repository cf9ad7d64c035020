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

/** The client actions of a mount: read, read-write, plus root access when asked. */
export function clientActions(options: { readonly readOnly?: boolean; readonly rootAccess?: boolean }): string[] {
  const actions = options.readOnly ? [...CLIENT_READ_ACTIONS] : [...CLIENT_READ_WRITE_ACTIONS];
  if (options.rootAccess) actions.push(CLIENT_ROOT_ACCESS);
  return actions;
}
