import * as crypto from 'crypto';
import { Stack, Token } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { IConstruct } from 'constructs';
import type { MountTargetIpAddressType } from '../../s3files-file-system-props';
import { subnetAvailabilityZone } from '../compat';
import { invalid, setKeys, Shown, warn } from '../messages';

/** An AZ as the library keys it: by name when known, by its `Fn::GetAZs` index in env-agnostic stacks. */
export interface AzRef {
  /** Stable, alphanumeric: compares AZs (the name, or the Fn::GetAZs index). */
  readonly key: string;
  /** Part of construct ids when it differs from `key` (see subnetAz). */
  readonly idKey?: string;
  /** For messages: the AZ name, or "AZ #n". */
  readonly label: string;
  /** False when the AZ is a token of unknown shape (it cannot be compared). */
  readonly comparable: boolean;
}

export function subnetAz(scope: IConstruct, stack: Stack, subnet: ec2.ISubnet): AzRef {
  const az = subnetAvailabilityZone(subnet);
  if (az === undefined) {
    invalid(scope, 'vpcSubnets', subnetLabel(subnet), 'the subnet was imported without its availability zone, so one mount target per AZ cannot be enforced',
      'import it with its `availabilityZone` (`ec2.Subnet.fromSubnetAttributes()`), or import the VPC with `availabilityZones`');
  }
  const ref = azRef(stack, az);
  // A subnet this app creates in an env-aware stack names its AZ; the same subnet in an
  // env-agnostic stack gives its Fn::GetAZs index. Key the mount target by that index either way,
  // so adding `env` to a stack renames no mount target (its VPC already looked the AZs up).
  if (!Token.isUnresolved(az) && subnet.node.defaultChild instanceof ec2.CfnSubnet) {
    const index = stack.availabilityZones.indexOf(az);
    if (index >= 0) return { ...ref, idKey: `Az${index + 1}` };
  }
  return ref;
}

/**
 * Refuses a mount-target IP address type the subnet cannot give, when the subnet is defined in this
 * app (an `AWS::EC2::Subnet` whose CIDR blocks are known); imported subnets are left to the service.
 */
export function checkSubnetIpFamilies(scope: IConstruct, subnet: ec2.ISubnet, type: MountTargetIpAddressType): void {
  const cfn = subnet.node.defaultChild;
  if (!(cfn instanceof ec2.CfnSubnet)) return;
  const ipv6Only = cfn.ipv6Native === true;
  const hasIpv4 = !ipv6Only && (cfn.cidrBlock !== undefined || cfn.ipv4IpamPoolId !== undefined);
  const hasIpv6 = cfn.ipv6CidrBlock !== undefined || cfn.ipv6IpamPoolId !== undefined || cfn.assignIpv6AddressOnCreation === true;
  const needs = {
    IPV4_ONLY: { ipv4: true, ipv6: false },
    IPV6_ONLY: { ipv4: false, ipv6: true },
    DUAL_STACK: { ipv4: true, ipv6: true },
  }[type.value];
  if (!needs) return; // a value newer than this library: the service decides
  const missing = [needs.ipv4 && !hasIpv4 ? 'IPv4' : undefined, needs.ipv6 && !hasIpv6 ? 'IPv6' : undefined].filter(Boolean);
  if (missing.length > 0) {
    invalid(scope, 'mountTargetIpAddressType', type.value, `subnet ${subnetLabel(subnet)} has no ${missing.join(' or ')} CIDR block, so a mount target there cannot get that `
      + 'address',
    hasIpv6 && !hasIpv4 ? 'use MountTargetIpAddressType.IPV6_ONLY, or choose dual-stack subnets'
      : 'use MountTargetIpAddressType.IPV4_ONLY, or give the VPC IPv6 (ec2.IpProtocol.DUAL_STACK) and choose its subnets');
  }
}

/** A subnet's id when it is a literal, else its construct path (never a raw token). */
export function subnetLabel(subnet: ec2.ISubnet): string {
  return Token.isUnresolved(subnet.subnetId) ? subnet.node.path : subnet.subnetId;
}

export function azRef(stack: Stack, az: string): AzRef {
  if (!Token.isUnresolved(az)) return { key: az.replace(/[^A-Za-z0-9]/g, ''), label: az, comparable: true };
  const resolved = stack.resolve(az);
  const select = resolved?.['Fn::Select'];
  if (Array.isArray(select) && typeof select[0] === 'number' && select[1]?.['Fn::GetAZs'] !== undefined) {
    return { key: `Az${select[0] + 1}`, label: `AZ #${select[0] + 1}`, comparable: true };
  }
  const hash = crypto.createHash('sha256').update(JSON.stringify(resolved)).digest('hex').slice(0, 8);
  return { key: `Az${hash}`, label: 'an AZ known only at deploy time', comparable: false };
}

