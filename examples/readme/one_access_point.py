import aws_cdk as cdk
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from cdk_s3files_lambda import S3FilesFileSystem, S3FilesMountedFunction

app = cdk.App()
stack = cdk.Stack(app, "PinnedClient")
vpc = ec2.Vpc(
    stack,
    "Vpc",
    max_azs=2,
    nat_gateways=0,
    subnet_configuration=[
        ec2.SubnetConfiguration(name="isolated", subnet_type=ec2.SubnetType.PRIVATE_ISOLATED)
    ],
)
file_system = S3FilesFileSystem(stack, "Files", vpc=vpc)
reports = file_system.add_access_point("Reports", path="/reports")
reporter = S3FilesMountedFunction(
    stack,
    "Reporter",
    runtime=lambda_.Runtime.NODEJS_24_X,
    handler="index.handler",
    code=lambda_.Code.from_inline("exports.handler = async () => ({})"),
    s3_file_system=file_system,
    access_point=reports,
)

# The Deny half of the documented per-role pair (the library's identity grant is the Allow):
# whatever else this role is granted later, it mounts only through /reports.
file_system.add_to_resource_policy(
    iam.PolicyStatement(
        sid="ReporterOnlyThroughReports",
        effect=iam.Effect.DENY,
        principals=[iam.ArnPrincipal(reporter.role.role_arn)],
        actions=["s3files:ClientMount", "s3files:ClientWrite", "s3files:ClientRootAccess"],
        resources=[file_system.file_system_arn],
        conditions={"StringNotEquals": {"s3files:AccessPointArn": reports.access_point_arn}},
    )
)

app.synth()
