import { CfnResource, Stack, Token } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { IConstruct } from 'constructs';
import type { FargateSelector } from './eks-cluster';
import { ADDON, CONTROLLER_SA, Driver, NAMESPACE, POD_IDENTITY_AGENT } from './eks-driver';
import { describe, invalid, Shown, warn } from '../messages';

// What EksMount checks once the app is complete (node groups, Fargate profiles and add-ons may be
// declared after the calls): where the pods that mount can run, whether their nodes can reach the
// mount targets, and what the library cannot see. Sources: the EKS user guide ("Amazon EKS
// Fargate", "EKS Pod Identity restrictions", "Customize managed nodes with launch templates",
// "Auto Mode"), the S3 user guide, and the driver's Helm chart (v3.4.1).

/** The validation `EksMount.installDriver()` registers on the driver's scope: every error, and the warning when the nodes cannot be seen. */
export function clusterErrors(driver: Driver): string[] {
  const errors = [
    ...asErrors(() => windowsOnly(driver)),
    ...asErrors(() => duplicateAddons(driver)),
    ...asErrors(() => autoModeAgent(driver)),
    ...[...driver.volumes.values()].flatMap((v) => asErrors(() => fargateNamespace(driver, v.namespace, v.claimName))),
    ...asErrors(() => controllerOnFargate(driver)),
    ...launchTemplateErrors(driver),
  ];
  if (errors.length === 0) warnUnseenNodes(driver);
  return errors;
}

/** Errors of a deferred validation: a message as `invalid()` words it. */
function asErrors(check: () => void): string[] {
  try {
    check();
    return [];
  } catch (e) {
    return [e instanceof Error ? e.message : String(e)];
  }
}

/**
 * "The Amazon EFS CSI driver isn't compatible with Windows-based container images" (EKS user guide):
 * a cluster of this app whose managed node groups are all Windows, with no other capacity the app
 * shows (EKS Auto Mode's nodes are Linux), is refused.
 */
function windowsOnly(driver: Driver): void {
  const { cluster } = driver;
  if (!cluster.created || cluster.autoMode) return;
  const nodegroups = cluster.nodegroups();
  const windows = nodegroups.filter((ng) => String(ng.amiType ?? '').startsWith('WINDOWS_'));
  if (nodegroups.length === 0 || windows.length !== nodegroups.length || cluster.appHasAutoScalingGroups()) return;
  invalid(windows[0].construct, 'amiType', windows[0].amiType, 'the cluster\'s managed node groups are all Windows, and "The Amazon EFS CSI driver isn\'t compatible with '
    + 'Windows-based container images" (EKS user guide)',
  'add a node group with a Linux AMI type (the volumes\' node affinity keeps their pods on Linux nodes)');
}

/**
 * EKS installs an add-on once per cluster: the library's driver add-on, or the Pod Identity agent
 * it added, beside another one of the app fails at deploy.
 */
function duplicateAddons(driver: Driver): void {
  const { cluster, addon: ours, agent } = driver;
  const mine = (c: IConstruct, of: IConstruct | undefined) => of !== undefined && (c === of || c.node.scope === of);
  const otherDriver = ours ? cluster.addons(ADDON).find((c) => !mine(c, ours)) : undefined;
  const agents = cluster.addons(POD_IDENTITY_AGENT);
  const otherAgent = agent && agents.some((c) => mine(c, agent)) ? agents.find((c) => !mine(c, agent)) : undefined;
  if (otherDriver) {
    invalid(cluster.construct, 'addonVersion', (ours!.node.defaultChild as CfnResource & { addonVersion?: string }).addonVersion, `the app already declares the ${ADDON} add-on `
      + `of this cluster (${otherDriver.node.path}), and a cluster has each add-on once`,
    'pass `existingDriverVersion` (that add-on\'s version) instead of `addonVersion`, or remove the other add-on');
  }
  if (otherAgent) {
    invalid(cluster.construct, 'installPodIdentityAgent', true, `the app declares the ${POD_IDENTITY_AGENT} add-on of this cluster (${otherAgent.node.path}) besides the one `
      + '`EksMount.installDriver()` added, and a cluster has each add-on once',
    'declare your agent add-on before `EksMount.installDriver()` in the same stack (the library then uses it), or pass `installPodIdentityAgent` false');
  }
}

/**
 * EKS Auto Mode has the Pod Identity agent built in, so the library adds none; managed node groups
 * or self-managed nodes of the same cluster need the add-on, or the driver's pods there get no
 * credentials.
 */
