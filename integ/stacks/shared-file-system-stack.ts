import { Annotations, CfnOutput, Duration, RemovalPolicy, Stack, StackProps } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { S3FilesFileSystem, S3FilesMountedFunction } from '../../src';
import { acknowledge } from '../../src/private/nag';

export interface SharedFileSystemStackProps extends StackProps {
  /**
   * Delete the file system, bucket and key with the stack (integ tests); the app keeps them.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
}

// Small inline handlers: the point of this stack is the wiring, not the code.
const WRITER = `
const fs = require('node:fs/promises');
const path = require('node:path');
exports.handler = async (event) => {
  const dir = path.join(process.env.MOUNT_PATH, 'reports');
  await fs.mkdir(dir, { recursive: true });
  const name = (event && event.name) || 'report-' + Date.now() + '.txt';
  const tmp = path.join(dir, '.' + name + '.tmp');
  await fs.writeFile(tmp, (event && event.body) || 'written through S3 Files\\n');
  await fs.rename(tmp, path.join(dir, name));
  return { written: 'reports/' + name };
};`;

const READER = `
const fs = require('node:fs/promises');
const path = require('node:path');
exports.handler = async () => {
  const dir = path.join(process.env.MOUNT_PATH, 'reports');
  const names = await fs.readdir(dir).catch((e) => (e.code === 'ENOENT' ? [] : Promise.reject(e)));
  let bytes = 0;
  for (const n of names) bytes += (await fs.stat(path.join(dir, n))).size;
  return { files: names.length, bytes };
};`;

// With ClientRootAccess, a non-root access point user may take over S3-born (root-owned) dirs.
const OWNERSHIP_FIXER = `
const fs = require('node:fs/promises');
const path = require('node:path');
exports.handler = async (event) => {
  const uid = Number((event && event.uid) || 1000), gid = Number((event && event.gid) || 1000);
  const root = process.env.MOUNT_PATH;
  const fixed = [], failed = [];
  for (const e of await fs.readdir(root, { withFileTypes: true })) {
    if (!e.isDirectory()) continue;
    const p = path.join(root, e.name);
    if ((await fs.stat(p)).uid !== 0) continue;
    try { await fs.chown(p, uid, gid); fixed.push(e.name); }
    catch (err) { failed.push({ name: e.name, error: err.code || String(err) }); }
  }
  return { fixed, failed };
};`;

/**
 * One file system over an SSE-KMS bucket, scoped to a prefix, shared by a writer, a read-only
 * reader and a root-access maintenance function.
 */
export class SharedFileSystemStack extends Stack {
  public readonly writer: S3FilesMountedFunction;
  public readonly reader: S3FilesMountedFunction;
  public readonly ownershipFixer: S3FilesMountedFunction;

  constructor(scope: Construct, id: string, props: SharedFileSystemStackProps = {}) {
    super(scope, id, props);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;

    const vpc = new ec2.Vpc(this, 'Vpc', {
      maxAzs: 2,
      natGateways: 0,
      subnetConfiguration: [{ name: 'Isolated', subnetType: ec2.SubnetType.PRIVATE_ISOLATED, cidrMask: 24 }],
      gatewayEndpoints: { S3: { service: ec2.GatewayVpcEndpointAwsService.S3 } },
    });

    const key = new kms.Key(this, 'BucketKey', {
      description: 'SSE-KMS key of the shared S3 Files bucket',
      enableKeyRotation: true,
      removalPolicy,
    });
    const bucket = new s3.Bucket(this, 'Bucket', {
      versioned: true,
      encryption: s3.BucketEncryption.KMS,
      encryptionKey: key,
      bucketKeyEnabled: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      removalPolicy,
      lifecycleRules: [{ noncurrentVersionExpiration: Duration.days(7), abortIncompleteMultipartUploadAfter: Duration.days(1) }],
    });

    const fileSystem = new S3FilesFileSystem(this, 'FileSystem', {
      vpc,
      bucket,
      bucketEncryptionKey: key,
      prefix: 'shared/',
      removalPolicy,
    });
    Annotations.of(fileSystem).acknowledgeWarning('cdk-s3files-lambda:bucketWithoutEventBridge',
      'This app adds no notification to the bucket, so nothing rewrites its notification configuration.');

    const common = {
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      handler: 'index.handler',
      s3FileSystem: fileSystem,
      memorySize: 512,
      timeout: Duration.seconds(30),
    };
    // Writer and reader share one access point (/app, 1000:1000); the reader can't write.
    const accessPoint = fileSystem.addAccessPoint('AppAccessPoint', { path: '/app' });
    this.writer = new S3FilesMountedFunction(this, 'Writer', {
      ...common,
      description: 'Writes reports/ through the shared file system',
      code: lambda.Code.fromInline(WRITER),
      accessPoint,
    });
    this.reader = new S3FilesMountedFunction(this, 'Reader', {
      ...common,
      description: 'Reads reports/ through the shared file system, read-only',
      code: lambda.Code.fromInline(READER),
      accessPoint,
      readOnly: true,
    });
    this.ownershipFixer = new S3FilesMountedFunction(this, 'OwnershipFixer', {
      ...common,
      description: 'Hands root-owned, S3-born directories to the application user',
      code: lambda.Code.fromInline(OWNERSHIP_FIXER),
      // Chown needs root: an access point whose user is uid 0, with ClientRootAccess (assumed from
      // EFS, not yet seen in an account). Through a 1000:1000 access point chown would fail (EPERM).
      accessPointOptions: { path: '/app', posixUser: { uid: 0, gid: 0 } },
      rootAccess: true,
    });
    Annotations.of(this.ownershipFixer).acknowledgeWarning('cdk-s3files-lambda:posixUserRoot',
      'The ownership fixer is the one client that must act as root, and only chowns.');

    // cdk-nag: findings of the integ-only resources, acknowledged with their reasons.
    acknowledge(vpc, 'AwsSolutions-VPC7', 'Integ VPC with isolated subnets only (no internet route), torn down after each run.');
    acknowledge(bucket, 'AwsSolutions-S1', 'Integ bucket; access through the file system is audited with CloudTrail data events, and a log bucket would outlive each run.');

    new CfnOutput(this, 'WriterFunctionName', { value: this.writer.functionName });
    new CfnOutput(this, 'ReaderFunctionName', { value: this.reader.functionName });
  }
}
