import { App, Aws, CfnParameter, Duration, Fn, NestedStack, RemovalPolicies, RemovalPolicy, Stack, Tags } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import {
  allowsDeletingFileSystem, changeSet, createOnlyProperties, deletedByUpdate, dependsOnTransitively, findCycle, isTaggable, rightsAtCleanupDelete,
  synthTemplates, Template,
} from './cfn';
import { ImportTrigger, LambdaMount, MountTargetIpAddressType, S3FilesAccessPoint, S3FilesFileSystem, S3FilesFileSystemOptions, S3FilesMountedFunction } from '../../src';
import { BUCKET_CREATE_ONLY_PROPERTIES } from '../../src/private/file-system/bucket';
import { docsText } from '../util/docs';

// Each test synthesizes an app before and after a change and checks what CloudFormation will do
// between the two templates: what it replaces, removes and retains, and which rights a custom
// resource still has when its Delete runs. Multi-stack and nested-stack apps are checked for
// reference/DependsOn cycles in every template.

const FN = {
  runtime: lambda.Runtime.NODEJS_24_X,
  handler: 'index.handler',
  code: lambda.Code.fromInline('exports.handler = async () => ({})'),
};

function isolatedVpc(scope: Construct): ec2.Vpc {
  return new ec2.Vpc(scope, 'Vpc', {
    maxAzs: 2,
    natGateways: 0,
    subnetConfiguration: [{ name: 'Isolated', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }],
  });
}

function storage(app: App, options: S3FilesFileSystemOptions = {}, id = 'Files'): { stack: Stack; fileSystem: S3FilesFileSystem } {
  const stack = new Stack(app, 'Storage');
  const fileSystem = new S3FilesFileSystem(stack, id, { vpc: isolatedVpc(stack), ...options });
  return { stack, fileSystem };
}

function resourceId(t: Template, type: string, prefix: string): string {
  const ids = Object.entries(t.Resources).filter(([id, r]) => r.Type === type && id.startsWith(prefix)).map(([id]) => id);
  if (ids.length !== 1) throw new Error(`expected one ${type} starting with ${prefix}, found ${ids.join(', ') || 'none'}`);
  return ids[0];
}

function ofType(t: Template, type: string): string[] {
  return Object.entries(t.Resources).filter(([, r]) => r.Type === type).map(([id]) => id).sort();
}

function expectNoCycles(templates: Record<string, Template>): void {
  for (const [name, t] of Object.entries(templates)) {
    expect({ template: name, cycle: findCycle(t) }).toEqual({ template: name, cycle: undefined });
  }
}

describe('the lifecycle model itself', () => {
  test('finds a Ref/DependsOn cycle and a replacement, so the checks below can fail', () => {
    // GIVEN a template with a cycle, and a create-only change
    const cyclic: Template = { Resources: { A: { Type: 'AWS::SNS::Topic', Properties: { DisplayName: { Ref: 'B' } } }, B: { Type: 'AWS::SNS::Topic', DependsOn: ['A'] } } };
    const before: Template = { Resources: { Mt: { Type: 'AWS::S3Files::MountTarget', Properties: { FileSystemId: 'fs-1', SubnetId: 'subnet-1' } } } };
    const after: Template = { Resources: { Mt: { Type: 'AWS::S3Files::MountTarget', Properties: { FileSystemId: 'fs-1', SubnetId: 'subnet-2' } } } };
    // THEN
    expect(findCycle(cyclic)).toEqual(['A', 'B', 'A']);
    expect(changeSet(before, after).replaced).toEqual(['Mt']);
    expect(changeSet(before, before).unchanged).toEqual(['Mt']);
  });
});

