import { CfnResource, Stack } from 'aws-cdk-lib';
import * as autoscaling from 'aws-cdk-lib/aws-autoscaling';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as eks from 'aws-cdk-lib/aws-eks';
import * as eksv2 from 'aws-cdk-lib/aws-eks-v2';
import { Construct, IConstruct } from 'constructs';
import { clusterSecurityGroup, clusterVpc, EksModule, eksModuleOf, fargateProfileSelection } from '../compat';
import { invalid, Shown } from '../messages';

// A cluster of either aws-cdk-lib EKS module, as EksMount reads and changes it: aws-eks (a custom
// resource cluster with its kubectl handler) and aws-eks-v2 (the native AWS::EKS::Cluster, Fargate
// profiles as L1s, a kubectl handler only on request, EKS Auto Mode by default). What both write
// to the template (AWS::EKS::Nodegroup, AWS::EKS::FargateProfile, AWS::EKS::Addon) is read from
// the L1s, whichever module (or the user) made them.

/** A Fargate selector: a namespace pattern and the labels a pod must carry (none: every pod of the namespace). */
export interface FargateSelector {
  readonly namespace: string;
  readonly labels: Readonly<Record<string, string>>;
}

/** A Fargate profile of the cluster: its construct path and selectors. */
export interface FargateProfileInfo {
  readonly path: string;
  readonly selectors: FargateSelector[];
}

/** What the library reads of a managed node group (both modules' `CfnNodegroup` have these properties). */
export interface NodegroupInfo {
  /** The node group as the user made it (aws-eks's or aws-eks-v2's `Nodegroup`, or the L1). */
  readonly construct: IConstruct;
  readonly subnets: unknown;
  readonly amiType: unknown;
  readonly launchTemplate: unknown;
}

type AnyCluster = (eks.ICluster | eksv2.ICluster) & IConstruct;
type NodegroupL1 = CfnResource & {
  readonly clusterName: string;
  readonly subnets: unknown;
  readonly amiType?: unknown;
  readonly launchTemplate?: unknown;
};
type FargateL1 = CfnResource & { readonly clusterName: string; readonly selectors: unknown };
type AddonL1 = CfnResource & { readonly clusterName: string; readonly addonName: string; readonly addonVersion?: string };

/** An EKS cluster of aws-eks or aws-eks-v2, created in this app or imported. */
export class EksCluster {
  /** `x` as a cluster, or an error on `prop` naming what it is instead. */
  public static of(x: unknown, at: string, prop: string): EksCluster {
    const module = eksModuleOf(x);
    if (module === undefined) {
      const l1 = Construct.isConstruct(x) && x instanceof CfnResource && x.cfnResourceType === 'AWS::EKS::Cluster';
      invalid(Construct.isConstruct(x) ? x : at, prop, Construct.isConstruct(x) ? x.node.path : new Shown(`(${x === null ? 'null' : typeof x})`),
        l1 ? 'it is the L1 `CfnCluster`, whose VPC, security group and kubectl handler the library cannot read' : 'it is not an Amazon EKS cluster',
        'pass a `Cluster` of aws-eks or aws-eks-v2 (`aws_eks_v2` in Python), or one imported with `Cluster.fromClusterAttributes()`');
    }
    return new EksCluster(x as AnyCluster, module);
  }

  /** The cluster construct (the one the user passed). */
  public readonly construct: AnyCluster;

  private constructor(cluster: AnyCluster, public readonly module: EksModule) {
    this.construct = cluster;
  }

  public get clusterName(): string {
    return this.construct.clusterName;
  }

  /** A `Cluster` of this app (not imported). */
  public get created(): boolean {
    return this.construct instanceof eks.Cluster || this.construct instanceof eksv2.Cluster;
  }

  /** A `FargateCluster` (its default profile selects `default` and `kube-system`). */
  public get fargateCluster(): boolean {
    return this.construct instanceof eks.FargateCluster || this.construct instanceof eksv2.FargateCluster;
  }

  /**
   * EKS Auto Mode: true for an aws-eks-v2 `Cluster` of this app whose `AWS::EKS::Cluster` has
   * `ComputeConfig.Enabled` (the module's default), false for other clusters of this app, and
   * undefined for an imported one (unknown).
   */
  public get autoMode(): boolean | undefined {
    if (!this.created) return undefined;
    const l1 = this.construct.node.defaultChild;
    if (this.module !== 'aws-eks-v2' || !(l1 instanceof eksv2.CfnCluster)) return false;
    const config = Stack.of(l1).resolve(l1.computeConfig) as { enabled?: unknown } | undefined;
    return config?.enabled === true;
  }

  public get vpc(): ec2.IVpc | undefined {
    return clusterVpc(this.construct);
  }

  public get securityGroup(): ec2.ISecurityGroup | undefined {
    return clusterSecurityGroup(this.construct);
  }

  /**
   * Refuses a cluster the library cannot apply Kubernetes objects to (`what`: "a StorageClass is a
   * Kubernetes object"). A PersistentVolume, its claim
   * and a StorageClass have no CloudFormation type (the `AWS::EKS::` types are the cluster, add-ons,
   * node groups, Fargate profiles, access entries, identity provider configs, Pod Identity
   * associations, capabilities and certificate authorities): both modules apply them with their
   * kubectl handler, which aws-eks-v2 creates only on request and an imported cluster must be given.
   */
  public requireKubectl(what: string): void {
    const c = this.construct as Partial<eks.ICluster> & Partial<eksv2.ICluster>;
    if (this.module === 'aws-eks-v2' && c.kubectlProvider === undefined) {
      invalid(this.construct, 'cluster', this.construct.node.path, `${what}, which CloudFormation has no resource type for, and this aws-eks-v2 cluster has no kubectl handler to `
        + 'apply them (aws-eks-v2 creates one only on request)',
      this.created ? 'give the cluster `kubectlProviderOptions` (with a `kubectlLayer`)'
        : 'import the cluster with a `kubectlProvider` (`KubectlProvider.fromKubectlProviderAttributes()`)');
    }
    if (this.module === 'aws-eks' && !this.created && c.kubectlProvider === undefined && c.kubectlRole === undefined) {
      invalid(this.construct, 'cluster', this.construct.node.path, `${what}, applied through the cluster's kubectl handler, and this imported cluster has none`,
        'import the cluster with a `kubectlProvider` (or a `kubectlRoleArn`)');
    }
  }

