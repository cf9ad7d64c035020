import aws_cdk as cdk
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_lambda as lambda_
from cdk_s3files_lambda import S3FilesAccessPoint, S3FilesFileSystem, S3FilesMountedFunction

app = cdk.App()
storage = cdk.Stack(app, "Storage")
vpc = ec2.Vpc(
    storage,
    "Vpc",
    nat_gateways=0,
    subnet_configuration=[
        ec2.SubnetConfiguration(name="Isolated", subnet_type=ec2.SubnetType.PRIVATE_ISOLATED)
    ],
)
file_system = S3FilesFileSystem(storage, "Files", vpc=vpc)

# The compute stack's resources; the storage stack gains only exports of the values they use.
compute = cdk.Stack(app, "Compute")
fn = dict(
    runtime=lambda_.Runtime.NODEJS_24_X,
    handler="index.handler",
    code=lambda_.Code.from_inline("exports.handler = async () => ({})"),
)
shared = S3FilesAccessPoint(compute, "Shared", file_system=file_system, path="/shared")
S3FilesMountedFunction(compute, "Writer", **fn, access_point=shared)
S3FilesMountedFunction(compute, "Reader", **fn, access_point=shared, read_only=True)
S3FilesMountedFunction(compute, "Own", **fn, s3_file_system=file_system)  # its own access point, beside it

app.synth()