describe('storage in one stack, compute in others (defect 1)', () => {
  test('sibling stacks: functions and an access point in the compute stack; no cycle, and only compute depends on storage', () => {
    // GIVEN / WHEN
    let storageStack!: Stack;
    let compute!: Stack;
    const templates = synthTemplates((app) => {
      const s = storage(app, { removalPolicy: RemovalPolicy.DESTROY });
      storageStack = s.stack;
      compute = new Stack(app, 'Compute');
      new S3FilesMountedFunction(compute, 'Own', { ...FN, s3FileSystem: s.fileSystem });
      const ap = new S3FilesAccessPoint(compute, 'Shared', { fileSystem: s.fileSystem, path: '/shared' });
      new S3FilesMountedFunction(compute, 'Writer', { ...FN, accessPoint: ap });
      new S3FilesMountedFunction(compute, 'Reader', { ...FN, accessPoint: ap, readOnly: true });
    });
    // THEN
    expectNoCycles(templates);
    expect(compute.dependencies).toEqual([storageStack]);
    expect(storageStack.dependencies).toEqual([]);
    // the functions wait for their access point's own waiter and for the storage stack's waiter (a stack dependency)
    const c = templates.Compute;
    const waiters = ofType(c, 'Custom::S3FilesMountTargetsAvailable');
    expect(waiters).toEqual([expect.stringMatching(/^OwnAccessPointAvailable/), expect.stringMatching(/^SharedAvailable/)]);
    expect(c.Resources[resourceId(c, 'AWS::Lambda::Function', 'Writer')].DependsOn).toContain(waiters[1]);
    expect(ofType(templates.Storage, 'Custom::S3FilesMountTargetsAvailable')).toHaveLength(1);
  });

  test('nested stacks: compute in a nested stack of the storage stack, and storage in a nested stack; no cycle in any template', () => {
    // GIVEN / WHEN
    const templates = synthTemplates((app) => {
      const s = storage(app);
      const nested = new NestedStack(s.stack, 'Compute');
      new S3FilesMountedFunction(nested, 'Fn', { ...FN, s3FileSystem: s.fileSystem });
      new S3FilesAccessPoint(nested, 'Ap', { fileSystem: s.fileSystem, path: '/nested' });

      const parent = new Stack(app, 'Parent');
      const nestedStorage = new NestedStack(parent, 'Storage');
      const fileSystem = new S3FilesFileSystem(nestedStorage, 'Files', { vpc: isolatedVpc(nestedStorage) });
      new S3FilesMountedFunction(parent, 'Fn', { ...FN, s3FileSystem: fileSystem });
    });
    // THEN four templates (two nested), none with a cycle
    expect(Object.keys(templates).filter((n) => n.includes('nested'))).toHaveLength(2);
    expectNoCycles(templates);
  });
});

describe('adding and removing functions (defects 5, 6, 8)', () => {
  function app(functions: string[], withinStorage = false) {
    return synthTemplates((a) => {
      const s = storage(a);
      const compute = withinStorage ? s.stack : new Stack(a, 'Compute');
      for (const id of functions) new S3FilesMountedFunction(compute, id, { ...FN, s3FileSystem: s.fileSystem });
    });
  }

  test('adding functions in another stack does not change the storage stack at all (no rule, no policy growth)', () => {
    // GIVEN one function, WHEN two more are added
    const before = app(['A']);
    const after = app(['A', 'B', 'C']);
    // THEN the storage template is identical: one NFS rule, a policy that does not name functions
    expect(after.Storage).toEqual(before.Storage);
    expect(ofType(after.Storage, 'AWS::EC2::SecurityGroupIngress')).toHaveLength(1);
    const change = changeSet(before.Compute, after.Compute);
    expect(change.removed).toEqual([]);
    expect(change.replaced).toEqual([]);
  });

  test('removing one function of a shared file system leaves the others\' access points untouched', () => {
    // GIVEN three functions, WHEN the middle one is removed
    const before = app(['A', 'B', 'C'], true);
    const after = app(['A', 'C'], true);
    const change = changeSet(before.Storage, after.Storage);
    // THEN only B's resources go; A's and C's access points are neither replaced nor renamed
    expect(change.removed.every((id) => id.startsWith('B'))).toBe(true);
    expect(change.removed).toEqual(expect.arrayContaining([expect.stringMatching(/^BAccessPoint/), expect.stringMatching(/^B[0-9A-F]{8}$/)]));
    for (const id of ofType(after.Storage, 'AWS::S3Files::AccessPoint')) expect(change.unchanged).toContain(id);
    expect(change.replaced).toEqual([]);
  });

  test('removing a function with the same id in another scope does not rename the remaining one\'s access point', () => {
    // GIVEN functions "Fn" in scopes X and Y sharing one file system, WHEN X's is removed
    const build = (scopes: string[]) => synthTemplates((a) => {
      const s = storage(a);
      for (const scope of scopes) new S3FilesMountedFunction(new Construct(s.stack, scope), 'Fn', { ...FN, s3FileSystem: s.fileSystem });
    }).Storage;
    const before = build(['X', 'Y']);
    const after = build(['Y']);
    const change = changeSet(before, after);
    // THEN Y's access point keeps its logical id and is not replaced
    const yAccessPoint = ofType(after, 'AWS::S3Files::AccessPoint');
    expect(yAccessPoint).toEqual([expect.stringMatching(/^YFnAccessPoint/)]);
    expect(change.unchanged).toContain(yAccessPoint[0]);
    expect(change.removed).toContain(ofType(before, 'AWS::S3Files::AccessPoint').find((id) => id.startsWith('XFn')));
  });

  test('logical ids do not depend on construction order', () => {
    // GIVEN / WHEN the same functions created in two orders
    const one = app(['A', 'B', 'C'], true);
    const other = app(['C', 'A', 'B'], true);
    // THEN the same resources
    expect(Object.keys(other.Storage.Resources).sort()).toEqual(Object.keys(one.Storage.Resources).sort());
    expect(changeSet(one.Storage, other.Storage).replaced).toEqual([]);
  });
});

