import { CfnOutput, RemovalPolicy, Stack, StackProps, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { Construct } from 'constructs';
import { probeFunction, ProbeFunction } from './probe';
import { S3FilesFileSystem } from '../../../src';

/** A VPC with isolated subnets in two AZs and an S3 gateway endpoint: no NAT, nothing billed by the hour. */
function isolatedVpc(scope: Construct): ec2.Vpc {
  const vpc = new ec2.Vpc(scope, 'Vpc', {
    maxAzs: 2,
    natGateways: 0,
    subnetConfiguration: [{ name: 'Isolated', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }],
    gatewayEndpoints: { S3: { service: ec2.GatewayVpcEndpointAwsService.S3 } },
  });
  Validations.of(vpc).acknowledge({ id: 'AwsSolutions-VPC7', reason: 'Verification VPC, destroyed at the end of each run.' });
  return vpc;
}

/**
 * `removal.retain-keeps`: a file system with the default removal policy (RETAIN) and a writer.
 * After `cdk destroy` the runner expects the file system and the bucket's objects to be there,
 * then deletes them as docs/lifecycle.md tells users to (`service.errors-as-modelled`).
 */
export class VerifyRetainStack extends Stack {
  public readonly writer: ProbeFunction;

  constructor(scope: Construct, id: string, props: StackProps = {}) {
    super(scope, id, props);
    const vpc = isolatedVpc(this);
    const fileSystem = new S3FilesFileSystem(this, 'FileSystem', { vpc });
    const accessPoint = fileSystem.addAccessPoint('Retain', { path: '/retain' });
    this.writer = probeFunction(this, 'Writer', { vpc, fileSystem, accessPoint, keyPrefix: 'retain/' });
    new CfnOutput(this, 'BucketName', { value: fileSystem.bucket!.bucketName });
    new CfnOutput(this, 'FileSystemId', { value: fileSystem.fileSystemId });
    new CfnOutput(this, 'WriterFunctionName', { value: this.writer.functionName });
  }
}

/** One state of the lifecycle stack; the runner deploys them in order, each as an update of the previous. */
export interface LifecycleStep {
  readonly name: 'initial' | 'prefix-changed' | 'read-only-toggled' | 'client-added' | 'client-removed';
  readonly prefix: string;
  readonly readOnly: boolean;
  readonly extraClient: boolean;
}

/** The changes docs/lifecycle.md documents as working in one deployment, one per step. */
export const LIFECYCLE_STEPS: readonly LifecycleStep[] = [
  { name: 'initial', prefix: 'v1/', readOnly: false, extraClient: false },
  { name: 'prefix-changed', prefix: 'v2/', readOnly: false, extraClient: false },
  { name: 'read-only-toggled', prefix: 'v2/', readOnly: true, extraClient: false },
  { name: 'client-added', prefix: 'v2/', readOnly: true, extraClient: true },
  { name: 'client-removed', prefix: 'v2/', readOnly: true, extraClient: false },
];

export interface VerifyLifecycleStackProps extends StackProps {
  readonly step: LifecycleStep;
}

/** The lifecycle stack (DESTROY), in the state of one step. */
export class VerifyLifecycleStack extends Stack {
  public readonly writer: ProbeFunction;
  public readonly extra?: ProbeFunction;

  constructor(scope: Construct, id: string, props: VerifyLifecycleStackProps) {
    super(scope, id, props);
    const { step } = props;
    const vpc = isolatedVpc(this);
    const fileSystem = new S3FilesFileSystem(this, 'FileSystem', { vpc, prefix: step.prefix, removalPolicy: RemovalPolicy.DESTROY });
    const accessPoint = fileSystem.addAccessPoint('App', { path: '/app' });
    const keyPrefix = `${step.prefix}app/`;
    this.writer = probeFunction(this, 'Writer', { vpc, fileSystem, accessPoint, keyPrefix, readOnly: step.readOnly });
    if (step.extraClient) {
      this.extra = probeFunction(this, 'Extra', { vpc, fileSystem, accessPoint, keyPrefix });
      new CfnOutput(this, 'ExtraFunctionName', { value: this.extra.functionName });
    }
    new CfnOutput(this, 'BucketName', { value: fileSystem.bucket!.bucketName });
    new CfnOutput(this, 'FileSystemId', { value: fileSystem.fileSystemId });
  }
}
