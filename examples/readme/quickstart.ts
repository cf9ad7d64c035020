import { App, Stack } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { S3FilesMountedFunction } from 'cdk-s3files-lambda';

const app = new App();
const stack = new Stack(app, 'QuickStart');

// Makes a VPC without NAT, a hardened versioned bucket, the S3 Files file system with its
// mount targets, an access point (/lambda), and a function that sees the bucket's lambda/ prefix at /mnt/s3files.
new S3FilesMountedFunction(stack, 'Reader', {
  runtime: lambda.Runtime.NODEJS_24_X,
  handler: 'index.handler',
  code: lambda.Code.fromInline('exports.handler = async () => require("fs").readdirSync(process.env.MOUNT_PATH);'),
});

app.synth();
