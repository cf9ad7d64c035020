"""What a Python user meets when the library refuses a value, run against the installed wheel.

The library's own synth-time errors reach Python as RuntimeError with the library's message,
which names the prop in Python's spelling; a value of the wrong type is refused before the
library sees it, by the binding's type check (typeguard), which names the Python parameter.
Warnings carry the Python spelling too. Exits non-zero on the first expectation that fails.
"""
import re

import aws_cdk as cdk
from aws_cdk import assertions
from aws_cdk import aws_batch as batch
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_ecs as ecs
from aws_cdk import aws_efs as efs
from aws_cdk import aws_eks as eks
from aws_cdk import aws_eks_v2 as eks_v2
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_s3 as s3
from cdk_s3files_lambda import (
    EksMount,
    LambdaMount,
    PosixUser,
    S3FilesAccessPoint,
    S3FilesAccessPointBase,
    S3FilesAccessPointOptions,
    S3FilesClientAction,
    S3FilesFileSystem,
    S3FilesFileSystemBase,
    S3FilesMonitoring,
    S3FilesMountedFunction,
)
from aws_cdk import aws_s3files as s3files


def stack():
    s = cdk.Stack(cdk.App(), "Errors")
    vpc = ec2.Vpc(
        s,
        "Vpc",
        nat_gateways=0,
        subnet_configuration=[ec2.SubnetConfiguration(name="I", subnet_type=ec2.SubnetType.PRIVATE_ISOLATED)],
    )
    return s, vpc


FN = dict(
    runtime=lambda_.Runtime.NODEJS_24_X,
    handler="index.handler",
    code=lambda_.Code.from_inline("exports.handler = async () => 1;"),
)


def refused(build, pattern):
    try:
        build()
    except Exception as e:  # noqa: BLE001 - jsii raises RuntimeError, typeguard TypeError
        message = str(e)
        if not re.search(pattern, message, re.S):
            raise SystemExit(f"FAIL: expected /{pattern}/ in:\n{message}")
        print(f"ok: {type(e).__name__}: {message.splitlines()[0][:200]}")
        return
    raise SystemExit(f"FAIL: accepted, expected /{pattern}/")


# 1. A library error on a nested option: the prop as the user wrote it, in Python's spelling.
s, vpc = stack()
refused(
    lambda: S3FilesMountedFunction(
        s, "Fn", vpc=vpc, **FN,
        access_point_options=S3FilesAccessPointOptions(path="/app", posix_user=PosixUser(uid=-1, gid=1)),
    ),
    r"invalid accessPointOptions\.posixUser\.uid -1: .*Fix: .*\(Python: access_point_options\.posix_user\.uid; ",
)

# 2. A library error on a top-level prop.
s, vpc = stack()
refused(
    lambda: S3FilesFileSystem(s, "Fs", vpc=vpc, availability_timeout=cdk.Duration.seconds(5)),
    r"invalid availabilityTimeout 5 seconds: .*\(Python: availability_timeout; ",
)

# 3. A bucket where the file system goes: the binding lets the object through (the prop's type is
#    an interface), and the library's message says what to do, in Python's spelling.
s, vpc = stack()
bucket = s3.Bucket(s, "Bucket")
refused(
    lambda: S3FilesMountedFunction(s, "Fn", vpc=vpc, **FN, s3_file_system=bucket),
    r'invalid s3FileSystem "Errors/Bucket": it is an S3 bucket, not an S3 Files file system\. Fix: .*\(Python: s3_file_system; ',
)

# 4. A value of the wrong primitive type never reaches the library: the binding's type check
#    (typeguard) answers first, naming the Python parameter.
s, vpc = stack()
fs = S3FilesFileSystem(s, "Fs", vpc=vpc)
fn = lambda_.Function(s, "Reader", vpc=vpc, **FN)
refused(
    lambda: LambdaMount.on_function(fn, fs.add_access_point("Ap", path="/app"), read_only="yes"),
    r"read_only",
)

# 5. A warning, as `cdk synth` prints it: in Python's spelling as well.
s, vpc = stack()
fs = S3FilesFileSystem(s, "Fs", vpc=vpc)
fn = lambda_.Function(s, "Reader", vpc=vpc, **FN)
LambdaMount.on_function(fn, fs.add_access_point("Ap", path="/app"), read_only=True, root_access=True)
warnings = assertions.Annotations.from_stack(s).find_warning(
    "*", assertions.Match.string_like_regexp("Python: read_only, root_access")
)
if len(warnings) != 1:
    raise SystemExit(f"FAIL: expected one warning with the Python spelling, found {warnings}")
