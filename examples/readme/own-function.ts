import * as path from 'path';
import { App, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import { LambdaMount, S3FilesFileSystem } from 'cdk-s3files-lambda';

const app = new App();
const storage = new Stack(app, 'Storage');
const vpc = new ec2.Vpc(storage, 'Vpc', {
  natGateways: 0,
  subnetConfiguration: [{ name: 'Isolated', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }],
});
const fileSystem = new S3FilesFileSystem(storage, 'Files', { vpc });
const reports = fileSystem.addAccessPoint('Reports', { path: '/reports' });

// Your own function, in another stack, built however you like.
const compute = new Stack(app, 'Compute');
const worker = new nodejs.NodejsFunction(compute, 'Worker', {
  entry: path.join(__dirname, 'worker.ts'),
  runtime: lambda.Runtime.NODEJS_24_X,
  vpc,
  vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
});
// One call: the mount, the wait for the mount targets, NFS, scoped grants, MOUNT_PATH.
LambdaMount.onFunction(worker, reports, { mountPath: '/mnt/reports' });

app.synth();
