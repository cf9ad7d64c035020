import { App, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as eks from 'aws-cdk-lib/aws-eks-v2';
import { EksMount, S3FilesFileSystem } from 'cdk-s3files-lambda';

const app = new App();
const stack = new Stack(app, 'Kubernetes', { env: { account: '111111111111', region: 'us-east-1' } });
// An aws-eks-v2 cluster made elsewhere (another CDK app, eksctl, the console), with Linux managed
// node groups, imported with the kubectl handler its app exports: this app needs no kubectl layer.
const vpc = ec2.Vpc.fromVpcAttributes(stack, 'Vpc', {
  vpcId: 'vpc-0123456789abcdef0',
  availabilityZones: ['us-east-1a', 'us-east-1b'],
  privateSubnetIds: ['subnet-0aaaaaaaaaaaaaaaa', 'subnet-0bbbbbbbbbbbbbbbb'],
  privateSubnetRouteTableIds: ['rtb-0aaaaaaaaaaaaaaaa', 'rtb-0bbbbbbbbbbbbbbbb'],
});
const kubectlProvider = eks.KubectlProvider.fromKubectlProviderAttributes(stack, 'KubectlProvider', {
  serviceToken: 'arn:aws:lambda:us-east-1:111111111111:function:my-cluster-kubectl',
});
const cluster = eks.Cluster.fromClusterAttributes(stack, 'Cluster', {
  clusterName: 'my-cluster',
  vpc,
  // EKS puts the cluster security group on managed nodes: the mount targets let it in.
  clusterSecurityGroupId: 'sg-0123456789abcdef0',
  kubectlProvider,
});
const fileSystem = new S3FilesFileSystem(stack, 'Files', { vpc });

// The Amazon EFS CSI driver as an EKS add-on (3.0.0 or later), its roles through EKS Pod Identity
// (the cluster runs the Pod Identity agent; installPodIdentityAgent: true adds it).
EksMount.installDriver(cluster, { addonVersion: 'v3.0.0-eksbuild.1' });

// A static volume: a PersistentVolume on the access point and a claim in namespace "app".
const shared = EksMount.onCluster(cluster, fileSystem.addAccessPoint('Shared', { path: '/shared' }), {
  claimName: 'shared',
  namespace: 'app',
});

// Dynamic provisioning: the driver's controller creates an access point per claim.
EksMount.addStorageClass(cluster, fileSystem, { storageClassName: 's3files' });

// A pod on the static volume. The claim's name carries the access point id: pass it on.
const pod = cluster.addManifest('Reader', {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'reader', namespace: 'app' },
  spec: {
    containers: [{
      name: 'app',
      image: 'public.ecr.aws/docker/library/busybox:stable',
      command: ['sh', '-c', 'ls /data && sleep 3600'],
      volumeMounts: [{ name: 'data', mountPath: '/data' }],
    }],
    volumes: [{ name: 'data', persistentVolumeClaim: { claimName: shared.claimName } }],
  },
});
pod.node.addDependency(shared.manifest);

app.synth();
