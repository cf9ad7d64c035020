#!/usr/bin/env python3
"""The example app in Python: the same stack as examples/typescript/app.ts."""
import aws_cdk as cdk
from aws_cdk import aws_batch as batch
from aws_cdk import aws_bedrockagentcore as agentcore
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_ecs as ecs
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_s3 as s3
from constructs import Construct

from cdk_s3files_lambda import (
    AgentCoreMount,
    BatchMount,
    Ec2Mount,
    EcsMount,
    ImportDataRule,
    LambdaMount,
    PosixUser,
    S3FilesAccessPoint,
    S3FilesAccessPointOptions,
    S3FilesFileSystem,
    S3FilesMountedFunction,
)

# Inline code keeps the template free of language-specific asset hashes.
HANDLER_CODE = 'const fs = require("fs"); exports.handler = async () => fs.readdirSync(process.env.MOUNT_PATH);'


class ExampleStack(cdk.Stack):
    def __init__(self, scope: Construct, construct_id: str, **kwargs) -> None:
        super().__init__(scope, construct_id, **kwargs)

        # No NAT: isolated subnets, S3 reached through a gateway endpoint.
        vpc = ec2.Vpc(
            self,
            "Vpc",
            max_azs=2,
            nat_gateways=0,
            subnet_configuration=[
                ec2.SubnetConfiguration(
                    name="isolated",
                    subnet_type=ec2.SubnetType.PRIVATE_ISOLATED,
                    cidr_mask=24,
                )
            ],
            gateway_endpoints={
                "S3": ec2.GatewayVpcEndpointOptions(
                    service=ec2.GatewayVpcEndpointAwsService.S3
                )
            },
        )
        subnets = ec2.SubnetSelection(subnet_type=ec2.SubnetType.PRIVATE_ISOLATED)

        file_system = S3FilesFileSystem(
            self,
            "FileSystem",
            vpc=vpc,
            vpc_subnets=subnets,
            import_data_rules=[ImportDataRule(prefix="", size_less_than=cdk.Size.kibibytes(256))],
            expire_after_last_access=cdk.Duration.days(30),
        )

        fn = S3FilesMountedFunction(
            self,
            "Processor",
            runtime=lambda_.Runtime.NODEJS_24_X,
            architecture=lambda_.Architecture.ARM_64,
            handler="index.handler",
            code=lambda_.Code.from_inline(HANDLER_CODE),
            memory_size=1024,
            timeout=cdk.Duration.seconds(30),
            vpc=vpc,
            vpc_subnets=subnets,
            s3_file_system=file_system,
            mount_path="/mnt/data",
            access_point_options=S3FilesAccessPointOptions(
                path="/processor",
                posix_user=PosixUser(uid=1001, gid=1001),
            ),
            direct_s3_read=lambda_.DirectS3Read.enabled(file_system.bucket),
        )

        cdk.CfnOutput(self, "FileSystemId", value=file_system.file_system_id)
        cdk.CfnOutput(self, "FunctionName", value=fn.function_name)


class ImportedStack(cdk.Stack):
    """A file system made elsewhere, imported by attributes and mounted on a plain lambda.Function."""

    def __init__(self, scope: Construct, construct_id: str, **kwargs) -> None:
        super().__init__(scope, construct_id, **kwargs)

        vpc = ec2.Vpc.from_vpc_attributes(
            self,
            "Vpc",
            vpc_id="vpc-0123456789abcdef0",
            availability_zones=["us-east-1a", "us-east-1b"],
            isolated_subnet_ids=["subnet-0aaaaaaaaaaaaaaaa", "subnet-0bbbbbbbbbbbbbbbb"],
        )
        file_system = S3FilesFileSystem.from_file_system_attributes(
            self,
            "Shared",
            file_system_id="fs-0123456789abcdef0",
            vpc=vpc,
            mount_target_availability_zones=["us-east-1a", "us-east-1b"],
            client_security_group=ec2.SecurityGroup.from_security_group_id(self, "Clients", "sg-0123456789abcdef0"),
            bucket=s3.Bucket.from_bucket_name(self, "Bucket", "shared-data-bucket"),
        )
        access_point = S3FilesAccessPoint.from_access_point_attributes(
            self,
            "Team",
            file_system=file_system,
            access_point_id="fsap-0123456789abcdef0",
        )

        reader = lambda_.Function(
            self,
            "Reader",
            runtime=lambda_.Runtime.NODEJS_24_X,
            handler="index.handler",
            code=lambda_.Code.from_inline(HANDLER_CODE),
            vpc=vpc,
        )
        LambdaMount.on_function(reader, access_point, read_only=True)


