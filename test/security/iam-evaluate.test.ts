import * as fs from 'fs';
import * as path from 'path';
import { runSimulation } from '@cloud-copilot/iam-simulate';
import { App, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { ACCOUNT, CfnResolver, fileSystemArn, Templates } from './cfn-resolve';
import { Ec2Mount, S3FilesAccessPoint, S3FilesAccessPointGrants, S3FilesFileSystem } from '../../src';
import { synthExample } from '../util/synth-example';
import { isVerificationHarness, synthesizeTemplates } from '../validators/templates';

// Who can mount, decided by an IAM evaluator nobody on this project wrote (@cloud-copilot/iam-simulate,
// a test-only devDependency), on the synthesized templates with every token resolved to a concrete
// ARN, and with only the request context S3 Files documents for a mount: s3files:AccessPointArn
// (the access point mounted through; absent for a mount of the root) and aws:SecureTransport.

type Json = any;
type Decision = 'Allowed' | 'ExplicitlyDenied' | 'ImplicitlyDenied';
const CLIENT = ['s3files:ClientMount', 's3files:ClientWrite', 's3files:ClientRootAccess'] as const;
const list = <T>(x: T | T[] | undefined): T[] => (x === undefined ? [] : Array.isArray(x) ? x : [x]);

let resolver: CfnResolver;

/** Every identity policy document attached to a role (inline, IAM::Policy, customer managed), resolved. */
function identityPolicies(stack: string, roleId: string): Json[] {
  return identityPoliciesIn(resolver, stack, roleId);
}

function identityPoliciesIn(from: CfnResolver, stack: string, roleId: string): Json[] {
  const out: Json[] = [];
  for (const s of from.stacks) {
    for (const r of Object.values<Json>(from.template(s).Resources)) {
      if (r.Type !== 'AWS::IAM::Policy' && r.Type !== 'AWS::IAM::ManagedPolicy') continue;
      const roles = from.resolve(s, list(r.Properties.Roles));
      if (roles.includes(from.roleName(stack, roleId))) out.push(from.resolve(s, r.Properties.PolicyDocument));
    }
  }
  const role = from.template(stack).Resources[roleId];
  for (const p of list<Json>(role.Properties.Policies)) out.push(from.resolve(stack, p.PolicyDocument));
  return out;
}

/** The file-system policy of each file system in the app, by file-system ARN. */
function fileSystemPolicies(): Map<string, Json> {
  const out = new Map<string, Json>();
  for (const s of resolver.stacks) {
    for (const r of Object.values<Json>(resolver.template(s).Resources)) {
      if (r.Type === 'AWS::S3Files::FileSystemPolicy') {
        out.set(fileSystemArn(resolver.resolve(s, r.Properties.FileSystemId)), resolver.resolve(s, r.Properties.Policy));
      }
    }
  }
  return out;
}

interface Client {
  readonly stack: string;
  readonly role: string;
  readonly accessPointArn: string;
  /** The access point's logical id, when the condition names one of the app's. */
  readonly accessPoint?: string;
  readonly fileSystemArn: string;
}

/** Every (role, access point) the app grants a client action to, through the s3files:AccessPointArn condition. */
function clients(): Client[] {
  const out = new Map<string, Client>();
  for (const s of resolver.stacks) {
    const resources = resolver.template(s).Resources;
    for (const r of Object.values<Json>(resources)) {
      if (r.Type !== 'AWS::IAM::Policy') continue;
      for (const st of list<Json>(r.Properties.PolicyDocument.Statement)) {
        if (!list<string>(st.Action).some((a) => a.startsWith('s3files:Client'))) continue;
        const ap = st.Condition?.ArnEquals?.['s3files:AccessPointArn'];
        if (ap === undefined) continue;
        for (const roleRef of list<Json>(r.Properties.Roles)) {
          const roleId = roleOf(s, roleRef);
          const client = {
            stack: roleId.stack,
            role: roleId.id,
            accessPointArn: resolver.resolve(s, ap),
            accessPoint: Array.isArray(ap?.['Fn::GetAtt']) ? ap['Fn::GetAtt'][0] as string : undefined,
            fileSystemArn: resolver.resolve(s, list(st.Resource)[0]),
          };
          out.set(`${client.stack}/${client.role}/${client.accessPointArn}`, client);
        }
      }
    }
  }
  return [...out.values()];
}

/** The role a policy's `Roles` entry names: a Ref in this stack, or a role name resolved in another. */
function roleOf(stack: string, ref: Json): { stack: string; id: string } {
  if (typeof ref?.Ref === 'string' && resolver.template(stack).Resources[ref.Ref]?.Type === 'AWS::IAM::Role') return { stack, id: ref.Ref };
  const name = resolver.resolve(stack, ref);
  for (const s of resolver.stacks) {
    for (const [id, r] of Object.entries<Json>(resolver.template(s).Resources)) {
      if (r.Type === 'AWS::IAM::Role' && resolver.roleName(s, id) === name) return { stack: s, id };
    }
  }
  throw new Error(`${stack}: role ${JSON.stringify(ref)} not found`);
}

async function decide(request: {
  readonly identity: Json[];
  readonly resourcePolicy: Json;
  readonly principal: string;
  readonly action: string;
  readonly fileSystemArn: string;
  readonly accessPointArn?: string;
  readonly secureTransport?: boolean;
  /** Further request context (a resource's tags as aws:ResourceTag/<key>, a request's as aws:RequestTag/<key> and aws:TagKeys). */
  readonly context?: Record<string, string | string[]>;
}): Promise<Decision> {
  const contextVariables: Record<string, string | string[]> = { 'aws:SecureTransport': String(request.secureTransport ?? true), ...request.context };
  if (request.accessPointArn) contextVariables['s3files:AccessPointArn'] = request.accessPointArn;
  const response = await runSimulation({
    identityPolicies: request.identity.map((policy, i) => ({ name: `policy${i}`, policy })),
    serviceControlPolicies: [],
    resourceControlPolicies: [],
    resourcePolicy: request.resourcePolicy,
    request: {
      principal: request.principal,
      action: request.action,
      resource: { resource: request.fileSystemArn, accountId: ACCOUNT },
      contextVariables,
    },
  }, {});
  if (response.resultType === 'error') throw new Error(JSON.stringify(response.errors));
  return response.overallResult as Decision;
}

function loadTemplates(outdir: string): Templates {
  return Object.fromEntries(fs.readdirSync(outdir).filter((f) => f.endsWith('.template.json') && !isVerificationHarness(f))
    .map((f) => [f.replace('.template.json', ''), JSON.parse(fs.readFileSync(path.join(outdir, f), 'utf8'))]));
}

/** The tag Deny this library shipped before (on a key S3 Files does not document for clients). */
const TAG_DENY = {
  Sid: 'DenyClientsWithoutClientTag',
  Effect: 'Deny',
  Principal: { AWS: '*' },
  Action: [...CLIENT],
  Resource: '',
  Condition: { StringNotEquals: { 'aws:PrincipalTag/s3files-client-0123456789abcdef': 'true' } },
};

/**
 * What each client of the validator app may do, by stack and role logical-id prefix: `write`
 * (ClientWrite) and `root` (ClientRootAccess). Every client found must be listed, and every
 * listed one found, so a new mount adapter or layout cannot go unevaluated.
 */
const EXPECTED: Array<{
  readonly stack: string;
  readonly role: RegExp;
  /** Only through the access point whose logical id matches (the first entry that matches wins). */
  readonly accessPoint?: RegExp;
  /** ClientWrite allowed; 'denied' when an explicit Deny holds a read-only mount against the role's wider grants. */
  readonly write: boolean | 'denied';
  readonly root: boolean;
  readonly what: string;
}> = [
  // The L3 in the file system's own stack (quick start); integ stacks use it too.
  { stack: 'MinimalMountedFunction', role: /^FunctionServiceRole/, write: true, root: false, what: 'L3, same stack' },
  { stack: 'S3FilesComparison', role: /^ProcessorS3FilesServiceRole|^Processor.*ServiceRole|^Benchmark|^PrepareDirectories|^ColdStartMounted/, write: true, root: false, what: 'integ L3s' },
  { stack: 'S3FilesComparisonDestroy', role: /./, write: true, root: false, what: 'integ L3s, DESTROY' },
  { stack: 'S3FilesSharedFileSystem', role: /^Reader/, write: false, root: false, what: 'read-only L3 sharing an access point' },
  { stack: 'S3FilesSharedFileSystem', role: /^OwnershipFixer/, write: true, root: true, what: 'rootAccess L3' },
  { stack: 'S3FilesSharedFileSystem', role: /./, write: true, root: false, what: 'writer L3' },
  { stack: 'S3FilesCrossCompute', role: /TaskRole/, write: false, root: false, what: 'ECS task definition, read-only' },
  { stack: 'S3FilesCrossCompute', role: /./, write: true, root: false, what: 'Lambda beside ECS' },
  { stack: 'S3FilesEc2Benchmark', role: /./, write: true, root: false, what: 'EC2 instance' },
  { stack: 'ImportedBucket', role: /^Reader/, write: false, root: false, what: 'L3 on an imported bucket, read-only' },
  { stack: 'FullSurface', role: /./, write: true, root: false, what: 'L3 with every property' },
  { stack: 'MultiStackCompute', role: /^Reader/, write: false, root: false, what: 'L3 in a sibling stack, shared access point, read-only' },
  { stack: 'MultiStackCompute', role: /^(Writer|Own|UsersOwn)/, write: true, root: false, what: 'L3 and LambdaMount.onFunction in a sibling stack' },
  { stack: 'MultiStackStorageWorkers', role: /^Worker/, write: true, root: false, what: 'L3 in a nested stack' },
  { stack: 'OtherCompute', role: /^ReaderTaskRole/, write: false, root: false, what: 'ECS service, read-only' },
  { stack: 'OtherCompute', role: /^JobRole/, write: true, root: false, what: 'Batch job' },
  { stack: 'OtherCompute', role: /^HostInstanceRole/, write: true, root: false, what: 'EC2 instance' },
  { stack: 'OtherCompute', role: /^FleetRole/, write: false, root: false, what: 'EC2 launch template of an Auto Scaling group, read-only' },
  { stack: 'OtherCompute', role: /^Agent/, write: true, root: false, what: 'AgentCore runtime' },
  { stack: 'ImportedFileSystem', role: /^Reader/, write: false, root: false, what: 'imported file system and access point, read-only' },
  { stack: 'ImportedFileSystem', role: /^Writer/, write: true, root: false, what: 'new access point on an imported file system' },
  // One node role for every volume of the cluster; with a storage class it may write through any
  // access point of the file system, except the read-only volume's: an explicit Deny holds it (issue 40.1).
  { stack: 'Kubernetes', role: /^ClusterS3FilesCsiDriverNodeRole/, accessPoint: /^FilesModels/, write: 'denied', root: false, what: 'EKS node role: the read-only volume' },
  { stack: 'Kubernetes', role: /^ClusterS3FilesCsiDriverNodeRole/, write: true, root: false, what: 'EKS node role: volumes and a storage class' },
  // The same on an aws-eks-v2 Auto Mode cluster.
  { stack: 'KubernetesV2', role: /^ClusterS3FilesCsiDriverNodeRole/, accessPoint: /^FilesModels/, write: 'denied', root: false, what: 'aws-eks-v2 node role: the read-only volume' },
  { stack: 'KubernetesV2', role: /^ClusterS3FilesCsiDriverNodeRole/, write: true, root: false, what: 'aws-eks-v2 node role: volumes and a storage class' },
];

function expectationFor(client: Client) {
  const stack = client.stack.replace(/[0-9A-F]{8}\.nested$/, '');
  return EXPECTED.find((e) => e.stack === stack && e.role.test(client.role) && (!e.accessPoint || e.accessPoint.test(client.accessPoint ?? '')));
}

describe('who can mount, by an independent IAM evaluator', () => {
  let found: Client[];
  let policies: Map<string, Json>;
  let defaultPolicyOf: (fsArn: string) => Json;

  beforeAll(() => {
    resolver = new CfnResolver(loadTemplates(synthesizeTemplates().outdir));
    found = clients();
    policies = fileSystemPolicies();
    // An imported file system's policy is its owner's: evaluate it with the policy this library writes.
    const [arn, sample] = [...policies.entries()].find(([, p]) => list(p.Statement).length === 2)!;
    defaultPolicyOf = (fsArn) => JSON.parse(JSON.stringify(sample).split(arn).join(fsArn));
  });

  const policyOf = (fsArn: string) => policies.get(fsArn) ?? defaultPolicyOf(fsArn);
  const principalOf = (c: Client) => `arn:aws:iam::${ACCOUNT}:role/${resolver.roleName(c.stack, c.role)}`;

  test('every client of every adapter and layout has an expectation, and the app has them all', () => {
    const unexpected = found.filter((c) => !expectationFor(c)).map((c) => `${c.stack}/${c.role}`);
    expect(unexpected).toEqual([]);
    const covered = new Set(found.map((c) => expectationFor(c)!.what));
    expect(EXPECTED.map((e) => e.what).filter((what) => !covered.has(what))).toEqual([]);
    // Imported file systems are evaluated too (their ARN is built from the id).
    expect(found.some((c) => c.fileSystemArn.endsWith('fs-0123456789abcdef0'))).toBe(true);
  });

  test('each granted client mounts through its access point; read-only is denied ClientWrite; without rootAccess, ClientRootAccess', async () => {
    const wrong: string[] = [];
    for (const c of found) {
      const want = expectationFor(c)!;
      const base = {
        identity: identityPolicies(c.stack, c.role),
        resourcePolicy: policyOf(c.fileSystemArn),
        principal: principalOf(c),
        fileSystemArn: c.fileSystemArn,
        accessPointArn: c.accessPointArn,
      };
      const got = {
        mount: await decide({ ...base, action: 's3files:ClientMount' }),
        write: await decide({ ...base, action: 's3files:ClientWrite' }),
        root: await decide({ ...base, action: 's3files:ClientRootAccess' }),
      };
      const write = want.write === 'denied' ? 'ExplicitlyDenied' : want.write ? 'Allowed' : 'ImplicitlyDenied';
      const expected = { mount: 'Allowed', write, root: want.root ? 'Allowed' : 'ImplicitlyDenied' };
      if (JSON.stringify(got) !== JSON.stringify(expected)) wrong.push(`${c.stack}/${c.role} (${want.what}): ${JSON.stringify(got)}, expected ${JSON.stringify(expected)}`);
    }
    expect(wrong).toEqual([]);
    expect(found.length).toBeGreaterThanOrEqual(20);
  }, 120_000);

  test('a client is not allowed through another access point of the file system, nor without TLS', async () => {
    const c = found.find((x) => x.stack === 'MultiStackCompute' && /^Writer/.test(x.role))!;
    const other = found.find((x) => x.fileSystemArn === c.fileSystemArn && x.accessPointArn !== c.accessPointArn)!;
    const base = {
      identity: identityPolicies(c.stack, c.role),
      resourcePolicy: policyOf(c.fileSystemArn),
      principal: principalOf(c),
      fileSystemArn: c.fileSystemArn,
    };
    expect(await decide({ ...base, action: 's3files:ClientMount', accessPointArn: other.accessPointArn })).toBe('ImplicitlyDenied');
    expect(await decide({ ...base, action: 's3files:ClientMount', accessPointArn: c.accessPointArn, secureTransport: false })).toBe('ExplicitlyDenied');
  });

  test('a role holding s3files:Client* on "*" (a managed client policy) mounts through an access point, never the root', async () => {
    // The documented limit of the default: the file-system policy cannot tell roles apart without naming them.
    const c = found.find((x) => x.stack === 'MinimalMountedFunction')!;
    const managed = { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: ['s3files:ClientMount', 's3files:ClientWrite', 's3files:ClientRootAccess'], Resource: '*' }] };
    const base = { identity: [managed], resourcePolicy: policyOf(c.fileSystemArn), principal: `arn:aws:iam::${ACCOUNT}:role/SomeAdmin`, fileSystemArn: c.fileSystemArn };
    expect(await decide({ ...base, action: 's3files:ClientWrite', accessPointArn: c.accessPointArn })).toBe('Allowed');
    for (const action of CLIENT) expect(await decide({ ...base, action })).toBe('ExplicitlyDenied');
  });

  test('with the tag Deny this library used to write, every client is denied: the evaluation tells the two apart', async () => {
    const denied: string[] = [];
    for (const c of found) {
      const policy = policyOf(c.fileSystemArn);
      const withTagDeny = { ...policy, Statement: [...list(policy.Statement), { ...TAG_DENY, Resource: c.fileSystemArn }] };
      const got = await decide({ identity: identityPolicies(c.stack, c.role), resourcePolicy: withTagDeny, principal: principalOf(c), action: 's3files:ClientMount', fileSystemArn: c.fileSystemArn, accessPointArn: c.accessPointArn });
      if (got === 'ExplicitlyDenied') denied.push(c.role);
    }
    expect(denied).toHaveLength(found.length);
  }, 120_000);
});