print(f"ok: warning: {warnings[0].entry.data[:200]}")

# 6. aws-efs habits the Python binding lets through (TypeScript and Java refuse them at compile
#    time): the library's access point in lambda.FileSystem.from_efs_access_point, and its file
#    system in batch.EcsVolume.efs. Both are synth errors naming the library's call.
s, vpc = stack()
fs = S3FilesFileSystem(s, "Fs", vpc=vpc)
lambda_.Function(s, "Efs", vpc=vpc, **FN, filesystem=lambda_.FileSystem.from_efs_access_point(fs.add_access_point("Ap", path="/app"), "/mnt/x"))
refused(
    lambda: assertions.Template.from_stack(s),
    r"invalid `filesystem`: it mounts the S3 Files access point Errors/Fs/Ap through `lambda\.FileSystem\.fromEfsAccessPoint\(\)`.*"
    r"`LambdaMount\.onFunction\(\)`.*Python: .*lambda_\.FileSystem\.from_efs_access_point\(\).*LambdaMount\.on_function\(\)",
)
s, vpc = stack()
fs = S3FilesFileSystem(s, "Fs", vpc=vpc)
refused(
    lambda: batch.EcsJobDefinition(s, "Job", container=batch.EcsFargateContainerDefinition(
        s, "C", image=ecs.ContainerImage.from_registry("public.ecr.aws/docker/library/busybox:latest"),
        cpu=0.25, memory=cdk.Size.mebibytes(512),
        volumes=[batch.EcsVolume.efs(name="data", container_path="/mnt/data", file_system=fs)],
    )) and assertions.Template.from_stack(s),
    r"invalid fileSystem \"Errors/Fs\": it is an S3 Files file system.*`BatchMount\.onJobDefinition\(\)`.*Python: .*BatchMount\.on_job_definition\(\)",
)


# 7. A user's own file system and access point classes, written in Python on the library's base
#    classes, work with the mount adapters (the contracts are implementable in every language).
class HandWiredFileSystem(S3FilesFileSystemBase):
    def __init__(self, scope, id, vpc):
        super().__init__(scope, id)
        self._bucket = s3.Bucket(self, "Bucket", versioned=True)
        l1 = s3files.CfnFileSystem(self, "Resource", bucket=self._bucket.bucket_arn, role_arn="arn:aws:iam::111111111111:role/s3files")
        group = ec2.SecurityGroup(self, "MountTargets", vpc=vpc, allow_all_outbound=False)
        self._mount_target = s3files.CfnMountTarget(
            self, "MountTarget", file_system_id=l1.attr_file_system_id,
            subnet_id=vpc.isolated_subnets[0].subnet_id, security_groups=[group.security_group_id],
        )
        self._id, self._arn, self._vpc = l1.attr_file_system_id, l1.attr_file_system_arn, vpc
        self._connections = ec2.Connections(security_groups=[group], default_port=ec2.Port.tcp(2049))

    @property
    def file_system_id(self):
        return self._id

    @property
    def file_system_arn(self):
        return self._arn

    @property
    def mount_targets_available(self):
        return self._mount_target

    @property
    def connections(self):
        return self._connections

    @property
    def vpc(self):
        return self._vpc

    @property
    def bucket(self):
        return self._bucket


class HandWiredAccessPoint(S3FilesAccessPointBase):
    def __init__(self, scope, id, file_system):
        super().__init__(scope, id)
        self._l1 = s3files.CfnAccessPoint(self, "Resource", file_system_id=file_system.file_system_id,
                                          root_directory=s3files.CfnAccessPoint.RootDirectoryProperty(path="/by-hand"))
        self._file_system = file_system

    @property
    def access_point_id(self):
        return self._l1.attr_access_point_id

    @property
    def access_point_arn(self):
        return self._l1.attr_access_point_arn

    @property
    def file_system(self):
        return self._file_system

    @property
    def available(self):
        return self._l1


