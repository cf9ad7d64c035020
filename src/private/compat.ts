import { CfnResource, Lazy, Resource, Stack } from 'aws-cdk-lib';
import * as autoscaling from 'aws-cdk-lib/aws-autoscaling';
import * as batch from 'aws-cdk-lib/aws-batch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as eks from 'aws-cdk-lib/aws-eks';
import * as eksv2 from 'aws-cdk-lib/aws-eks-v2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { IConstruct } from 'constructs';

// Every reliance on aws-cdk-lib behaviour that is not public API, in one place: each has a test in
// test/private/compat.test.ts, so an aws-cdk-lib release that changes one fails one named test.

/**
 * Whether a principal silently ignores added statements. `iam.Role.fromRoleArn(..., { mutable: false })`
 * and a role of another account return an ImmutableRole, whose addToPrincipalPolicy reports success
 * and adds nothing; aws-cdk-lib exposes it only through its property-injection id.
 */
export function isImmutablePrincipal(principal: iam.IPrincipal): boolean {
  return (principal.constructor as { PROPERTY_INJECTION_ID?: string }).PROPERTY_INJECTION_ID === 'aws-cdk-lib.aws-iam.ImmutableRole';
}

/**
 * The security group lambda.Function creates for a function in a VPC when it is given none: its
 * child 'SecurityGroup', whose description embeds the construct's full path (Names.uniqueId), so
 * moving the stack into a Stage would replace it (GroupDescription is create-only).
 */
export function lambdaAutoSecurityGroup(fn: IConstruct): ec2.CfnSecurityGroup | undefined {
  const sg = fn.node.tryFindChild('SecurityGroup');
  const cfn = sg?.node.defaultChild;
  return cfn instanceof ec2.CfnSecurityGroup && /^Automatic security group for Lambda Function /.test(String(cfn.groupDescription)) ? cfn : undefined;
}

/**
 * Makes an aws-cdk-lib consumer of another resource type fail with the library's message: those
 * read a `<type>Ref` property of their own input (lambda.FileSystem.fromS3FilesAccessPoint reads
 * `accessPointRef`, batch.EcsVolume.efs `fileSystemRef`), which this library's constructs do not have.
 */
export function refuseAwsCdkReference(target: object, property: string, refuse: () => never): void {
  Object.defineProperty(target, property, { enumerable: false, get: refuse });
}

/**
 * The jsii name of an object's class (`aws-cdk-lib.aws_lambda.DirectS3Read`), which jsii stores on
 * every class it compiles under `Symbol.for('jsii.rtti')`: the same in every copy of aws-cdk-lib
 * loaded, where `instanceof` holds only for one. Undefined for an object of any other class.
 */
export function jsiiTypeName(x: unknown): string | undefined {
  if (x === null || typeof x !== 'object') return undefined;
  const rtti = (x.constructor as unknown as Record<symbol, unknown> | undefined)?.[Symbol.for('jsii.rtti')] as { fqn?: unknown } | undefined;
  return typeof rtti?.fqn === 'string' ? rtti.fqn : undefined;
}

/**
 * What a `lambda.DirectS3Read` asks for: its mode (`_mode`) and the bucket it wants granted (`_bucket`,
 * only from `enabled(bucket)`). The caller has checked it is one (argument-shapes.ts): a real one
 * without `_mode` is an aws-cdk-lib change, not the user's mistake.
 */
export function directS3ReadOf(value: lambda.DirectS3Read): { readonly mode: string; readonly wantsGrant: boolean } {
  const v = value as unknown as { _mode?: unknown; _bucket?: unknown };
  if (typeof v._mode !== 'string') throw new Error('aws-cdk-lib\'s DirectS3Read no longer carries its mode in _mode (src/private/compat.ts)');
  return { mode: v._mode, wantsGrant: v._bucket !== undefined };
}

/** A subnet's AZ; undefined for an imported subnet without one (aws-cdk-lib's getter throws then). */
export function subnetAvailabilityZone(subnet: ec2.ISubnet): string | undefined {
  try {
    return subnet.availabilityZone;
  } catch {
    return undefined;
  }
}

/** An Auto Scaling group's user data; undefined for one made from a launch template (the getter throws). */
export function autoScalingGroupUserData(group: autoscaling.AutoScalingGroup): ec2.UserData | undefined {
  try {
    return group.userData;
  } catch {
    return undefined;
  }
}

