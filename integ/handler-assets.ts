import * as path from 'path';
import * as lambda from 'aws-cdk-lib/aws-lambda';

/** The integ handlers, bundled by `npx projen bundle` into assets/ (cdk.json runs it before synth). */
export type IntegHandler = 'processor-s3files' | 'processor-s3api' | 'benchmark' | 'prepare-directories' | 'ec2-benchmark' | 'cold-start' | 'verify-probe';

export function handlerCode(name: IntegHandler): lambda.Code {
  return lambda.Code.fromAsset(path.join(__dirname, '..', 'assets', 'integ', 'handlers', name, 'index'));
}
