import { KubectlV36Layer } from '@aws-cdk/lambda-layer-kubectl-v36';
import { Annotations, Size, Stack, StackProps, Validations } from 'aws-cdk-lib';
import * as batch from 'aws-cdk-lib/aws-batch';
import * as agentcore from 'aws-cdk-lib/aws-bedrockagentcore';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as eks from 'aws-cdk-lib/aws-eks';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { VerifyCoreStack } from './core-stack';
import { AgentCoreMount, BatchMount, EksMount } from '../../../src';

const IMAGE = 'public.ecr.aws/docker/library/busybox:stable';
const PRIVATE = { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS };
const WRITE_AND_READ = (mount: string, name: string) =>
  `set -e; echo ${name} > ${mount}/${name}.txt; test "$(cat ${mount}/${name}.txt)" = ${name}; echo mounted`;

export interface VerifyOptInProps extends StackProps {
  readonly core: VerifyCoreStack;
}

/** The opt-in stacks mount the core stack's access point on purpose: they are deployed and destroyed with it. */
function acknowledgeSharedAccessPoint(stack: Stack): void {
  Annotations.of(stack).acknowledgeWarning('cdk-s3files-lambda:accessPointInAnotherStack', 'Opt-in verification stacks mount the core stack\'s access point, which never changes during a run.');
}

/** `batch.*` (opt-in): a job mounting the core access point, and one mounting the root with a role IAM allows. */
export class VerifyBatchStack extends Stack {
  public readonly queue: batch.JobQueue;
  public readonly accessPointJob: batch.EcsJobDefinition;
  public readonly rootJob: batch.EcsJobDefinition;

  constructor(scope: Construct, id: string, props: VerifyOptInProps) {
    super(scope, id, props);
    acknowledgeSharedAccessPoint(this);
    const { core } = props;
    const environment = new batch.FargateComputeEnvironment(this, 'Environment', { vpc: core.vpc, vpcSubnets: PRIVATE, maxvCpus: 2 });
    this.queue = new batch.JobQueue(this, 'Queue', { computeEnvironments: [{ computeEnvironment: environment, order: 1 }] });
    const job = (name: string, mount: string) => new batch.EcsJobDefinition(this, name, {
      container: new batch.EcsFargateContainerDefinition(this, `${name}Container`, {
        image: ecs.ContainerImage.fromRegistry(IMAGE),
        cpu: 0.25,
        memory: Size.mebibytes(512),
        command: ['sh', '-c', WRITE_AND_READ(mount, name.toLowerCase())],
        fargateCpuArchitecture: ecs.CpuArchitecture.ARM64,
        jobRole: new iam.Role(this, `${name}Role`, { assumedBy: new iam.ServicePrincipal('ecs-tasks.amazonaws.com') }),
      }),
    });
    this.accessPointJob = job('AccessPointJob', '/mnt/verify');
    BatchMount.onJobDefinition(this.accessPointJob, core.accessPoint, { containerPath: '/mnt/verify', computeEnvironment: environment });
    // The root: a volume by hand (the library refuses one without an access point), a role allowed
    // every client action on the file system, so only the file-system policy can refuse the mount.
    this.rootJob = job('RootJob', '/mnt/root');
    const cfn = this.rootJob.node.defaultChild as batch.CfnJobDefinition;
    cfn.addPropertyOverride('ContainerProperties.Volumes', [{ Name: 'raw-root', S3FilesVolumeConfiguration: { FileSystemArn: core.fileSystem.fileSystemArn, RootDirectory: '/' } }]);
    cfn.addPropertyOverride('ContainerProperties.MountPoints', [{ SourceVolume: 'raw-root', ContainerPath: '/mnt/root', ReadOnly: false }]);
    core.fileSystem.grantReadWrite(this.rootJob.container.jobRole!);
    core.fileSystem.grant(this.rootJob.container.jobRole!, 's3files:ListMountTargets');
    environment.connections.addSecurityGroup(core.fileSystem.clientSecurityGroup!);
    Validations.of(this).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:/aws/batch/job:*]',
      reason: 'aws-cdk-lib\'s Batch execution role writes to any Batch job log stream.',
    });
  }
}

export interface VerifyAgentCoreProps extends VerifyOptInProps {
  /** An ARM64 agent image you own (AgentCore runs no public image here); its code is not exercised. */
  readonly imageUri: string;
}

/** `agentcore.runtime-ready` (opt-in): a runtime with the core access point mounted by the library. */
export class VerifyAgentCoreStack extends Stack {
  public readonly runtime: agentcore.Runtime;

