/**
 * Issue 37 item 6: aws-cdk-lib's bucket-notifications custom resource (`Custom::S3BucketNotifications`,
 * `Managed: true` for a bucket of the app) writes the bucket's whole notification configuration.
 * Nothing is deployed: aws-cdk-lib's own handler (its Python source, as it ships in
 * node_modules/aws-cdk-lib) runs against moto, with the ResourceProperties the synthesized template
 * gives it, and reports to a local ResponseURL as it would to CloudFormation. S3 Files turns the
 * bucket's EventBridge delivery on to learn of S3-side changes; here that state is set up first.
 */
import { spawn } from 'node:child_process';
import * as http from 'node:http';
import * as path from 'node:path';
import { CreateBucketCommand, GetBucketNotificationConfigurationCommand, PutBucketNotificationConfigurationCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3n from 'aws-cdk-lib/aws-s3-notifications';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { S3FilesFileSystem } from '../../src';
import { deletedByUpdate, Template } from '../lifecycle/cfn';
import { MotoServer, startMotoServer } from '../servers/moto-server';
import { docsText } from '../util/docs';
import { isolatedVpc } from '../util/template';

const ROOT = path.join(__dirname, '..', '..');
const HANDLER_DIR = path.join(ROOT, 'node_modules', 'aws-cdk-lib', 'custom-resource-handlers', 'dist', 'aws-s3', 'notifications-resource-handler');
const PYTHON = path.join(ROOT, '.venv', 'bin', 'python');
const QUEUE_ARN = 'arn:aws:sqs:us-east-1:123456789012:file-events';
const creds = { accessKeyId: 'test', secretAccessKey: 'test' };

let moto: MotoServer;
let s3client: S3Client;
let responses: http.Server;
let responseUrl: string;
const received: Array<Record<string, unknown>> = [];
let seq = 0;

beforeAll(async () => {
  moto = await startMotoServer();
  s3client = new S3Client({ region: 'us-east-1', endpoint: moto.url, credentials: creds, forcePathStyle: true });
  // CloudFormation's side: the ResponseURL the handler PUTs its result to
  responses = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => { body += c.toString(); });
    req.on('end', () => {
      received.push(JSON.parse(body));
      res.end();
    });
  });
  await new Promise<void>((resolve) => responses.listen(0, '127.0.0.1', resolve));
  responseUrl = `http://127.0.0.1:${(responses.address() as import('node:net').AddressInfo).port}/cfn-response`;
}, 60_000);
afterAll(async () => {
  s3client?.destroy();
  await new Promise<void>((resolve) => (responses ? responses.close(() => resolve()) : resolve()));
  await moto?.stop();
});

/** The storage stack's template: a file system over `bucket` (or the one it creates), and an SQS notification added later. */
function synth(options: { ownBucket?: boolean; notify?: boolean; removalPolicy?: RemovalPolicy } = {}): { template: Template; stack: Stack } {
  const app = new App();
  const stack = new Stack(app, 'Storage');
  const bucket = options.ownBucket ? new s3.Bucket(stack, 'Data', { versioned: true }) : undefined;
  const fileSystem = new S3FilesFileSystem(stack, 'Files', { vpc: isolatedVpc(stack), bucket, removalPolicy: options.removalPolicy });
  if (options.notify ?? true) fileSystem.bucket!.addObjectCreatedNotification(new s3n.SqsDestination(new sqs.Queue(stack, 'FileEvents')));
  return { template: app.synth().getStackByName('Storage').template, stack };
}

/** The notifications custom resource's logical id and properties, with the bucket and queue as this test's (and the ServiceToken) substituted. */
function notificationResource(template: Template, bucketName: string): { id: string; properties: Record<string, unknown> } {
  const found = Object.entries(template.Resources).filter(([, r]) => r.Type === 'Custom::S3BucketNotifications');
  if (found.length !== 1) throw new Error(`expected one Custom::S3BucketNotifications, found ${found.length}`);
  const [id, resource] = found[0];
  const { ServiceToken: _token, ...props } = resource.Properties;
  const text = JSON.stringify(props, (_k, v) => {
    if (v && typeof v === 'object' && typeof v.Ref === 'string' && template.Resources[v.Ref]?.Type === 'AWS::S3::Bucket') return bucketName;
    if (v && typeof v === 'object' && Array.isArray(v['Fn::GetAtt']) && template.Resources[v['Fn::GetAtt'][0]]?.Type === 'AWS::SQS::Queue') return QUEUE_ARN;
    return v;
  });
  if (/"(Ref|Fn::[A-Za-z]+)"/.test(text)) throw new Error(`unresolved intrinsic left in ${text}`);
  return { id, properties: asCloudFormationSends(JSON.parse(text)) };
}