s, vpc = stack()
own_fs = HandWiredFileSystem(s, "Files", vpc)
one_subnet = ec2.SubnetSelection(subnets=[vpc.isolated_subnets[0]])
library_ap = S3FilesAccessPoint(s, "Ap", file_system=own_fs, path="/app")
LambdaMount.on_function(lambda_.Function(s, "A", vpc=vpc, vpc_subnets=one_subnet, **FN), library_ap)
own_ap = HandWiredAccessPoint(s, "ByHand", own_fs)
LambdaMount.on_function(lambda_.Function(s, "B", vpc=vpc, vpc_subnets=one_subnet, **FN), own_ap, read_only=True)
node_role = iam.Role(s, "NodeRole", assumed_by=iam.ServicePrincipal("ec2.amazonaws.com"))
own_ap.grant_mount(node_role, amazon_efs_utils=True)
template = assertions.Template.from_stack(s).to_json()
functions = {k: v for k, v in template["Resources"].items() if v["Type"] == "AWS::Lambda::Function" and "FileSystemConfigs" in v["Properties"]}
if len(functions) != 2:
    raise SystemExit(f"FAIL: expected two mounted functions, found {list(functions)}")
statements = [st for r in template["Resources"].values() if r["Type"] == "AWS::IAM::Policy" for st in r["Properties"]["PolicyDocument"]["Statement"]]
actions = {a for st in statements for a in ([st["Action"]] if isinstance(st["Action"], str) else st["Action"])}
for needed in ("s3files:ClientMount", "s3files:ClientWrite", "s3files:GetAccessPoint", "s3:GetObject", "s3:ListBucket", "cloudwatch:PutMetricData"):
    if needed not in actions:
        raise SystemExit(f"FAIL: the Python classes' mounts lack {needed}: {sorted(actions)}")
print(f"ok: a Python file system and access point class mount on two functions and a role ({len(statements)} statements)")


# 8. An aws-cdk-lib object of another type where the library takes an interface: the binding lets it
#    through, and the library names the prop, what the object is, and what to pass, in Python's
#    spelling (before: a template that did not deploy, silent alarms, or a raw TypeError).
s, vpc = stack()
refused(
    lambda: S3FilesFileSystem(s, "F2", vpc=vpc, security_group=vpc),
    r'invalid securityGroup "Errors/Vpc": it is an AWS::EC2::VPC, not a security group\. Fix: pass an `ec2\.ISecurityGroup`.*'
    r"\(Python: security_group, ec2\.SecurityGroup\.from_security_group_id\(\); ",
)
s, vpc = stack()
fs = S3FilesFileSystem(s, "Fs", vpc=vpc)
refused(
    lambda: S3FilesMonitoring(s, "Monitoring", file_system=fs, alarm_topic=s3.Bucket(s, "Bucket")),
    r'invalid alarmTopic "Errors/Bucket": it is an AWS::S3::Bucket, not an SNS topic\. Fix: pass an `sns\.ITopic`.*'
    r"\(Python: alarm_topic, sns\.Topic\.from_topic_arn\(\); ",
)
s, vpc = stack()
refused(
    lambda: S3FilesFileSystem(s, "F2", vpc=vpc, bucket=efs.FileSystem(s, "Efs", vpc=vpc)),
    r'invalid bucket "Errors/Efs": it is an AWS::EFS::FileSystem, not an S3 bucket\. Fix: pass an `s3\.IBucket`.*'
    r"\(Python: s3\.Bucket\.from_bucket_name\(\), ",
)
s, vpc = stack()
refused(
    lambda: S3FilesFileSystem(s, "F2", vpc=s3.Bucket(s, "Bucket")),
    r'invalid vpc "Errors/Bucket": it is an AWS::S3::Bucket, not a VPC\. Fix: pass an `ec2\.IVpc`.*\(Python: ec2\.Vpc\.from_lookup\(\), ',
)
s, vpc = stack()
fs = S3FilesFileSystem(s, "Fs", vpc=vpc)
refused(
    lambda: fs.grant_read(s3.Bucket(s, "Bucket")),
    r'Errors/Fs: invalid grantee "Errors/Bucket": it is an AWS::S3::Bucket, not a principal\. Fix: pass an `iam\.IGrantable`.*'
    r"\(Python: iam\.Role\.from_role_arn\(\); ",
)


