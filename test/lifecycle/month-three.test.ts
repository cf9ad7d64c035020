import { CfnWaitConditionHandle, RemovalPolicies, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import {
  changeSet, dataLossOnDelete, dependsOnTransitively, exportRefusals, inlinePolicyCharactersAfter, peakInlinePolicyCharacters, retainedFileSystemsOf,
  synthTemplates,
  Template,
} from './cfn';
import { LambdaMount, S3FilesAccessPoint, S3FilesFileSystem, S3FilesFileSystemOptions } from '../../src';
import { MAX_ROLE_INLINE_POLICY_CHARS } from '../../src/private/provider/waiter-provider';

// Month three: changes a team makes to several file systems at once, and removal-policy switches
// deployed together with replacements, walked through CloudFormation's update and cleanup phases
// on the synthesized templates (issue 28, items 11 to 14).

function isolatedVpc(scope: Construct): ec2.Vpc {
  return new ec2.Vpc(scope, 'Vpc', { maxAzs: 2, natGateways: 0, subnetConfiguration: [{ name: 'Isolated', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }] });
}

function ofType(t: Template, type: string): string[] {
  return Object.entries(t.Resources).filter(([, r]) => r.Type === type).map(([id]) => id).sort();
}

function handlerRole(t: Template): string {
  const [id] = Object.keys(t.Resources).filter((k) => /^cdks3fileslambdaWaiterProviderIsCompleteServiceRole[0-9A-F]{8}$/.test(k));
  return id;
}

describe('replacing several file systems in one deployment (item 12)', () => {
  test('the handler role\'s inline policies stay within IAM\'s 10,240 characters at the update\'s peak, old and new side by side', () => {
    // GIVEN eight DESTROY file systems (buckets of their own: no cleaners), all of whose prefixes change in one deployment
    const build = (prefix: string) => synthTemplates((a) => {
      const stack = new Stack(a, 'Storage');
      const vpc = isolatedVpc(stack);
      for (let i = 0; i < 8; i++) {
        new S3FilesFileSystem(stack, `Files${i}`, { vpc, removalPolicy: RemovalPolicy.DESTROY, prefix, bucket: s3.Bucket.fromBucketName(stack, `B${i}`, `bucket-${i}`) });
      }
    }).Storage;
    const before = build('a/');
    const after = build('b/');
    // WHEN the update replaces all eight
    expect(changeSet(before, after).replaced.filter((id) => before.Resources[id].Type === 'AWS::S3Files::FileSystem')).toHaveLength(8);
    // THEN the handler role holds no more while old and new coexist than either template alone
    const role = handlerRole(before);
    const peak = peakInlinePolicyCharacters(before, after, role);
    expect(peak).toBeLessThanOrEqual(MAX_ROLE_INLINE_POLICY_CHARS);
    expect(peak).toBe(peakInlinePolicyCharacters(after, after, role));
  });
});

describe('RETAIN file systems whose prefix changes again and again (item 13)', () => {
  test('each generation keeps its own role: no role accumulates retained policies past IAM\'s limit', () => {
    // GIVEN nine deployments of one RETAIN file system, each with a new prefix (each a replacement that retains the old)
    const history = Array.from({ length: 9 }, (_, i) => synthTemplates((a) => {
      const stack = new Stack(a, 'Storage');
      new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack), prefix: `generation-${i}/` });
    }).Storage);
    // WHEN / THEN every role of the last template holds at most one generation's policy
    const perRole = inlinePolicyCharactersAfter(history);
    const serviceRoles = Object.keys(perRole).filter((id) => id.startsWith('FilesServiceRole'));
    expect(serviceRoles).toHaveLength(1);
    expect(perRole[serviceRoles[0]]).toBeLessThan(3000);
    expect(Math.max(...Object.values(perRole))).toBeLessThanOrEqual(MAX_ROLE_INLINE_POLICY_CHARS);
    // AND the model counts retained policies: with one role kept across the generations they would add up
    const sameRole = history.map((t) => JSON.parse(JSON.stringify(t).replace(/FilesServiceRole[0-9a-f]{8}([0-9A-F]{8})"/g, 'FilesServiceRoleKept"')));
    expect(inlinePolicyCharactersAfter(sameRole).FilesServiceRoleKept).toBeGreaterThan(MAX_ROLE_INLINE_POLICY_CHARS);
  });
});

describe('DESTROY to RETAIN in the same deployment as a replacement (item 14)', () => {
  const build = (options: S3FilesFileSystemOptions) => synthTemplates((a) => {
    const stack = new Stack(a, 'Storage');
    new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack), bucket: s3.Bucket.fromBucketName(stack, 'B', 'data'), ...options });
  }).Storage;

  test('the removed guard (DESTROY in its old properties) keeps the old file system CloudFormation retains', () => {
    // GIVEN a DESTROY file system, WHEN the next deployment retains it and changes its prefix
    const before = build({ removalPolicy: RemovalPolicy.DESTROY, prefix: 'a/' });
    const after = build({ removalPolicy: RemovalPolicy.RETAIN, prefix: 'b/' });
    const [fs] = ofType(before, 'AWS::S3Files::FileSystem');
    const [oldGuard] = ofType(before, 'Custom::S3FilesDeleteGuard');
    // THEN the old guard goes in cleanup with DeleteFileSystem "true" and the logical id of its file system ...
    expect(changeSet(before, after).removed).toContain(oldGuard);
    expect(before.Resources[oldGuard].Properties).toMatchObject({ DeleteFileSystem: 'true', FileSystemLogicalId: fs });
    // ... which the updated handler lists as RETAIN, so it keeps it: nothing retained is deleted
    expect(retainedFileSystemsOf(after)).toEqual(new Set([fs]));
    expect(dataLossOnDelete(before, after)).toEqual([]);
    // AND the rule can fail: without the handler's list, the old guard would delete the file system CloudFormation keeps
    const unlisted = JSON.parse(JSON.stringify(after).replace(/"S3FILES_RETAINED_FILE_SYSTEMS":"[^"]*"/, '"S3FILES_RETAINED_FILE_SYSTEMS":""'));
    expect(dataLossOnDelete(before, unlisted)).toEqual([`${oldGuard} deletes the old file system ${fs}, which the new template retains`]);
  });

  test('a DESTROY replacement still deletes the old file system (the list names only RETAIN ones)', () => {
    const before = build({ removalPolicy: RemovalPolicy.DESTROY, prefix: 'a/' });
    const after = build({ removalPolicy: RemovalPolicy.DESTROY, prefix: 'b/' });
    expect(retainedFileSystemsOf(after)).toEqual(new Set());
    expect(dataLossOnDelete(before, after)).toEqual([]);
  });
});

