import { ExpectedResult, IntegTest } from '@aws-cdk/integ-tests-alpha';
import { App, Aspects, RemovalPolicy } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import * as cxapi from 'aws-cdk-lib/cx-api';
import { SharedFileSystemStack } from './stacks/shared-file-system-stack';
import { StableAssertionSalt } from './util';

// Stack traces would put this checkout's absolute paths into the snapshot.
const app = new App({
  context: { [cxapi.DISABLE_CREATION_STACK_TRACES]: true, [cxapi.DISABLE_METADATA_STACK_TRACE]: true },
});
const stack = new SharedFileSystemStack(app, 'S3FilesSharedFileSystemInteg', { removalPolicy: RemovalPolicy.DESTROY });
const integ = new IntegTest(app, 'SharedFileSystemTest', { testCases: [stack] });

// The writer's file is visible to the read-only reader through the same access point.
const write = integ.assertions.invokeFunction({
  functionName: stack.writer.functionName,
  payload: JSON.stringify({ name: 'integ.txt', body: 'hello from the writer\n' }),
});
write.expect(ExpectedResult.objectLike({
  StatusCode: 200,
  Payload: Match.serializedJson({ written: 'reports/integ.txt' }),
}));
const read = integ.assertions.invokeFunction({ functionName: stack.reader.functionName });
read.expect(ExpectedResult.objectLike({
  StatusCode: 200,
  Payload: Match.serializedJson(Match.objectLike({ files: Match.anyValue() })),
}));
write.next(read);

Aspects.of(app).add(new StableAssertionSalt(app.node.tryGetContext('integ:salt') ?? 'snapshot'));
app.synth();
