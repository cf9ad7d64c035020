import { AspectPriority, Aspects, Aws, CfnDeletionPolicy, CfnResource, Lazy, RemovalPolicy } from 'aws-cdk-lib';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { IConstruct } from 'constructs';
import { invalid, warn } from './messages';
import { DELETE_WITH_STACK_TAG } from './waiter-provider';

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
  /** True when a created bucket's final removal policy deletes it (then its cleaner empties it). */
  public static bucketDestroyed(bucket: s3.IBucket): boolean {
    return (bucket.node.defaultChild as CfnResource).cfnOptions.deletionPolicy === CfnDeletionPolicy.DELETE;
  }

  constructor(private readonly scope: IConstruct, private readonly fileSystem: CfnResource) {
    scope.node.addValidation({
      validate: () => (this.fileSystem.cfnOptions.deletionPolicy === CfnDeletionPolicy.SNAPSHOT
        ? [`${scope.node.path}: invalid removal policy SNAPSHOT (set on the file system after construction): S3 Files file systems have no snapshots. Fix: use RemovalPolicy.RETAIN or RemovalPolicy.DESTROY.`]
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
   * its own (then that one counts); and it is kept when a RETAIN file system elsewhere in the app
   * uses it too (the cleaner would wait for it in vain). Decided after every mutating aspect ran.
   * @param retainedUser another file system of the app on this bucket whose final policy keeps it
   */
  public governBucket(bucket: s3.IBucket, retainedUser: () => IConstruct | undefined): void {
    const bucketCfn = bucket.node.defaultChild as CfnResource;
    // Unset, so a removal policy the user gives the bucket later is recognised as theirs.
    bucketCfn.cfnOptions.deletionPolicy = undefined;
    bucketCfn.cfnOptions.updateReplacePolicy = undefined;
    Aspects.of(bucket).add({
      visit: (node) => {
        if (!(node instanceof CfnResource) || (node !== bucketCfn && node !== bucket.policy?.node.defaultChild)) return;
        const own = bucketCfn.cfnOptions;
        const fs = this.fileSystem.cfnOptions;
        const destroyed = own.deletionPolicy === undefined && fs.deletionPolicy === CfnDeletionPolicy.DELETE;
        const keptFor = destroyed ? retainedUser() : undefined;
        if (keptFor) {
          node.cfnOptions.deletionPolicy = CfnDeletionPolicy.RETAIN;
          node.cfnOptions.updateReplacePolicy = CfnDeletionPolicy.RETAIN;
          if (node === bucketCfn) {
            warn(this.scope, 'bucketKeptForRetainedFileSystem',
              `the bucket this file system created is kept, although its removal policy is DESTROY: ${keptFor.node.path} uses it too and is retained (RemovalPolicy.RETAIN), `
              + 'so the bucket is still in use when this stack is deleted. To delete the bucket with the stack, give that file system RemovalPolicy.DESTROY, or its own bucket.');
          }
          return;
        }
        node.cfnOptions.deletionPolicy = own.deletionPolicy ?? fs.deletionPolicy;
        node.cfnOptions.updateReplacePolicy = own.updateReplacePolicy ?? fs.updateReplacePolicy;
      },
    }, { priority: AspectPriority.DEFAULT + 100 });
  }
}