describe('mount targets keyed by AZ (defect 8)', () => {
  function app(subnetIndexes: number[]) {
    return synthTemplates((a) => {
      const stack = new Stack(a, 'Storage');
      const vpc = isolatedVpc(stack);
      new S3FilesFileSystem(stack, 'Files', { vpc, vpcSubnets: { subnets: subnetIndexes.map((i) => vpc.isolatedSubnets[i]) } });
    }).Storage;
  }

  test('acceptBucketWarning is create-only: turning it on replaces the file system (CloudFormation\'s schema says so, not us)', () => {
    // GIVEN / WHEN the same app without and with acceptBucketWarning
    const before = synthTemplates((a) => storage(a));
    const after = synthTemplates((a) => storage(a, { acceptBucketWarning: true }));
    // THEN only the file system property changes, and the change replaces it
    const fsId = resourceId(after.Storage, 'AWS::S3Files::FileSystem', 'Files');
    expect(after.Storage.Resources[fsId].Properties.AcceptBucketWarning).toBe(true);
    expect(before.Storage.Resources[fsId].Properties.AcceptBucketWarning).toBeUndefined();
    expect(changeSet(before.Storage, after.Storage).replaced).toContain(fsId);
  });

  test('mountTargetIpAddressType is create-only on the mount targets: changing it replaces each in the AZ it occupies, which S3 Files refuses; the README gives the two deploys', () => {
    // GIVEN a dual-stack VPC, WHEN the mount targets go from the default to DUAL_STACK
    const build = (type?: MountTargetIpAddressType) => synthTemplates((a) => {
      const stack = new Stack(a, 'Storage');
      const vpc = new ec2.Vpc(stack, 'Vpc', {
        maxAzs: 2,
        natGateways: 0,
        ipProtocol: ec2.IpProtocol.DUAL_STACK,
        subnetConfiguration: [{ name: 'Isolated', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }],
      });
      new S3FilesFileSystem(stack, 'Files', { vpc, mountTargetIpAddressType: type });
    }).Storage;
    const before = build();
    const after = build(MountTargetIpAddressType.DUAL_STACK);
    // THEN both mount targets are replaced (same logical ids, so the new one in an AZ is created while the old one exists) and nothing else is
    const changes = changeSet(before, after);
    expect(changes.replaced.sort()).toEqual(ofType(before, 'AWS::S3Files::MountTarget'));
    expect(changes.removed).toEqual([]);
    // AND the README does not present it as working: it names the failure and the procedure
    const readme = docsText();
    expect(readme).toMatch(/\*\*Mount-target changes in an AZ that has one\*\* \(`vpcSubnets` to another subnet of the same AZ, `mountTargetIpAddressType`, `vpc`\) \| Create-only on the mount target: .*so the update fails .*two deploys, \(1\) drop its AZ from `vpcSubnets`.*`vpc` and `mountTargetIpAddressType` cannot change in place/);
  });

  test('import rules update in place: adding one changes the file system without replacing it', () => {
    // GIVEN / WHEN one rule, then two
    const before = synthTemplates((a) => storage(a, { importDataRules: [{ prefix: '' }] }));
    const after = synthTemplates((a) => storage(a, { importDataRules: [{ prefix: '' }, { prefix: 'hot/', trigger: ImportTrigger.ON_FILE_ACCESS }] }));
    // THEN
    const fsId = resourceId(after.Storage, 'AWS::S3Files::FileSystem', 'Files');
    const changes = changeSet(before.Storage, after.Storage);
    expect(changes.replaced).toEqual([]);
    expect(changes.updated).toContain(fsId);
  });

  test('removing every sync prop drops SynchronizationConfiguration (an in-place update): the README and the prop docs say what is not documented', () => {
    // GIVEN a file system with an expiration rule, WHEN the prop is removed
    const before = synthTemplates((a) => storage(a, { expireAfterLastAccess: Duration.days(7) })).Storage;
    const after = synthTemplates((a) => storage(a)).Storage;
    const fsId = resourceId(before, 'AWS::S3Files::FileSystem', 'Files');
    // THEN the file system is updated in place, without the configuration
    expect(changeSet(before, after).updated).toContain(fsId);
    expect(before.Resources[fsId].Properties.SynchronizationConfiguration).toBeDefined();
    expect(after.Resources[fsId].Properties.SynchronizationConfiguration).toBeUndefined();
    // AND the docs do not claim a reset to defaults: they say it is not documented and what to do
    const readme = docsText();
    expect(readme).toMatch(/Removing both sync props .* drops `SynchronizationConfiguration` from the template; what the service then does is not documented/);
  });

  test('dropping the first AZ removes its mount target only; the other is neither replaced nor renamed', () => {
    // GIVEN mount targets in AZ #1 and AZ #2, WHEN AZ #1 is dropped
    const before = app([0, 1]);
    const after = app([1]);
    const change = changeSet(before, after);
    // THEN
    expect(change.removed).toEqual([expect.stringMatching(/^FilesMountTargetAz1/)]);
    const remaining = ofType(after, 'AWS::S3Files::MountTarget');
    expect(remaining).toEqual([expect.stringMatching(/^FilesMountTargetAz2/)]);
    expect(change.unchanged).toContain(remaining[0]);
    expect(change.replaced).toEqual([]);
  });
});