describe('a RETAIN file system on the bucket a DESTROY file system created (item 11)', () => {
  test('the bucket is kept (its cleaner does not empty it) and the synth says why', () => {
    // GIVEN a DESTROY file system with its created bucket, and a RETAIN one on that bucket in another stack
    let first!: S3FilesFileSystem;
    const templates = synthTemplates((a) => {
      const stack = new Stack(a, 'Storage');
      const vpc = isolatedVpc(stack);
      first = new S3FilesFileSystem(stack, 'First', { vpc, removalPolicy: RemovalPolicy.DESTROY });
      const other = new Stack(a, 'Other');
      new S3FilesFileSystem(other, 'Second', { vpc: isolatedVpc(other), bucket: first.bucket, prefix: 'second/' });
    });
    // (added at synthesis, once every removal policy is final)
    const warnings = first.node.metadata.filter((m) => m.type === 'aws:cdk:warning').map((m) => String(m.data));
    const t = templates.Storage;
    // THEN the bucket and its policy are retained, the cleaner never empties it, and the file system itself is still deleted
    const [bucket] = ofType(t, 'AWS::S3::Bucket');
    expect(t.Resources[bucket]).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    expect(t.Resources[ofType(t, 'AWS::S3::BucketPolicy')[0]].DeletionPolicy).toBe('Retain');
    expect(t.Resources[ofType(t, 'Custom::S3FilesBucketCleaner')[0]].Properties.EmptyOnDelete).toBe('false');
    expect(t.Resources[ofType(t, 'Custom::S3FilesDeleteGuard')[0]].Properties.DeleteFileSystem).toBe('true');
    expect(warnings).toEqual([expect.stringMatching(/^the bucket this file system created is kept, although its removal policy is DESTROY: Other\/Second uses it too and is retained .*give that file system `RemovalPolicy\.DESTROY`, or its own bucket\. \[ack: cdk-s3files-lambda:bucketKeptForRetainedFileSystem\]$/)]);
  });

  test('with both DESTROY, the bucket is deleted with the stack as before, and its cleaner runs only once both file systems are gone', () => {
    const t = synthTemplates((a) => {
      const stack = new Stack(a, 'Storage');
      const vpc = isolatedVpc(stack);
      const first = new S3FilesFileSystem(stack, 'First', { vpc, removalPolicy: RemovalPolicy.DESTROY });
      new S3FilesFileSystem(stack, 'Second', { vpc, bucket: first.bucket, prefix: 'second/', removalPolicy: RemovalPolicy.DESTROY });
    }).Storage;
    expect(t.Resources[ofType(t, 'AWS::S3::Bucket')[0]].DeletionPolicy).toBe('Delete');
    const [cleaner] = ofType(t, 'Custom::S3FilesBucketCleaner');
    expect(t.Resources[cleaner].Properties.EmptyOnDelete).toBe('true');
    // CloudFormation deletes a resource only after everything that depends on it: both guards
    // (each deletes its file system) depend on the cleaner, so it never meets a file system still listed.
    const guards = ofType(t, 'Custom::S3FilesDeleteGuard');
    expect(guards).toHaveLength(2);
    guards.forEach((g) => expect(dependsOnTransitively(t, g).has(cleaner)).toBe(true));
  });

  // The removal policy counts however it is set; every decision is read after all aspects ran, in
  // whatever order they visited the stacks (the review of issue 28 found these three).
  test.each([
    ['RemovalPolicies.of(the storage stack).destroy(), the RETAIN file system in another stack', (a: Construct) => {
      const stack = new Stack(a, 'Storage');
      const first = new S3FilesFileSystem(stack, 'First', { vpc: isolatedVpc(stack) });
      RemovalPolicies.of(stack).destroy();
      const other = new Stack(a, 'Other');
      new S3FilesFileSystem(other, 'Second', { vpc: isolatedVpc(other), bucket: first.bucket, prefix: 'second/' });
      return first;
    }],
    ['RemovalPolicies.of(one file system).destroy(), the other RETAIN in the same stack', (a: Construct) => {
      const stack = new Stack(a, 'Storage');
      const vpc = isolatedVpc(stack);
      const first = new S3FilesFileSystem(stack, 'First', { vpc });
      new S3FilesFileSystem(stack, 'Second', { vpc, bucket: first.bucket, prefix: 'second/' });
      RemovalPolicies.of(first).destroy();
      return first;
    }],
    ['RemovalPolicies.of(the other).retain() on a file system created with DESTROY', (a: Construct) => {
      const stack = new Stack(a, 'Storage');
      const vpc = isolatedVpc(stack);
      const first = new S3FilesFileSystem(stack, 'First', { vpc, removalPolicy: RemovalPolicy.DESTROY });
      const second = new S3FilesFileSystem(stack, 'Second', { vpc, bucket: first.bucket, prefix: 'second/', removalPolicy: RemovalPolicy.DESTROY });
      RemovalPolicies.of(second).retain();
      return first;
    }],
  ])('%s: the bucket is kept, the cleaner does not empty it, and the synth says why', (_name, build) => {
    let first!: S3FilesFileSystem;
    const t = synthTemplates((a) => { first = build(a); }).Storage;
    const [bucket] = ofType(t, 'AWS::S3::Bucket');
    expect(t.Resources[bucket]).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    expect(t.Resources[ofType(t, 'Custom::S3FilesBucketCleaner')[0]].Properties.EmptyOnDelete).toBe('false');
    const warnings = first.node.metadata.filter((m) => m.type === 'aws:cdk:warning').map((m) => String(m.data));
    expect(warnings).toEqual([expect.stringMatching(/uses it too and is retained .*\[ack: cdk-s3files-lambda:bucketKeptForRetainedFileSystem\]$/)]);
  });

  test('a removal policy set on the file-system type alone (applyToResourceTypes) reaches the created bucket', () => {
    const t = synthTemplates((a) => {
      const stack = new Stack(a, 'Storage');
      new S3FilesFileSystem(stack, 'First', { vpc: isolatedVpc(stack) });
      RemovalPolicies.of(stack).destroy({ applyToResourceTypes: ['AWS::S3Files::FileSystem'] });
    }).Storage;
    expect(t.Resources[ofType(t, 'AWS::S3::Bucket')[0]]).toMatchObject({ DeletionPolicy: 'Delete', UpdateReplacePolicy: 'Delete' });
    expect(t.Resources[ofType(t, 'Custom::S3FilesBucketCleaner')[0]].Properties.EmptyOnDelete).toBe('true');
  });
});

