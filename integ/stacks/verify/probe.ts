import { CfnElement, Duration, Stack, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct, IConstruct } from 'constructs';
import { IS3FilesAccessPoint, IS3FilesFileSystem, S3FilesMountedFunction } from '../../../src';
import { handlerCode } from '../../handler-assets';

export type ProbeFunction = S3FilesMountedFunction;

export interface ProbeFunctionProps {
  readonly vpc: ec2.IVpc;
  readonly vpcSubnets?: ec2.SubnetSelection;
  readonly fileSystem: IS3FilesFileSystem;
  readonly accessPoint: IS3FilesAccessPoint;
  /** The bucket key prefix the access point's root maps to (file-system prefix + path + '/'). */
  readonly keyPrefix: string;
  readonly readOnly?: boolean;
  readonly rootAccess?: boolean;
}

/**
 * A function running integ/handlers/verify-probe through an access point, with the library's own
 * mount and nothing else on the file system; it may put and read objects under its key prefix
 * (to make S3-born entries and to see exports).
 */
export function probeFunction(scope: Construct, id: string, props: ProbeFunctionProps): ProbeFunction {
  const fn = new S3FilesMountedFunction(scope, id, {
    runtime: lambda.Runtime.NODEJS_24_X,
    architecture: lambda.Architecture.ARM_64,
    handler: 'index.handler',
    code: handlerCode('verify-probe'),
    description: `cdk-s3files-lambda verification probe (${id})`,
    memorySize: 256,
    timeout: Duration.minutes(10),
    vpc: props.vpc,
    vpcSubnets: props.vpcSubnets,
    accessPoint: props.accessPoint,
    readOnly: props.readOnly,
    rootAccess: props.rootAccess,
    environment: { BUCKET: props.fileSystem.bucket!.bucketName, KEY_PREFIX: props.keyPrefix },
  });
  grantObjects(fn, props.fileSystem, [props.keyPrefix], ['s3:GetObject', 's3:PutObject']);
  return fn;
}

/**
 * Object reads and writes under key prefixes (exact actions, not aws-cdk-lib's `*` families), and
 * ListBucket so that a missing object answers 404, not 403.
 */
export function grantObjects(grantee: iam.IGrantable, fileSystem: IS3FilesFileSystem, keys: string[], actions: string[]): void {
  const bucket = fileSystem.bucket!;
  grantee.grantPrincipal.addToPrincipalPolicy(new iam.PolicyStatement({ actions, resources: keys.map((k) => bucket.arnForObjects(k.endsWith('/') ? `${k}*` : k)) }));
  grantee.grantPrincipal.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [bucket.bucketArn] }));
  const bucketId = Stack.of(bucket).getLogicalId(bucket.node.defaultChild as CfnElement);
  for (const prefix of keys.filter((k) => k.endsWith('/'))) {
    Validations.of(grantee.grantPrincipal as unknown as IConstruct).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/${prefix}*]`,
      reason: 'A verification probe reads and writes only the objects under its own prefix.',
    });
  }
}

/**
 * Adds an S3 Files volume written by hand (not by the library's mount), for what the library
 * refuses to make: a mount of the root (no access point) or one without the library's grants.
 * The task's role gets nothing here: the caller grants exactly what the check needs.
 */
export function rawVolumeTask(
  td: ecs.TaskDefinition, container: ecs.ContainerDefinition, fileSystem: IS3FilesFileSystem,
  accessPoint: IS3FilesAccessPoint | undefined, containerPath: string,
): void {
  const name = accessPoint ? 'raw-access-point' : 'raw-root';
  td.addVolume({ name });
  container.addMountPoints({ sourceVolume: name, containerPath, readOnly: false });
  const cfn = td.node.defaultChild as ecs.CfnTaskDefinition;
  const volumes = (Stack.of(td).resolve(cfn.volumes) as unknown[] | undefined) ?? [];
  cfn.addPropertyOverride(`Volumes.${volumes.length - 1}.S3FilesVolumeConfiguration`, {
    FileSystemArn: fileSystem.fileSystemArn,
    ...(accessPoint ? { AccessPointArn: accessPoint.accessPointArn } : { RootDirectory: '/' }),
  });
}
