import { App, Duration, Size, Stack } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import * as batch from 'aws-cdk-lib/aws-batch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as ecsPatterns from 'aws-cdk-lib/aws-ecs-patterns';
import * as efs from 'aws-cdk-lib/aws-efs';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventsTargets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as schedulerTargets from 'aws-cdk-lib/aws-scheduler-targets';
import * as ssm from 'aws-cdk-lib/aws-ssm';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { EcsMount, LambdaMount, S3FilesFileSystem } from '../../src';
import { FN, isolatedVpc } from '../util/template';

// Mounts made around the library (issue 37, items 11 and 12): aws-cdk-lib's own EFS and S3 Files
// settings given the library's resources, and launchers of a mounted task definition that never
// went through the library. Each fails at synth naming the call, or is named in a warning.

const IMAGE = ecs.ContainerImage.fromRegistry('public.ecr.aws/docker/library/busybox:stable');

function setup() {
  const stack = new Stack(new App(), 'S', { env: { account: '111111111111', region: 'us-east-1' } });
  const vpc = isolatedVpc(stack);
  const fileSystem = new S3FilesFileSystem(stack, 'Files', { vpc });
  const accessPoint = fileSystem.addAccessPoint('Data', { path: '/data' });
  const cluster = new ecs.Cluster(stack, 'Cluster', { vpc });
  const task = new ecs.FargateTaskDefinition(stack, 'Task');
  task.addContainer('app', { image: IMAGE });
  return { stack, vpc, fileSystem, accessPoint, cluster, task };
}

const synth = (stack: Stack) => () => stack.node.root.node.children.length && (stack.node.root as App).synth();

describe('a task definition the library mounted, launched around it', () => {
  test('an ordinary FargateService running it, never given to EcsMount.onService, is refused, naming the call', () => {
    const { stack, accessPoint, cluster, task } = setup();
    EcsMount.onTaskDefinition(task, accessPoint);
    new ecs.FargateService(stack, 'Plain', { cluster, taskDefinition: task, vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED } });
    expect(synth(stack)).toThrow(/S\/Plain: invalid `taskDefinition`: it runs S\/Task, whose S3 Files volume the library mounted, but the service was never given to `EcsMount\.onService\(\)`.*Fix: call `EcsMount\.onService\(service, accessPoint\)`/);
  });

  test('the same service given to EcsMount.onService passes', () => {
    const { stack, accessPoint, cluster, task } = setup();
    EcsMount.onTaskDefinition(task, accessPoint);
    const service = new ecs.FargateService(stack, 'Mounted', { cluster, taskDefinition: task, vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED } });
    EcsMount.onService(service, accessPoint);
    expect(synth(stack)).not.toThrow();
  });

  test('a ScheduledFargateTask (an EventBridge rule) launching it is named in a warning with what its tasks need', () => {
    const { stack, accessPoint, cluster, task } = setup();
    EcsMount.onTaskDefinition(task, accessPoint);
    new ecsPatterns.ScheduledFargateTask(stack, 'Nightly', {
      cluster,
      scheduledFargateTaskDefinitionOptions: { taskDefinition: task },
      schedule: events.Schedule.cron({ hour: '3', minute: '0' }),
      subnetSelection: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
    });
    const found = Annotations.fromStack(stack).findWarning('/S/Task', Match.stringLikeRegexp('ecsTaskLaunchedElsewhere'));
    expect(found).toHaveLength(1);
    expect(JSON.stringify(found[0].entry.data)).toMatch(/S\/Nightly\/ScheduledEventRule\/Resource launches tasks of S\/Task.*`clientSecurityGroup`/);
  });

  test.each([['the same stack', false], ['another stack', true]])('a Step Functions EcsRunTask in %s (it names the family as a literal) is named in a warning', (_, elsewhere) => {
    const { stack, accessPoint, cluster, task } = setup();
    EcsMount.onTaskDefinition(task, accessPoint);
    const where = elsewhere ? new Stack(stack.node.root as App, 'Flows', { env: { account: '111111111111', region: 'us-east-1' } }) : stack;
    new sfn.StateMachine(where, 'Flow', {
      definitionBody: sfn.DefinitionBody.fromChainable(new tasks.EcsRunTask(where, 'Run', {
        cluster,
        taskDefinition: task,
        launchTarget: new tasks.EcsFargateLaunchTarget(),
        integrationPattern: sfn.IntegrationPattern.RUN_JOB,
        subnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
      })),
    });
    const found = Annotations.fromStack(stack).findWarning('/S/Task', Match.stringLikeRegexp('ecsTaskLaunchedElsewhere'));
    expect(found).toHaveLength(1);
    expect(JSON.stringify(found[0].entry.data)).toMatch(new RegExp(`${where.stackName}/Flow/Resource launches tasks of S/Task`));
  });

  test('an EventBridge rule and a schedule in another stack (they import the ARN) are named; things that only mention the family are not', () => {
    const { stack, accessPoint, cluster, vpc } = setup();
    const task = new ecs.FargateTaskDefinition(stack, 'Web', { family: 'web' });
    task.addContainer('app', { image: IMAGE });
    EcsMount.onTaskDefinition(task, accessPoint);
    const other = new Stack(stack.node.root as App, 'Other', { env: { account: '111111111111', region: 'us-east-1' } });
    new events.Rule(other, 'Nightly', {
      schedule: events.Schedule.cron({ hour: '3', minute: '0' }),
      targets: [new eventsTargets.EcsTask({ cluster, taskDefinition: task, subnetSelection: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED } })],
    });
    new scheduler.Schedule(other, 'Hourly', {
      schedule: scheduler.ScheduleExpression.rate(Duration.hours(1)),
      target: new schedulerTargets.EcsRunFargateTask(cluster, { taskDefinition: task, vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED } }),
    });
    // launching nothing: a log group, a parameter, a rule that only watches the family's events
    new logs.LogGroup(stack, 'Logs', { logGroupName: '/ecs/web' });
    new ssm.StringParameter(stack, 'Param', { stringValue: 'web' });
    new events.Rule(other, 'Watch', { eventPattern: { source: ['aws.ecs'], detail: { group: ['family:web'] } } });
    void vpc;
    const found = Annotations.fromStack(stack).findWarning('/S/Web', Match.stringLikeRegexp('ecsTaskLaunchedElsewhere'));
    expect(found).toHaveLength(1);
    const text = JSON.stringify(found[0].entry.data);
    expect(text).toMatch(/Other\/Nightly\/Resource, Other\/Hourly\/Resource launch tasks of S\/Web/);
    expect(text).not.toMatch(/Logs|Param|Watch/);
  });

  test('a state machine that only mentions a longer family containing this one is not named', () => {
    const { stack, accessPoint, cluster, task } = setup();
    EcsMount.onTaskDefinition(task, accessPoint);
    new sfn.StateMachine(stack, 'Flow', { definitionBody: sfn.DefinitionBody.fromChainable(new sfn.Pass(stack, 'P', { result: sfn.Result.fromString(`${task.family}Extra`) })) });
    void cluster;
    expect(Annotations.fromStack(stack).findWarning('/S/Task', Match.stringLikeRegexp('ecsTaskLaunchedElsewhere'))).toHaveLength(0);
  });
});

