import { App } from 'aws-cdk-lib';
import { ComparisonStack } from './stacks/comparison-stack';
import { SharedFileSystemStack } from './stacks/shared-file-system-stack';

// Env-agnostic on purpose: `cdk synth` works offline with no credentials.
const app = new App();
new ComparisonStack(app, 'S3FilesComparison');
new SharedFileSystemStack(app, 'S3FilesSharedFileSystem');
app.synth();
