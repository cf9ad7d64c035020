import { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { IConstruct } from 'constructs';
import { kmsKeyWildcard } from '../kms';
import { bucketKeyStatements } from '../mount/grants';
import { acknowledge, findingResource } from '../nag';

/** The KMS actions of the S3 user guide's file-system role policy. */
const SERVICE_ROLE_KMS_ACTIONS = ['kms:GenerateDataKey', 'kms:Encrypt', 'kms:Decrypt', 'kms:ReEncryptFrom', 'kms:ReEncryptTo'];

/** The principal S3 Files uses to assume the service role (S3 Files is built on EFS). */
export const SERVICE_PRINCIPAL = 'elasticfilesystem.amazonaws.com';

/** What the service role's policy names of its file system (the construct itself). */
export interface ServiceRoleFileSystem {
  readonly bucket: s3.IBucket;
  readonly prefix: string;
  readonly bucketEncryptionKey?: kms.IKey;
}

/** The service role's documented rights are wildcards by design; say why, on the policy only. */
export function acknowledgeServiceRoleFindings(scope: IConstruct, fileSystem: ServiceRoleFileSystem, policy: iam.Policy): void {
  const stack = Stack.of(scope);
  for (const action of ['s3:GetObject*', 's3:PutObject*', 's3:DeleteObject*']) {
    acknowledge(policy, `AwsSolutions-IAM5[Action::${action}]`,
      'S3 Files synchronises objects with their versions, tags and ACL-free metadata; these are the action families AWS documents for the file system role, limited to the '
        + 'objects under the prefix and the bucket account.');
  }
  acknowledge(policy, `AwsSolutions-IAM5[${findingResource(scope, fileSystem.bucket.arnForObjects(`${fileSystem.prefix}*`))}]`,
    'The file system presents every object under its prefix, so the service role needs all of them (and only them).');
  acknowledge(policy, `AwsSolutions-IAM5[${findingResource(scope, `arn:${stack.partition}:events:*:*:rule/DO-NOT-DELETE-S3-Files*`)}]`,
    'The service names its EventBridge rules DO-NOT-DELETE-S3-Files*; the statement also requires events:ManagedBy = elasticfilesystem.amazonaws.com.');
  acknowledge(policy, `AwsSolutions-IAM5[${findingResource(scope, `arn:${stack.partition}:events:*:*:rule/*`)}]`,
    'Read-only: the service describes rules and lists their targets to find its own. Without it S3-side changes silently never reach the file system.');
  acknowledge(policy, 'AwsSolutions-IAM5[Resource::*]',
    'events:ListRules and events:ListRuleNamesByTarget have no resource-level permissions (AWS service authorization reference); read-only, the service lists rules to find its '
      + 'own.');
  acknowledge(policy, `AwsSolutions-IAM5[${findingResource(scope, kmsKeyWildcard(stack))}]`,
    'The S3 user guide\'s statement for the file-system role: any key of the account, only through S3 (kms:ViaService) and only for this bucket\'s objects '
    + '(kms:EncryptionContext:aws:s3:arn), so objects under a key this app does not know are synchronised too.');
}

/** The service role's rights: the bucket, the objects under the prefix, the EventBridge rules and the bucket's key. */
export function serviceRoleStatements(scope: IConstruct, fileSystem: ServiceRoleFileSystem): iam.PolicyStatement[] {
  const stack = Stack.of(scope);
  const inBucketAccount = { StringEquals: { 'aws:ResourceAccount': fileSystem.bucket.env.account } };
  const statements = [
    new iam.PolicyStatement({
      sid: 'S3BucketAccess',
      actions: ['s3:ListBucket', 's3:ListBucketVersions', 's3:GetBucketLocation', 's3:GetBucketVersioning'],
      resources: [fileSystem.bucket.bucketArn],
      conditions: inBucketAccount,
    }),
    new iam.PolicyStatement({
      sid: 'S3ObjectAccess',
      actions: ['s3:GetObject*', 's3:PutObject*', 's3:DeleteObject*', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'],
      resources: [fileSystem.bucket.arnForObjects(`${fileSystem.prefix}*`)],
      conditions: inBucketAccount,
    }),
    // Missing EventBridge rights fail silently: S3-side changes would never reach the mount.
    new iam.PolicyStatement({
      sid: 'EventBridgeManageS3FilesRules',
      actions: ['events:PutRule', 'events:PutTargets', 'events:DeleteRule', 'events:DisableRule', 'events:EnableRule', 'events:RemoveTargets'],
      resources: [`arn:${stack.partition}:events:*:*:rule/DO-NOT-DELETE-S3-Files*`],
      conditions: { StringEquals: { 'events:ManagedBy': SERVICE_PRINCIPAL } },
    }),
    new iam.PolicyStatement({
      sid: 'EventBridgeReadRules',
      actions: ['events:DescribeRule', 'events:ListTargetsByRule'],
      resources: [`arn:${stack.partition}:events:*:*:rule/*`],
    }),
    // AWS's service authorization reference lists no resource type for these two: on rule/* they
    // would authorize nothing (the examples in the S3 Files docs put them there).
    new iam.PolicyStatement({
      sid: 'EventBridgeListRules',
      actions: ['events:ListRules', 'events:ListRuleNamesByTarget'],
      resources: ['*'],
    }),
  ];
  // Always, as the S3 user guide's file-system role policy has it (Sid UseKmsKeyWithS3Files): an
  // SSE-KMS bucket whose key this app does not know (a bucket imported by name, objects under a
  // second or an earlier key) is otherwise never synchronised, and nothing fails at deploy time.
  const kmsSids = ['UseKmsKeyWithS3Files', 'UseKmsKeyWithS3FilesForeign'];
  bucketKeyStatements(stack, fileSystem.bucket, SERVICE_ROLE_KMS_ACTIONS, fileSystem.bucketEncryptionKey)
    .forEach((s, i) => statements.push(new iam.PolicyStatement({
      sid: kmsSids[i], actions: s.actions, resources: s.resources, conditions: s.conditions,
    })));
  return statements;
}