# 9. aws-efs's file system and access point where the library's go: the binding lets them through
#    (same member names), and the library tells them apart by their L1 type.
s, vpc = stack()
efs_fs = efs.FileSystem(s, "Efs", vpc=vpc)
refused(
    lambda: S3FilesAccessPoint(s, "Ap", file_system=efs_fs, path="/x"),
    r'invalid fileSystem "Errors/Efs": it is an Amazon EFS file system \(AWS::EFS::FileSystem\), not an S3 Files file system\..*'
    r"\(Python: file_system, S3FilesFileSystem\.from_file_system_attributes\(\); ",
)
s, vpc = stack()
efs_ap = efs.FileSystem(s, "Efs", vpc=vpc).add_access_point("EAp", path="/x")
refused(
    lambda: LambdaMount.on_function(lambda_.Function(s, "Fn", vpc=vpc, **FN), efs_ap),
    r'invalid accessPoint "Errors/Efs/EAp": it is an Amazon EFS access point \(AWS::EFS::AccessPoint\), not an S3 Files access point\..*'
    r"\(Python: access_point, S3FilesAccessPoint\.from_access_point_attributes\(\); ",
)

# 10. The client actions as constants: plain strings in Python, the IAM action names.
for name, want in (("MOUNT", "s3files:ClientMount"), ("WRITE", "s3files:ClientWrite"), ("ROOT_ACCESS", "s3files:ClientRootAccess")):
    got = getattr(S3FilesClientAction, name)
    if got != want or not isinstance(got, str):
        raise SystemExit(f"FAIL: S3FilesClientAction.{name} is {got!r}, expected {want!r}")
    print(f"ok: S3FilesClientAction.{name} == {got!r}")


# --- EKS: the refusals at synth, in Python's spelling ------------------------------------------
# (A real Cluster takes any ILayerVersion as its kubectl layer: a layer imported by ARN stands in
# for the kubectl layer package, which the wheel's users install themselves.)
ENV = cdk.Environment(account="111111111111", region="us-east-1")


def eks_app():
    s = cdk.Stack(cdk.App(), "Kubernetes", env=ENV)
    vpc = ec2.Vpc(s, "Vpc", max_azs=2, nat_gateways=1)
    fs = S3FilesFileSystem(s, "Files", vpc=vpc, vpc_subnets=ec2.SubnetSelection(subnet_type=ec2.SubnetType.PRIVATE_WITH_EGRESS))
    return s, vpc, fs, fs.add_access_point("Data", path="/data")


def real_cluster(s, vpc, fargate=False, **kwargs):
    layer = lambda_.LayerVersion.from_layer_version_arn(s, "Layer", "arn:aws:lambda:us-east-1:111111111111:layer:kubectl:1")
    if fargate:
        return eks.FargateCluster(s, "Cluster", vpc=vpc, version=eks.KubernetesVersion.V1_36, kubectl_layer=layer)
    return eks.Cluster(s, "Cluster", vpc=vpc, version=eks.KubernetesVersion.V1_36, kubectl_layer=layer, default_capacity=0, **kwargs)


def their_cluster(s, vpc):
    provider = eks.KubectlProvider.from_kubectl_provider_attributes(
        s, "Kubectl",
        function_arn="arn:aws:lambda:us-east-1:111111111111:function:kubectl-provider",
        kubectl_role_arn="arn:aws:iam::111111111111:role/kubectl",
        handler_role=iam.Role.from_role_arn(s, "KubectlHandler", "arn:aws:iam::111111111111:role/kubectl-handler"),
    )
    return eks.Cluster.from_cluster_attributes(s, "Theirs", cluster_name="theirs", vpc=vpc, cluster_security_group_id="sg-0c1a57e5000000000",
                                               kubectl_provider=provider)


def eks_below_three():
    s, vpc, _fs, _ap = eks_app()
    EksMount.install_driver(their_cluster(s, vpc), addon_version="v2.1.9-eksbuild.1")


refused(eks_below_three, r'invalid addonVersion "v2\.1\.9-eksbuild\.1": "Amazon S3 Files support in Amazon EFS CSI driver starts from version 3\.0\.0".*Python: addon_version')


def eks_no_driver():
    s, vpc, _fs, ap = eks_app()
    EksMount.on_cluster(their_cluster(s, vpc), ap, claim_name="data")