describe('the README\'s per-role pin (addToResourcePolicy), by the same evaluator', () => {
  test('the pinned role mounts through its access point only, whatever else it is granted; others are unaffected', async () => {
    resolver = new CfnResolver(synthExample('one-access-point.ts'));
    const template = resolver.template('PinnedClient');
    const [policyResource] = Object.values<Json>(template.Resources).filter((r) => r.Type === 'AWS::S3Files::FileSystemPolicy');
    const policy = resolver.resolve('PinnedClient', policyResource.Properties.Policy);
    const fsArn = fileSystemArn(resolver.resolve('PinnedClient', policyResource.Properties.FileSystemId));
    const roleId = Object.keys(template.Resources).find((id) => id.startsWith('ReporterServiceRole') && template.Resources[id].Type === 'AWS::IAM::Role')!;
    const apId = Object.keys(template.Resources).find((id) => template.Resources[id].Type === 'AWS::S3Files::AccessPoint')!;
    const reports = resolver.resolve('PinnedClient', { 'Fn::GetAtt': [apId, 'AccessPointArn'] });
    const elsewhere = `${fsArn}/access-point/fsap-0000000000000000a`;
    const reporter = `arn:aws:iam::${ACCOUNT}:role/${resolver.roleName('PinnedClient', roleId)}`;
    const anything = { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: 's3files:Client*', Resource: '*' }] };
    const own = identityPolicies('PinnedClient', roleId);
    // THEN through /reports it mounts and writes; through another access point, even with Client* on "*", it is denied
    expect(await decide({ identity: own, resourcePolicy: policy, principal: reporter, action: 's3files:ClientWrite', fileSystemArn: fsArn, accessPointArn: reports })).toBe('Allowed');
    expect(await decide({ identity: [...own, anything], resourcePolicy: policy, principal: reporter, action: 's3files:ClientMount', fileSystemArn: fsArn, accessPointArn: elsewhere })).toBe('ExplicitlyDenied');
    // AND another role with the same broad grant is not caught by the pin
    expect(await decide({ identity: [anything], resourcePolicy: policy, principal: `arn:aws:iam::${ACCOUNT}:role/Other`, action: 's3files:ClientMount', fileSystemArn: fsArn, accessPointArn: elsewhere })).toBe('Allowed');
  }, 180_000);
});