describe('removal: what a retained file system keeps (defect 2)', () => {
  test('RETAIN: removing the file system from the app deletes nothing it needs to keep synchronising', () => {
    // GIVEN a stack with a default (RETAIN) file system, WHEN the file system is removed from the app
    const before = synthTemplates((a) => storage(a)).Storage;
    const after = synthTemplates((a) => isolatedVpc(new Stack(a, 'Storage'))).Storage;
    const deleted = deletedByUpdate(before, after);
    // THEN the file system, its service role, the role's policy and the bucket are retained
    for (const [type, prefix] of [
      ['AWS::S3Files::FileSystem', 'Files'], ['AWS::IAM::Role', 'FilesServiceRole'], ['AWS::IAM::Policy', 'FilesServiceRolePolicy'],
      ['AWS::S3::Bucket', 'FilesBucket'], ['AWS::S3::BucketPolicy', 'FilesBucketPolicy'],
      // (its Delete would write an empty notification configuration: no EventBridge delivery for the retained file system)
      ['Custom::S3BucketNotifications', 'FilesBucketNotifications'],
    ]) {
      expect(deleted).not.toContain(resourceId(before, type, prefix));
    }
    // AND what a retained file system does not need goes (mount targets, access, waiter)
    expect(deleted).toEqual(expect.arrayContaining(ofType(before, 'AWS::S3Files::MountTarget')));
  });
});