/** CloudFormation hands a custom resource its properties with every scalar as a string (`true` arrives as "true"). */
function asCloudFormationSends(value: any): any {
  if (Array.isArray(value)) return value.map(asCloudFormationSends);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, asCloudFormationSends(v)]));
  return typeof value === 'boolean' || typeof value === 'number' ? String(value) : value;
}

/** Runs a Python script with the project's venv (boto3) against moto; resolves with its stdout. */
async function python(script: string, args: string[], stdin = ''): Promise<string> {
  const child = spawn(PYTHON, ['-c', script, ...args], {
    env: {
      PATH: process.env.PATH,
      AWS_ENDPOINT_URL: moto.url,
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_DEFAULT_REGION: 'us-east-1',
      AWS_CONFIG_FILE: '/dev/null',
      AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => { stdout += c.toString(); });
  child.stderr.on('data', (c: Buffer) => { stderr += c.toString(); });
  child.stdin.end(stdin);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`python exited ${code}: ${stderr}`);
  return stdout;
}

/**
 * A bucket in moto as S3 Files leaves it: EventBridge delivery on, and a rule of the kind the service
 * creates (DO-NOT-DELETE-S3-Files…) matching the bucket's events, its target a queue this test reads.
 */
async function bucketWithEventBridge(): Promise<string> {
  const bucket = `s3files-notifications-${++seq}`;
  await s3client.send(new CreateBucketCommand({ Bucket: bucket }));
  await s3client.send(new PutBucketNotificationConfigurationCommand({ Bucket: bucket, NotificationConfiguration: { EventBridgeConfiguration: {} } }));
  await python(`import boto3, json, sys
bucket = sys.argv[1]
queue = boto3.client("sqs").create_queue(QueueName=bucket)["QueueUrl"]
arn = boto3.client("sqs").get_queue_attributes(QueueUrl=queue, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
events = boto3.client("events")
events.put_rule(Name="DO-NOT-DELETE-S3-Files-" + bucket, EventPattern=json.dumps({"source": ["aws.s3"], "detail": {"bucket": {"name": [bucket]}}}))
events.put_targets(Rule="DO-NOT-DELETE-S3-Files-" + bucket, Targets=[{"Id": "sync", "Arn": arn}])
`, [bucket]);
  return bucket;
}

/** Whether a change made through S3 (an object put) reaches the rule's queue through EventBridge. */
async function eventBridgeDelivers(bucket: string): Promise<boolean> {
  const key = `probe-${++seq}.txt`;
  await s3client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'x' }));
  const out = await python(`import boto3, json, sys
sqs = boto3.client("sqs")
queue = sqs.get_queue_url(QueueName=sys.argv[1])["QueueUrl"]
keys = [json.loads(m["Body"])["detail"]["object"]["key"] for m in sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10).get("Messages", [])]
print(json.dumps(keys))
`, [bucket]);
  return (JSON.parse(out) as string[]).includes(key);
}

/** Runs aws-cdk-lib's handler (the Python file it ships) on one CloudFormation event; resolves with its response to the ResponseURL. */
async function runHandler(event: Record<string, unknown>): Promise<Record<string, unknown>> {
  const before = received.length;
  const script = 'import json, sys\nsys.path.insert(0, sys.argv[1])\nimport index\n'
    + 'class Context:\n  log_stream_name = "local"\nindex.handler(json.load(sys.stdin), Context())\n';
  await python(script, [HANDLER_DIR], JSON.stringify({
    ResponseURL: responseUrl,
    StackId: 'arn:aws:cloudformation:us-east-1:123456789012:stack/Storage/00000000-0000-0000-0000-000000000000',
    RequestId: `request-${++seq}`,
    ResourceType: 'Custom::S3BucketNotifications',
    ...event,
  }));
  if (received.length !== before + 1) throw new Error(`the handler sent ${received.length - before} responses`);
  return received[received.length - 1];
}

