import * as crypto from 'crypto';

// Resolves the intrinsics of a set of synthesized templates (one app) to the concrete values a
// deployment in one account and region would give them, so that policies can be evaluated the way
// IAM evaluates them: with real ARNs, not tokens.

type Json = any;
export const ACCOUNT = '111122223333';
export const REGION = 'us-east-1';

export interface Templates { readonly [stack: string]: Json }

const hex = (s: string, n: number) => crypto.createHash('sha256').update(s).digest('hex').slice(0, n);

export class CfnResolver {
  constructor(private readonly templates: Templates) {}

  /** The template of `stack`. */
  public template(stack: string): Json {
    const t = this.templates[stack];
    if (!t) throw new Error(`no template ${stack}`);
    return t;
  }

  /** Every stack name. */
  public get stacks(): string[] {
    return Object.keys(this.templates);
  }

  /** A value with every intrinsic replaced; throws on one it does not know. */
  public resolve(stack: string, value: Json): Json {
    if (value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map((v) => this.resolve(stack, v));
    const keys = Object.keys(value);
    if (keys.length === 1 && (keys[0] === 'Ref' || keys[0].startsWith('Fn::'))) return this.intrinsic(stack, keys[0], value[keys[0]]);
    return Object.fromEntries(keys.map((k) => [k, this.resolve(stack, value[k])]));
  }

  private intrinsic(stack: string, fn: string, arg: Json): Json {
    switch (fn) {
      case 'Ref': return this.ref(stack, arg);
      case 'Fn::GetAtt': return this.getAtt(stack, arg[0], arg[1]);
      case 'Fn::Join': return (this.resolve(stack, arg[1]) as Json[]).join(arg[0]);
      case 'Fn::Select': return (this.resolve(stack, arg[1]) as Json[])[Number(this.resolve(stack, arg[0]))];
      case 'Fn::Split': return String(this.resolve(stack, arg[1])).split(arg[0]);
      case 'Fn::Sub': {
        const [text, vars] = typeof arg === 'string' ? [arg, {}] : [arg[0], arg[1] ?? {}];
        return String(text).replace(/\$\{([^}!][^}]*)\}/g, (_m: string, name: string) => {
          if (name in vars) return String(this.resolve(stack, vars[name]));
          const [id, attribute] = name.split('.');
          return String(attribute ? this.getAtt(stack, id, attribute) : this.ref(stack, id));
        });
      }
      case 'Fn::GetAZs': return [`${REGION}a`, `${REGION}b`, `${REGION}c`];
      case 'Fn::ImportValue': {
        const name = this.resolve(stack, arg);
        for (const [other, t] of Object.entries<Json>(this.templates)) {
          const output = Object.values<Json>(t.Outputs ?? {}).find((o) => o.Export && this.resolve(other, o.Export.Name) === name);
          if (output) return this.resolve(other, output.Value);
        }
        throw new Error(`${stack}: no export ${name}`);
      }
      default: throw new Error(`${stack}: cannot resolve ${fn}`);
    }
  }

  private ref(stack: string, name: string): Json {
    const pseudo: Record<string, string> = {
      'AWS::Partition': 'aws',
      'AWS::Region': REGION,
      'AWS::AccountId': ACCOUNT,
      'AWS::URLSuffix': 'amazonaws.com',
      'AWS::StackName': stack,
      'AWS::StackId': `arn:aws:cloudformation:${REGION}:${ACCOUNT}:stack/${stack}/${hex(stack, 8)}-0000-4000-8000-${hex(stack, 12)}`,
      'AWS::NoValue': '',
    };
    if (name in pseudo) return pseudo[name];
    const t = this.template(stack);
    if (t.Parameters?.[name]) return this.parameter(stack, name);
    const resource = t.Resources?.[name];
    if (!resource) throw new Error(`${stack}: Ref to unknown ${name}`);
    switch (resource.Type) {
      case 'AWS::IAM::Role': return this.roleName(stack, name);
      case 'AWS::S3::Bucket': return resource.Properties?.BucketName ?? `${stack}-${name}`.toLowerCase().slice(0, 63);
      case 'AWS::EC2::SecurityGroup': return `sg-${hex(`${stack}/${name}`, 17)}`;
      case 'AWS::EC2::VPC': return `vpc-${hex(`${stack}/${name}`, 17)}`;
      case 'AWS::EC2::Subnet': return `subnet-${hex(`${stack}/${name}`, 17)}`;
      case 'AWS::SNS::Topic': return `arn:aws:sns:${REGION}:${ACCOUNT}:${stack}-${name}`;
      case 'AWS::IAM::ManagedPolicy': return `arn:aws:iam::${ACCOUNT}:policy/${stack}-${name}`;
      default: return `${stack}-${name}`;
    }
  }

  /** A nested stack's parameter takes the value its parent passes (CDK names them uniquely); others their default. */
  private parameter(stack: string, name: string): Json {
    for (const [parent, t] of Object.entries<Json>(this.templates)) {
      for (const r of Object.values<Json>(t.Resources ?? {})) {
        if (r.Type === 'AWS::CloudFormation::Stack' && r.Properties?.Parameters?.[name] !== undefined) return this.resolve(parent, r.Properties.Parameters[name]);
      }
    }
    const def = this.template(stack).Parameters[name].Default;
    if (def === undefined) throw new Error(`${stack}: parameter ${name} has no value`);
    return def;
  }

  public roleName(stack: string, id: string): string {
    return `${stack}-${id}`.slice(0, 64);
  }

  private getAtt(stack: string, id: string, attribute: string): Json {
    const resource = this.template(stack).Resources?.[id];
    if (!resource) throw new Error(`${stack}: GetAtt of unknown ${id}`);
    const key = `${stack}/${id}`;
    switch (`${resource.Type}.${attribute}`) {
      case 'AWS::IAM::Role.Arn': return `arn:aws:iam::${ACCOUNT}:role/${this.roleName(stack, id)}`;
      case 'AWS::S3Files::FileSystem.FileSystemId': return `fs-${hex(key, 17)}`;
      case 'AWS::S3Files::FileSystem.FileSystemArn': return fileSystemArn(`fs-${hex(key, 17)}`);
      case 'AWS::S3Files::AccessPoint.AccessPointId': return `fsap-${hex(key, 17)}`;
      case 'AWS::S3Files::AccessPoint.AccessPointArn':
        return `${fileSystemArn(this.resolve(stack, resource.Properties.FileSystemId))}/access-point/fsap-${hex(key, 17)}`;
      case 'AWS::S3::Bucket.Arn': return `arn:aws:s3:::${this.ref(stack, id)}`;
      case 'AWS::EC2::SecurityGroup.GroupId': return this.ref(stack, id);
      case 'AWS::Lambda::Function.Arn': return `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${stack}-${id}`;
      case 'AWS::KMS::Key.Arn': return `arn:aws:kms:${REGION}:${ACCOUNT}:key/${hex(key, 32)}`;
      default: return `${key}.${attribute}`;
    }
  }
}

export function fileSystemArn(fileSystemId: string): string {
  return `arn:aws:s3files:${REGION}:${ACCOUNT}:file-system/${fileSystemId}`;
}
