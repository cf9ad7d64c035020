import { AwsApiCall, ExpectedResult, IApiCall, IntegTest, LambdaInvokeFunction } from '@aws-cdk/integ-tests-alpha';
import { CfnOutput, Duration, Stack } from 'aws-cdk-lib';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { assertionById, constructIdOf } from './catalogue';
import type { ProbeEvent } from '../handlers/verify-probe';

// Each catalogue assertion becomes one integ-tests-alpha assertion whose construct id is
// constructIdOf(id): its result is the stack output `AssertionResults<Id>` (as integ-runner reads
// it) and its evidence the output `Evidence<Id>`. The runner reports both.

/** The DeployAssert stack of an IntegTest (integ-tests-alpha exposes it as `scope`). */
export function assertStack(integ: IntegTest): Stack {
  return (integ.assertions as unknown as { scope: Stack }).scope;
}

/** Distributes a probe payload over the check's kind (keeps the discriminated union). */
type ProbeCheck = ProbeEvent extends infer E ? (E extends unknown ? Omit<E, 'salt'> : never) : never;

/** The first and the last call of one assertion, to chain assertions one after the other. */
export interface Chain {
  readonly first: IApiCall;
  readonly last: IApiCall;
}

/**
 * A probe check: a waiter call until the probe's outcome is settled, then one call whose outcome
 * must be `confirmed`.
 */
export function probeAssertion(
  integ: IntegTest, id: string, fn: lambda.IFunction, check: ProbeCheck, salt: string, timeout = Duration.minutes(20),
): Chain {
  assertionById(id);
  const scope = assertStack(integ);
  const cid = constructIdOf(id);
  const payload = JSON.stringify({ ...check, salt: `${salt}-${cid}` });
  const settle = new LambdaInvokeFunction(scope, `${cid}Settle`, { functionName: fn.functionName, payload });
  settle.assertAtPath('Payload.outcome', ExpectedResult.stringLikeRegexp('^(confirmed|refuted)$'))
    .waitForAssertions({ totalTimeout: timeout, interval: Duration.seconds(15) });
  const final = new LambdaInvokeFunction(scope, cid, { functionName: fn.functionName, payload });
  final.assertAtPath('Payload.outcome', ExpectedResult.exact('confirmed'));
  new CfnOutput(scope, `Evidence${cid}`, { value: final.getAttString('Payload.evidence') });
  settle.next(final);
  return { first: settle, last: final };
}

export interface TaskRun {
  readonly cluster: ecs.ICluster;
  readonly taskDefinition: ecs.TaskDefinition;
  readonly subnets: string[];
  readonly securityGroups: string[];
}

/**
 * A Fargate task's mount: RunTask, wait until it is STOPPED, then one DescribeTasks that must show
 * the container's exit code 0 (it mounted, wrote and read) or, for `refused`, `stoppedCode`
 * `TaskFailedToStart` (the volume was refused before the container ran); `stoppedReason` is the
 * evidence either way.
 */
export function taskAssertion(integ: IntegTest, id: string, task: TaskRun, expect: 'ran' | 'refused'): Chain {
  assertionById(id);
  const scope = assertStack(integ);
  const cid = constructIdOf(id);
  const run = new AwsApiCall(scope, `${cid}Run`, {
    service: 'ECS',
    api: 'runTask',
    parameters: {
      cluster: task.cluster.clusterArn,
      taskDefinition: task.taskDefinition.taskDefinitionArn,
      launchType: 'FARGATE',
      networkConfiguration: { awsvpcConfiguration: { subnets: task.subnets, securityGroups: task.securityGroups, assignPublicIp: 'DISABLED' } },
    },
  });
  run.provider.addToRolePolicy({
    Effect: 'Allow', Action: ['iam:PassRole'], Resource: [task.taskDefinition.taskRole.roleArn, task.taskDefinition.obtainExecutionRole().roleArn],
  });
  const describe = (suffix: string) => new AwsApiCall(scope, `${cid}${suffix}`, {
    service: 'ECS', api: 'describeTasks', parameters: { cluster: task.cluster.clusterArn, tasks: [run.getAttString('tasks.0.taskArn')] },
  });
  const stopped = describe('Stopped');
  stopped.assertAtPath('tasks.0.lastStatus', ExpectedResult.exact('STOPPED')).waitForAssertions({ totalTimeout: Duration.minutes(15), interval: Duration.seconds(20) });
  // The construct id without a suffix is the one whose AssertionResults output the runner reads.
  const verdict = describe('');
  if (expect === 'ran') verdict.assertAtPath('tasks.0.containers.0.exitCode', ExpectedResult.exact(0));
  else verdict.assertAtPath('tasks.0.stoppedCode', ExpectedResult.exact('TaskFailedToStart'));
  new CfnOutput(scope, `Evidence${cid}`, { value: verdict.getAttString('tasks.0.stoppedReason') });
  run.next(stopped).next(verdict);
  return { first: run, last: verdict };
}

/** Runs assertions one after the other (fewer Lambda and task starts at once; a clearer log). */
export function inSequence(chains: Chain[]): void {
  chains.reduce((previous, chain) => {
    previous.last.next(chain.first);
    return chain;
  });
}
