import { Duration, RemovalPolicy, Stack, StackProps, CfnOutput } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as triggers from 'aws-cdk-lib/triggers';
import { Construct } from 'constructs';
import { S3FilesFileSystem, S3FilesMountedFunction } from '../../src';
import { acknowledge, BASIC_EXECUTION_POLICY, findingResource, VPC_ACCESS_POLICY } from '../../src/private/nag';
import { handlerCode } from '../handler-assets';

export interface ComparisonStackProps extends StackProps {
  /**
   * Delete the file system and bucket with the stack (integ tests); the app keeps them.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * Direct reads of the S3 Files processor (`ENABLED`, `DISABLED` or `AUTO`), to compare the modes
   * with the benchmark on files like yours.
   * @default - the library's default (AUTO)
   */
  readonly directS3Read?: string;
}

/**
 * The side-by-side comparison: the same inbox job through the S3 API ("before") and through an
 * S3 Files mount ("after"), plus a benchmark function that seeds, invokes and times both.
 */
export class ComparisonStack extends Stack {
  public readonly benchmark: S3FilesMountedFunction;
  public readonly processorS3Files: S3FilesMountedFunction;
  public readonly processorS3Api: lambda.Function;
  /** The S3 Files processor once per DirectS3Read mode, for the benchmark's "directRead" mode. */
  public readonly directReadProcessors: Record<'AUTO' | 'ENABLED' | 'DISABLED', S3FilesMountedFunction>;
  /** The same tiny function with and without the mount, for the benchmark's "coldStart" mode. */
  public readonly coldStartTwins: { readonly mounted: S3FilesMountedFunction; readonly unmounted: lambda.Function };
  /** Creates inbox/, processed/, processing/ and failed/ through the mount at deploy time. */
  public readonly prepareDirectories: S3FilesMountedFunction;
  public readonly fileSystem: S3FilesFileSystem;