describe('the delete guard keeps its right to delete (defects 3, 4)', () => {
  function guardOf(t: Template, prefix: string): string {
    return resourceId(t, 'Custom::S3FilesDeleteGuard', prefix);
  }
  function handlerRole(t: Template): string {
    return resourceId(t, 'AWS::IAM::Role', 'cdks3fileslambdaWaiterProviderIsCompleteServiceRole');
  }
  /**
   * The guard's old properties name file system X (maybe `X@old`); the rights must cover that
   * version: its ARN, or every file system with a tag condition its (old) tags meet.
   */
  function canDeleteItsFileSystem(before: Template, after: Template, guardId: string): boolean {
    const { properties, statements } = rightsAtCleanupDelete(before, after, guardId, handlerRole(before));
    const target = JSON.parse(properties).FileSystemId;
    const logicalId = typeof target === 'string' ? target.replace(/@old\.FileSystemId$/, '') : target['Fn::GetAtt'][0];
    const arn = typeof target === 'string'
      ? JSON.stringify(target.replace(/\.FileSystemId$/, '.FileSystemArn'))
      : JSON.stringify({ 'Fn::GetAtt': [target['Fn::GetAtt'][0], 'FileSystemArn'] });
    return statements.some((st) => allowsDeletingFileSystem(st, logicalId, arn, before));
  }

  test('removing one of two DESTROY file systems: the removed guard may still delete its file system in cleanup', () => {
    // GIVEN two DESTROY file systems, WHEN one is removed from the app
    const build = (both: boolean) => synthTemplates((a) => {
      const stack = new Stack(a, 'Storage');
      const vpc = isolatedVpc(stack);
      new S3FilesFileSystem(stack, 'Kept', { vpc, removalPolicy: RemovalPolicy.DESTROY });
      if (both) new S3FilesFileSystem(stack, 'Gone', { vpc, removalPolicy: RemovalPolicy.DESTROY });
    }).Storage;
    const before = build(true);
    const after = build(false);
    const guard = guardOf(before, 'GoneDeleteGuard');
    // THEN the guard is removed (Delete in cleanup) and its rights outlive it
    expect(changeSet(before, after).removed).toContain(guard);
    expect(canDeleteItsFileSystem(before, after, guard)).toBe(true);
  });

  type Variant = { prefix?: string; bucketName?: string; keyArn?: string; acceptBucketWarning?: boolean };
  const KEY = (n: number) => `arn:aws:kms:us-east-1:111111111111:key/1234abcd-12ab-34cd-56ef-12345678900${n}`;
  test.each<[string, Variant, Variant]>([
    ['prefix changed', { prefix: 'a/' }, { prefix: 'b/' }],
    ['imported bucket changed', { bucketName: 'first-bucket' }, { bucketName: 'second-bucket' }],
    ['acceptBucketWarning turned on', {}, { acceptBucketWarning: true }],
    ['fileSystemEncryptionKey: none to a key', {}, { keyArn: KEY(1) }],
    ['fileSystemEncryptionKey: one key to another', { keyArn: KEY(1) }, { keyArn: KEY(2) }],
  ])('a replacement (%s): the old guard deletes the old file system with rights naming the old one', (_what, first, second) => {
    const build = (o: Variant) => synthTemplates((a) => {
      const stack = new Stack(a, 'Storage');
      const bucket = o.bucketName ? s3.Bucket.fromBucketName(stack, 'B', o.bucketName) : undefined;
      const fileSystemEncryptionKey = o.keyArn ? kms.Key.fromKeyArn(stack, 'Key', o.keyArn) : undefined;
      new S3FilesFileSystem(stack, 'Files', {
        vpc: isolatedVpc(stack),
        removalPolicy: RemovalPolicy.DESTROY,
        prefix: o.prefix,
        bucket,
        fileSystemEncryptionKey,
        acceptBucketWarning: o.acceptBucketWarning,
      });
    }).Storage;
    // GIVEN / WHEN a create-only property of the file system changes
    const before = build(first);
    const after = build(second);
    const change = changeSet(before, after);
    const fsId = resourceId(before, 'AWS::S3Files::FileSystem', 'Files');
    // THEN CloudFormation replaces the file system ...
    expect(change.replaced).toContain(fsId);
    // ... and the old guard (a new logical id for the new file system) is deleted in cleanup, able to delete the old one
    const oldGuard = guardOf(before, 'FilesDeleteGuard');
    expect(change.removed).toContain(oldGuard);
    expect(canDeleteItsFileSystem(before, after, oldGuard)).toBe(true);
    expect(JSON.parse(rightsAtCleanupDelete(before, after, oldGuard, handlerRole(before)).properties).FileSystemId).toBe(`${fsId}@old.FileSystemId`);
  });

  test('stack deletion: the guard runs before the file system, the bucket and its own policy are deleted', () => {
    // GIVEN a DESTROY file system, WHEN the stack is deleted
    const before = synthTemplates((a) => storage(a, { removalPolicy: RemovalPolicy.DESTROY })).Storage;
    const guard = guardOf(before, 'FilesDeleteGuard');
    // THEN everything it needs is deleted after it
    const outlives = dependsOnTransitively(before, guard);
    for (const [type, prefix] of [['AWS::S3Files::FileSystem', 'Files'], ['AWS::S3::Bucket', 'FilesBucket'], ['AWS::IAM::Policy', 'cdks3fileslambdaWaiterProviderHandlerPolicy'], ['AWS::Lambda::Function', 'cdks3fileslambdaWaiterProviderIsComplete']]) {
      expect(outlives).toContain(resourceId(before, type, prefix));
    }
    expect(canDeleteItsFileSystem(before, { Resources: {} }, guard)).toBe(true);
  });

  test.each([
    ['the prop', (f: S3FilesFileSystem) => f],
    ['applyRemovalPolicy', (f: S3FilesFileSystem) => f.applyRemovalPolicy(RemovalPolicy.RETAIN)],
    ['RemovalPolicies.of', (f: S3FilesFileSystem) => RemovalPolicies.of(f).retain()],
  ])('DESTROY -> RETAIN (set with %s) updates the guard in place, never a Delete that deletes', (_how, toRetain) => {
    // GIVEN a DESTROY file system, WHEN the next deploy retains it
    const before = synthTemplates((a) => storage(a, { removalPolicy: RemovalPolicy.DESTROY })).Storage;
    const after = synthTemplates((a) => {
      const s = storage(a, _how === 'the prop' ? {} : { removalPolicy: RemovalPolicy.DESTROY });
      toRetain(s.fileSystem);
    }).Storage;
    const guard = guardOf(before, 'FilesDeleteGuard');
    const change = changeSet(before, after);
    // THEN the guard is updated (DeleteFileSystem "false"), nothing is replaced or deleted
    expect(change.updated).toContain(guard);
    expect(after.Resources[guard].Properties.DeleteFileSystem).toBe('false');
    expect(deletedByUpdate(before, after)).toEqual([]);
    expect(after.Resources[resourceId(after, 'AWS::S3Files::FileSystem', 'Files')].DeletionPolicy).toBe('Retain');
  });
});

