import aws_cdk as cdk
from aws_cdk import aws_lambda as lambda_
from cdk_s3files_lambda import S3FilesMountedFunction

app = cdk.App()
stack = cdk.Stack(app, "QuickStart")

# Makes a VPC without NAT, a hardened versioned bucket, the S3 Files file system with its
# mount targets, an access point (/lambda), and a function that sees the bucket's lambda/ prefix at /mnt/s3files.
S3FilesMountedFunction(
    stack,
    "Reader",
    runtime=lambda_.Runtime.NODEJS_24_X,
    handler="index.handler",
    code=lambda_.Code.from_inline(
        'exports.handler = async () => require("fs").readdirSync(process.env.MOUNT_PATH);'
    ),
)

app.synth()