describe('aws-cdk-lib\'s EFS volume settings given an S3 Files file system', () => {
  test('an ECS efsVolumeConfiguration naming its id is refused, naming EcsMount.onTaskDefinition', () => {
    const { stack, fileSystem, task } = setup();
    task.addVolume({ name: 'data', efsVolumeConfiguration: { fileSystemId: fileSystem.fileSystemId } });
    expect(synth(stack)).toThrow(/S\/Task: invalid `efsVolumeConfiguration` of volume data: its `fileSystemId` is the S3 Files file system S\/Files.*Fix: mount an access point of it with `EcsMount\.onTaskDefinition\(\)`/);
  });

  test('a Batch EFS volume naming its id (aws-efs\'s import of it) is refused, naming BatchMount.onJobDefinition', () => {
    const { stack, fileSystem } = setup();
    const asEfs = efs.FileSystem.fromFileSystemAttributes(stack, 'AsEfs', {
      fileSystemId: fileSystem.fileSystemId, securityGroup: ec2.SecurityGroup.fromSecurityGroupId(stack, 'Sg', 'sg-0123456789abcdef0'),
    });
    new batch.EcsJobDefinition(stack, 'Job', {
      container: new batch.EcsFargateContainerDefinition(stack, 'Container', {
        image: IMAGE,
        cpu: 1,
        memory: Size.gibibytes(2),
        volumes: [batch.EcsVolume.efs({ name: 'data', fileSystem: asEfs, containerPath: '/data' })],
      }),
    });
    expect(synth(stack)).toThrow(/S\/Job: invalid `efsVolumeConfiguration` of volume data: its `fileSystemId` is the S3 Files file system S\/Files.*`BatchMount\.onJobDefinition\(\)`/);
  });
});