describe('capacity: 200 functions over several stacks on one file system', () => {
  test('synthesizes without cycles; the storage stack does not grow with the functions', () => {
    // GIVEN one storage stack and four compute stacks of 50 functions each
    const build = (perStack: number) => synthTemplates((a) => {
      const s = storage(a);
      for (let k = 0; k < 4; k++) {
        const compute = new Stack(a, `Compute${k}`);
        for (let i = 0; i < perStack; i++) new S3FilesMountedFunction(compute, `Fn${i}`, { ...FN, s3FileSystem: s.fileSystem });
      }
    });
    // WHEN
    const one = build(1);
    const all = build(50);
    // THEN no template has a cycle, the storage template is the same as with 4 functions,
    // and each compute stack stays within CloudFormation's 500 resources and 1 MB
    expectNoCycles(all);
    expect(all.Storage).toEqual(one.Storage);
    expect(JSON.stringify(all.Storage.Resources[resourceId(all.Storage, 'AWS::S3Files::FileSystemPolicy', 'Files')]).length).toBeLessThan(2000);
    for (let k = 0; k < 4; k++) {
      const t = all[`Compute${k}`];
      expect(ofType(t, 'AWS::Lambda::Function').filter((id) => id.startsWith('Fn'))).toHaveLength(50);
      expect(Object.keys(t.Resources).length).toBeLessThanOrEqual(500);
      expect(JSON.stringify(t).length).toBeLessThan(1_000_000);
    }
  }, 300_000);
});

