import { ExpectedResult, IntegTest } from '@aws-cdk/integ-tests-alpha';
import { App, Aspects, RemovalPolicy } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import * as cxapi from 'aws-cdk-lib/cx-api';
import { ComparisonStack } from './stacks/comparison-stack';
import { StableAssertionSalt } from './util';

// Stack traces would put this checkout's absolute paths into the snapshot.
const app = new App({
  context: { [cxapi.DISABLE_CREATION_STACK_TRACES]: true, [cxapi.DISABLE_METADATA_STACK_TRACE]: true },
});
const stack = new ComparisonStack(app, 'S3FilesComparisonInteg', { removalPolicy: RemovalPolicy.DESTROY });
const integ = new IntegTest(app, 'ComparisonTest', { testCases: [stack] });

// A small run: both processors must handle every file and report per-phase timings. The S3 Files
// inbox is seeded through the S3 API (the path producers use), so this also proves that uploads
// are imported into the directories the deploy-time trigger created and processed by uid 1000.
const phase = Match.objectLike({ min: Match.anyValue(), median: Match.anyValue(), max: Match.anyValue() });
const processors = integ.assertions
  .invokeFunction({ functionName: stack.benchmark.functionName, payload: JSON.stringify({ files: 5, runs: 1, seedVia: 's3' }) });
processors.expect(ExpectedResult.objectLike({
  StatusCode: 200,
  Payload: Match.serializedJson(Match.objectLike({
    files: 5,
    s3api: Match.objectLike({ phases: Match.objectLike({ totalMs: phase }) }),
    s3files: Match.objectLike({ phases: Match.objectLike({ totalMs: phase }) }),
    seedVia: 's3',
    table: Match.stringLikeRegexp('S3 Files inbox seeded through the S3 API'),
  })),
}));

// One cold start of each twin, measured from its REPORT line.
const coldStarts = integ.assertions
  .invokeFunction({ functionName: stack.benchmark.functionName, payload: JSON.stringify({ mode: 'coldStart', samples: 1 }) });
coldStarts.expect(ExpectedResult.objectLike({
  StatusCode: 200,
  Payload: Match.serializedJson(Match.objectLike({
    mode: 'coldStart',
    mounted: Match.objectLike({ initMs: phase, durationMs: phase }),
    unmounted: Match.objectLike({ initMs: phase, durationMs: phase }),
  })),
}));

// The three direct-read processors on two small and two large files each.
const directReads = integ.assertions.invokeFunction({
  functionName: stack.benchmark.functionName,
  payload: JSON.stringify({ mode: 'directRead', files: 2, runs: 1, largeWords: 100_000 }),
});
const mode = Match.objectLike({ readMs: phase, totalMs: phase });
directReads.expect(ExpectedResult.objectLike({
  StatusCode: 200,
  Payload: Match.serializedJson(Match.objectLike({
    mode: 'directRead',
    sizes: [
      Match.objectLike({ size: 'small', modes: Match.objectLike({ AUTO: mode, ENABLED: mode, DISABLED: mode }) }),
      Match.objectLike({ size: 'large', modes: Match.objectLike({ AUTO: mode, ENABLED: mode, DISABLED: mode }) }),
    ],
  })),
}));

// One after another: the modes share the access point's inbox.
processors.next(coldStarts).next(directReads);

Aspects.of(app).add(new StableAssertionSalt(app.node.tryGetContext('integ:salt') ?? 'snapshot'));
app.synth();
