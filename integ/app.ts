import { App } from 'aws-cdk-lib';
import { ComparisonStack } from './stacks/comparison-stack';
import { CrossComputeStack } from './stacks/cross-compute-stack';
import { Ec2BenchmarkStack } from './stacks/ec2-benchmark-stack';
import { SharedFileSystemStack } from './stacks/shared-file-system-stack';

// Env-agnostic on purpose: `cdk synth` works offline with no credentials.
const app = new App();
// `-c directS3Read=ENABLED|DISABLED|AUTO` redeploys the S3 Files processor with another direct-read
// mode, so the benchmark can compare them on files like yours (default: the library's, AUTO).
new ComparisonStack(app, 'S3FilesComparison', { directS3Read: app.node.tryGetContext('directS3Read') });
new SharedFileSystemStack(app, 'S3FilesSharedFileSystem');
// The processor Lambda writes, a Fargate task reads: one access point for both.
new CrossComputeStack(app, 'S3FilesCrossCompute');
// fio on the mount vs `aws s3 cp`, and visibility delays, measured by one instance at boot.
new Ec2BenchmarkStack(app, 'S3FilesEc2Benchmark');
app.synth();

