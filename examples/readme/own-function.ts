import { App, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { LambdaMount, S3FilesAccessPoint, S3FilesFileSystem } from 'cdk-s3files-lambda';

const app = new App();
const storage = new Stack(app, 'Storage');
const vpc = new ec2.Vpc(storage, 'Vpc', {
  natGateways: 0,
  subnetConfiguration: [{ name: 'Isolated', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }],
});
const fileSystem = new S3FilesFileSystem(storage, 'Files', { vpc });

// Your own function, in another stack, built however you like (here: the handler in worker/).
const compute = new Stack(app, 'Compute');
// Its access point beside it: replacing or removing it is then an ordinary update of this stack.
const reports = new S3FilesAccessPoint(compute, 'Reports', { fileSystem, path: '/reports' });
const worker = new lambda.Function(compute, 'Worker', {
  runtime: lambda.Runtime.NODEJS_24_X,
  handler: 'index.handler',
  code: lambda.Code.fromAsset('worker'),
  vpc,
  vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
});
// One call: the mount, the wait for the mount targets, NFS, scoped grants, MOUNT_PATH.
LambdaMount.onFunction(worker, reports, { mountPath: '/mnt/reports' });

app.synth();