/** A launch template's connections; undefined without a security group (the getter throws). */
export function launchTemplateConnections(template: ec2.LaunchTemplate): ec2.Connections | undefined {
  try {
    return template.connections;
  } catch {
    return undefined;
  }
}

/** The key an alias of this app points to; undefined for an imported alias (the getter throws). */
export function aliasTargetKey(key: kms.IKey): kms.IKey | undefined {
  try {
    return (key as Partial<kms.IAlias>).aliasTargetKey;
  } catch {
    return undefined;
  }
}

/**
 * aws-cdk-lib renders a resource's security groups into its L1 once, at construction: re-render
 * the list at `propertyPath` from the construct's connections, so groups added later count too.
 */
export function renderSecurityGroupsLazily(cfn: CfnResource, propertyPath: string, connections: ec2.Connections): void {
  cfn.addPropertyOverride(propertyPath, Lazy.list({ produce: () => connections.securityGroups.map((sg) => sg.securityGroupId) }));
}

/**
 * ECS task definitions have no S3 Files volume type: each volume the L2 renders under `Volumes`
 * gets the L1's `S3FilesVolumeConfiguration` that `configFor` gives its name (lazily, so volumes
 * added later are kept). Installed once per task definition.
 */
export function patchTaskDefinitionVolumes(cfn: ecs.CfnTaskDefinition, configFor: (name: string) => unknown): void {
  const rendered = cfn.volumes;
  cfn.volumes = Lazy.any({
    produce: () => ((Stack.of(cfn).resolve(rendered) ?? []) as Array<{ name?: string }>)
      .map((v) => {
        const config = v.name !== undefined ? configFor(v.name) : undefined;
        return config ? { ...v, s3FilesVolumeConfiguration: config } : v;
      }),
  });
}

/**
 * Batch has no S3 Files `EcsVolume`: append volumes and mount points to what the job definition's
 * L2 renders into `ContainerProperties` (lazily, so volumes the user adds later are kept).
 */
export function appendJobDefinitionVolumes(cfn: batch.CfnJobDefinition, volumes: () => object[], mountPoints: () => object[]): void {
  const rendered = cfn.containerProperties as batch.CfnJobDefinition.ContainerPropertiesProperty;
  const stack = Stack.of(cfn);
  cfn.containerProperties = {
    ...rendered,
    volumes: Lazy.any({ produce: () => [...((stack.resolve(rendered.volumes) ?? []) as object[]), ...volumes()] }),
    mountPoints: Lazy.any({ produce: () => [...((stack.resolve(rendered.mountPoints) ?? []) as object[]), ...mountPoints()] }),
  };
}

/** aws-cdk-lib appends ` [ack: <id>]` to a warning added with addWarningV2 (what acknowledgeWarning matches). */
const ACKNOWLEDGEABLE = / \[ack: ([^\]]+)\]$/;

/** The warnings added to `scope` with addWarningV2 whose id starts with `prefix`: their ids and texts. */
export function warningsOf(scope: IConstruct, prefix: string): Array<{ id: string; text: string }> {
  const out: Array<{ id: string; text: string }> = [];
  for (const m of scope.node.metadata) {
    const match = m.type === 'aws:cdk:warning' && typeof m.data === 'string' ? ACKNOWLEDGEABLE.exec(m.data) : null;
    if (match && match[1].startsWith(prefix)) out.push({ id: match[1], text: (m.data as string).slice(0, match.index) });
  }
  return out;
}

/** An EKS cluster's VPC (aws-eks or aws-eks-v2); undefined for a cluster imported without one (the getter throws). */
export function clusterVpc(cluster: { readonly vpc: ec2.IVpc }): ec2.IVpc | undefined {
  try {
    return cluster.vpc;
  } catch {
    return undefined;
  }
}

/** An EKS cluster's cluster security group (aws-eks or aws-eks-v2); undefined for a cluster imported without its id (the getter throws). */
export function clusterSecurityGroup(cluster: { readonly clusterSecurityGroup: ec2.ISecurityGroup }): ec2.ISecurityGroup | undefined {
  try {
    return cluster.clusterSecurityGroup;
  } catch {
    return undefined;
  }
}

