import { App, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { LambdaMount, S3FilesAccessPoint, S3FilesFileSystem } from 'cdk-s3files-lambda';

const app = new App();
const stack = new Stack(app, 'Consumer', { env: { account: '111111111111', region: 'us-east-1' } });
const vpc = ec2.Vpc.fromVpcAttributes(stack, 'Vpc', {
  vpcId: 'vpc-0123456789abcdef0',
  availabilityZones: ['us-east-1a', 'us-east-1b'],
  isolatedSubnetIds: ['subnet-0aaaaaaaaaaaaaaaa', 'subnet-0bbbbbbbbbbbbbbbb'],
  isolatedSubnetRouteTableIds: ['rtb-0aaaaaaaaaaaaaaaa', 'rtb-0bbbbbbbbbbbbbbbb'],
});

// A file system made elsewhere (another app, the console): what this app needs to know of it.
const fileSystem = S3FilesFileSystem.fromFileSystemAttributes(stack, 'Shared', {
  fileSystemId: 'fs-0123456789abcdef0',
  vpc,
  mountTargetAvailabilityZones: ['us-east-1a', 'us-east-1b'],
  // A group the mount targets admit on 2049 (or securityGroups: the mount targets' own groups).
  clientSecurityGroup: ec2.SecurityGroup.fromSecurityGroupId(stack, 'Clients', 'sg-0123456789abcdef0'),
  bucket: s3.Bucket.fromBucketName(stack, 'Bucket', 'shared-data-bucket'),
});
const team = S3FilesAccessPoint.fromAccessPointAttributes(stack, 'Team', {
  fileSystem,
  accessPointId: 'fsap-0123456789abcdef0',
});

const reader = new lambda.Function(stack, 'Reader', {
  runtime: lambda.Runtime.NODEJS_24_X,
  handler: 'index.handler',
  code: lambda.Code.fromInline('exports.handler = async () => require("fs").readdirSync(process.env.MOUNT_PATH);'),
  vpc,
});
LambdaMount.onFunction(reader, team, { readOnly: true });

app.synth();
