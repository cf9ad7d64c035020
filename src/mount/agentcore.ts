/**
 * How an access point is mounted in a Bedrock AgentCore runtime
 * (`IS3FilesAccessPoint.mountOnAgentCoreRuntime`).
 */
export interface AgentCoreMountOptions {
  /**
   * Where the runtime sees the file system: `/mnt/<name>` (letters, digits, `.`, `_`, `-`).
   * @default '/mnt/s3files'
   */
  readonly mountPath?: string;

  /**
   * Grant `s3files:ClientMount` only (no `ClientWrite`).
   * @default false
   */
  readonly readOnly?: boolean;

  /**
   * Also grant `s3files:ClientRootAccess` (only matters for an access point whose POSIX user is 0).
   * @default false
   */
  readonly rootAccess?: boolean;

  /**
   * Grant the execution role `s3:GetObject`/`s3:GetObjectVersion` under the access point's
   * directory (and `kms:Decrypt` through S3 when the bucket key is known) for direct reads.
   * @default true
   */
  readonly grantDirectReads?: boolean;
}
