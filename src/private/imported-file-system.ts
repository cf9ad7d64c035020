import { Annotations, ArnFormat, Stack, Token } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { Construct, DependencyGroup, IDependable } from 'constructs';
import { AzCoverage, azRef } from './az-coverage';
import { DEFAULT_AVAILABILITY_TIMEOUT_SECONDS } from './custom-resource-contract';
import { checkSameRegion } from './environment';
import { createWaiter } from './file-system-guard';
import { FileSystemMountInfo, NFS_PORT } from './mount-info';
import { invalid, validatePrefix } from './validation';
import { S3FilesWaiterProvider } from './waiter-provider';
import type { S3FilesAccessPoint } from '../s3files-access-point';
import { S3FilesFileSystemAttributes, S3FilesFileSystemBase } from '../s3files-file-system-base';

/** A file system imported with `S3FilesFileSystem.fromFileSystemAttributes`. */
export class ImportedFileSystem extends S3FilesFileSystemBase {
  public readonly fileSystemId: string;
  public readonly fileSystemArn: string;
  public readonly connections: ec2.Connections;
  // It exists: nothing to wait for.
  public readonly mountTargetsAvailable: IDependable = new DependencyGroup();
  private readonly attrs: S3FilesFileSystemAttributes;
  /** The region and account of a literal fileSystemArn. */
  private readonly arnEnv?: { readonly region: string; readonly account: string };

  constructor(scope: Construct, id: string, attrs: S3FilesFileSystemAttributes) {
    super(scope, id);
    if (!attrs.fileSystemId && !attrs.fileSystemArn) {
      invalid(this, 'fileSystemId', undefined, 'an imported file system needs its id or its ARN', 'give fileSystemId (fs-...) or fileSystemArn');
    }
    const stack = Stack.of(this);
    // A literal ARN names the file system's region and account (the schema's pattern, with them split out).
    const arn = attrs.fileSystemArn !== undefined && !Token.isUnresolved(attrs.fileSystemArn)
      ? /^arn:aws[-a-z]*:s3files:([a-z0-9-]+):(\d{12}):file-system\/(fs-[0-9a-f]{17,40})$/.exec(attrs.fileSystemArn) : undefined;
    if (arn === null) {
      invalid(this, 'fileSystemArn', attrs.fileSystemArn, 'an S3 Files file system ARN looks like arn:aws:s3files:us-east-1:111122223333:file-system/fs-0123456789abcdef0',
        'pass the ARN as the S3 Files console or CLI shows it (or fileSystemId)');
    }
    this.fileSystemArn = attrs.fileSystemArn
      ?? stack.formatArn({ service: 's3files', resource: 'file-system', resourceName: attrs.fileSystemId, arnFormat: ArnFormat.SLASH_RESOURCE_NAME });
    this.fileSystemId = attrs.fileSystemId ?? stack.splitArn(this.fileSystemArn, ArnFormat.SLASH_RESOURCE_NAME).resourceName!;
    // The API and the CloudFormation schemas: 17 to 40 hex digits after fs-.
    if (!Token.isUnresolved(this.fileSystemId) && !/^fs-[0-9a-f]{17,40}$/.test(this.fileSystemId)) {
      invalid(this, attrs.fileSystemId ? 'fileSystemId' : 'fileSystemArn', attrs.fileSystemId ?? attrs.fileSystemArn,
        'an S3 Files file system id looks like fs-0123456789abcdef0 (fs- and 17 to 40 hex digits)', 'pass the id (or ARN) of the file system as the S3 Files console or CLI shows it');
    }
    if (arn && attrs.fileSystemId !== undefined && !Token.isUnresolved(attrs.fileSystemId) && attrs.fileSystemId !== arn[3]) {
      invalid(this, 'fileSystemId', attrs.fileSystemId, `fileSystemArn names another file system (${arn[3]})`, 'give the id and the ARN of one file system, or only one of them');
    }
    this.arnEnv = arn ? { region: arn[1], account: arn[2] } : undefined;
    validatePrefix(this, attrs.prefix ?? '');
    this.connections = new ec2.Connections({ securityGroups: attrs.securityGroups ?? [], defaultPort: ec2.Port.tcp(NFS_PORT) });
    this.attrs = attrs;
  }

  /** @internal */
  public _mountInfo(): FileSystemMountInfo {
    const azs = this.attrs.availabilityZones;
    return {
      vpc: this.attrs.vpc,
      clientSecurityGroup: this.attrs.clientSecurityGroup,
      bucket: this.attrs.bucket,
      prefix: this.attrs.prefix ?? '',
      bucketEncryptionKey: this.attrs.bucketEncryptionKey ?? this.attrs.bucket?.encryptionKey,
      region: this.arnEnv?.region,
      account: this.arnEnv?.account,
      // The same check as for a file system of this app, on the AZs the attributes name.
      checkAzCoverage: (scope, prop, subnets) => {
        if (azs) new AzCoverage(azs.map((az) => azRef(Stack.of(this), az))).check(scope, prop, subnets, this.node.path);
      },
    };
  }

  /**
   * An access point created on an imported file system gets a waiter of its own in its stack: the
   * file system exists, but a new access point takes a moment to become available. It also waits
   * for one mount target per known AZ.
   * @internal
   */
  public _registerAccessPoint(accessPoint: S3FilesAccessPoint): IDependable {
    // CloudFormation creates the access point in its stack's account and region, where it must find the file system.
    checkSameRegion(accessPoint, this.node.path, this.arnEnv?.region, 'an access point is created in its stack\'s region, where the file system must be', 'create the access point');
    const account = Stack.of(accessPoint).account;
    if (this.arnEnv && Token.isUnresolved(account)) {
      Annotations.of(accessPoint).addWarningV2('cdk-s3files-lambda:fileSystemAccountUnchecked',
        `${this.node.path} is in account ${this.arnEnv.account} (its ARN), and ${Stack.of(accessPoint).node.path} is environment-agnostic, so the library cannot check that `
        + `this access point is created in that account: CloudFormation creates it in the stack's account, where the file system must be. Give the stack env: { account: '${this.arnEnv.account}' }.`);
    } else if (this.arnEnv && account !== this.arnEnv.account) {
      invalid(accessPoint, 'fileSystem', this.node.path, `it is in account ${this.arnEnv.account} (its ARN) and ${Stack.of(accessPoint).node.path} in ${account}, `
        + 'and CloudFormation creates an access point in its stack\'s account, where the file system must be',
      `create the access point in a stack of account ${this.arnEnv.account}; to mount it from account ${account}, import it (S3FilesAccessPoint.fromAccessPointAttributes) `
      + 'and have the owner allow your role in the file system\'s policy (README, "Who can mount": ECS, Batch and EC2 only; Lambda and AgentCore mount only their own account\'s file systems)');
    }
    const provider = S3FilesWaiterProvider.getOrCreate(accessPoint);
    return createWaiter(accessPoint, 'Available', provider, {
      fileSystemId: this.fileSystemId,
      mountTargetCount: Math.max(1, this.attrs.availabilityZones?.length ?? 1),
      accessPointIds: [accessPoint.accessPointId],
      timeoutSeconds: DEFAULT_AVAILABILITY_TIMEOUT_SECONDS,
    });
  }
}
