import { Stack, Token } from 'aws-cdk-lib';
import { IConstruct } from 'constructs';
import { invalid, warn } from './messages';

/**
 * A file system in another region than the stack that uses it: an error when both are known, a
 * warning when the stack's region is a token (an environment-agnostic stack). `what` is the fix's verb
 * phrase ("mount it", "create the access point").
 */
export function checkSameRegion(scope: IConstruct, fileSystem: string, region: string | undefined, why: string, what: string): void {
  if (region === undefined) return;
  const stack = Stack.of(scope);
  if (Token.isUnresolved(stack.region)) {
    warn(scope, 'fileSystemRegionUnchecked',
      `${fileSystem} is in ${region} (its ARN), and ${stack.node.path} is environment-agnostic, so the library cannot check that it is deployed there: ${why}. `
      + `Give the stack an \`env\` with \`region\` '${region}'.`);
  } else if (stack.region !== region) {
    invalid(scope, 'fileSystem', fileSystem, `it is in ${region} (its ARN) and ${stack.node.path} in ${stack.region}, and ${why}`,
      `${what} in a stack of ${region}`);
  }
}