  constructor(scope: Construct, id: string, props: ComparisonStackProps = {}) {
    super(scope, id, props);

    // No NAT gateway: isolated subnets, S3 through a free gateway endpoint, and one interface
    // endpoint so the benchmark (inside the VPC) can invoke the two processors.
    const vpc = new ec2.Vpc(this, 'Vpc', {
      maxAzs: 2,
      natGateways: 0,
      subnetConfiguration: [{ name: 'Isolated', subnetType: ec2.SubnetType.PRIVATE_ISOLATED, cidrMask: 24 }],
      gatewayEndpoints: { S3: { service: ec2.GatewayVpcEndpointAwsService.S3 } },
    });
    const lambdaEndpoint = vpc.addInterfaceEndpoint('LambdaEndpoint', { service: ec2.InterfaceVpcEndpointAwsService.LAMBDA });

    this.fileSystem = new S3FilesFileSystem(this, 'FileSystem', {
      vpc,
      removalPolicy: props.removalPolicy,
    });
    const bucket = this.fileSystem.bucket!;
    // Both S3 Files functions share one access point: /lambda owned by 1000:1000.
    const accessPoint = this.fileSystem.addAccessPoint('LambdaAccessPoint', { path: '/lambda' });

    const common = {
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      handler: 'index.handler',
    };

    const processorEnvironment = {
      CONCURRENCY: '16',
      // Node's fs calls run on libuv's pool (4 threads by default): let 16 NFS requests fly.
      UV_THREADPOOL_SIZE: '16',
      POWERTOOLS_METRICS_NAMESPACE: 'S3FilesComparison',
    };
    this.processorS3Files = new S3FilesMountedFunction(this, 'ProcessorS3Files', {
      ...common,
      description: 'After: processes inbox/ through the S3 Files mount',
      code: handlerCode('processor-s3files'),
      s3FileSystem: this.fileSystem,
      accessPoint,
      memorySize: 512,
      timeout: Duration.minutes(5),
      directS3Read: directS3Read(props.directS3Read, bucket),
      environment: { ...processorEnvironment, POWERTOOLS_SERVICE_NAME: 'processor-s3files' },
    });

    // Directories that first appear through an S3 upload are root:root 0755 on the mount, where
    // the uid-1000 processor cannot create anything. Creating them through the mount at deploy
    // time makes them the access point user's, whichever side writes first afterwards.
    this.prepareDirectories = new S3FilesMountedFunction(this, 'PrepareDirectories', {
      ...common,
      description: 'Creates the S3 Files processor\'s working directories through the mount (deploy-time trigger)',
      code: handlerCode('prepare-directories'),
      s3FileSystem: this.fileSystem,
      accessPoint,
      memorySize: 256,
      timeout: Duration.minutes(1),
    });
    new triggers.Trigger(this, 'PrepareDirectoriesTrigger', {
      handler: this.prepareDirectories,
      timeout: Duration.minutes(2),
    });

    // The "before" processor needs no VPC: it talks to S3 over the public endpoint.
    this.processorS3Api = new lambda.Function(this, 'ProcessorS3Api', {
      ...common,
      description: 'Before: processes inbox/ through the S3 API',
      code: handlerCode('processor-s3api'),
      memorySize: 512,
      timeout: Duration.minutes(5),
      environment: {
        BUCKET_NAME: bucket.bucketName,
        CONCURRENCY: '16',
        POWERTOOLS_SERVICE_NAME: 'processor-s3api',
        POWERTOOLS_METRICS_NAMESPACE: 'S3FilesComparison',
      },
    });
    bucket.grantRead(this.processorS3Api, 'inbox/*');
    bucket.grantDelete(this.processorS3Api, 'inbox/*');
    bucket.grantReadWrite(this.processorS3Api, 'processed/*');
    // Claim markers and lease heartbeats (conditional writes, deleted by version when done).
    bucket.grantReadWrite(this.processorS3Api, 'processing/*');
    bucket.grantDelete(this.processorS3Api, 'processing/*');
    // What cannot be processed is copied to failed/<claim>/ (reported once), like on the mount; a copy
    // in parts that a run could not finish is resumed by the next one (it lists the parts copied).
    bucket.grantPut(this.processorS3Api, 'failed/*');
    this.processorS3Api.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:ListMultipartUploadParts'], resources: [bucket.arnForObjects('failed/*')] }));

    // The benchmark's "directRead" mode: one processor per mode, otherwise identical to the one above.
    const directReadModes = {
      AUTO: lambda.DirectS3Read.auto(),
      ENABLED: lambda.DirectS3Read.enabled(bucket),
      DISABLED: lambda.DirectS3Read.disabled(),
    };
    this.directReadProcessors = {} as Record<'AUTO' | 'ENABLED' | 'DISABLED', S3FilesMountedFunction>;
    for (const [mode, directRead] of Object.entries(directReadModes) as [keyof typeof directReadModes, lambda.DirectS3Read][]) {
      const title = mode.charAt(0) + mode.slice(1).toLowerCase();
      this.directReadProcessors[mode] = new S3FilesMountedFunction(this, `ProcessorDirectRead${title}`, {
        ...common,
        description: `The S3 Files processor with DirectS3Read ${mode} (benchmark mode "directRead")`,
        code: handlerCode('processor-s3files'),
        s3FileSystem: this.fileSystem,
        accessPoint,
        memorySize: 512,
        timeout: Duration.minutes(5),
        directS3Read: directRead,
        environment: { ...processorEnvironment, POWERTOOLS_SERVICE_NAME: `processor-direct-read-${mode.toLowerCase()}` },
      });
    }

    // The benchmark's "coldStart" mode: the same code, memory and subnets, with and without the mount.
    const twin = {
      ...common,
      code: handlerCode('cold-start'),
      memorySize: 512,
      timeout: Duration.seconds(30),
    };
    this.coldStartTwins = {
      mounted: new S3FilesMountedFunction(this, 'ColdStartMounted', {
        ...twin,
        description: 'Cold-start twin with the S3 Files mount (benchmark mode "coldStart")',
        s3FileSystem: this.fileSystem,
        accessPoint,
      }),
      unmounted: new lambda.Function(this, 'ColdStartUnmounted', {
        ...twin,
        description: 'Cold-start twin without a mount, in the same subnets (benchmark mode "coldStart")',
        vpc,
        vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
      }),
    };

    this.benchmark = new S3FilesMountedFunction(this, 'Benchmark', {
      ...common,
      description: 'Seeds both inboxes, invokes both processors, reports per-phase timings',
      code: handlerCode('benchmark'),
      s3FileSystem: this.fileSystem,
      accessPoint,
      memorySize: 1024,
      timeout: Duration.minutes(15),
      environment: {
        BUCKET_NAME: bucket.bucketName,
        S3API_FUNCTION_NAME: this.processorS3Api.functionName,
        S3FILES_FUNCTION_NAME: this.processorS3Files.functionName,
        // The access point's root /lambda is the key prefix lambda/ in the bucket.
        S3FILES_PREFIX: 'lambda/',
        DIRECT_READ_FUNCTIONS: this.toJsonString(Object.fromEntries(
          Object.entries(this.directReadProcessors).map(([mode, fn]) => [mode, fn.functionName]))),
        COLD_START_MOUNTED_FUNCTION: this.coldStartTwins.mounted.functionName,
        COLD_START_UNMOUNTED_FUNCTION: this.coldStartTwins.unmounted.functionName,
        POWERTOOLS_SERVICE_NAME: 'benchmark',
        POWERTOOLS_METRICS_NAMESPACE: 'S3FilesComparison',
      },
    });
    const invoked = [this.processorS3Api, this.processorS3Files, ...Object.values(this.directReadProcessors),
      this.coldStartTwins.mounted, this.coldStartTwins.unmounted];
    for (const fn of invoked) fn.grantInvoke(this.benchmark);
    // A cold start is forced by a configuration update of the twins, and only of them.
    this.benchmark.addToRolePolicy(new iam.PolicyStatement({
      actions: ['lambda:GetFunctionConfiguration', 'lambda:UpdateFunctionConfiguration'],
      resources: [this.coldStartTwins.mounted.functionArn, this.coldStartTwins.unmounted.functionArn],
    }));
    bucket.grantReadWrite(this.benchmark, 'inbox/*');
    bucket.grantRead(this.benchmark, 'processed/*');
    bucket.grantReadWrite(this.benchmark, 'lambda/*');
    bucket.grantDelete(this.benchmark, 'processed/*');

    // cdk-nag: findings of the integ-only resources, acknowledged with their reasons.
    acknowledge(vpc, 'AwsSolutions-VPC7', 'Integ VPC with isolated subnets only (no internet route), torn down after each run.');
    acknowledge(lambdaEndpoint, 'AwsSolutions-EC23', 'The endpoint admits HTTPS only from the VPC CIDR (a token cdk-nag cannot resolve).');
    acknowledge(this.processorS3Api, `AwsSolutions-IAM4[${BASIC_EXECUTION_POLICY}]`, 'The before-processor only writes its own CloudWatch logs with this managed policy.');
    acknowledge(this.coldStartTwins.unmounted, `AwsSolutions-IAM4[${BASIC_EXECUTION_POLICY}]`, 'The twin only writes its own CloudWatch logs with this managed policy.');
    acknowledge(this.coldStartTwins.unmounted, `AwsSolutions-IAM4[${VPC_ACCESS_POLICY}]`,
      'The twin runs in the subnets of its mounted twin; Lambda needs the ENI actions of this AWS managed policy (only on Resource "*").');
    for (const fn of [this.processorS3Api, this.benchmark]) {
      for (const action of ['s3:GetObject*', 's3:GetBucket*', 's3:List*', 's3:DeleteObject*', 's3:Abort*']) {
        acknowledge(fn, `AwsSolutions-IAM5[Action::${action}]`, 'Action groups of Bucket.grantRead/grantReadWrite/grantDelete, limited to the job prefixes of the integ bucket.');
      }
      for (const prefix of ['inbox/*', 'processed/*', 'processing/*', 'lambda/*']) {
        acknowledge(fn, `AwsSolutions-IAM5[${findingResource(fn, bucket.arnForObjects(prefix))}]`, 'The job reads, moves and deletes any object under this prefix.');
      }
    }
    acknowledge(this.processorS3Api, `AwsSolutions-IAM5[${findingResource(this.processorS3Api, bucket.arnForObjects('failed/*'))}]`,
      'The before-processor moves any object it cannot process under this prefix.');
    for (const target of invoked) {
      acknowledge(this.benchmark, `AwsSolutions-IAM5[${findingResource(this, target.functionArn)}:*]`, 'grantInvoke on this one function, including its versions and aliases.');
    }

    new CfnOutput(this, 'BenchmarkFunctionName', { value: this.benchmark.functionName });
    new CfnOutput(this, 'BucketName', { value: bucket.bucketName });
    new CfnOutput(this, 'FileSystemId', { value: this.fileSystem.fileSystemId });
  }
}

function directS3Read(mode: string | undefined, bucket: s3.IBucket): lambda.DirectS3Read | undefined {
  switch (mode) {
    case undefined: return undefined;
    case 'AUTO': return lambda.DirectS3Read.auto();
    case 'DISABLED': return lambda.DirectS3Read.disabled();
    case 'ENABLED': return lambda.DirectS3Read.enabled(bucket);
    default: throw new Error(`Invalid directS3Read ${JSON.stringify(mode)} (context -c directS3Read=...): use ENABLED, DISABLED or AUTO.`);
  }
}
