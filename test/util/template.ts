import { App, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as lambda from 'aws-cdk-lib/aws-lambda';

/** A fresh env-agnostic stack. */
export function newStack(id = 'TestStack'): Stack {
  return new Stack(new App(), id);
}

/** A VPC with isolated subnets in two AZs (the shape the L3 creates). */
export function isolatedVpc(stack: Stack, id = 'Vpc'): ec2.Vpc {
  return new ec2.Vpc(stack, id, {
    maxAzs: 2,
    natGateways: 0,
    subnetConfiguration: [{ name: 'Isolated', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }],
  });
}

/** Minimal function props for tests. */
export const FN = {
  runtime: lambda.Runtime.NODEJS_24_X,
  handler: 'index.handler',
  code: lambda.Code.fromInline('exports.handler = async () => {};'),
};

/** Resources of one type as [logicalId, resource] pairs. */
export function resourcesOfType(template: Template, type: string): Array<[string, any]> {
  return Object.entries(template.findResources(type));
}

/** The single resource of a type (fails the test when there is not exactly one). */
export function only(template: Template, type: string): [string, any] {
  const all = resourcesOfType(template, type);
  if (all.length !== 1) throw new Error(`expected exactly one ${type}, found ${all.length}`);
  return all[0];
}

/** The single resource of a type whose logical id starts with `prefix`. */
export function byPrefix(template: Template, type: string, prefix: string): [string, any] {
  const all = resourcesOfType(template, type).filter(([id]) => id.startsWith(prefix));
  if (all.length !== 1) throw new Error(`expected exactly one ${type} starting with ${prefix}, found ${all.length}`);
  return all[0];
}

/** Warning messages attached to the stack's constructs. */
export function warnings(stack: Stack): string[] {
  return Annotations.fromStack(stack).findWarning('*', Match.anyValue()).map(w => String(w.entry.data));
}

/**
 * Replaces content hashes (asset S3 keys, asset parameters, hash-like strings) with stable
 * placeholders so a snapshot only changes when the template's shape does.
 */
export function stripAssetHashes<T>(value: T): T {
  const json = JSON.stringify(value)
    .replace(/[0-9a-f]{64}(\.zip|\.json)?/g, 'ASSET_HASH$1')
    .replace(/"S3Key":"[^"]*"/g, '"S3Key":"ASSET_KEY"');
  return JSON.parse(json);
}
