import { Stack, Token } from 'aws-cdk-lib';
import * as agentcore from 'aws-cdk-lib/aws-bedrockagentcore';
import { checkClientAzs, checkSameVpc, fileSystemOf, grantMountingClient, joinSecurityGroup, openNfs, waitForMount } from './client-access';
import { invalid } from './validation';
import type { AgentCoreMountOptions } from '../mount/agentcore';
import type { S3FilesAccessPointBase } from '../s3files-access-point';

/** Where a runtime sees the file system when no path is given. */
const DEFAULT_AGENTCORE_MOUNT_PATH = '/mnt/s3files';
/** The runtime's schema for a mount path. */
const AGENTCORE_MOUNT_PATH = /^\/mnt\/[a-zA-Z0-9._-]+\/?$/;
/** AgentCore takes at most this many security groups in VPC mode (its CloudFormation schema). */
const MAX_RUNTIME_SECURITY_GROUPS = 16;
/** A runtime mounts at most this many file systems (its CloudFormation schema). */
const MAX_RUNTIME_FILE_SYSTEMS = 5;

/**
 * Adds the access point to a runtime's `FilesystemConfigurations` (the L2 has no prop for it), grants
 * its execution role, lets it reach NFS, checks its subnets, and makes it wait for the waiter.
 */
export function mountOnAgentCoreRuntime(runtime: agentcore.Runtime, accessPoint: S3FilesAccessPointBase, options: AgentCoreMountOptions): void {
  const cfn = runtime.node.defaultChild as agentcore.CfnRuntime;
  const { fs, info } = fileSystemOf(runtime, accessPoint);
  const mountPath = options.mountPath ?? DEFAULT_AGENTCORE_MOUNT_PATH;
  if (typeof mountPath !== 'string' || (!Token.isUnresolved(mountPath) && !AGENTCORE_MOUNT_PATH.test(mountPath))) {
    invalid(runtime, 'mountPath', mountPath, 'AgentCore mounts file systems at /mnt/<name> (letters, digits, ".", "_", "-")', 'use a path such as "/mnt/s3files"');
  }
  const network = Stack.of(cfn).resolve(cfn.networkConfiguration) as { networkMode?: string; networkModeConfig?: { subnets?: unknown } } | undefined;
  if (network?.networkMode !== 'VPC') {
    invalid(runtime, 'networkConfiguration', network?.networkMode ?? 'PUBLIC', 'the runtime reaches the mount targets only from inside their VPC',
      'create the runtime with RuntimeNetworkConfiguration.usingVpc(...) in the file system\'s VPC');
  }

  const existing = (cfn.filesystemConfigurations ?? []) as agentcore.CfnRuntime.FilesystemConfigurationProperty[];
  if (Token.isUnresolved(existing)) {
    invalid(runtime, 'filesystemConfigurations', 'a token', 'the runtime\'s file system configurations are not a list this library can add to', 'set them as a list');
  }
  const taken = existing.map((c) => (c.s3FilesAccessPoint as agentcore.CfnRuntime.S3FilesAccessPointConfigurationProperty | undefined)?.mountPath
    ?? (c.efsAccessPoint as agentcore.CfnRuntime.EfsAccessPointConfigurationProperty | undefined)?.mountPath);
  if (existing.length >= MAX_RUNTIME_FILE_SYSTEMS) {
    invalid(runtime, 'filesystemConfigurations', taken, `the runtime already mounts ${existing.length} file systems, the most AgentCore allows`, 'mount fewer file systems on this runtime');
  }
  if (taken.includes(mountPath)) {
    invalid(runtime, 'mountPath', mountPath, 'the runtime already mounts a file system there', 'give each mount its own mountPath');
  }
  cfn.filesystemConfigurations = [...existing, { s3FilesAccessPoint: { accessPointArn: accessPoint.accessPointArn, mountPath } }];

  grantMountingClient(runtime, runtime, accessPoint, options, {
    what: 'the AgentCore runtime',
    sameAccountOnly: '"the agent runtime must be in the same AWS account and VPC" as the file system (AgentCore developer guide)',
    efsUtils: false,
    readOnlyFlag: false,
  });
  checkSameVpc(runtime, runtime.connections, info.vpc, 'the runtime', network.networkModeConfig?.subnets);
  openNfs(runtime, fs, info, runtime, (group) => joinSecurityGroup(runtime, runtime.connections, cfn,
    'NetworkConfiguration.NetworkModeConfig.SecurityGroups', { max: MAX_RUNTIME_SECURITY_GROUPS, service: 'AgentCore' }, 'the runtime', group), 'the AgentCore runtime');
  checkClientAzs(runtime, info, network.networkModeConfig?.subnets,
    `The availability zones of the runtime's subnets are only known at deploy time, so the library cannot check that each has a mount target of ${fs.node.path}.`);
  waitForMount(cfn, accessPoint, info);
}
