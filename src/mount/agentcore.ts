import { Lazy, Stack, Token } from 'aws-cdk-lib';
import * as agentcore from 'aws-cdk-lib/aws-bedrockagentcore';
import { S3FilesMountOptions } from './options';
import { checkShape } from '../private/argument-shapes';
import { stateOf } from '../private/construct-state';
import { invalid } from '../private/messages';
import { clientActionsLabel } from '../private/mount/client-actions';
import { DEFAULT_MOUNT_PATH, mountAccessPoint } from '../private/mount/mount-pipeline';
import { joinSecurityGroup } from '../private/mount/network';
import { requireAccessPoint } from '../private/mount/shapes';
import type { IS3FilesAccessPoint } from '../s3files-access-point-contract';

/** The runtime's schema for a mount path. */
const AGENTCORE_MOUNT_PATH = /^\/mnt\/[a-zA-Z0-9._-]+\/?$/;
/** AgentCore takes at most this many security groups in VPC mode (its CloudFormation schema). */
const MAX_RUNTIME_SECURITY_GROUPS = 16;
/** A runtime mounts at most this many file systems (its CloudFormation schema). */
const MAX_RUNTIME_FILE_SYSTEMS = 5;

/**
 * How an access point is mounted in a Bedrock AgentCore runtime (`AgentCoreMount.onRuntime`).
 */
export interface AgentCoreMountOptions extends S3FilesMountOptions {
  /**
   * Where the runtime sees the file system: `/mnt/<name>` (letters, digits, `.`, `_`, `-`).
   * @default '/mnt/s3files'
   */
  readonly mountPath?: string;
}

/**
 * Mounts S3 Files access points in Bedrock AgentCore runtimes.
 */
export class AgentCoreMount {
  /**
   * Mounts an access point in a Bedrock AgentCore runtime (its `FilesystemConfigurations`, which the
   * L2 has no prop for); grants its execution role what the mount needs (scoped to the access point;
   * the AgentCore guide documents `s3files:GetAccessPoint` as checked at runtime creation) and the
   * direct reads; lets it reach NFS; checks its subnets' AZs; and creates it only once the mount
   * targets and the access point are available.
   * @param runtime a runtime in VPC mode, in the file system's VPC and account
   * @param accessPoint the access point to mount
   * @param options where and how to mount
   */
  public static onRuntime(runtime: agentcore.Runtime, accessPoint: IS3FilesAccessPoint, options: AgentCoreMountOptions = {}): void {
    options = options ?? {}; // JavaScript may pass null
    checkShape('runtime', runtime, 'AgentCoreMount.onRuntime()', 'runtime', true);
    requireAccessPoint(accessPoint, runtime, 'accessPoint');
    const cfn = runtime.node.defaultChild as agentcore.CfnRuntime;
    const mountPath = options.mountPath ?? DEFAULT_MOUNT_PATH;
    if (typeof mountPath !== 'string' || (!Token.isUnresolved(mountPath) && !AGENTCORE_MOUNT_PATH.test(mountPath))) {
      invalid(runtime, 'mountPath', mountPath, 'AgentCore mounts file systems at /mnt/<name> (letters, digits, ".", "_", "-")', 'use a path such as "/mnt/s3files"');
    }
    const network = Stack.of(cfn).resolve(cfn.networkConfiguration) as
      { networkMode?: string; networkModeConfig?: { subnets?: unknown } } | undefined;
    if (network?.networkMode !== 'VPC') {
      invalid(runtime, 'networkConfiguration', network?.networkMode ?? 'PUBLIC', 'the runtime reaches the mount targets only from inside their VPC',
        'create the runtime with `RuntimeNetworkConfiguration.usingVpc()` in the file system\'s VPC');
    }
    const existing = (cfn.filesystemConfigurations ?? []) as agentcore.CfnRuntime.FilesystemConfigurationProperty[];
    if (Token.isUnresolved(existing)) {
      invalid(runtime, 'filesystemConfigurations', 'a token', 'the runtime\'s file system configurations are not a list this library can add to', 'set them as a list');
    }
    const taken = existing.map((c) => (c.s3FilesAccessPoint as agentcore.CfnRuntime.S3FilesAccessPointConfigurationProperty | undefined)?.mountPath
      ?? (c.efsAccessPoint as agentcore.CfnRuntime.EfsAccessPointConfigurationProperty | undefined)?.mountPath);
    if (existing.length >= MAX_RUNTIME_FILE_SYSTEMS) {
      invalid(runtime, 'filesystemConfigurations', taken, `the runtime already mounts ${existing.length} file systems, the most AgentCore allows`, 'mount fewer file systems on '
        + 'this runtime');
    }
    if (taken.includes(mountPath)) {
      invalid(runtime, 'mountPath', mountPath, 'the runtime already mounts a file system there', 'give each mount its own `mountPath`');
    }
    cfn.filesystemConfigurations = [...existing, { s3FilesAccessPoint: { accessPointArn: accessPoint.accessPointArn, mountPath } }];
    // A change of what a mount may do changes the runtime's configuration (a new runtime version).
    runtimeClientActions(cfn).set(mountPath, clientActionsLabel(options));

    mountAccessPoint(accessPoint, {
      scope: runtime,
      what: 'the AgentCore runtime',
      grantee: runtime,
      connectable: runtime,
      joinSecurityGroup: (group) => joinSecurityGroup(runtime, runtime.connections, cfn,
        'NetworkConfiguration.NetworkModeConfig.SecurityGroups', { max: MAX_RUNTIME_SECURITY_GROUPS, service: 'AgentCore' }, 'the runtime', group),
      launcher: cfn,
      subnetIds: network.networkModeConfig?.subnets,
      unknownAzWarning: 'The availability zones of the runtime\'s subnets are only known at deploy time, so the library cannot check that each has a mount target of '
        + `${accessPoint.fileSystem.node.path}.`,
      efsUtils: false,
      readOnlyFlag: false,
      directReads: options.grantDirectReads ?? true,
      sameAccountOnly: '"the agent runtime must be in the same AWS account and VPC" as the file system (AgentCore developer guide)',
    }, options);
  }

  // Static methods only: no instances (as aws-cdk-lib's `Names` or `Fn`).
  private constructor() {}
}

/** The environment variable that names each mount's client actions (`/mnt/a=ClientMount,ClientWrite;…`). */
const CLIENT_ACTIONS_VARIABLE = 'S3FILES_CLIENT_ACTIONS';

/** The runtime's mounts and their client actions, rendered into its environment (once per runtime; sorted, so order does not matter). */
function runtimeClientActions(cfn: agentcore.CfnRuntime): Map<string, string> {
  return stateOf(cfn, 'cdk-s3files-lambda.ClientActions', () => {
    const actions = new Map<string, string>();
    const rendered = cfn.environmentVariables;
    cfn.environmentVariables = Lazy.any({
      produce: () => ({
        ...(Stack.of(cfn).resolve(rendered) as Record<string, string> | undefined),
        [CLIENT_ACTIONS_VARIABLE]: [...actions.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([path, label]) => `${path}=${label}`).join(';'),
      }),
    });
    return actions;
  });
}
