import aws_cdk as cdk
from aws_cdk import aws_batch as batch
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_ecs as ecs
from aws_cdk import aws_iam as iam
from cdk_s3files_lambda import BatchMount, Ec2Mount, EcsMount, S3FilesFileSystem

app = cdk.App()
stack = cdk.Stack(app, "Pipeline")
# Private subnets with one NAT gateway: the tasks pull their image from public ECR and the
# instance installs amazon-efs-utils. The S3 gateway endpoint (no charge) keeps S3 traffic
# (direct reads, the Amazon Linux repositories) off the NAT gateway, which bills per hour and per GB.
vpc = ec2.Vpc(
    stack,
    "Vpc",
    max_azs=2,
    nat_gateways=1,
    gateway_endpoints={
        "S3": ec2.GatewayVpcEndpointOptions(service=ec2.GatewayVpcEndpointAwsService.S3)
    },
)
file_system = S3FilesFileSystem(stack, "Files", vpc=vpc)
results = file_system.add_access_point("Results", path="/results")
image = ecs.ContainerImage.from_registry("public.ecr.aws/docker/library/busybox:stable")

# ECS on Fargate (or ECS Managed Instances): volume, mount point, task role, NFS, the wait.
task_definition = ecs.FargateTaskDefinition(stack, "Reader")
task_definition.add_container("app", image=image)
service = ecs.FargateService(
    stack,
    "Service",
    cluster=ecs.Cluster(stack, "Cluster", vpc=vpc),
    task_definition=task_definition,
    # A task that cannot start fails the deployment in minutes instead of hours.
    circuit_breaker=ecs.DeploymentCircuitBreaker(rollback=True),
    # New tasks mount (with the current rights) before old ones stop.
    min_healthy_percent=100,
)
EcsMount.on_service(service, results, container_path="/mnt/results", read_only=True)

# AWS Batch on Fargate: the job role gets the grants, the environment joins the client group.
job = batch.EcsJobDefinition(
    stack,
    "Job",
    container=batch.EcsFargateContainerDefinition(
        stack,
        "JobContainer",
        image=image,
        cpu=1,
        memory=cdk.Size.gibibytes(2),
        job_role=iam.Role(stack, "JobRole", assumed_by=iam.ServicePrincipal("ecs-tasks.amazonaws.com")),
    ),
)
compute_environment = batch.FargateComputeEnvironment(stack, "Environment", vpc=vpc)
BatchMount.on_job_definition(job, results, compute_environment=compute_environment)

# EC2: at boot, install amazon-efs-utils, write the fstab line, mount (retrying until reachable).
host = ec2.Instance(
    stack,
    "Host",
    vpc=vpc,
    instance_type=ec2.InstanceType.of(ec2.InstanceClass.T4G, ec2.InstanceSize.MICRO),
    machine_image=ec2.MachineImage.latest_amazon_linux2023(cpu_type=ec2.AmazonLinuxCpuType.ARM_64),
)
Ec2Mount.on_instance(host, results, mount_path="/mnt/results")

app.synth()