refused(eks_no_driver, r"the library does not know how the Amazon EFS CSI driver.*Fix: call `EksMount\.installDriver\(\)` first.*Python: .*EksMount\.install_driver\(\)")


def eks_other_vpc():
    s, _vpc, _fs, ap = eks_app()
    cluster = real_cluster(s, ec2.Vpc(s, "ClusterVpc", max_azs=2, nat_gateways=1))
    EksMount.install_driver(cluster, addon_version="v3.0.0-eksbuild.1")
    EksMount.on_cluster(cluster, ap, claim_name="data")


refused(eks_other_vpc, r'invalid vpc "Kubernetes/ClusterVpc": the cluster is in another VPC than the mount targets')


def eks_v2_fargate():
    # An aws_eks_v2 FargateCluster gets the EKS checks (issue 40.7: it once skipped them all): its
    # profile selects the default namespace, where a claim's pods would run on Fargate.
    s, vpc, _fs, ap = eks_app()
    layer = lambda_.LayerVersion.from_layer_version_arn(s, "Layer", "arn:aws:lambda:us-east-1:111111111111:layer:kubectl:1")
    cluster = eks_v2.FargateCluster(s, "Cluster", vpc=vpc, version=eks_v2.KubernetesVersion.V1_36,
                                    kubectl_provider_options=eks_v2.KubectlProviderOptions(kubectl_layer=layer))
    EksMount.install_driver(cluster, addon_version="v3.0.0-eksbuild.1")
    EksMount.on_cluster(cluster, ap, claim_name="data", namespace="default")
    assertions.Template.from_stack(s)


refused(eks_v2_fargate, r'invalid namespace "default": the Fargate profile Kubernetes/Cluster/fargate-profile-default selects every pod of it.*"EKS Fargate doesn\'t support S3 Files"')


def eks_not_a_cluster():
    # What is no EKS cluster (here an aws_eks_v2 L1 CfnCluster) is refused by name, not silently unchecked.
    s, _vpc, _fs, _ap = eks_app()
    l1 = eks_v2.CfnCluster(s, "L1", resources_vpc_config=eks_v2.CfnCluster.ResourcesVpcConfigProperty(subnet_ids=["subnet-1"]),
                           role_arn="arn:aws:iam::111111111111:role/eks")
    EksMount.install_driver(l1, addon_version="v3.0.0-eksbuild.1")


refused(eks_not_a_cluster, r'invalid cluster "Kubernetes/L1": it is the L1 `CfnCluster`.*`aws_eks_v2` in Python.*Python: Cluster\.from_cluster_attributes\(\)')


def eks_fargate_profile():
    s, vpc, _fs, ap = eks_app()
    cluster = real_cluster(s, vpc)
    cluster.add_nodegroup_capacity("Nodes", min_size=1)
    cluster.add_fargate_profile("Batch", selectors=[eks.Selector(namespace="batch")])
    EksMount.install_driver(cluster, addon_version="v3.0.0-eksbuild.1")
    EksMount.on_cluster(cluster, ap, claim_name="data", namespace="batch")
    assertions.Template.from_stack(s)


refused(eks_fargate_profile, r'invalid namespace "batch": the Fargate profile Kubernetes/Cluster/fargate-profile-Batch selects every pod of it')


def eks_windows_only():
    s, vpc, _fs, ap = eks_app()
    cluster = real_cluster(s, vpc)
    cluster.add_nodegroup_capacity("Windows", ami_type=eks.NodegroupAmiType.WINDOWS_CORE_2022_X86_64)
    EksMount.install_driver(cluster, addon_version="v3.0.0-eksbuild.1")
    EksMount.on_cluster(cluster, ap, claim_name="data")
    assertions.Template.from_stack(s)


refused(eks_windows_only, r'invalid amiType "WINDOWS_CORE_2022_x86_64": the cluster\'s managed node groups are all Windows.*Python: ami_type')


def eks_gid_range():
    s, vpc, fs, _ap = eks_app()
    cluster = their_cluster(s, vpc)
    EksMount.install_driver(cluster, existing_driver_version="3.4.1")
    EksMount.add_storage_class(cluster, fs, storage_class_name="s3files", gid_range_start=1000)


refused(eks_gid_range, r"invalid gidRangeStart 1000: the driver takes a custom group id range only with both ends.*Python: gid_range_start, gid_range_end")
