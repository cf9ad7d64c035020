import { App, Duration, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as sns from 'aws-cdk-lib/aws-sns';
import { S3FilesFileSystem, S3FilesMonitoring } from 'cdk-s3files-lambda';

const app = new App();
const stack = new Stack(app, 'Monitored');
const vpc = new ec2.Vpc(stack, 'Vpc', {
  natGateways: 0,
  subnetConfiguration: [{ name: 'Isolated', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }],
});
const fileSystem = new S3FilesFileSystem(stack, 'Files', { vpc });

// Six alarms (export/import failures, lost+found, pending exports, export age, connections)
// and a dashboard; every threshold is a prop with a documented default.
new S3FilesMonitoring(stack, 'Monitoring', {
  fileSystem,
  alarmTopic: new sns.Topic(stack, 'Alerts'),
  exportAgeThreshold: Duration.minutes(10),
});

app.synth();