describe('mounting the root (no access point), by the same evaluator', () => {
  /** An administrator granted root access on the file system itself, with or without the opt-out. */
  async function adminMountsRoot(allowMountsWithoutAccessPoint?: boolean): Promise<Decision[]> {
    const app = new App();
    const stack = new Stack(app, 'Admin');
    const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 0, subnetConfiguration: [{ name: 'i', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }] });
    const fileSystem = new S3FilesFileSystem(stack, 'Files', { vpc, allowMountsWithoutAccessPoint });
    fileSystem.grantRootAccess(new iam.Role(stack, 'Admin', { assumedBy: new iam.ServicePrincipal('ec2.amazonaws.com') }));
    resolver = new CfnResolver({ Admin: Template.fromStack(stack).toJSON() });
    const t = resolver.template('Admin');
    const [policy] = Object.values<Json>(t.Resources).filter((r) => r.Type === 'AWS::S3Files::FileSystemPolicy');
    const roleId = Object.keys(t.Resources).find((id) => id.startsWith('Admin') && t.Resources[id].Type === 'AWS::IAM::Role')!;
    const base = {
      identity: identityPolicies('Admin', roleId),
      resourcePolicy: resolver.resolve('Admin', policy.Properties.Policy),
      principal: `arn:aws:iam::${ACCOUNT}:role/${resolver.roleName('Admin', roleId)}`,
      fileSystemArn: fileSystemArn(resolver.resolve('Admin', policy.Properties.FileSystemId)),
    };
    return Promise.all(CLIENT.map((action) => decide({ ...base, action })));
  }

  test('is denied by default, even to a role granted root access on the file system', async () => {
    expect(await adminMountsRoot()).toEqual(['ExplicitlyDenied', 'ExplicitlyDenied', 'ExplicitlyDenied']);
  });

  test('is allowed with allowMountsWithoutAccessPoint to the roles granted on the file system', async () => {
    expect(await adminMountsRoot(true)).toEqual(['Allowed', 'Allowed', 'Allowed']);
  });
});