class OtherComputeStack(cdk.Stack):
    """One imported file system mounted by a Fargate service, a Batch job, an EC2 instance and an AgentCore runtime."""

    def __init__(self, scope: Construct, construct_id: str, **kwargs) -> None:
        super().__init__(scope, construct_id, **kwargs)

        vpc = ec2.Vpc.from_vpc_attributes(
            self,
            "Vpc",
            vpc_id="vpc-0123456789abcdef0",
            availability_zones=["us-east-1a", "us-east-1b"],
            isolated_subnet_ids=["subnet-0aaaaaaaaaaaaaaaa", "subnet-0bbbbbbbbbbbbbbbb"],
        )
        file_system = S3FilesFileSystem.from_file_system_attributes(
            self,
            "Shared",
            file_system_id="fs-0123456789abcdef0",
            vpc=vpc,
            mount_target_availability_zones=["us-east-1a", "us-east-1b"],
            client_security_group=ec2.SecurityGroup.from_security_group_id(self, "Clients", "sg-0123456789abcdef0"),
            bucket=s3.Bucket.from_bucket_name(self, "Bucket", "shared-data-bucket"),
        )
        access_point = S3FilesAccessPoint.from_access_point_attributes(
            self,
            "Results",
            file_system=file_system,
            access_point_id="fsap-0123456789abcdef0",
        )
        image = ecs.ContainerImage.from_registry("public.ecr.aws/docker/library/busybox:stable")

        # ECS on Fargate: the volume, the mount point, the task role, NFS, and the wait.
        cluster = ecs.Cluster(self, "Cluster", vpc=vpc)
        task = ecs.FargateTaskDefinition(self, "Task")
        task.add_container("app", image=image)
        service = ecs.FargateService(self, "Service", cluster=cluster, task_definition=task)
        EcsMount.on_service(service, access_point, container_path="/mnt/results", read_only=True)

        # AWS Batch on Fargate.
        job_role = iam.Role(self, "JobRole", assumed_by=iam.ServicePrincipal("ecs-tasks.amazonaws.com"))
        job = batch.EcsJobDefinition(
            self,
            "Job",
            container=batch.EcsFargateContainerDefinition(
                self, "JobContainer", image=image, cpu=1, memory=cdk.Size.gibibytes(2), job_role=job_role
            ),
        )
        compute_environment = batch.FargateComputeEnvironment(self, "Environment", vpc=vpc)
        BatchMount.on_job_definition(job, access_point, compute_environment=compute_environment)

        # EC2: user data installs amazon-efs-utils, writes the fstab line and mounts at boot.
        host = ec2.Instance(
            self,
            "Host",
            vpc=vpc,
            instance_type=ec2.InstanceType.of(ec2.InstanceClass.T4G, ec2.InstanceSize.MICRO),
            machine_image=ec2.MachineImage.latest_amazon_linux2023(cpu_type=ec2.AmazonLinuxCpuType.ARM_64),
        )
        Ec2Mount.on_instance(host, access_point, mount_path="/mnt/results")

        # Bedrock AgentCore: a runtime in the VPC reads the same access point.
        agent = agentcore.Runtime(
            self,
            "Agent",
            runtime_name="results_agent",
            agent_runtime_artifact=agentcore.AgentRuntimeArtifact.from_image_uri(
                "123456789012.dkr.ecr.us-east-1.amazonaws.com/agent:latest"
            ),
            network_configuration=agentcore.RuntimeNetworkConfiguration.using_vpc(self, vpc=vpc),
        )
        AgentCoreMount.on_runtime(agent, access_point, mount_path="/mnt/results", read_only=True)


app = cdk.App()
ExampleStack(app, "S3FilesLambdaExample")
ImportedStack(app, "S3FilesLambdaImported")
OtherComputeStack(app, "S3FilesOtherCompute")
app.synth()