describe('an access point of the storage stack mounted from a compute stack (item 10)', () => {
  const FN = { runtime: lambda.Runtime.NODEJS_24_X, handler: 'index.handler', code: lambda.Code.fromInline('exports.handler = async () => ({})') };
  /** Storage holds the file system and an access point; Compute mounts it (or, with `mounted` false, holds something else). */
  const app = (path: string | undefined, mounted = true) => synthTemplates((a) => {
    const s = new Stack(a, 'Storage');
    const vpc = isolatedVpc(s);
    const fileSystem = new S3FilesFileSystem(s, 'Files', { vpc });
    const compute = new Stack(a, 'Compute');
    const ap = path ? new S3FilesAccessPoint(s, 'Shared', { fileSystem, path }) : undefined;
    if (mounted && ap) LambdaMount.onFunction(new lambda.Function(compute, 'Worker', { ...FN, vpc }), ap);
    else new CfnWaitConditionHandle(compute, 'Other');
  });

  test('changing its path (create-only: a replacement) or removing it changes an export the compute stack imports: CloudFormation refuses', () => {
    const deployed = app('/shared');
    expect(exportRefusals(deployed, app('/renamed'))).toEqual(expect.arrayContaining([expect.stringMatching(/^Storage: export ".*Shared[0-9A-F]{8}AccessPointArn.*" changes while Compute imports it$/)]));
    expect(exportRefusals(deployed, app(undefined, false))).toEqual(expect.arrayContaining([expect.stringMatching(/^Storage: export .* removed while Compute imports it$/)]));
  });

  test('the README\'s two deploys pass: first the compute stack alone without the mount, then the change with the mount back', () => {
    const deployed = app('/shared');
    // 1: `cdk deploy Compute --exclusively` without the mount (the storage stack is not deployed)
    const step1 = { ...deployed, Compute: app('/shared', false).Compute };
    // 2: the new path, the mount back, `cdk deploy --all`
    const step2 = app('/renamed');
    expect(exportRefusals(deployed, step1)).toEqual([]);
    expect(exportRefusals(step1, step2)).toEqual([]);
  });
});
