import { App, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { S3FilesFileSystem, S3FilesMountedFunction } from 'cdk-s3files-lambda';

const app = new App();
const stack = new Stack(app, 'PinnedClient');
const vpc = new ec2.Vpc(stack, 'Vpc', {
  maxAzs: 2,
  natGateways: 0,
  subnetConfiguration: [{ name: 'isolated', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }],
});
const fileSystem = new S3FilesFileSystem(stack, 'Files', { vpc });
const reports = fileSystem.addAccessPoint('Reports', { path: '/reports' });
const reporter = new S3FilesMountedFunction(stack, 'Reporter', {
  runtime: lambda.Runtime.NODEJS_24_X,
  handler: 'index.handler',
  code: lambda.Code.fromInline('exports.handler = async () => ({})'),
  s3FileSystem: fileSystem,
  accessPoint: reports,
});

// The Deny half of the documented per-role pair (the library's identity grant is the Allow):
// whatever else this role is granted later, it mounts only through /reports.
fileSystem.addToResourcePolicy(new iam.PolicyStatement({
  sid: 'ReporterOnlyThroughReports',
  effect: iam.Effect.DENY,
  principals: [new iam.ArnPrincipal(reporter.role!.roleArn)],
  actions: ['s3files:ClientMount', 's3files:ClientWrite', 's3files:ClientRootAccess'],
  resources: [fileSystem.fileSystemArn],
  conditions: { StringNotEquals: { 's3files:AccessPointArn': reports.accessPointArn } },
}));

app.synth();