describe('the delete guard\'s right to delete, by the same evaluator', () => {
  test('the handler role deletes a file system tagged with its own stack\'s id only: not one tagged "false" (RETAIN), not another stack\'s', async () => {
    resolver = new CfnResolver(loadTemplates(synthesizeTemplates().outdir));
    const stacks = resolver.stacks.filter((s) => Object.keys(resolver.template(s).Resources).some((id) => id.startsWith('cdks3fileslambdaWaiterProviderHandlerPolicy')));
    expect(stacks.length).toBeGreaterThanOrEqual(10);
    const tag = 'aws:ResourceTag/cdk-s3files-lambda:delete-with-stack';
    const got: Record<string, Decision[]> = {};
    for (const stack of stacks) {
      const roleId = Object.keys(resolver.template(stack).Resources).find((id) => /^cdks3fileslambdaWaiterProviderIsCompleteServiceRole[0-9A-F]{8}$/.test(id))!;
      const other = stacks.find((s) => s !== stack)!;
      const base = {
        identity: identityPolicies(stack, roleId),
        resourcePolicy: undefined,
        principal: `arn:aws:iam::${ACCOUNT}:role/${resolver.roleName(stack, roleId)}`,
        action: 's3files:DeleteFileSystem',
        fileSystemArn: `arn:aws:s3files:us-east-1:${ACCOUNT}:file-system/fs-0123456789abcdef0`,
      };
      got[stack] = await Promise.all([
        decide({ ...base, context: { [tag]: resolver.resolve(stack, { Ref: 'AWS::StackId' }) } }),
        decide({ ...base, context: { [tag]: 'false' } }),
        decide({ ...base, context: { [tag]: resolver.resolve(other, { Ref: 'AWS::StackId' }) } }),
        decide(base),
      ]);
    }
    for (const stack of stacks) expect({ stack, decisions: got[stack] }).toEqual({ stack, decisions: ['Allowed', 'ImplicitlyDenied', 'ImplicitlyDenied', 'ImplicitlyDenied'] });
  }, 120_000);
});

