import { App, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3files from 'aws-cdk-lib/aws-s3files';
import { Construct } from 'constructs';

/** What a `lambda.DirectS3Read` value means, read through public API only. */
export interface DirectS3ReadInfo {
  /** `ENABLED`, `DISABLED` or `AUTO` (or whatever a newer aws-cdk-lib renders). */
  readonly mode: string;
  /** True when the value asks for the `s3:GetObject` grant (`DirectS3Read.enabled(bucket)`). */
  readonly wantsGrant: boolean;
}

/**
 * `lambda.DirectS3Read` exposes its mode only through `@internal` members. To stay on the
 * public API we let aws-cdk-lib render the value once, in a detached scratch tree: mount a
 * scratch access point with `FileSystem.fromS3FilesAccessPoint` on a scratch function and
 * `Stack.resolve` the function's `fileSystemConfigs` (and its role policy, to learn whether a
 * grant was requested). The scratch tree is never synthesized and never touches the user's app.
 */
class Renderer {
  private readonly stack: Stack;
  private readonly fileSystem: s3files.CfnFileSystem;
  private readonly vpc: ec2.IVpc;
  private counter = 0;

  constructor() {
    // autoSynth off: under `cdk synth` (CDK_OUTDIR set) an App would synthesize itself at exit.
    this.stack = new Stack(new App({ autoSynth: false }), 'DirectS3ReadScratch');
    const fs = this.fileSystem = new s3files.CfnFileSystem(this.stack, 'FileSystem', {
      bucket: 'arn:aws:s3:::scratch',
      roleArn: 'arn:aws:iam::111111111111:role/scratch',
    });
    const sg = new ec2.CfnSecurityGroup(this.stack, 'SecurityGroup', { groupDescription: 'scratch', vpcId: 'vpc-00000000' });
    new s3files.CfnMountTarget(this.stack, 'MountTarget', {
      fileSystemId: fs.attrFileSystemId,
      subnetId: 'subnet-00000000',
      securityGroups: [sg.attrGroupId],
    });
    this.vpc = ec2.Vpc.fromVpcAttributes(this.stack, 'Vpc', {
      vpcId: 'vpc-00000000',
      availabilityZones: ['scratch-1a'],
      privateSubnetIds: ['subnet-00000000'],
    });
  }

  public render(value: lambda.DirectS3Read): DirectS3ReadInfo {
    // Each rendering needs its own access point and function: aws-cdk-lib adds a fixed-id
    // child to the access point per mount, so one access point can be mounted only once.
    const scope = new Construct(this.stack, `R${this.counter++}`);
    const accessPoint = new s3files.CfnAccessPoint(scope, 'AccessPoint', { fileSystemId: this.fileSystem.attrFileSystemId });
    const fn = new lambda.Function(scope, 'Fn', {
      runtime: lambda.Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline('exports.handler = async () => {};'),
      vpc: this.vpc,
      filesystem: lambda.FileSystem.fromS3FilesAccessPoint(accessPoint, '/mnt/scratch', { directS3Read: value }),
    });
    const cfn = fn.node.defaultChild as lambda.CfnFunction;
    const configs = this.stack.resolve(cfn.fileSystemConfigs) as Array<{ s3FilesConfig?: { directS3Read?: string } }>;
    const mode = configs?.[0]?.s3FilesConfig?.directS3Read ?? 'AUTO';
    const policy = fn.role?.node.tryFindChild('DefaultPolicy') as iam.Policy | undefined;
    const doc = policy ? JSON.stringify(this.stack.resolve(policy.document)) : '';
    return { mode, wantsGrant: doc.includes('s3:GetObject') };
  }
}

let renderer: Renderer | undefined;
const cache = new WeakMap<lambda.DirectS3Read, DirectS3ReadInfo>();

/** Mode and grant intent of a `lambda.DirectS3Read`, memoised per value. */
export function describeDirectS3Read(value: lambda.DirectS3Read): DirectS3ReadInfo {
  const cached = cache.get(value);
  if (cached) return cached;
  renderer ??= new Renderer();
  const info = renderer.render(value);
  cache.set(value, info);
  return info;
}
