import aws_cdk as cdk
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_eks_v2 as eks
from cdk_s3files_lambda import EksMount, S3FilesFileSystem

app = cdk.App()
stack = cdk.Stack(app, "Kubernetes", env=cdk.Environment(account="111111111111", region="us-east-1"))
# An aws-eks-v2 cluster made elsewhere (another CDK app, eksctl, the console), with Linux managed
# node groups, imported with the kubectl handler its app exports: this app needs no kubectl layer.
vpc = ec2.Vpc.from_vpc_attributes(
    stack, "Vpc",
    vpc_id="vpc-0123456789abcdef0",
    availability_zones=["us-east-1a", "us-east-1b"],
    private_subnet_ids=["subnet-0aaaaaaaaaaaaaaaa", "subnet-0bbbbbbbbbbbbbbbb"],
    private_subnet_route_table_ids=["rtb-0aaaaaaaaaaaaaaaa", "rtb-0bbbbbbbbbbbbbbbb"],
)
kubectl_provider = eks.KubectlProvider.from_kubectl_provider_attributes(
    stack, "KubectlProvider",
    service_token="arn:aws:lambda:us-east-1:111111111111:function:my-cluster-kubectl",
)
cluster = eks.Cluster.from_cluster_attributes(
    stack, "Cluster",
    cluster_name="my-cluster",
    vpc=vpc,
    # EKS puts the cluster security group on managed nodes: the mount targets let it in.
    cluster_security_group_id="sg-0123456789abcdef0",
    kubectl_provider=kubectl_provider,
)
file_system = S3FilesFileSystem(stack, "Files", vpc=vpc)

# The Amazon EFS CSI driver as an EKS add-on (3.0.0 or later), its roles through EKS Pod Identity
# (the cluster runs the Pod Identity agent; install_pod_identity_agent=True adds it).
EksMount.install_driver(cluster, addon_version="v3.0.0-eksbuild.1")

# A static volume: a PersistentVolume on the access point and a claim in namespace "app".
shared = EksMount.on_cluster(cluster, file_system.add_access_point("Shared", path="/shared"),
                             claim_name="shared", namespace="app")

# Dynamic provisioning: the driver's controller creates an access point per claim.
EksMount.add_storage_class(cluster, file_system, storage_class_name="s3files")

# A pod on the static volume. The claim's name carries the access point id: pass it on.
pod = cluster.add_manifest("Reader", {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "reader", "namespace": "app"},
    "spec": {
        "containers": [{
            "name": "app",
            "image": "public.ecr.aws/docker/library/busybox:stable",
            "command": ["sh", "-c", "ls /data && sleep 3600"],
            "volumeMounts": [{"name": "data", "mountPath": "/data"}],
        }],
        "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": shared.claim_name}}],
    },
})
pod.node.add_dependency(shared.manifest)

app.synth()