/** The AZs a file system has mount targets in, and which client subnets they leave out. */
export class AzCoverage {
  constructor(private readonly azs: AzRef[]) {}

  get labels(): string[] {
    return this.azs.map(az => az.label);
  }

  /**
   * Fails when a client's subnets are in an AZ without a mount target of `owner` (Lambda rejects
   * such a function at deploy time); warns when the AZs are only known at deploy time.
   */
  check(scope: IConstruct, prop: string, subnets: ec2.ISubnet[], owner: string, moreFix = ''): void {
    const missing = this.missing(Stack.of(scope), subnets);
    if (missing.unknown) {
      warn(scope, 'azCoverageUnknown',
        `The availability zones of \`${prop}\` or of the mount targets of ${owner} are only known at deploy time, so the library cannot check that every client subnet has a `
          + 'mount target in its AZ. A missing one fails the deployment.');
    }
    if (missing.azs.length > 0) {
      invalid(scope, prop, missing.azs.join(', '),
        `${owner} has mount targets only in ${this.labels.join(', ')}, and a client needs a mount target in every AZ it runs in`,
        `select subnets in ${this.labels.join(', ')} only${moreFix}`);
    }
  }

  missing(stack: Stack, subnets: ec2.ISubnet[]): { azs: string[]; unknown: boolean } {
    const have = new Set(this.azs.map(az => az.key));
    let unknown = this.azs.some(az => !az.comparable);
    const azs = new Set<string>();
    for (const subnet of subnets) {
      const name = subnetAvailabilityZone(subnet);
      if (name === undefined) {
        unknown = true;
        continue;
      }
      const az = azRef(stack, name);
      if (!az.comparable) unknown = true;
      else if (!unknown && !have.has(az.key)) azs.add(az.label);
    }
    return { azs: [...azs], unknown };
  }
}

/**
 * The mount targets' subnets with their AZs. Default: private subnets (isolated ones count), one
 * per AZ. Explicit: must already be one per AZ.
 */
export function selectMountTargetSubnets(
  scope: IConstruct, vpc: ec2.IVpc, selection?: ec2.SubnetSelection,
): Array<{ subnet: ec2.ISubnet; az: AzRef }> {
  let subnets: ec2.ISubnet[];
  if (selection) {
    try {
      subnets = vpc.selectSubnets(selection).subnets;
    } catch (e) {
      invalid(scope, 'vpcSubnets', { ...selection, subnets: selection.subnets?.map(sn => sn.node.path) },
        `the VPC cannot satisfy it (${(e as Error).message.split('\n')[0]})`, 'select subnet groups that exist in the VPC');
    }
  } else {
    const hasPrivate = vpc.privateSubnets.length > 0;
    if (!hasPrivate && vpc.isolatedSubnets.length === 0) {
      invalid(scope, 'vpc', vpc.node.path, 'it has no private or isolated subnets for the mount targets',
        'add PRIVATE_ISOLATED or PRIVATE_WITH_EGRESS subnets to the VPC, or pass `vpcSubnets` explicitly');
    }
    subnets = vpc.selectSubnets({
      subnetType: hasPrivate ? ec2.SubnetType.PRIVATE_WITH_EGRESS : ec2.SubnetType.PRIVATE_ISOLATED,
      onePerAz: true,
    }).subnets;
  }
  if (subnets.length === 0) {
    invalid(scope, 'vpcSubnets', selection ? setKeys(selection) : new Shown('(the default private subnets)'), 'it selects no subnets, so there would be no mount '
      + 'target', 'select at least one subnet');
  }
  const stack = Stack.of(scope);
  const byAz = new Map<string, ec2.ISubnet>();
  return subnets.map((subnet) => {
    const az = subnetAz(scope, stack, subnet);
    const other = byAz.get(az.key);
    if (other) {
      invalid(scope, 'vpcSubnets', [subnetLabel(other), subnetLabel(subnet)], `both subnets are in availability zone ${az.label}, and S3 Files allows one mount target per AZ`,
        'select one subnet per AZ (the `onePerAz` option of the subnet selection)');
    }
    byAz.set(az.key, subnet);
    return { subnet, az };
  });
}