function autoModeAgent(driver: Driver): void {
  const { cluster } = driver;
  if (!cluster.autoMode || driver.installPodIdentityAgent !== undefined || cluster.addons(POD_IDENTITY_AGENT).length > 0) return;
  const others = [...cluster.nodegroups().map((ng) => ng.construct), ...cluster.autoScalingGroups()];
  if (others.length === 0) return;
  invalid(cluster.construct, 'installPodIdentityAgent', undefined, 'the cluster runs EKS Auto Mode, which has the EKS Pod Identity agent built in (so the library adds '
    + `no agent), and nodes of its own too (${others.map((o) => o.node.path).join(', ')}), where the driver's pods get Pod Identity credentials only from the agent add-on`,
  'pass `installPodIdentityAgent` true (or false, if the agent runs there some other way)');
}

/**
 * Whether a Fargate selector's namespace matches: "you're allowed to use `*` and `?` in the selector
 * criteria for namespaces", `*` for "none, one, or multiple characters", `?` for exactly one (EKS
 * user guide, "Fargate profile wildcards").
 */
export function selects(pattern: string, namespace: string): boolean {
  if (Token.isUnresolved(pattern)) return false;
  const regex = pattern.split('').map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('');
  return new RegExp(`^${regex}$`).test(namespace);
}

/** The Fargate profile (path) that selects every pod of a namespace (a selector without labels), if any. */
function fargateProfileOf(driver: Driver, namespace: string): string | undefined {
  const everyPod = (s: FargateSelector) => selects(s.namespace, namespace) && Object.keys(s.labels).length === 0;
  return driver.cluster.fargateProfiles().find((p) => p.selectors.some(everyPod))?.path;
}

/**
 * "EKS Fargate doesn't support S3 Files" (EKS user guide): a claim in a namespace a Fargate
 * profile selects without labels has its pods on Fargate. Where a claim's pods run is what counts:
 * a cluster whose profiles select other namespaces (Karpenter on Fargate) mounts elsewhere.
 */
function fargateNamespace(driver: Driver, namespace: string, claimName: string): void {
  const profile = fargateProfileOf(driver, namespace);
  if (!profile) return;
  invalid(driver.cluster.construct, 'namespace', namespace, `the Fargate profile ${profile} selects every pod of it, so the pods of claim ${describe(claimName)} run on Fargate, `
    + 'and "EKS Fargate doesn\'t support S3 Files" (EKS user guide)',
  'put the claim in a namespace no Fargate profile selects, or give that profile\'s selector labels the pods that mount S3 Files do not carry');
}

/**
 * Dynamic provisioning needs the driver's controller, a Deployment in kube-system that runs
 * privileged (the chart's `controller.containerSecurityContext`) with its Pod Identity role: on a
 * cluster whose Fargate profile selects every pod of kube-system it would run on Fargate, where
 * "Privileged containers aren't supported" and Pod Identity is not available ("Linux and Windows
 * pods that run on AWS Fargate (Fargate) aren't supported", EKS user guide).
 */
function controllerOnFargate(driver: Driver): void {
  if (driver.storageClasses.size === 0) return;
  const profile = fargateProfileOf(driver, NAMESPACE);
  if (!profile) return;
  invalid(driver.cluster.construct, 'storageClassName', [...driver.storageClasses][0], `dynamic provisioning needs the driver's controller (${NAMESPACE}/${CONTROLLER_SA}), `
    + `and the Fargate profile ${profile} selects every pod of ${NAMESPACE}: the controller would run on Fargate, where "Privileged containers aren't supported" (it runs `
    + 'privileged) and EKS Pod Identity is not available (EKS user guide)',
  `give that profile's ${NAMESPACE} selector labels (for example those of the pods that must run on Fargate), or use static volumes (\`EksMount.onCluster()\`)`);
}

/** The resolved ids of groups, in `stack`. */
function idsOf(stack: Stack, groups: ec2.ISecurityGroup[]): string[] {
  return groups.map((g) => JSON.stringify(stack.resolve(g.securityGroupId)));
}

