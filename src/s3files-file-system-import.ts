import { ArnFormat, Stack, Token } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct, DependencyGroup, IDependable } from 'constructs';
import { checkProps } from './private/argument-shapes';
import { invalid } from './private/messages';
import { NFS_PORT } from './private/mount/network';
import { validatePrefix } from './private/validation';
import { S3FilesFileSystemBase } from './s3files-file-system-base';
import { S3FilesFileSystemAttributes } from './s3files-file-system-contract';

/** The schema's ARN pattern, with the region, account and id split out. */
const FILE_SYSTEM_ARN = /^arn:aws[-a-z]*:s3files:([a-z0-9-]+):(\d{12}):file-system\/(fs-[0-9a-f]{17,40})$/;

/** A file system imported with `S3FilesFileSystem.fromFileSystemAttributes`. */
export class ImportedFileSystem extends S3FilesFileSystemBase {
  public readonly fileSystemId: string;
  public readonly fileSystemArn: string;
  public readonly connections: ec2.Connections;
  // It exists: nothing to wait for.
  public readonly mountTargetsAvailable: IDependable = new DependencyGroup();
  public readonly vpc?: ec2.IVpc;
  public readonly clientSecurityGroup?: ec2.ISecurityGroup;
  public readonly bucket?: s3.IBucket;
  public readonly prefix: string;
  public readonly bucketEncryptionKey?: kms.IKey;
  public readonly mountTargetAvailabilityZones?: string[];

  constructor(scope: Construct, id: string, attrs: S3FilesFileSystemAttributes) {
    // A literal ARN names the file system's account and region: this construct's env (what clients compare).
    super(scope, id, { environmentFromArn: literalArn(`${scope.node.path}/${id}`, attrs) });
    checkProps(this, attrs, { vpc: 'vpc', clientSecurityGroup: 'securityGroup', securityGroups: ['securityGroup'], bucket: 'bucket', bucketEncryptionKey: 'key' });
    if (!attrs.fileSystemId && !attrs.fileSystemArn) {
      invalid(this, 'fileSystemId', undefined, 'an imported file system needs its id or its ARN', 'give `fileSystemId` (fs-...) or `fileSystemArn`');
    }
    const stack = Stack.of(this);
    this.fileSystemArn = attrs.fileSystemArn
      ?? stack.formatArn({ service: 's3files', resource: 'file-system', resourceName: attrs.fileSystemId, arnFormat: ArnFormat.SLASH_RESOURCE_NAME });
    this.fileSystemId = attrs.fileSystemId ?? stack.splitArn(this.fileSystemArn, ArnFormat.SLASH_RESOURCE_NAME).resourceName!;
    // The API and the CloudFormation schemas: 17 to 40 hex digits after fs-.
    if (!Token.isUnresolved(this.fileSystemId) && !/^fs-[0-9a-f]{17,40}$/.test(this.fileSystemId)) {
      invalid(this, attrs.fileSystemId ? 'fileSystemId' : 'fileSystemArn', attrs.fileSystemId ?? attrs.fileSystemArn,
        'an S3 Files file system id looks like fs-0123456789abcdef0 (fs- and 17 to 40 hex digits)', 'pass the id (or ARN) of the file system as the S3 Files console or CLI '
          + 'shows it');
    }
    const fromArn = attrs.fileSystemArn !== undefined && !Token.isUnresolved(attrs.fileSystemArn)
      ? FILE_SYSTEM_ARN.exec(attrs.fileSystemArn)?.[3] : undefined;
    if (fromArn && attrs.fileSystemId !== undefined && !Token.isUnresolved(attrs.fileSystemId) && attrs.fileSystemId !== fromArn) {
      invalid(this, 'fileSystemId', attrs.fileSystemId, `\`fileSystemArn\` names another file system (${fromArn})`, 'give the id and the ARN of one file system, or only one of '
        + 'them');
    }
    this.prefix = attrs.prefix ?? '';
    validatePrefix(this, this.prefix);
    this.connections = new ec2.Connections({ securityGroups: attrs.securityGroups ?? [], defaultPort: ec2.Port.tcp(NFS_PORT) });
    this.vpc = attrs.vpc;
    this.clientSecurityGroup = attrs.clientSecurityGroup;
    this.bucket = attrs.bucket;
    this.bucketEncryptionKey = attrs.bucketEncryptionKey ?? attrs.bucket?.encryptionKey;
    this.mountTargetAvailabilityZones = attrs.mountTargetAvailabilityZones;
  }
}

/** The ARN when it is a literal S3 Files file-system ARN (refused when malformed), else undefined. */
function literalArn(path: string, attrs: S3FilesFileSystemAttributes): string | undefined {
  const arn = attrs.fileSystemArn;
  if (arn === undefined || Token.isUnresolved(arn)) return undefined;
  if (!FILE_SYSTEM_ARN.test(arn)) {
    invalid(path, 'fileSystemArn', arn, 'an S3 Files file system ARN looks like arn:aws:s3files:us-east-1:111122223333:file-system/fs-0123456789abcdef0',
      'pass the ARN as the S3 Files console or CLI shows it (or `fileSystemId`)');
  }
  return arn;
}
