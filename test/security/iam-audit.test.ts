import * as fs from 'fs';
import * as path from 'path';
import { synthesizeTemplates } from '../validators/templates';

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

/** What Lambda needs on Resource "*" to attach functions to a VPC, and nothing else. */
const ENI_ACTIONS = new Set([
  'ec2:CreateNetworkInterface', 'ec2:DescribeNetworkInterfaces', 'ec2:DeleteNetworkInterface',
  'ec2:AssignPrivateIpAddresses', 'ec2:UnassignPrivateIpAddresses',
]);

const list = <T>(x: T | T[] | undefined): T[] => (x === undefined ? [] : Array.isArray(x) ? x : [x]);

let templates: Array<{ stack: string; template: Json }>;

beforeAll(() => {
  // GIVEN every validator stack, synthesized
  templates = synthesizeTemplates().templates.map((file) => ({
    stack: path.basename(file, '.template.json'),
    template: JSON.parse(fs.readFileSync(file, 'utf8')),
  }));
});

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

describe('IAM audit of every synthesized template', () => {
  test('there are policies to audit', () => {
    // THEN the walk covers every stack
    expect(templates.length).toBeGreaterThanOrEqual(5);
    expect(identityStatements().length).toBeGreaterThan(50);
  });

  test('no Allow on Resource "*" except the ENI actions Lambda needs in a VPC', () => {
    // WHEN every Allow statement is checked for a bare "*" resource
    const offenders = identityStatements()
      .filter(({ statement }) => statement.Effect === 'Allow' && list(statement.Resource).includes('*'))
      .filter(({ statement }) => !list<string>(statement.Action).every((a) => ENI_ACTIONS.has(a)))
      .map(({ stack, resource, statement }) => `${stack}/${resource}: ${JSON.stringify(statement.Action)}`);
    // THEN there is none
    expect(offenders).toEqual([]);
  });

  test('every s3files:Client* grant is on one file system and limited to one of its access points', () => {
    // GIVEN every statement granting a client action
    const grants = identityStatements().filter(({ statement }) => list<string>(statement.Action).some((a) => /^s3files:Client/.test(a)));
    expect(grants.length).toBeGreaterThanOrEqual(8);
    for (const { stack, statement } of grants) {
      const template = templates.find((t) => t.stack === stack)!.template;
      // THEN the only resource is a file system ARN of this stack ...
      const [resource, ...more] = list<Json>(statement.Resource);
      expect(more).toEqual([]);
      const fsId = resource['Fn::GetAtt'][0];
      expect(resource).toEqual({ 'Fn::GetAtt': [fsId, 'FileSystemArn'] });
      expect(template.Resources[fsId].Type).toBe('AWS::S3Files::FileSystem');
      // ... and the condition names one access point of that same file system
      const apArn = statement.Condition?.ArnEquals?.['s3files:AccessPointArn'];
      expect(apArn).toEqual({ 'Fn::GetAtt': [expect.any(String), 'AccessPointArn'] });
      const ap = template.Resources[apArn['Fn::GetAtt'][0]];
      expect(ap.Type).toBe('AWS::S3Files::AccessPoint');
      expect(ap.Properties.FileSystemId).toEqual({ 'Fn::GetAtt': [fsId, 'FileSystemId'] });
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

  test('each file system policy denies non-TLS and allows only the roles granted a client action on it', () => {
    const policies = resources('AWS::S3Files::FileSystemPolicy');
    expect(policies.length).toBe(resources('AWS::S3Files::FileSystem').length);
    for (const { stack, resource } of policies) {
      const fsId = resource.Properties.FileSystemId['Fn::GetAtt'][0];
      const statements = list<Statement>(resource.Properties.Policy.Statement);
      // THEN the first statement denies every s3files action without TLS, to everyone
      expect(statements[0]).toMatchObject({
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Action: 's3files:*',
        Resource: { 'Fn::GetAtt': [fsId, 'FileSystemArn'] },
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      });
      // AND every Allow names one role that holds a matching client grant in its identity policy
      const grantedRoles = new Set(identityStatements()
        .filter((s) => s.stack === stack && JSON.stringify(s.statement.Resource).includes(`"${fsId}"`)
          && list<string>(s.statement.Action).some((a) => a.startsWith('s3files:Client')))
        .flatMap((s) => list<Json>(templates.find((t) => t.stack === stack)!.template.Resources[s.resource].Properties.Roles))
        .map((r) => r.Ref));
      const allows = statements.filter((s) => s.Effect === 'Allow');
      expect(allows.length).toBeGreaterThan(0);
      for (const allow of allows) {
        const principal = allow.Principal?.AWS;
        expect(principal).toEqual({ 'Fn::GetAtt': [expect.any(String), 'Arn'] });
        expect(grantedRoles).toContain(principal['Fn::GetAtt'][0]);
        expect(list<string>(allow.Action).every((a) => a.startsWith('s3files:Client'))).toBe(true);
        expect(allow.Condition?.ArnEquals?.['s3files:AccessPointArn']).toBeDefined();
      }
    }
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

  test('s3files:DeleteFileSystem is granted only with DESTROY, only on that file system, only to the delete guard handler', () => {
    // GIVEN every statement that allows deleting a file system
    const deletes = identityStatements().filter(({ statement }) => list<string>(statement.Action).includes('s3files:DeleteFileSystem'));
    // THEN only the DESTROY stack has one, on its one file system, in the waiter isComplete role policy
    expect(deletes.map((d) => d.stack)).toEqual(['S3FilesComparisonDestroy']);
    expect(deletes[0].resource).toMatch(/^S3FilesMountTargetsWaiterProviderIsCompleteServiceRoleDefaultPolicy/);
    expect(deletes[0].statement.Resource).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^FileSystem/), 'FileSystemArn'] });
    expect(JSON.stringify(identityStatements())).not.toContain('forceDelete');
  });
});
