import aws_cdk as cdk
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_lambda as lambda_
from cdk_s3files_lambda import (
    PosixUser,
    S3FilesAccessPointOptions,
    S3FilesFileSystem,
    S3FilesMountedFunction,
)

app = cdk.App()
stack = cdk.Stack(app, "Sharing")
vpc = ec2.Vpc(
    stack,
    "Vpc",
    nat_gateways=0,
    subnet_configuration=[
        ec2.SubnetConfiguration(name="Isolated", subnet_type=ec2.SubnetType.PRIVATE_ISOLATED)
    ],
    gateway_endpoints={
        "S3": ec2.GatewayVpcEndpointOptions(service=ec2.GatewayVpcEndpointAwsService.S3)
    },
)
code = lambda_.Code.from_inline(
    'exports.handler = async () => require("fs").readdirSync(process.env.MOUNT_PATH);'
)

# One file system over the bucket's docs/ prefix, one access point: /app, owned by 1000:1000.
file_system = S3FilesFileSystem(stack, "Docs", vpc=vpc, prefix="docs/")
app_dir = file_system.add_access_point(
    "App", path="/app", posix_user=PosixUser(uid=1000, gid=1000)
)

S3FilesMountedFunction(
    stack, "Writer",
    runtime=lambda_.Runtime.NODEJS_24_X, handler="index.handler", code=code,
    s3_file_system=file_system, access_point=app_dir,
)
S3FilesMountedFunction(
    stack, "Reader",
    runtime=lambda_.Runtime.NODEJS_24_X, handler="index.handler", code=code,
    s3_file_system=file_system, access_point=app_dir, read_only=True,
)
# Root-owned (S3-born) entries: uid 0 with ClientRootAccess, assumed as in EFS (uid 0 draws a warning).
S3FilesMountedFunction(
    stack, "Janitor",
    runtime=lambda_.Runtime.NODEJS_24_X, handler="index.handler", code=code,
    s3_file_system=file_system,
    access_point_options=S3FilesAccessPointOptions(path="/app", posix_user=PosixUser(uid=0, gid=0)),
    root_access=True,
)

app.synth()
