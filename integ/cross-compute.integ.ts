import { ExpectedResult, IntegTest } from '@aws-cdk/integ-tests-alpha';
import { App, Aspects, Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import * as cxapi from 'aws-cdk-lib/cx-api';
import { CROSS_COMPUTE_FILE, CrossComputeStack } from './stacks/cross-compute-stack';
import { StableAssertionSalt } from './util';

// Stack traces would put this checkout's absolute paths into the snapshot.
const app = new App({
  context: { [cxapi.DISABLE_CREATION_STACK_TRACES]: true, [cxapi.DISABLE_METADATA_STACK_TRACE]: true },
});
const stack = new CrossComputeStack(app, 'S3FilesCrossComputeInteg', { removalPolicy: RemovalPolicy.DESTROY });
const integ = new IntegTest(app, 'CrossComputeTest', { testCases: [stack] });

// 1. A file lands in inbox/ through the mount; 2. the S3 Files processor Lambda turns it into
// processed/<name>/; 3. a Fargate task mounting the same access point reads it back and exits 0.
const seed = integ.assertions.invokeFunction({ functionName: stack.seeder.functionName, payload: JSON.stringify({ name: CROSS_COMPUTE_FILE }) });
seed.expect(ExpectedResult.objectLike({ StatusCode: 200, Payload: Match.serializedJson({ seeded: `inbox/${CROSS_COMPUTE_FILE}` }) }));
const processInbox = integ.assertions.invokeFunction({ functionName: stack.processor.functionName });
processInbox.expect(ExpectedResult.objectLike({ StatusCode: 200, Payload: Match.serializedJson(Match.objectLike({ files: 1, errors: [] })) }));

const run = integ.assertions.awsApiCall('ECS', 'runTask', {
  cluster: stack.cluster.clusterArn,
  taskDefinition: stack.taskDefinition.taskDefinitionArn,
  launchType: 'FARGATE',
  networkConfiguration: { awsvpcConfiguration: { subnets: stack.taskSubnets, securityGroups: stack.taskSecurityGroups, assignPublicIp: 'DISABLED' } },
});
run.provider.addToRolePolicy({
  Effect: 'Allow',
  Action: ['iam:PassRole'],
  Resource: [stack.taskDefinition.taskRole.roleArn, stack.taskDefinition.obtainExecutionRole().roleArn],
});
const stopped = integ.assertions.awsApiCall('ECS', 'describeTasks', {
  cluster: stack.cluster.clusterArn,
  tasks: [run.getAttString('tasks.0.taskArn')],
});
stopped.expect(ExpectedResult.objectLike({
  tasks: [Match.objectLike({ lastStatus: 'STOPPED', containers: [Match.objectLike({ name: 'reader', exitCode: 0 })] })],
})).waitForAssertions({ totalTimeout: Duration.minutes(10), interval: Duration.seconds(20) });

seed.next(processInbox).next(run).next(stopped);

Aspects.of(app).add(new StableAssertionSalt(app.node.tryGetContext('integ:salt') ?? 'snapshot'));
app.synth();
