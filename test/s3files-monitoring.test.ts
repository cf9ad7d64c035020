import { Duration } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as efs from 'aws-cdk-lib/aws-efs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sns from 'aws-cdk-lib/aws-sns';
import { S3FilesFileSystem, S3FilesMonitoring, S3FilesMountedFunction } from '../src';
import { FN, isolatedVpc, newStack, resourcesOfType } from './util/template';

function monitored(props: Partial<ConstructorParameters<typeof S3FilesMonitoring>[2]> = {}) {
  const stack = newStack();
  const fileSystem = new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack) });
  const monitoring = new S3FilesMonitoring(stack, 'Monitoring', { fileSystem, ...props });
  return { stack, fileSystem, monitoring, template: () => Template.fromStack(stack) };
}

const alarmsByMetric = (t: Template): Record<string, any> => Object.fromEntries(resourcesOfType(t, 'AWS::CloudWatch::Alarm').map(([, a]) => [a.Properties.MetricName, a.Properties]));

describe('S3FilesMonitoring', () => {
  test('one alarm per failure mode, on the file system\'s metrics, with the documented defaults', () => {
    // GIVEN / WHEN
    const { template } = monitored();
    // THEN
    const alarms = alarmsByMetric(template());
    expect(Object.keys(alarms).sort()).toEqual(['ClientConnections', 'ExportAge', 'ExportFailures', 'ImportFailures', 'LostAndFoundFiles', 'PendingExports']);
    const shape = (m: string) => {
      const a = alarms[m];
      return [a.Namespace, a.Statistic, a.Threshold, a.EvaluationPeriods, a.Period, a.ComparisonOperator, a.TreatMissingData];
    };
    expect(shape('ExportFailures')).toEqual(['AWS/S3/Files', 'Sum', 0, 1, 300, 'GreaterThanThreshold', 'notBreaching']);
    expect(shape('ImportFailures')).toEqual(['AWS/S3/Files', 'Sum', 0, 1, 300, 'GreaterThanThreshold', 'notBreaching']);
    expect(shape('LostAndFoundFiles')).toEqual(['AWS/S3/Files', 'Sum', 0, 1, 300, 'GreaterThanThreshold', 'notBreaching']);
    expect(shape('PendingExports')).toEqual(['AWS/S3/Files', 'Maximum', 10000, 3, 300, 'GreaterThanThreshold', 'notBreaching']);
    expect(shape('ExportAge')).toEqual(['AWS/S3/Files', 'Maximum', 900, 3, 300, 'GreaterThanThreshold', 'notBreaching']);
    expect(shape('ClientConnections')).toEqual(['AWS/S3/Files', 'Maximum', 20000, 1, 300, 'GreaterThanThreshold', 'notBreaching']);
    for (const a of Object.values(alarms)) {
      expect(a.Dimensions).toEqual([{ Name: 'FileSystemId', Value: { 'Fn::GetAtt': [expect.stringMatching(/^Files/), 'FileSystemId'] } }]);
      // each says what happened and what to do
      expect(a.AlarmDescription).toMatch(/^S3 Files file system TestStack\/Files: .+\. .+/);
    }
    expect(alarms.ExportFailures.AlarmDescription).toMatch(/will not be retried.*write those files again/);
    expect(alarms.LostAndFoundFiles.AlarmDescription).toMatch(/lost\+found.*make one side the only writer/);
  });

  test('thresholds and periods are props; a topic gets alarm and OK notifications from every alarm', () => {
    // GIVEN
    const stack = newStack();
    const fileSystem = new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack) });
    const alarmTopic = new sns.Topic(stack, 'Alerts');
    // WHEN
    new S3FilesMonitoring(stack, 'Monitoring', {
      fileSystem,
      alarmTopic,
      pendingExportsThreshold: 500,
      exportAgeThreshold: Duration.minutes(5),
      clientConnectionsThreshold: 24000,
      evaluationPeriods: 2,
    });
    // THEN
    const alarms = alarmsByMetric(Template.fromStack(stack));
    expect([alarms.PendingExports.Threshold, alarms.PendingExports.EvaluationPeriods]).toEqual([500, 2]);
    expect(alarms.ExportAge.Threshold).toBe(300);
    expect(alarms.ClientConnections.Threshold).toBe(24000);
    for (const a of Object.values(alarms)) {
      expect(a.AlarmActions).toEqual([{ Ref: expect.stringMatching(/^Alerts/) }]);
      expect(a.OKActions).toEqual([{ Ref: expect.stringMatching(/^Alerts/) }]);
    }
  });

  test('the dashboard graphs the file system beside the mounting functions\' errors and durations', () => {
    // GIVEN
    const stack = newStack();
    const fn = new S3FilesMountedFunction(stack, 'Worker', FN);
    // WHEN
    new S3FilesMonitoring(stack, 'Monitoring', { fileSystem: fn.s3FileSystem, functions: [fn], dashboardName: 'files' });
    // THEN
    const [[, dashboard]] = resourcesOfType(Template.fromStack(stack), 'AWS::CloudWatch::Dashboard');
    expect(dashboard.Properties.DashboardName).toBe('files');
    const body = JSON.stringify(stack.resolve(dashboard.Properties.DashboardBody));
    for (const metric of ['PendingExports', 'ExportAge', 'ExportFailures', 'ImportFailures', 'LostAndFoundFiles', 'DataReadBytes', 'DataWriteBytes', 'ClientConnections', 'StorageBytes']) {
      expect(body).toContain(`\\"${metric}\\"`);
    }
    expect(body).toContain('Mounting functions: errors');
    expect(body).toMatch(/AWS\/Lambda.*Duration.*p99/);
  });

  test('an imported file system is watched by its id; dashboard: false makes none', () => {
    const stack = newStack();
    const fileSystem = S3FilesFileSystem.fromFileSystemAttributes(stack, 'Theirs', { fileSystemId: 'fs-0123456789abcdef0' });
    new S3FilesMonitoring(stack, 'Monitoring', { fileSystem, dashboard: false });
    const t = Template.fromStack(stack);
    t.resourceCountIs('AWS::CloudWatch::Dashboard', 0);
    t.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'ExportFailures', Dimensions: [{ Name: 'FileSystemId', Value: 'fs-0123456789abcdef0' }] });
    t.resourceCountIs('AWS::CloudWatch::Alarm', 6);
  });

  test.each<[string, Record<string, unknown>, RegExp]>([
    ['a fractional pending-exports threshold', { pendingExportsThreshold: 1.5 }, /invalid pendingExportsThreshold 1\.5: it must be a whole number/],
    ['more connections than the file system takes', { clientConnectionsThreshold: 30000 }, /invalid clientConnectionsThreshold 30000: it must be a whole number from 1 to 25000/],
    ['an export-age threshold under a minute', { exportAgeThreshold: Duration.seconds(30) }, /invalid exportAgeThreshold 30 seconds: exports are batched about once a minute/],
    ['zero evaluation periods', { evaluationPeriods: 0 }, /invalid evaluationPeriods 0/],
  ])('refuses %s', (_what, props, message) => {
    expect(() => monitored(props)).toThrow(message);
  });
});

describe('S3FilesMonitoring: a file system of another kind', () => {
  test('an EFS file system is refused with the library\'s message, not a TypeError', () => {
    const stack = newStack();
    const efsFileSystem = new efs.FileSystem(stack, 'Efs', { vpc: isolatedVpc(stack) });
    expect(() => new S3FilesMonitoring(stack, 'Monitoring', { fileSystem: efsFileSystem as any }))
      .toThrow(/TestStack\/Monitoring: invalid fileSystem "TestStack\/Efs": it is an Amazon EFS file system \(AWS::EFS::FileSystem\), not an S3 Files file system\. Fix: pass an `S3FilesFileSystem`/);
  });

  test('a bucket is named as a bucket', () => {
    const stack = newStack();
    expect(() => new S3FilesMonitoring(stack, 'Monitoring', { fileSystem: new s3.Bucket(stack, 'Data') as any }))
      .toThrow(/TestStack\/Monitoring: invalid fileSystem "TestStack\/Data": it is an S3 bucket, not an S3 Files file system/);
  });
});