describe('tags', () => {
  test('Tags.of(app) reaches every resource whose CloudFormation schema has Tags, in storage, compute and nested stacks', () => {
    // GIVEN storage, compute (sibling and nested) with the L3, a user's own function and an access point
    const templates = synthTemplates((app) => {
      const { stack, fileSystem } = storage(app, { removalPolicy: RemovalPolicy.DESTROY });
      const compute = new Stack(app, 'Compute');
      const shared = new S3FilesAccessPoint(compute, 'Shared', { fileSystem, path: '/shared' });
      new S3FilesMountedFunction(compute, 'Writer', { ...FN, accessPoint: shared });
      LambdaMount.onFunction(new lambda.Function(compute, 'UsersOwn', { ...FN, vpc: fileSystem.vpc }), shared);
      new S3FilesMountedFunction(new NestedStack(stack, 'Workers'), 'Worker', { ...FN, s3FileSystem: fileSystem });
      // WHEN
      Tags.of(app).add('team', 'data');
    });
    // THEN every taggable resource carries the tag, whatever its type (the schema decides, not a list of ours)
    const untagged: string[] = [];
    let taggable = 0;
    for (const [name, t] of Object.entries(templates)) {
      for (const [id, r] of Object.entries(t.Resources)) {
        if (!isTaggable(r.Type)) continue;
        taggable++;
        if (!JSON.stringify(r.Properties?.Tags ?? []).includes('"team"')) untagged.push(`${name}/${id} (${r.Type})`);
      }
    }
    expect(untagged).toEqual([]);
    expect(taggable).toBeGreaterThan(20);
    // AND the S3 Files resources that can carry tags are among them
    const types = new Set(Object.values(templates).flatMap((t) => Object.values(t.Resources).map((r) => r.Type)));
    expect(['AWS::S3Files::FileSystem', 'AWS::S3Files::AccessPoint'].every((type) => types.has(type) && isTaggable(type))).toBe(true);
    expect(isTaggable('AWS::S3Files::MountTarget')).toBe(false);
  });
});