/** What a managed node group's launch template is, when the app declares it: its security groups (none set: the cluster security group). */
function launchTemplateGroups(ng: { construct: IConstruct; launchTemplate: unknown }): { found: boolean; groups: unknown[] } | undefined {
  const spec = ng.launchTemplate as { id?: string; name?: string } | undefined;
  if (!spec || (spec.id === undefined && spec.name === undefined)) return undefined;
  const stack = Stack.of(ng.construct);
  const sameId = (c: ec2.CfnLaunchTemplate) => spec.id !== undefined
    && (spec.id === c.ref || (Stack.of(c) === stack && JSON.stringify(stack.resolve(spec.id)) === JSON.stringify(stack.resolve(c.ref))));
  const sameName = (c: ec2.CfnLaunchTemplate) => spec.name !== undefined && c.launchTemplateName !== undefined && spec.name === c.launchTemplateName;
  const isIt = (c: IConstruct): c is ec2.CfnLaunchTemplate => c instanceof ec2.CfnLaunchTemplate && (sameId(c) || sameName(c));
  const template = ng.construct.node.root.node.findAll().find(isIt);
  if (!template) return { found: false, groups: [] };
  type Data = { securityGroupIds?: unknown[]; networkInterfaces?: Array<{ groups?: unknown[] }> } | undefined;
  const data = Stack.of(template).resolve(template.launchTemplateData) as Data;
  return { found: true, groups: [...(data?.securityGroupIds ?? []), ...(data?.networkInterfaces ?? []).flatMap((n) => n.groups ?? [])] };
}

/**
 * "If you specify custom security groups in the launch template ..., Amazon EKS doesn't add the
 * cluster security group" (EKS user guide, launch templates): a managed node group whose launch
 * template (of this app) sets security groups of which none is let in is refused.
 */
function launchTemplateErrors(driver: Driver): string[] {
  if (driver.volumes.size === 0 && driver.storageClasses.size === 0) return [];
  const { cluster } = driver;
  return cluster.nodegroups().flatMap((ng) => asErrors(() => {
    const template = launchTemplateGroups(ng);
    if (!template || !template.found || template.groups.length === 0) return;
    const stack = Stack.of(ng.construct);
    const admitted = new Set(idsOf(stack, [...(cluster.securityGroup ? [cluster.securityGroup] : []), ...driver.nodeSecurityGroups]));
    const groups = template.groups.map((g) => JSON.stringify(stack.resolve(g)));
    const clients = [...driver.fileSystems.values()].map((fs) => fs.clientSecurityGroup);
    const viaClientGroups = clients.every((g) => g !== undefined && groups.includes(JSON.stringify(stack.resolve(g.securityGroupId))));
    if (groups.some((g) => admitted.has(g)) || viaClientGroups) return;
    const shown = new Shown(JSON.stringify(template.groups.map((g) => stack.resolve(g))));
    invalid(ng.construct, 'launchTemplate', shown, 'its launch template sets the nodes\' security groups, so "Amazon EKS doesn\'t add the '
      + 'cluster security group" (EKS user guide, launch templates), and none of them is let in to the mount targets, so pods on these nodes cannot mount',
    'name those groups in `nodeSecurityGroups` of `EksMount.installDriver()` (the library lets them in over NFS), or add the cluster security group to the launch template');
  }));
}

/**
 * A cluster whose nodes the library cannot see: it lets in the cluster security group (and
 * `nodeSecurityGroups`), and cannot check the nodes' AZs nor their security groups.
 */
function warnUnseenNodes(driver: Driver): void {
  if (driver.volumes.size === 0 && driver.storageClasses.size === 0) return;
  const { cluster } = driver;
  const reasons: string[] = [];
  if (!cluster.created) reasons.push('it is imported');
  if (cluster.autoMode) reasons.push('EKS Auto Mode makes its nodes');
  const unreadable = cluster.nodegroups().filter((ng) => launchTemplateGroups(ng)?.found === false).map((ng) => ng.construct.node.path);
  if (unreadable.length > 0) reasons.push(`the launch template of ${unreadable.join(', ')} is not in this app`);
  if (cluster.created && !cluster.autoMode && cluster.nodegroups().length === 0 && cluster.autoScalingGroups().length === 0) {
    reasons.push('it has no managed node group, and no Auto Scaling group the library can tie to it (Karpenter, `connectAutoScalingGroupCapacity()`, or nodes added '
      + 'elsewhere)');
  }
  if (reasons.length === 0) return;
  const named = driver.nodeSecurityGroups.length > 0 ? ' and `nodeSecurityGroups`' : '';
  warn(driver.scope, 'eksNodesUnseen',
    `The library cannot see the nodes of ${cluster.construct.node.path} (${reasons.join('; ')}), so it lets in the cluster security group${named} and cannot check that the nodes' `
    + 'AZs have mount targets. Nodes with other security groups (a launch template or NodeClass that sets them) cannot reach the mount targets: name those groups in '
    + '`nodeSecurityGroups`. A pod on a node in an AZ without a mount target cannot mount.');
}
