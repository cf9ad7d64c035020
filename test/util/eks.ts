import { createHash } from 'crypto';
import { KubectlV36Layer } from '@aws-cdk/lambda-layer-kubectl-v36';
import { Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as eks from 'aws-cdk-lib/aws-eks';
import * as eksv2 from 'aws-cdk-lib/aws-eks-v2';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';

// EKS clusters for the tests (the kubectl layer is a test-only devDependency: the library never
// needs it), and the manifests a template renders, with CloudFormation references made concrete.

/** A VPC with public and private subnets in two AZs, as EKS clusters use. */
export function eksVpc(scope: Construct, id = 'Vpc'): ec2.Vpc {
  return new ec2.Vpc(scope, id, { maxAzs: 2, natGateways: 1 });
}

/** An aws-eks Cluster (Kubernetes 1.36) with one managed node group of Linux nodes, or the given options. */
export function newCluster(scope: Construct, vpc: ec2.IVpc, options: Partial<eks.ClusterProps> = {}, id = 'Cluster'): eks.Cluster {
  const cluster = new eks.Cluster(scope, id, {
    vpc,
    version: eks.KubernetesVersion.V1_36,
    kubectlLayer: new KubectlV36Layer(scope, `${id}Kubectl`),
    defaultCapacity: 0,
    ...options,
  });
  if (options.defaultCapacity === undefined) cluster.addNodegroupCapacity('Nodes', { instanceTypes: [new ec2.InstanceType('m7g.large')], minSize: 1 });
  return cluster;
}

/** A cluster of another app, reached through its kubectl provider (no layer needed). */
export function importedCluster(scope: Construct, vpc: ec2.IVpc | undefined, id = 'Cluster', withClusterSecurityGroup = true): eks.ICluster {
  const account = Stack.of(scope).account;
  const kubectlProvider = eks.KubectlProvider.fromKubectlProviderAttributes(scope, `${id}Kubectl`, {
    functionArn: `arn:aws:lambda:us-east-1:${account}:function:kubectl-provider`,
    kubectlRoleArn: `arn:aws:iam::${account}:role/kubectl`,
    handlerRole: iam.Role.fromRoleArn(scope, `${id}KubectlHandler`, `arn:aws:iam::${account}:role/kubectl-handler`),
  });
  return eks.Cluster.fromClusterAttributes(scope, id, {
    clusterName: `${id.toLowerCase()}-cluster`, vpc, clusterSecurityGroupId: withClusterSecurityGroup ? 'sg-0c1a57e5000000000' : undefined, kubectlProvider,
  });
}

/**
 * An aws-eks-v2 Cluster (Kubernetes 1.36), EKS Auto Mode unless `options` say otherwise, with the
 * kubectl handler aws-eks-v2 creates only on request (`kubectl: false` leaves it out).
 */
export function newClusterV2(scope: Construct, vpc: ec2.IVpc, options: Partial<eksv2.ClusterProps> = {}, id = 'Cluster', kubectl = true): eksv2.Cluster {
  return new eksv2.Cluster(scope, id, {
    vpc,
    version: eksv2.KubernetesVersion.V1_36,
    ...(kubectl ? { kubectlProviderOptions: { kubectlLayer: new KubectlV36Layer(scope, `${id}Kubectl`) } } : {}),
    ...options,
  });
}

/** An aws-eks-v2 cluster of another app, with its kubectl handler (or none). */
export function importedClusterV2(scope: Construct, vpc: ec2.IVpc | undefined, id = 'Cluster', kubectl = true): eksv2.ICluster {
  const account = Stack.of(scope).account;
  const kubectlProvider = kubectl
    ? eksv2.KubectlProvider.fromKubectlProviderAttributes(scope, `${id}Kubectl`, { serviceToken: `arn:aws:lambda:us-east-1:${account}:function:kubectl-provider` })
    : undefined;
  return eksv2.Cluster.fromClusterAttributes(scope, id, { clusterName: `${id.toLowerCase()}-cluster`, vpc, clusterSecurityGroupId: 'sg-0c1a57e5000000000', kubectlProvider });
}

type Json = any;

/** Concrete values for the attributes a manifest references. */
const ATTRIBUTES: Record<string, (logicalId: string) => string> = {
  FileSystemId: () => 'fs-0123456789abcdef0',
  AccessPointId: (id) => `fsap-${hex(id)}`,
};

function hex(s: string): string {
  return createHash('sha256').update(s).digest('hex').slice(0, 17);
}

/** A manifest property with its Fn::Join and Fn::GetAtt made concrete. */
export function concrete(value: Json): string {
  if (typeof value === 'string') return value;
  if (value?.['Fn::Join']) return (value['Fn::Join'][1] as Json[]).map(concrete).join(value['Fn::Join'][0]);
  if (value?.['Fn::GetAtt']) {
    const [id, attr] = value['Fn::GetAtt'];
    const make = ATTRIBUTES[attr];
    if (!make) throw new Error(`no concrete value for ${id}.${attr}`);
    return make(id);
  }
  throw new Error(`cannot make ${JSON.stringify(value)} concrete`);
}

/** Every Kubernetes object the template's KubernetesManifest resources apply, by logical id of the resource. */
export function manifestsOf(template: Json, prefix = ''): Record<string, Json[]> {
  const out: Record<string, Json[]> = {};
  for (const [id, r] of Object.entries<Json>(template.Resources)) {
    if (r.Type === 'Custom::AWSCDK-EKS-KubernetesResource' && id.startsWith(prefix) && id.includes('S3FilesCsiDriver')) {
      out[id] = JSON.parse(concrete(r.Properties.Manifest));
    }
  }
  return out;
}
