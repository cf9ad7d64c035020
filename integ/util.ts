import { CfnResource, IAspect } from 'aws-cdk-lib';
import { IConstruct } from 'constructs';

/**
 * integ-tests-alpha salts every assertion with Date.now(), so two synths never match. Replace the
 * salt with a fixed value (from context `integ:salt` when a deploy must force a re-run).
 */
export class StableAssertionSalt implements IAspect {
  constructor(private readonly salt: string) {}

  public visit(node: IConstruct): void {
    if (CfnResource.isCfnResource(node) && node.cfnResourceType.startsWith('Custom::DeployAssert')) {
      node.addPropertyOverride('salt', this.salt);
    }
  }
}
