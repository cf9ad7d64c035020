import { App, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { S3FilesAccessPoint, S3FilesFileSystem, S3FilesMountedFunction } from 'cdk-s3files-lambda';

const app = new App();
const storage = new Stack(app, 'Storage');
const vpc = new ec2.Vpc(storage, 'Vpc', {
  natGateways: 0,
  subnetConfiguration: [{ name: 'Isolated', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }],
});
const fileSystem = new S3FilesFileSystem(storage, 'Files', { vpc });

// The compute stack's resources; the storage stack gains only exports of the values they use.
const compute = new Stack(app, 'Compute');
const runtime = lambda.Runtime.NODEJS_24_X;
const handler = 'index.handler';
const code = lambda.Code.fromInline('exports.handler = async () => ({})');
const shared = new S3FilesAccessPoint(compute, 'Shared', { fileSystem, path: '/shared' });
new S3FilesMountedFunction(compute, 'Writer', { runtime, handler, code, accessPoint: shared });
new S3FilesMountedFunction(compute, 'Reader', { runtime, handler, code, accessPoint: shared, readOnly: true });
// Its own access point, beside it.
new S3FilesMountedFunction(compute, 'Own', { runtime, handler, code, s3FileSystem: fileSystem });

app.synth();