describe('aws-cdk-lib\'s bucket-notifications handler, run against a local S3 with what the template gives it', () => {
  test('a notification added later to the bucket the file system created keeps EventBridge delivery on', async () => {
    // GIVEN the bucket as S3 Files leaves it, and the stack as first deployed (its notifications resource, if the template has one)
    const bucket = await bucketWithEventBridge();
    expect(await eventBridgeDelivers(bucket)).toBe(true);
    const first = synth({ notify: false }).template;
    const deployed = Object.values(first.Resources).some((r) => r.Type === 'Custom::S3BucketNotifications') ? notificationResource(first, bucket) : undefined;
    if (deployed) {
      expect(await runHandler({ RequestType: 'Create', LogicalResourceId: deployed.id, ResourceProperties: deployed.properties })).toMatchObject({ Status: 'SUCCESS' });
      expect(await eventBridgeDelivers(bucket)).toBe(true);
    }
    // WHEN the user adds `fileSystem.bucket.addObjectCreatedNotification(...)` and deploys: an Update of that resource (a Create without one)
    const later = notificationResource(synth().template, bucket);
    const response = await runHandler(deployed
      ? { RequestType: 'Update', LogicalResourceId: later.id, PhysicalResourceId: later.id, ResourceProperties: later.properties, OldResourceProperties: deployed.properties }
      : { RequestType: 'Create', LogicalResourceId: later.id, ResourceProperties: later.properties });
    // THEN the handler succeeded, the user's queue is configured, and changes made through S3 still reach EventBridge
    expect(response).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: later.id });
    const config = await s3client.send(new GetBucketNotificationConfigurationCommand({ Bucket: bucket }));
    expect(config.QueueConfigurations?.map((q) => q.QueueArn)).toEqual([QUEUE_ARN]);
    expect(await eventBridgeDelivers(bucket)).toBe(true);
    // AND it is the same resource, which the stack had from its first deployment
    expect(later.id).toBe(deployed?.id);
  });

  test('a bucket of the user\'s without eventBridgeEnabled: its notification turns EventBridge off (no error), which the warning names', async () => {
    // GIVEN the user's bucket (versioned, no eventBridgeEnabled) with a notification added
    const bucket = await bucketWithEventBridge();
    expect(await eventBridgeDelivers(bucket)).toBe(true);
    const { template, stack } = synth({ ownBucket: true });
    const resource = notificationResource(template, bucket);
    // WHEN CloudFormation creates the notifications resource
    const response = await runHandler({ RequestType: 'Create', LogicalResourceId: resource.id, ResourceProperties: resource.properties });
    // THEN it reports success, and S3-side changes no longer reach EventBridge
    expect(response).toMatchObject({ Status: 'SUCCESS' });
    expect(await eventBridgeDelivers(bucket)).toBe(false);
    // AND the synthesis warned about exactly this
    const warnings = stack.node.findAll().flatMap((c) => c.node.metadata).map((m) => String(m.data)).filter((d) => d.includes('cdk-s3files-lambda:bucketWithoutEventBridge'));
    expect(warnings).toEqual([expect.stringContaining('`bucket` (Storage/Data) is a bucket of this app without `eventBridgeEnabled`: aws-cdk-lib\'s custom resource for its notifications (it has some) writes the bucket\'s whole notification configuration and turns off the EventBridge delivery')]);
  });

  test('the created bucket\'s notifications resource follows the bucket: retained with it, so its Delete (an empty configuration) never reaches a retained bucket', async () => {
    // GIVEN what its Delete does: the handler writes an empty configuration
    const bucket = await bucketWithEventBridge();
    expect(await eventBridgeDelivers(bucket)).toBe(true);
    const { template } = synth({ notify: false });
    const resource = notificationResource(template, bucket);
    expect(await runHandler({ RequestType: 'Delete', LogicalResourceId: resource.id, PhysicalResourceId: resource.id, ResourceProperties: resource.properties }))
      .toMatchObject({ Status: 'SUCCESS' });
    expect(await eventBridgeDelivers(bucket)).toBe(false);
    // THEN with RETAIN (the default), deleting the stack keeps the resource (no Delete is sent), as it keeps the bucket
    const gone = deletedByUpdate(template, { Resources: {} });
    expect(gone).not.toContain(resource.id);
    expect(gone.filter((id) => template.Resources[id].Type === 'AWS::S3::Bucket')).toEqual([]);
    // AND with DESTROY both go
    const destroyed = synth({ notify: false, removalPolicy: RemovalPolicy.DESTROY }).template;
    expect(deletedByUpdate(destroyed, { Resources: {} })).toEqual(expect.arrayContaining([resource.id]));
  });

  test('the README and docs/lifecycle.md say it', () => {
    expect(docsText()).toMatch(/aws-cdk-lib's bucket notifications write the bucket's whole notification configuration: on a\s+bucket of your app without `eventBridgeEnabled`, a notification you add\s+\(`bucket.addObjectCreatedNotification\(\)`\) turns that delivery off/);
    expect(docsText()).toMatch(/a created bucket are retained, and with the bucket aws-cdk-lib's notifications resource for it \(its Delete would write an empty notification configuration, turning off the EventBridge delivery a retained file system needs\)/);
  });
});