describe('a replaced bucket: the old file system keeps its own service role (issue 37 item 5)', () => {
  /** A storage stack whose file system uses a bucket of the app, named by `name` (or not). */
  const build = (name: string | undefined, removalPolicy = RemovalPolicy.RETAIN) => synthTemplates((a) => {
    const stack = new Stack(a, 'Storage');
    const bucket = new s3.Bucket(stack, 'Data', { versioned: true, bucketName: name, removalPolicy: RemovalPolicy.RETAIN });
    new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack), bucket, removalPolicy });
  }).Storage;
  const ids = (t: Template, bucket = 'Data') => ({
    role: resourceId(t, 'AWS::IAM::Role', 'FilesServiceRole'),
    policy: resourceId(t, 'AWS::IAM::Policy', 'FilesServiceRolePolicy'),
    guard: resourceId(t, 'Custom::S3FilesDeleteGuard', 'FilesDeleteGuard'),
    fileSystem: resourceId(t, 'AWS::S3Files::FileSystem', 'Files'),
    bucket: resourceId(t, 'AWS::S3::Bucket', bucket),
  });

  test.each<[string, string | undefined, string]>([
    ['bucketName added', undefined, 'data-one'],
    ['bucketName changed', 'data-one', 'data-two'],
  ])('RETAIN, %s: bucket and file system are replaced; the old role and its policy are kept as they were, never rewritten for the new bucket', (_what, first, second) => {
    // GIVEN a deployed file system over a bucket of the app, WHEN a create-only property of the bucket changes
    const before = build(first);
    const after = build(second);
    const old = ids(before);
    const change = changeSet(before, after);
    // THEN CloudFormation replaces the bucket and, through its ARN, the file system (the schema says so) ...
    expect(change.replaced).toEqual(expect.arrayContaining([old.bucket, old.fileSystem]));
    // ... and the old role, policy and guard leave the template (new ones serve the new file system), retained, not updated in place
    for (const id of [old.role, old.policy, old.guard]) {
      expect(change.removed).toContain(id);
      expect(change.updated).not.toContain(id);
    }
    expect(deletedByUpdate(before, after)).not.toContain(old.role);
    expect(deletedByUpdate(before, after)).not.toContain(old.policy);
    expect(ids(after).role).not.toBe(old.role);
  });

  test('DESTROY, bucketName added: the old policy outlives the old guard, which deletes the old file system after its pending exports', () => {
    const before = build(undefined, RemovalPolicy.DESTROY);
    const after = build('data-one', RemovalPolicy.DESTROY);
    const old = ids(before);
    const change = changeSet(before, after);
    expect(change.removed).toEqual(expect.arrayContaining([old.role, old.policy, old.guard]));
    expect(change.updated).not.toContain(old.policy);
    // CloudFormation deletes what the old guard depends on after the guard: the old file system's S3 rights stay while it drains
    expect([...dependsOnTransitively(before, old.guard)]).toEqual(expect.arrayContaining([old.fileSystem, old.policy]));
  });

  test('users who never set a create-only property of the bucket keep their logical ids (a bucket of theirs, or the one the construct creates)', () => {
    // (recorded from the code before issue 37: the role, its policy and the guard of both layouts)
    const own = ids(build(undefined));
    expect([own.role, own.policy, own.guard]).toEqual(['FilesServiceRole3ce1a4caB7F2973A', 'FilesServiceRolePolicy3ce1a4caA3E38E0E', 'FilesDeleteGuard3ce1a4ca90C47E95']);
    const created = ids(synthTemplates((a) => storage(a)).Storage, 'FilesBucket');
    expect([created.role, created.policy, created.guard]).toEqual(['FilesServiceRole61739a7aD3CE23C5', 'FilesServiceRolePolicy61739a7aC620B591', 'FilesDeleteGuard61739a7aFED04D47']);
  });

  test('a name set after the file system was built (an escape hatch, an aspect) is refused: it would rename nothing', () => {
    expect(() => synthTemplates((a) => {
      const stack = new Stack(a, 'Storage');
      const fileSystem = new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack) });
      (fileSystem.bucket!.node.defaultChild as s3.CfnBucket).bucketName = 'data-late';
    })).toThrow(/Storage\/Files: invalid bucket "Storage\/Files\/Bucket": its BucketName is "data-late" in the template but was "unset" when the file system was created, whose service role and delete guard are keyed by it .* Fix: set BucketName on the bucket before creating the file system \(for the bucket the construct creates, create your own bucket with the name and pass it as `bucket`\)/);
  });

  test('a name only known at deploy time is a warning; a literal, or one made of pseudo parameters, is not', () => {
    const warningsFor = (name: (s: Stack) => string | undefined, imported = false) => {
      const app = new App();
      const stack = new Stack(app, 'Storage');
      const bucket = imported ? s3.Bucket.fromBucketName(stack, 'Data', name(stack)!) : new s3.Bucket(stack, 'Data', { versioned: true, bucketName: name(stack) });
      new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack), bucket });
      app.synth();
      return stack.node.findAll().flatMap((c) => c.node.metadata).filter((m) => String(m.data).includes('cdk-s3files-lambda:bucketNameUnresolved')).length;
    };
    expect(warningsFor((s) => new CfnParameter(s, 'Name').valueAsString)).toBe(1);
    expect(warningsFor((s) => new CfnParameter(s, 'Name').valueAsString, true)).toBe(1);
    expect(warningsFor(() => Fn.importValue('shared-bucket-name'), true)).toBe(1);
    expect(warningsFor(() => 'data-one')).toBe(0);
    expect(warningsFor(() => `data-${Aws.ACCOUNT_ID}-${Aws.REGION}`)).toBe(0);
    expect(warningsFor(() => undefined)).toBe(0);
    expect(warningsFor(() => 'existing-data', true)).toBe(0);
  });

  test('the create-only properties the key reads are those of CloudFormation\'s schema for AWS::S3::Bucket (vendored from cfn-lint)', () => {
    expect(createOnlyProperties('AWS::S3::Bucket')).toEqual(BUCKET_CREATE_ONLY_PROPERTIES.map((p) => [p]));
  });

  test('docs/lifecycle.md says what the tests above show', () => {
    expect(docsText()).toMatch(/so is a bucket of the app replaced by a change of its own create-only properties, `bucketName` added or changed, `bucketNamePrefix`, `bucketNamespace`\) \| A new file system, with a service role and policy of its own, is created; the old file system, its role and policy are \*\*kept\*\* .* The role, its policy and the guard are keyed by those bucket properties too, so a renamed bucket gets a new role\. A name CloudFormation only learns at deploy time \(a parameter, an import\) cannot be keyed: a warning \(`bucketNameUnresolved`\) says so, and a new value would rewrite the old file system's role; a name set after the file system was created \(an escape hatch, an aspect\) is a synth-time error\./);
  });
});
