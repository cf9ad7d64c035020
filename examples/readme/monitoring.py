import aws_cdk as cdk
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_sns as sns
from cdk_s3files_lambda import S3FilesFileSystem, S3FilesMonitoring

app = cdk.App()
stack = cdk.Stack(app, "Monitored")
vpc = ec2.Vpc(
    stack,
    "Vpc",
    nat_gateways=0,
    subnet_configuration=[
        ec2.SubnetConfiguration(name="Isolated", subnet_type=ec2.SubnetType.PRIVATE_ISOLATED)
    ],
)
file_system = S3FilesFileSystem(stack, "Files", vpc=vpc)

# Six alarms (export/import failures, lost+found, pending exports, export age, connections)
# and a dashboard; every threshold is a prop with a documented default.
S3FilesMonitoring(
    stack,
    "Monitoring",
    file_system=file_system,
    alarm_topic=sns.Topic(stack, "Alerts"),
    export_age_threshold=cdk.Duration.minutes(10),
)

app.synth()