  constructor(scope: Construct, id: string, props: VerifyAgentCoreProps) {
    super(scope, id, props);
    acknowledgeSharedAccessPoint(this);
    this.runtime = new agentcore.Runtime(this, 'Agent', {
      runtimeName: 'cdk_s3files_verify',
      agentRuntimeArtifact: agentcore.AgentRuntimeArtifact.fromImageUri(props.imageUri),
      networkConfiguration: agentcore.RuntimeNetworkConfiguration.usingVpc(this, { vpc: props.core.vpc, vpcSubnets: PRIVATE }),
    });
    AgentCoreMount.onRuntime(this.runtime, props.core.accessPoint, { mountPath: '/mnt/verify' });
    const logs = 'arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group';
    for (const resource of [`${logs}:/aws/bedrock-agentcore/runtimes/*`, `${logs}:*`, `${logs}:/aws/bedrock-agentcore/runtimes/*:log-stream:*`, '*',
      'arn:<AWS::Partition>:bedrock-agentcore:<AWS::Region>:<AWS::AccountId>:workload-identity-directory/default/workload-identity/*']) {
      Validations.of(this.runtime).acknowledge({ id: `AwsSolutions-IAM5[Resource::${resource}]`, reason: 'aws-cdk-lib\'s AgentCore Runtime grants its execution role logs, X-Ray, metrics and workload identity.' });
    }
  }
}

/** Where the EKS pods write: through the access point (seen by the core writer's mount), and at the root. */
export const EKS_ACCESS_POINT_FILE = 'eks/access-point-probe.txt';
export const EKS_ROOT_FILE = 'eks-root-probe.txt';

/** `eks.*` (opt-in): a cluster in the core VPC, the EFS CSI driver, a pod through the access point and one on the root. */
export class VerifyEksStack extends Stack {
  constructor(scope: Construct, id: string, props: VerifyOptInProps) {
    super(scope, id, props);
    acknowledgeSharedAccessPoint(this);
    const { core } = props;
    const cluster = new eks.Cluster(this, 'Cluster', {
      vpc: core.vpc, vpcSubnets: [PRIVATE], version: eks.KubernetesVersion.V1_36, kubectlLayer: new KubectlV36Layer(this, 'Kubectl'), defaultCapacity: 0,
    });
    cluster.addNodegroupCapacity('Nodes', { instanceTypes: [new ec2.InstanceType('t4g.medium')], minSize: 1, maxSize: 1, subnets: PRIVATE });
    // The node plugin's role: given, so that it may also be allowed the root (no access-point condition).
    const nodeRole = new iam.Role(this, 'DriverNodeRole', { assumedBy: new iam.ServicePrincipal('pods.eks.amazonaws.com') });
    nodeRole.assumeRolePolicy!.addStatements(new iam.PolicyStatement({ actions: ['sts:TagSession'], principals: [new iam.ServicePrincipal('pods.eks.amazonaws.com')] }));
    new eks.CfnPodIdentityAssociation(this, 'DriverNodeIdentity', {
      clusterName: cluster.clusterName, namespace: 'kube-system', serviceAccount: 'efs-csi-node-sa', roleArn: nodeRole.roleArn,
    });
    EksMount.installDriver(cluster, { addonVersion: 'v3.0.0-eksbuild.1', nodeRole });
    core.fileSystem.grantReadWrite(nodeRole);
    const volume = EksMount.onCluster(cluster, core.accessPoint, { claimName: 'verify' });
    const pod = (name: string, claim: string, file: string) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'default' },
      spec: {
        restartPolicy: 'Never',
        containers: [{ name: 'probe', image: IMAGE, command: ['sh', '-c', `mkdir -p $(dirname /data/${file}); echo ${name} > /data/${file}`], volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
        volumes: [{ name: 'data', persistentVolumeClaim: { claimName: claim } }],
      },
    });
    // A static volume of the file system's root (no fsap-…): the driver mounts it as the node role.
    const rootVolume = {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'verify-root' },
      spec: {
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteMany'],
        persistentVolumeReclaimPolicy: 'Retain',
        storageClassName: '',
        csi: { driver: 'efs.csi.aws.com', volumeHandle: `s3files:${core.fileSystem.fileSystemId}` },
      },
    };
    const rootClaim = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'verify-root', namespace: 'default' },
      spec: { accessModes: ['ReadWriteMany'], storageClassName: '', volumeName: 'verify-root', resources: { requests: { storage: '1Gi' } } },
    };
    const pods = cluster.addManifest('Probes', pod('access-point-probe', 'verify', EKS_ACCESS_POINT_FILE), rootVolume, rootClaim, pod('root-probe', 'verify-root', EKS_ROOT_FILE));
    pods.node.addDependency(volume.manifest);
    Validations.of(this).acknowledge({ id: 'AwsSolutions-EKS1', reason: 'Verification cluster, destroyed at the end of the run.' });
  }
}
