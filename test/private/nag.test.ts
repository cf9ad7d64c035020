import { App, Stack, Validations } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { acknowledge } from '../../src/private/nag';

describe('acknowledge', () => {
  test('records the rule and its reason on the construct, gathers no stack frames (the trace is dropped), and leaves Error.stackTraceLimit as it was', () => {
    // GIVEN a construct, the process's stack-trace limit, and a count of the stack frames V8 gathers
    const scope = new Construct(new Stack(new App(), 'S'), 'Fn');
    const limit = Error.stackTraceLimit;
    const prepare = Error.prepareStackTrace;
    let frames = 0;
    Error.prepareStackTrace = (error, callSites) => {
      frames += callSites.length;
      return prepare ? prepare(error, callSites) : `${error}`;
    };
    // WHEN a finding is acknowledged on it
    try {
      acknowledge(scope, 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]', 'the managed policy is the minimum');
    } finally {
      Error.prepareStackTrace = prepare;
    }
    // THEN no frame was gathered, and aws-cdk-lib's acknowledged-rules metadata holds it (traceless, as constructs stores it)
    expect(frames).toBe(0);
    const entries = scope.node.metadata.filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY);
    expect(entries).toHaveLength(1);
    expect(Object.values(entries[0].data)).toEqual(['the managed policy is the minimum']);
    expect(Object.keys(entries[0].data)[0]).toContain('AwsSolutions-IAM4');
    expect(entries[0].trace ?? []).toEqual([]);
    expect(Error.stackTraceLimit).toBe(limit);
  });

  test('gives Error.stackTraceLimit back when aws-cdk-lib throws', () => {
    const limit = Error.stackTraceLimit;
    expect(() => acknowledge({} as Construct, 'AwsSolutions-IAM4', 'x')).toThrow();
    expect(Error.stackTraceLimit).toBe(limit);
  });
});
