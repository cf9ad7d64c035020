import { AspectPriority, Aspects, Aws, CfnDeletionPolicy, CfnResource, Lazy, RemovalPolicy } from 'aws-cdk-lib';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { IConstruct } from 'constructs';
import { bucketNotificationsResource } from '../compat';
import { invalid, warn } from '../messages';
import { DELETE_WITH_STACK_TAG } from '../provider/waiter-provider';

// Everything the file system's removal policy decides, in one place. The policy counts however it
// is set (the prop, applyRemovalPolicy, RemovalPolicies.of, an aspect): every decision below reads
// the file system's *final* DeletionPolicy, at synthesis.

/** S3 Files has no snapshots. */
export function rejectSnapshot(scope: IConstruct, prop: string, policy: RemovalPolicy): void {
  if (policy === RemovalPolicy.SNAPSHOT) {
    invalid(scope, prop, 'SNAPSHOT', 'S3 Files file systems have no snapshots', 'use RemovalPolicy.RETAIN or RemovalPolicy.DESTROY');
  }
}

/** What the removal policy governs for one file system. */
export class FileSystemRemoval {
  private bucketDecision?: () => { deletion?: CfnDeletionPolicy; replace?: CfnDeletionPolicy; keptFor?: IConstruct };

  constructor(private readonly scope: IConstruct, private readonly fileSystem: CfnResource) {
    scope.node.addValidation({
      validate: () => (this.fileSystem.cfnOptions.deletionPolicy === CfnDeletionPolicy.SNAPSHOT
        ? [`${scope.node.path}: invalid removal policy SNAPSHOT (set on the file system after construction): S3 Files file systems have no snapshots. Fix: use `
          + 'RemovalPolicy.RETAIN or RemovalPolicy.DESTROY.']
        : []),
    });
  }

  /** True when the file system's final removal policy deletes it. */
  public get destroys(): boolean {
    return this.fileSystem.cfnOptions.deletionPolicy === CfnDeletionPolicy.DELETE;
  }

  /**
   * A retained file system keeps exporting and importing only while its role and the role's policy
   * exist: they get the file system's final DeletionPolicy/UpdateReplacePolicy.
   */
  public follow(resource: CfnResource): void {
    resource.addOverride('DeletionPolicy', Lazy.string({ produce: () => this.fileSystem.cfnOptions.deletionPolicy }));
    resource.addOverride('UpdateReplacePolicy', Lazy.string({ produce: () => this.fileSystem.cfnOptions.updateReplacePolicy }));
  }

  /** The guards may delete the file system only while it carries its stack's id (DESTROY); "false" otherwise. */
  public tagForGuards(tags: { setTag(key: string, value: string, priority?: number): void }): void {
    tags.setTag(DELETE_WITH_STACK_TAG, Lazy.string({ produce: () => (this.destroys ? Aws.STACK_ID : 'false') }), 1000);
  }

  /**
   * A bucket the construct created follows the file system unless it was given a removal policy of
   * its own (then that one counts: the prop, `applyRemovalPolicy`, `RemovalPolicies.of` over a scope
   * that holds it); and it is kept, with a warning, when its final policy would delete it while a
   * RETAIN file system elsewhere in the app uses it (the cleaner would wait for it in vain). Every
   * value is read when the template is written, after every aspect of every stack has run, so the
   * order in which aspects visit the tree does not matter.
   * @param retainedUser another file system of the app on this bucket whose final policy keeps it
   */
  public governBucket(bucket: s3.IBucket, retainedUser: () => IConstruct | undefined): void {
    const bucketCfn = bucket.node.defaultChild as CfnResource;
    // Unset, so a removal policy given to the bucket later (by a prop, applyRemovalPolicy or an
    // aspect on the bucket or a scope above it) is recognised as its own.
    bucketCfn.cfnOptions.deletionPolicy = undefined;
    bucketCfn.cfnOptions.updateReplacePolicy = undefined;
    let own: { deletion?: CfnDeletionPolicy; replace?: CfnDeletionPolicy } | undefined;
    // Runs on the bucket after every removal-policy aspect that reaches it (those run at lower
    // priority on the same node): it records the bucket's own policy, and gives the L1 one so
    // aws-cdk-lib's stateful-resource check passes; what the template says is the override below.
    Aspects.of(bucket).add({
      visit: (node) => {
        if (node !== bucketCfn || own) return;
        own = { deletion: bucketCfn.cfnOptions.deletionPolicy, replace: bucketCfn.cfnOptions.updateReplacePolicy };
        bucketCfn.cfnOptions.deletionPolicy ??= CfnDeletionPolicy.RETAIN;
        bucketCfn.cfnOptions.updateReplacePolicy ??= CfnDeletionPolicy.RETAIN;
      },
    }, { priority: AspectPriority.DEFAULT + 100 });
    this.bucketDecision = () => {
      const fs = this.fileSystem.cfnOptions;
      const deletion = own?.deletion ?? fs.deletionPolicy;
      const keptFor = deletion === CfnDeletionPolicy.DELETE ? retainedUser() : undefined;
      return keptFor
        ? { deletion: CfnDeletionPolicy.RETAIN, replace: CfnDeletionPolicy.RETAIN, keptFor }
        : { deletion, replace: own?.replace ?? fs.updateReplacePolicy };
    };
    const decide = this.bucketDecision;
    // Read when the template is written, after every aspect of every stack ran: the order in which
    // aspects visited the file systems does not matter.
    const follow = (resource: CfnResource) => {
      resource.addOverride('DeletionPolicy', Lazy.string({ produce: () => decide().deletion }));
      resource.addOverride('UpdateReplacePolicy', Lazy.string({ produce: () => decide().replace }));
    };
    follow(bucketCfn);
    let warned = false;
    const following = new Set<CfnResource>();
    this.scope.node.addValidation({
      validate: () => {
        // The bucket policy may be added after construction. So may notifications: their custom
        // resource's Delete writes an empty configuration, which would turn off the EventBridge
        // delivery a retained file system still needs, so it is retained with the bucket.
        for (const resource of [bucket.policy?.node.defaultChild, bucketNotificationsResource(bucket)]) {
          if (!(resource instanceof CfnResource) || following.has(resource)) continue;
          following.add(resource);
          follow(resource);
        }
        const keptFor = decide().keptFor;
        if (keptFor && !warned) {
          warned = true;
          warn(this.scope, 'bucketKeptForRetainedFileSystem',
            `the bucket this file system created is kept, although its removal policy is DESTROY: ${keptFor.node.path} uses it too and is retained (\`RemovalPolicy.RETAIN\`), `
            + 'so the bucket is still in use when this stack is deleted. To delete the bucket with the stack, give that file system `RemovalPolicy.DESTROY`, or its own bucket.');
        }
        return [];
      },
    });
  }

  /** True when the created bucket's final removal policy deletes it (then its cleaner empties it). */
  public bucketDestroyed(): boolean {
    return this.bucketDecision?.().deletion === CfnDeletionPolicy.DELETE;
  }
}
