import { S3FilesClientAction } from '../s3files-client-action';

/** What `grantRead` gives: mounting is reading (aws-efs names it the same way). */
export const CLIENT_READ_ACTIONS: string[] = [S3FilesClientAction.MOUNT];
/** What `grantReadWrite` gives: ClientWrite alone mounts nothing, so it always comes with ClientMount. */
export const CLIENT_READ_WRITE_ACTIONS: string[] = [S3FilesClientAction.MOUNT, S3FilesClientAction.WRITE];
/** What `grantRootAccess` gives. */
export const CLIENT_ROOT_ACTIONS: string[] = [S3FilesClientAction.MOUNT, S3FilesClientAction.WRITE, S3FilesClientAction.ROOT_ACCESS];

/** The client actions of a mount: read, read-write, plus root access when asked. */
export function clientActions(options: { readonly readOnly?: boolean; readonly rootAccess?: boolean }): string[] {
  const actions = options.readOnly ? [...CLIENT_READ_ACTIONS] : [...CLIENT_READ_WRITE_ACTIONS];
  if (options.rootAccess) actions.push(S3FilesClientAction.ROOT_ACCESS);
  return actions;
}