/** The aws-cdk-lib module an EKS cluster object comes from. */
export type EksModule = 'aws-eks' | 'aws-eks-v2';

/**
 * Which module a cluster object is of: both modules' clusters, created or imported, extend a
 * `ClusterBase` neither module exports, found as the prototype just above `Resource` on the way
 * down from its `Cluster` class; undefined for anything else (an L1 `CfnCluster`, another
 * module's construct, what Python passes unchecked).
 */
export function eksModuleOf(x: unknown): EksModule | undefined {
  if (x === null || typeof x !== 'object') return undefined;
  for (const [name, cls] of [['aws-eks', eks.Cluster], ['aws-eks-v2', eksv2.Cluster]] as const) {
    let base: object | null = cls.prototype;
    while (base !== null && Object.getPrototypeOf(base) !== Resource.prototype) base = Object.getPrototypeOf(base);
    if (base !== null && Object.prototype.isPrototypeOf.call(base, x)) return name;
  }
  return undefined;
}

/** What a Fargate profile selects, and the cluster it belongs to (its name, unresolved). */
export interface FargateSelection {
  readonly clusterName: unknown;
  readonly selectors: eks.Selector[];
}

/**
 * What an aws-eks Fargate profile selects and for which cluster: aws-eks keeps them only in the
 * properties of its custom resource (child `Resource`, whose CfnResource `Default` holds
 * `Config.clusterName` and `Config.selectors`); undefined when it no longer does.
 */
export function fargateProfileSelection(profile: eks.FargateProfile): FargateSelection | undefined {
  const cfn = profile.node.tryFindChild('Resource')?.node.defaultChild;
  type Properties = { Config?: { clusterName?: unknown; selectors?: eks.Selector[] } };
  const props = cfn instanceof CfnResource ? (cfn as unknown as { _cfnProperties?: Properties })._cfnProperties : undefined;
  const config = props?.Config;
  return config && Array.isArray(config.selectors) ? { clusterName: config.clusterName, selectors: config.selectors } : undefined;
}

/**
 * The properties a resource renders into its template, resolved in its stack: the L1's properties
 * with every escape hatch (`addPropertyOverride`, `addOverride`) applied, as aws-cdk-lib's
 * internal `_toCloudFormation()` writes them. Read at validation, after every aspect has run.
 */
export function renderedProperties(cfn: CfnResource): Record<string, unknown> {
  type Rendered = { Resources?: Record<string, { Properties?: Record<string, unknown> }> };
  const render = (cfn as unknown as { _toCloudFormation?: () => Rendered })._toCloudFormation;
  if (typeof render !== 'function') throw new Error('aws-cdk-lib\'s CfnResource no longer has _toCloudFormation (src/private/compat.ts)');
  const rendered = Stack.of(cfn).resolve(render.call(cfn)) as Rendered;
  const [resource] = Object.values(rendered.Resources ?? {});
  return resource?.Properties ?? {};
}

/** A property as `addPropertyOverride()` set it (CloudFormation casing), which the L1's own property does not show. */
export function propertyOverride(cfn: CfnResource, name: string): unknown {
  const overrides = (cfn as unknown as { rawOverrides?: { Properties?: Record<string, unknown> } }).rawOverrides;
  return overrides?.Properties?.[name];
}

/**
 * The custom resource aws-cdk-lib's BucketNotifications renders for a bucket of the app
 * (`Custom::S3BucketNotifications`, a descendant of the bucket, `Managed: true`: its handler
 * writes the bucket's whole notification configuration), or undefined when nothing asked for one.
 */
export function bucketNotificationsResource(bucket: IConstruct): CfnResource | undefined {
  return bucket.node.findAll().find((c): c is CfnResource => CfnResource.isCfnResource(c) && c.cfnResourceType === 'Custom::S3BucketNotifications');
}

/**
 * The singleton function aws-cdk-lib's bucket notifications run on, in `scope`'s stack (its
 * `BucketNotificationsHandler.singleton`, under a fixed id), or undefined when the stack has none.
 */
export function bucketNotificationsHandler(scope: IConstruct): IConstruct | undefined {
  return Stack.of(scope).node.tryFindChild('BucketNotificationsHandler050a0587b7544547bf325f094a3db834');
}
