import { App, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { S3FilesFileSystem, S3FilesMountedFunction } from 'cdk-s3files-lambda';

const app = new App();
const stack = new Stack(app, 'Sharing');
const vpc = new ec2.Vpc(stack, 'Vpc', {
  natGateways: 0,
  subnetConfiguration: [{ name: 'Isolated', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }],
  gatewayEndpoints: { S3: { service: ec2.GatewayVpcEndpointAwsService.S3 } },
});
const code = lambda.Code.fromInline('exports.handler = async () => require("fs").readdirSync(process.env.MOUNT_PATH);');

// One file system over the bucket's docs/ prefix, one access point: /app, owned by 1000:1000.
const fileSystem = new S3FilesFileSystem(stack, 'Docs', { vpc, prefix: 'docs/' });
const appDir = fileSystem.addAccessPoint('App', { path: '/app', posixUser: { uid: 1000, gid: 1000 } });

new S3FilesMountedFunction(stack, 'Writer', {
  runtime: lambda.Runtime.NODEJS_24_X, handler: 'index.handler', code, s3FileSystem: fileSystem, accessPoint: appDir,
});
new S3FilesMountedFunction(stack, 'Reader', {
  runtime: lambda.Runtime.NODEJS_24_X, handler: 'index.handler', code, s3FileSystem: fileSystem, accessPoint: appDir, readOnly: true,
});
// Root-owned (S3-born) entries: uid 0 with ClientRootAccess, assumed as in EFS (uid 0 draws a warning).
new S3FilesMountedFunction(stack, 'Janitor', {
  runtime: lambda.Runtime.NODEJS_24_X, handler: 'index.handler', code, s3FileSystem: fileSystem,
  accessPointOptions: { path: '/app', posixUser: { uid: 0, gid: 0 } }, rootAccess: true,
});

app.synth();