describe('aws-cdk-lib\'s lambda.FileSystem given the library\'s access point or its L1', () => {
  test('fromS3FilesAccessPoint on its CfnAccessPoint, with directS3Read: refused, naming that call and why', () => {
    const { stack, vpc, accessPoint } = setup();
    new lambda.Function(stack, 'Fn', {
      ...FN,
      vpc,
      filesystem: lambda.FileSystem.fromS3FilesAccessPoint(accessPoint.node.defaultChild as any, '/mnt/data', { directS3Read: lambda.DirectS3Read.disabled() }),
    });
    expect(synth(stack)).toThrow(/S\/Fn: invalid `filesystem`: it mounts the S3 Files access point S\/Files\/Data through `lambda\.FileSystem\.fromS3FilesAccessPoint\(\)` on its CfnAccessPoint, which grants s3files:ClientWrite on the whole file system without the access-point condition/);
  });

  test('fromS3FilesAccessPoint on its CfnAccessPoint without options: refused, naming that call (not fromEfsAccessPoint)', () => {
    const { stack, vpc, accessPoint } = setup();
    new lambda.Function(stack, 'Fn', { ...FN, vpc, filesystem: lambda.FileSystem.fromS3FilesAccessPoint(accessPoint.node.defaultChild as any, '/mnt/data') });
    expect(synth(stack)).toThrow(/through `lambda\.FileSystem\.fromS3FilesAccessPoint\(\)` on its CfnAccessPoint/);
  });

  test('fromEfsAccessPoint on the access point: refused, naming that call', () => {
    const { stack, vpc, accessPoint } = setup();
    new lambda.Function(stack, 'Fn', { ...FN, vpc, filesystem: lambda.FileSystem.fromEfsAccessPoint(accessPoint as any, '/mnt/data') });
    expect(synth(stack)).toThrow(/through `lambda\.FileSystem\.fromEfsAccessPoint\(\)`, which is for EFS/);
  });

  test('a FileSystemConfigs property override naming the access point: refused, naming the override', () => {
    const { stack, vpc, accessPoint } = setup();
    const fn = new lambda.Function(stack, 'Fn', { ...FN, vpc });
    (fn.node.defaultChild as lambda.CfnFunction).addPropertyOverride('FileSystemConfigs', [{ Arn: accessPoint.accessPointArn, LocalMountPath: '/mnt/data' }]);
    expect(synth(stack)).toThrow(/S\/Fn: invalid `filesystem`: it mounts the S3 Files access point S\/Files\/Data through `addPropertyOverride\('FileSystemConfigs', …\)`, which grants the function's role nothing/);
  });

  test('an override of one entry\'s field: the library\'s access point is refused; an EFS one beside the library is left alone (no crash)', () => {
    const { stack, vpc, accessPoint } = setup();
    const efsArn = 'arn:aws:elasticfilesystem:us-east-1:111111111111:access-point/fsap-0123456789abcdef0';
    const plainEfs = new lambda.Function(stack, 'PlainEfs', { ...FN, vpc });
    (plainEfs.node.defaultChild as lambda.CfnFunction).addPropertyOverride('FileSystemConfigs.0.Arn', efsArn);
    (plainEfs.node.defaultChild as lambda.CfnFunction).addPropertyOverride('FileSystemConfigs.0.LocalMountPath', '/mnt/efs');
    expect(synth(stack)).not.toThrow();
    const { stack: s2, vpc: v2, accessPoint: ap2 } = setup();
    const ours = new lambda.Function(s2, 'Ours', { ...FN, vpc: v2 });
    (ours.node.defaultChild as lambda.CfnFunction).addPropertyOverride('FileSystemConfigs.0.Arn', ap2.accessPointArn);
    expect(synth(s2)).toThrow(/S\/Ours: invalid `filesystem`: it mounts the S3 Files access point S\/Files\/Data through `addPropertyOverride/);
    // an L1 value naming EFS, then an override putting the library's access point in its place
    const { stack: s3, vpc: v3, accessPoint: ap3 } = setup();
    const swapped = new lambda.Function(s3, 'Swapped', { ...FN, vpc: v3 });
    const cfn = swapped.node.defaultChild as lambda.CfnFunction;
    cfn.fileSystemConfigs = [{ arn: efsArn, localMountPath: '/mnt/efs' }];
    cfn.addPropertyOverride('FileSystemConfigs.0.Arn', ap3.accessPointArn);
    expect(synth(s3)).toThrow(/S\/Swapped: invalid `filesystem`: it mounts the S3 Files access point S\/Files\/Data through `addPropertyOverride/);
    void accessPoint;
  });

  test('LambdaMount.onFunction\'s own config passes', () => {
    const { stack, vpc, accessPoint } = setup();
    LambdaMount.onFunction(new lambda.Function(stack, 'Fn', { ...FN, vpc, role: new iam.Role(stack, 'R', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') }) }), accessPoint);
    expect(synth(stack)).not.toThrow();
  });
});