  /** A manifest applied through the cluster's kubectl handler, pruned whatever the cluster's `prune` (a renamed object must replace the old one). */
  public manifest(scope: Construct, id: string, objects: Array<Record<string, unknown>>): IConstruct {
    if (this.module === 'aws-eks') return new eks.KubernetesManifest(scope, id, { cluster: this.construct as eks.ICluster, manifest: objects, prune: true });
    return new eksv2.KubernetesManifest(scope, id, { cluster: this.construct as eksv2.ICluster, manifest: objects, prune: true });
  }

  /** An EKS add-on of the cluster, with the module's `Addon`. */
  public addon(scope: Construct, id: string, addonName: string, addonVersion?: string): IConstruct {
    if (this.module === 'aws-eks') return new eks.Addon(scope, id, { cluster: this.construct as eks.ICluster, addonName, addonVersion });
    return new eksv2.Addon(scope, id, { cluster: this.construct as eksv2.ICluster, addonName, addonVersion });
  }

  /** The cluster's own Pod Identity agent add-on (both modules' `Cluster.eksPodIdentityAgent`, created on first use); undefined for an imported cluster. */
  public ownPodIdentityAgent(): IConstruct | undefined {
    if (this.construct instanceof eks.Cluster) return this.construct.eksPodIdentityAgent;
    if (this.construct instanceof eksv2.Cluster) return this.construct.eksPodIdentityAgent;
    return undefined;
  }

  /** Whether a resource's `clusterName` names this cluster: the same token (any stack), the same rendering in the cluster's stack, or the same literal. */
  private names(resource: CfnResource, clusterName: unknown): boolean {
    if (clusterName === this.clusterName) return true;
    const stack = Stack.of(this.construct);
    return Stack.of(resource) === stack && JSON.stringify(stack.resolve(clusterName)) === JSON.stringify(stack.resolve(this.clusterName));
  }

  private l1s<T extends CfnResource & { readonly clusterName: string }>(type: string): T[] {
    return this.construct.node.root.node.findAll()
      .filter((c): c is T => c instanceof CfnResource && c.cfnResourceType === type && this.names(c, (c as unknown as T).clusterName));
  }

  /** The add-ons named `name` of the cluster, declared anywhere in the app (both modules' `Addon`, or the L1). */
  public addons(name: string): AddonL1[] {
    return this.l1s<AddonL1>('AWS::EKS::Addon').filter((c) => c.addonName === name);
  }

  /** The managed node groups of this app on the cluster. */
  public nodegroups(): NodegroupInfo[] {
    return this.l1s<NodegroupL1>('AWS::EKS::Nodegroup').map((l1) => {
      const parent = l1.node.scope;
      const construct = parent && parent.node.defaultChild === l1 ? parent : l1;
      return { construct, subnets: l1.subnets, amiType: l1.amiType, launchTemplate: l1.launchTemplate };
    });
  }

  /** The Auto Scaling groups of the cluster's own self-managed capacity (its default capacity and `addAutoScalingGroupCapacity()`). */
  public autoScalingGroups(): autoscaling.AutoScalingGroup[] {
    return this.construct.node.findAll().filter((c): c is autoscaling.AutoScalingGroup => c instanceof autoscaling.AutoScalingGroup);
  }

  /** Whether the app has any Auto Scaling group (`connectAutoScalingGroupCapacity()` leaves no link from a group to its cluster). */
  public appHasAutoScalingGroups(): boolean {
    return this.construct.node.root.node.findAll().some((c) => c instanceof autoscaling.AutoScalingGroup);
  }

  /** The Fargate profiles of the cluster: aws-eks's (a custom resource), and every `AWS::EKS::FargateProfile` (aws-eks-v2's, or an L1). */
  public fargateProfiles(): FargateProfileInfo[] {
    const out: FargateProfileInfo[] = [];
    const stack = Stack.of(this.construct);
    const name = JSON.stringify(stack.resolve(this.clusterName));
    for (const c of this.construct.node.root.node.findAll()) {
      if (!(c instanceof eks.FargateProfile)) continue;
      const selection = fargateProfileSelection(c);
      if (selection && (selection.clusterName === this.clusterName || JSON.stringify(stack.resolve(selection.clusterName)) === name)) {
        out.push({ path: c.node.path, selectors: selection.selectors.map((s) => ({ namespace: s.namespace, labels: s.labels ?? {} })) });
      }
    }
    for (const l1 of this.l1s<FargateL1>('AWS::EKS::FargateProfile')) {
      type Selectors = Array<{ namespace: string; labels?: Array<{ key: string; value: string }> }> | undefined;
      const selectors = Stack.of(l1).resolve(l1.selectors) as Selectors;
      const parent = l1.node.scope;
      const path = parent && parent.node.defaultChild === l1 ? parent.node.path : l1.node.path;
      const labels = (s: { labels?: Array<{ key: string; value: string }> }) => Object.fromEntries((s.labels ?? []).map((l) => [l.key, l.value]));
      out.push({ path, selectors: (selectors ?? []).map((s) => ({ namespace: s.namespace, labels: labels(s) })) });
    }
    return out;
  }
}
