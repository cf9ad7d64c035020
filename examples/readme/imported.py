import aws_cdk as cdk
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_s3 as s3
from cdk_s3files_lambda import LambdaMount, S3FilesAccessPoint, S3FilesFileSystem

app = cdk.App()
stack = cdk.Stack(app, "Consumer", env=cdk.Environment(account="111111111111", region="us-east-1"))
vpc = ec2.Vpc.from_vpc_attributes(
    stack,
    "Vpc",
    vpc_id="vpc-0123456789abcdef0",
    availability_zones=["us-east-1a", "us-east-1b"],
    isolated_subnet_ids=["subnet-0aaaaaaaaaaaaaaaa", "subnet-0bbbbbbbbbbbbbbbb"],
    isolated_subnet_route_table_ids=["rtb-0aaaaaaaaaaaaaaaa", "rtb-0bbbbbbbbbbbbbbbb"],
)

# A file system made elsewhere (another app, the console): what this app needs to know of it.
file_system = S3FilesFileSystem.from_file_system_attributes(
    stack,
    "Shared",
    file_system_id="fs-0123456789abcdef0",
    vpc=vpc,
    mount_target_availability_zones=["us-east-1a", "us-east-1b"],
    # A group the mount targets admit on 2049 (or security_groups: the mount targets' own groups).
    client_security_group=ec2.SecurityGroup.from_security_group_id(stack, "Clients", "sg-0123456789abcdef0"),
    bucket=s3.Bucket.from_bucket_name(stack, "Bucket", "shared-data-bucket"),
)
team = S3FilesAccessPoint.from_access_point_attributes(
    stack, "Team", file_system=file_system, access_point_id="fsap-0123456789abcdef0"
)

reader = lambda_.Function(
    stack,
    "Reader",
    runtime=lambda_.Runtime.NODEJS_24_X,
    handler="index.handler",
    code=lambda_.Code.from_inline(
        'exports.handler = async () => require("fs").readdirSync(process.env.MOUNT_PATH);'
    ),
    vpc=vpc,
)
LambdaMount.on_function(reader, team, read_only=True)

app.synth()
