import os

import aws_cdk as cdk
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_lambda as lambda_
from cdk_s3files_lambda import LambdaMount, S3FilesAccessPoint, S3FilesFileSystem

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

# Your own function, in another stack, built however you like.
compute = cdk.Stack(app, "Compute")
# Its access point beside it: replacing or removing it is then an ordinary update of this stack.
reports = S3FilesAccessPoint(compute, "Reports", file_system=file_system, path="/reports")
worker = lambda_.Function(
    compute,
    "Worker",
    runtime=lambda_.Runtime.NODEJS_24_X,
    handler="index.handler",
    code=lambda_.Code.from_asset(os.path.join(os.path.dirname(__file__), "worker")),
    vpc=vpc,
    vpc_subnets=ec2.SubnetSelection(subnet_type=ec2.SubnetType.PRIVATE_ISOLATED),
)
# One call: the mount, the wait for the mount targets, NFS, scoped grants, MOUNT_PATH.
LambdaMount.on_function(worker, reports, mount_path="/mnt/reports")

app.synth()