describe('a changed bucket key (item 15)', () => {
  // (@cloud-copilot/iam-simulate drops kms:EncryptionContext:<key> from the request as a key it does
  // not know, so this one reads the resolved statements: resource by glob, conditions by value.)
  const glob = (pattern: string, value: string) => new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`).test(value);

  test('after bucketEncryptionKey changes, the service role and a client may still decrypt objects under the old key, through S3, for this bucket only', () => {
    // GIVEN a created bucket under key A, then the same app with key B (objects written before stay under A)
    const build = (keyId: string) => {
      const app = new App();
      const stack = new Stack(app, 'Storage');
      const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 0, subnetConfiguration: [{ name: 'i', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }] });
      const fileSystem = new S3FilesFileSystem(stack, 'Files', { vpc, bucketEncryptionKey: new kms.Key(stack, keyId) });
      const reader = new iam.Role(stack, 'Reader', { assumedBy: new iam.ServicePrincipal('ec2.amazonaws.com') });
      Ec2Mount.onLaunchTemplate(new ec2.LaunchTemplate(stack, 'Fleet', {
        userData: ec2.UserData.forLinux(), role: reader, securityGroup: new ec2.SecurityGroup(stack, 'Sg', { vpc }),
      }), fileSystem.addAccessPoint('Data', { path: '/data' }), { readOnly: true });
      return new CfnResolver({ Storage: Template.fromStack(stack).toJSON() });
    };
    const before = build('KeyA');
    const after = build('KeyB');
    const t = after.template('Storage');
    const oldKey = before.resolve('Storage', { 'Fn::GetAtt': [Object.keys(before.template('Storage').Resources).find((id) => id.startsWith('KeyA'))!, 'Arn'] });
    const bucket = after.resolve('Storage', { 'Fn::GetAtt': [Object.keys(t.Resources).find((id) => id.startsWith('FilesBucket') && t.Resources[id].Type === 'AWS::S3::Bucket')!, 'Arn'] });
    const roleNamed = (prefix: string) => Object.keys(t.Resources).find((id) => id.startsWith(prefix) && t.Resources[id].Type === 'AWS::IAM::Role')!;
    /** Whether a statement of the role allows kms:Decrypt on `key` for `request` (every condition value matched by glob). */
    const allows = (roleId: string, key: string, request: Record<string, string>) => identityPoliciesIn(after, 'Storage', roleId)
      .flatMap((p) => list<Json>(p.Statement))
      .some((st) => st.Effect === 'Allow' && list<string>(st.Action).some((a) => glob(a, 'kms:Decrypt')) && list<string>(st.Resource).some((r) => glob(r, key))
        && Object.values<Json>(st.Condition ?? {}).every((block) => Object.entries<Json>(block).every(([k, v]) => request[k] !== undefined
          && list<string>(v).some((pattern) => glob(pattern, request[k])))));
    const viaS3 = { 'kms:ViaService': 's3.us-east-1.amazonaws.com' };
    for (const roleId of [roleNamed('FilesServiceRole'), roleNamed('Reader')]) {
      // THEN the old key still decrypts this bucket's objects through S3 ...
      expect({ roleId, allowed: allows(roleId, oldKey, { ...viaS3, 'kms:EncryptionContext:aws:s3:arn': `${bucket}/data/report.csv` }) }).toEqual({ roleId, allowed: true });
      // ... and neither another bucket's objects, nor outside S3
      expect(allows(roleId, oldKey, { ...viaS3, 'kms:EncryptionContext:aws:s3:arn': 'arn:aws:s3:::someone-elses/report.csv' })).toBe(false);
      expect(allows(roleId, oldKey, { 'kms:ViaService': 'ssm.us-east-1.amazonaws.com', 'kms:EncryptionContext:aws:s3:arn': `${bucket}/data/report.csv` })).toBe(false);
    }
  });
});

describe('EKS: the driver\'s roles, by the same evaluator (the Kubernetes stack of the validator app)', () => {
  const TAG = 'efs.csi.aws.com/cluster';
  let k: CfnResolver;
  let fsArn: string;
  let node: Json[];
  let controller: Json[];
  let fsPolicy: Json;
  const accessPointArns: string[] = [];
  const roleArn = (role: string) => `arn:aws:iam::${ACCOUNT}:role/${k.roleName('Kubernetes', role)}`;
  const roleId = (prefix: string) => Object.keys(k.template('Kubernetes').Resources)
    .find((id) => id.startsWith(prefix) && k.template('Kubernetes').Resources[id].Type === 'AWS::IAM::Role')!;

  beforeAll(() => {
    k = new CfnResolver(loadTemplates(synthesizeTemplates().outdir));
    const resources = k.template('Kubernetes').Resources;
    const [policy] = Object.values<Json>(resources).filter((r) => r.Type === 'AWS::S3Files::FileSystemPolicy');
    fsArn = fileSystemArn(k.resolve('Kubernetes', policy.Properties.FileSystemId));
    fsPolicy = k.resolve('Kubernetes', policy.Properties.Policy);
    for (const [id, r] of Object.entries<Json>(resources)) {
      if (r.Type === 'AWS::S3Files::AccessPoint') accessPointArns.push(k.resolve('Kubernetes', { 'Fn::GetAtt': [id, 'AccessPointArn'] }));
    }
    node = identityPoliciesIn(k, 'Kubernetes', roleId('ClusterS3FilesCsiDriverNodeRole'));
    controller = identityPoliciesIn(k, 'Kubernetes', roleId('ClusterS3FilesCsiDriverControllerRole'));
  });

  test('the node role mounts through the file system\'s access points, never its root nor another file system', async () => {
    const base = { identity: node, resourcePolicy: fsPolicy, principal: roleArn(roleId('ClusterS3FilesCsiDriverNodeRole')), fileSystemArn: fsArn };
    expect(accessPointArns).toHaveLength(2);
    for (const ap of accessPointArns) expect(await decide({ ...base, action: 's3files:ClientMount', accessPointArn: ap })).toBe('Allowed');
    // an access point dynamic provisioning creates at run time
    expect(await decide({ ...base, action: 's3files:ClientWrite', accessPointArn: `${fsArn}/access-point/fsap-0dd0dd0dd0dd0dd0d` })).toBe('Allowed');
    expect(await decide({ ...base, action: 's3files:ClientMount' })).toBe('ExplicitlyDenied');
    expect(await decide({ ...base, action: 's3files:ClientRootAccess', accessPointArn: accessPointArns[0] })).toBe('ImplicitlyDenied');
    const other = fsArn.replace(/fs-[0-9a-f]+$/, 'fs-0ther0000000000a');
    expect(await decide({ ...base, fileSystemArn: other, resourcePolicy: undefined, action: 's3files:ClientMount', accessPointArn: `${other}/access-point/fsap-0123456789abcdef0` }))
      .toBe('ImplicitlyDenied');
    // AND the controller cannot mount at all
    expect(await decide({ ...base, identity: controller, action: 's3files:ClientMount', accessPointArn: accessPointArns[0] })).toBe('ImplicitlyDenied');
  });

  test('a read-only volume holds (issue 40.1): the node role, which a storage class lets write through any access point, is denied ClientWrite through the read-only volume\'s', async () => {
    const principal = roleArn(roleId('ClusterS3FilesCsiDriverNodeRole'));
    const base = { identity: node, resourcePolicy: fsPolicy, principal, fileSystemArn: fsArn };
    const resources = k.template('Kubernetes').Resources;
    const apArn = (prefix: string) => k.resolve('Kubernetes', { 'Fn::GetAtt': [Object.keys(resources).find((id) => id.startsWith(prefix) && resources[id].Type === 'AWS::S3Files::AccessPoint')!, 'AccessPointArn'] });
    const models = apArn('FilesModels');
    // the read-only volume mounts, and may not write (without the Deny: Allowed, through the storage class's grant)
    expect(await decide({ ...base, action: 's3files:ClientMount', accessPointArn: models })).toBe('Allowed');
    expect(await decide({ ...base, action: 's3files:ClientWrite', accessPointArn: models })).toBe('ExplicitlyDenied');
    // AND the read-write volume and the access points the controller creates stay writable
    expect(await decide({ ...base, action: 's3files:ClientWrite', accessPointArn: apArn('FilesShared') })).toBe('Allowed');
    expect(await decide({ ...base, action: 's3files:ClientWrite', accessPointArn: `${fsArn}/access-point/fsap-0dd0dd0dd0dd0dd0d` })).toBe('Allowed');
  });

  test('the controller creates access points on this file system only with the driver\'s tag, and deletes only tagged ones of it', async () => {
    const principal = roleArn(roleId('ClusterS3FilesCsiDriverControllerRole'));
    const ask = (action: string, resource: string, context: Record<string, string | string[]> = {}) =>
      decide({ identity: controller, resourcePolicy: undefined, principal, action, fileSystemArn: resource, context });
    const tagged = { [`aws:RequestTag/${TAG}`]: 'true', 'aws:TagKeys': [TAG] };
    const other = fsArn.replace(/fs-[0-9a-f]+$/, 'fs-0ther0000000000a');
    const ap = `${fsArn}/access-point/fsap-0dd0dd0dd0dd0dd0d`;
    expect(await ask('s3files:CreateAccessPoint', fsArn, tagged)).toBe('Allowed');
    expect(await ask('s3files:CreateAccessPoint', fsArn)).toBe('ImplicitlyDenied');
    expect(await ask('s3files:CreateAccessPoint', fsArn, { ...tagged, 'aws:RequestTag/team': 'x', 'aws:TagKeys': [TAG, 'team'] })).toBe('ImplicitlyDenied');
    expect(await ask('s3files:CreateAccessPoint', other, tagged)).toBe('ImplicitlyDenied');
    // tagging only as part of creating the access point
    expect(await ask('s3files:TagResource', ap, { ...tagged, 's3files:CreateAction': 'CreateAccessPoint' })).toBe('Allowed');
    expect(await ask('s3files:TagResource', ap, tagged)).toBe('ImplicitlyDenied');
    expect(await ask('s3files:TagResource', fsArn, { ...tagged, 's3files:CreateAction': 'CreateFileSystem' })).toBe('ImplicitlyDenied');
    // deleting: this file system's access points carrying the tag
    expect(await ask('s3files:DeleteAccessPoint', ap, { [`aws:ResourceTag/${TAG}`]: 'true' })).toBe('Allowed');
    expect(await ask('s3files:DeleteAccessPoint', ap)).toBe('ImplicitlyDenied');
    expect(await ask('s3files:DeleteAccessPoint', accessPointArns[0])).toBe('ImplicitlyDenied');
    expect(await ask('s3files:DeleteAccessPoint', `${other}/access-point/fsap-0dd0dd0dd0dd0dd0d`, { [`aws:ResourceTag/${TAG}`]: 'true' })).toBe('ImplicitlyDenied');
    // listing: what the driver calls without naming a resource
    expect(await ask('s3files:ListFileSystems', '*')).toBe('Allowed');
    expect(await ask('s3files:ListAccessPoints', '*')).toBe('Allowed');
    expect(await ask('s3files:DeleteFileSystem', fsArn)).toBe('ImplicitlyDenied');
  });
});

describe('grants in any spelling IAM reads, and across accounts (issue 37, items 8 and 9)', () => {
  const OTHER = '222222222222';
  const otherRole = `arn:aws:iam::${OTHER}:role/worker`;

  /** A storage stack in ACCOUNT with one file system and two access points; `grant` adds grants to it. */
  function app(grant: (s: { stack: Stack; team: S3FilesAccessPoint; files: S3FilesFileSystem }) => void) {
    const a = new App();
    const stack = new Stack(a, 'Storage', { env: { account: ACCOUNT, region: 'us-east-1' } });
    const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 0, subnetConfiguration: [{ name: 'i', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }] });
    const files = new S3FilesFileSystem(stack, 'Files', { vpc });
    const team = files.addAccessPoint('Team', { path: '/team' });
    files.addAccessPoint('Other', { path: '/other' });
    grant({ stack, team, files });
    const r = new CfnResolver(loadTemplates(a.synth().directory));
    const resources = r.template('Storage').Resources;
    const [policy] = Object.values<Json>(resources).filter((x) => x.Type === 'AWS::S3Files::FileSystemPolicy');
    const teamId = Object.keys(resources).find((k) => k.startsWith('FilesTeam') && resources[k].Type === 'AWS::S3Files::AccessPoint')!;
    return {
      warnings: Annotations.fromStack(stack).findWarning('*', Match.anyValue()).map((w) => JSON.stringify(w.entry.data)),
      fsPolicy: r.resolve('Storage', policy.Properties.Policy),
      fsArn: fileSystemArn(r.resolve('Storage', policy.Properties.FileSystemId)),
      team: r.resolve('Storage', { 'Fn::GetAtt': [teamId, 'AccessPointArn'] }) as string,
    };
  }

  test('another account\'s role granted through an access point: the file-system policy allows it there, and only there', async () => {
    // GIVEN the owner grants another account's role read-write through one access point
    const { fsPolicy, fsArn, team } = app(({ stack, team: ap }) => {
      ap.grantReadWrite(iam.Role.fromRoleArn(stack, 'Theirs', otherRole));
    });
    // AND that account gives its role the same client actions (the identity side, theirs to write)
    const identity = [{
      Version: '2012-10-17',
      Statement: [{
        Effect: 'Allow',
        Action: ['s3files:ClientMount', 's3files:ClientWrite'],
        Resource: fsArn,
        Condition: { ArnEquals: { 's3files:AccessPointArn': team } },
      }],
    }];
    const ask = (action: string, accessPointArn?: string) =>
      decide({ identity, resourcePolicy: fsPolicy, principal: otherRole, action, fileSystemArn: fsArn, accessPointArn });
    // THEN it mounts and writes through that access point (without the file-system policy's Allow: ImplicitlyDenied)
    expect(await ask('s3files:ClientMount', team)).toBe('Allowed');
    expect(await ask('s3files:ClientWrite', team)).toBe('Allowed');
    // AND not through another access point, not the root, not as root
    expect(await ask('s3files:ClientMount', `${fsArn}/access-point/fsap-0ther0000000000aa`)).not.toBe('Allowed');
    expect(await ask('s3files:ClientMount')).toBe('ExplicitlyDenied');
    expect(await ask('s3files:ClientRootAccess', team)).not.toBe('Allowed');
    // AND a role of this account is not named in the file-system policy (one Allow in either policy suffices)
    const mine = (stack: Stack) => new iam.Role(stack, 'Mine', { assumedBy: new iam.ServicePrincipal('ecs-tasks.amazonaws.com') });
    const same = app(({ stack, team: ap }) => ap.grantReadWrite(mine(stack)));
    expect(list(same.fsPolicy.Statement).filter((s: Json) => s.Effect === 'Allow')).toEqual([]);
  });

  test('an AccountPrincipal of another account: its Allow is in the file-system policy, with the access-point condition', async () => {
    const { fsPolicy, team } = app(({ team: ap }) => ap.grantRead(new iam.AccountPrincipal(OTHER)));
    const allows = list(fsPolicy.Statement).filter((s: Json) => s.Effect === 'Allow');
    expect(allows).toEqual([expect.objectContaining({
      Principal: { AWS: `arn:aws:iam::${OTHER}:root` }, Action: 's3files:ClientMount', Condition: { ArnEquals: { 's3files:AccessPointArn': team } },
    })]);
  });

  test('an ArnPrincipal of another account: the file-system policy allows it (its ARN names the account), and it mounts', async () => {
    // GIVEN the owner grants a principal known only by its ARN
    const { fsPolicy, fsArn, team, warnings } = app(({ team: ap }) => ap.grant(new iam.ArnPrincipal(otherRole), 's3files:ClientMount'));
    const identity = [{ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: 's3files:ClientMount', Resource: fsArn }] }];
    // THEN with its own account's identity policy it mounts through that access point, not through another
    const ask = (accessPointArn: string) => decide({ identity, resourcePolicy: fsPolicy, principal: otherRole, action: 's3files:ClientMount', fileSystemArn: fsArn, accessPointArn });
    expect(await ask(team)).toBe('Allowed');
    expect(await ask(`${fsArn}/access-point/fsap-0ther0000000000aa`)).not.toBe('Allowed');
    // AND the warning about the identity side says the file-system policy already allows it
    expect(warnings.join('\n')).toMatch(/also allowed to it in the file-system policy of Storage\/Files/);
  });

  test.each<[string, (stack: Stack) => iam.IGrantable]>([
    ['an imported role of another account', (stack) => iam.Role.fromRoleArn(stack, 'Theirs', otherRole)],
    ['an AccountPrincipal', () => new iam.AccountPrincipal(OTHER)],
    ['an ArnPrincipal', () => new iam.ArnPrincipal(otherRole)],
  ])('an environment-agnostic storage stack still allows %s (a literal account) in the file-system policy', (_, principal) => {
    const a = new App();
    const stack = new Stack(a, 'Storage');
    const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 0, subnetConfiguration: [{ name: 'i', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }] });
    const ap = new S3FilesFileSystem(stack, 'Files', { vpc }).addAccessPoint('Team', { path: '/team' });
    ap.grantRead(principal(stack));
    const [policy] = Object.values<Json>(Template.fromStack(stack).findResources('AWS::S3Files::FileSystemPolicy'));
    const allows = list(policy.Properties.Policy.Statement).filter((x: Json) => x.Effect === 'Allow');
    expect(allows).toEqual([expect.objectContaining({ Action: 's3files:ClientMount' })]);
    expect(JSON.stringify(allows[0].Principal)).toContain(OTHER);
  });

  test.each<[string, () => iam.IPrincipal]>([
    ['an assumed-role session ARN', () => new iam.ArnPrincipal(`arn:aws:sts::${OTHER}:assumed-role/worker/session`)],
    ['an ArnPrincipal with conditions', () => new iam.ArnPrincipal(otherRole).withConditions({ StringEquals: { 'aws:PrincipalTag/team': 'a' } })],
    ['a CompositePrincipal of one account\'s ARNs', () => new iam.CompositePrincipal(new iam.ArnPrincipal(otherRole), new iam.ArnPrincipal(`arn:aws:iam::${OTHER}:role/other`))],
  ])('%s of another account gets the Allow in the file-system policy', (_, principal) => {
    const { fsPolicy } = app(({ team: ap }) => ap.grantRead(principal()));
    const allows = list(fsPolicy.Statement).filter((x: Json) => x.Effect === 'Allow');
    expect(allows).toHaveLength(1);
    expect(JSON.stringify(allows[0].Principal)).toContain(OTHER);
  });

  test('a CompositePrincipal of two accounts\' ARNs, or of this account\'s, gets no Allow (no one account to compare)', () => {
    const mixed = app(({ team: ap }) => ap.grantRead(new iam.CompositePrincipal(new iam.ArnPrincipal(otherRole), new iam.ArnPrincipal(`arn:aws:iam::${ACCOUNT}:role/mine`))));
    expect(list(mixed.fsPolicy.Statement).filter((x: Json) => x.Effect === 'Allow')).toEqual([]);
  });

  test('a role of a sibling environment-agnostic stack (its account a token) is not put in the file-system policy: no cycle', () => {
    const a = new App();
    const stack = new Stack(a, 'Storage');
    const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 0, subnetConfiguration: [{ name: 'i', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }] });
    const ap = new S3FilesFileSystem(stack, 'Files', { vpc }).addAccessPoint('Team', { path: '/team' });
    const compute = new Stack(a, 'Compute');
    ap.grantReadWrite(new iam.Role(compute, 'Worker', { assumedBy: new iam.ServicePrincipal('ecs-tasks.amazonaws.com') }));
    const [policy] = Object.values<Json>(Template.fromStack(stack).findResources('AWS::S3Files::FileSystemPolicy'));
    expect(list(policy.Properties.Policy.Statement).filter((x: Json) => x.Effect === 'Allow')).toEqual([]);
    expect(() => a.synth()).not.toThrow();
  });

  test.each(['s3files:clientwrite', 's3files:*Write', 's3files:C*'])('accessPoint.grant(role, %s) counts as a write: a read-only mount of that role is warned about', (action) => {
    const { warnings } = app(({ stack, team: ap, files }) => {
      const role = new iam.Role(stack, 'Shared', { assumedBy: new iam.ServicePrincipal('ec2.amazonaws.com') });
      ap.grant(role, action);
      const host = new ec2.Instance(stack, 'Host', {
        vpc: files.vpc!,
        vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
        role,
        instanceType: ec2.InstanceType.of(ec2.InstanceClass.T4G, ec2.InstanceSize.MICRO),
        machineImage: ec2.MachineImage.latestAmazonLinux2023({ cpuType: ec2.AmazonLinuxCpuType.ARM_64 }),
      });
      Ec2Mount.onInstance(host, ap, { readOnly: true });
    });
    expect(warnings.join('\n')).toContain('readOnlySharedRole');
  });

  test('grantMount() on another account\'s access point warns as grantReadWrite() does', () => {
    const stack = new Stack(new App(), 'Client', { env: { account: ACCOUNT, region: 'us-east-1' } });
    const theirs = S3FilesFileSystem.fromFileSystemAttributes(stack, 'Theirs', { fileSystemArn: `arn:aws:s3files:us-east-1:${OTHER}:file-system/fs-0123456789abcdef0` });
    const ap = S3FilesAccessPoint.fromAccessPointAttributes(stack, 'Ap', { fileSystem: theirs, accessPointId: 'fsap-0123456789abcdef0' });
    S3FilesAccessPointGrants.fromAccessPoint(ap).mount(new iam.Role(stack, 'Worker', { assumedBy: new iam.ServicePrincipal('ecs-tasks.amazonaws.com') }), { grantDirectReads: false });
    const found = Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('crossAccountFileSystem'));
    expect(found).toHaveLength(1);
  });
});
