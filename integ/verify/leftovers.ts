import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { CloudWatchLogsClient, paginateDescribeLogGroups } from '@aws-sdk/client-cloudwatch-logs';
import { DescribeNetworkInterfacesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { DescribeClusterCommand, EKSClient, ListPodIdentityAssociationsCommand } from '@aws-sdk/client-eks';
import { HeadBucketCommand, ListBucketsCommand, S3Client } from '@aws-sdk/client-s3';
import { GetFileSystemCommand, ListAccessPointsCommand, ListFileSystemsCommand, S3FilesClient } from '@aws-sdk/client-s3files';
import { INTEG_TESTS, STACK_PREFIX } from './stacks';

// After `cdk destroy`: what of the run could still exist, each with the command that removes it.
// It looks by what the run recorded before destroying (bucket names, file-system ids, VPC ids,
// cluster names, stack names) and by name (the stacks' prefix), so a run that failed half-way is
// covered too. Only the region of the run is searched.

export type LeftoverKind = 'stack' | 'bucket' | 'file system' | 'access point' | 'network interface' | 'log group' | 'Pod Identity association' | 'IAM role';

export interface Leftover {
  readonly kind: LeftoverKind;
  readonly id: string;
  readonly detail?: string;
  readonly removeWith: string;
}

export interface Recorded {
  readonly region: string;
  readonly stackNames: readonly string[];
  readonly bucketNames: readonly string[];
  readonly fileSystemIds: readonly string[];
  readonly vpcIds: readonly string[];
  readonly clusterNames: readonly string[];
}

export interface LeftoverClients {
  readonly cloudformation: CloudFormationClient;
  readonly s3: S3Client;
  readonly s3files: S3FilesClient;
  readonly ec2: EC2Client;
  readonly logs: CloudWatchLogsClient;
  readonly eks: EKSClient;
}

const isNotFound = (e: unknown) => {
  const err = e as { name?: string; $metadata?: { httpStatusCode?: number }; message?: string };
  return ['NotFound', 'NoSuchBucket', 'ResourceNotFoundException', 'FileSystemNotFound'].includes(err.name ?? '')
    || err.$metadata?.httpStatusCode === 404 || (err.name === 'ValidationError' && /does not exist/.test(err.message ?? ''));
};

async function orUndefined<T>(call: Promise<T>): Promise<T | undefined> {
  try {
    return await call;
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

export async function findLeftovers(c: LeftoverClients, r: Recorded): Promise<Leftover[]> {
  const out: Leftover[] = [];
  const region = `--region ${r.region}`;
  const assertStackNames = Object.values(INTEG_TESTS);

  // Stacks: a failed destroy leaves them (and everything in them).
  for (const name of r.stackNames) {
    const found = await orUndefined(c.cloudformation.send(new DescribeStacksCommand({ StackName: name })));
    const stack = found?.Stacks?.[0];
    if (stack && stack.StackStatus !== 'DELETE_COMPLETE') {
      out.push({ kind: 'stack', id: name, detail: stack.StackStatus, removeWith: `npx cdk destroy ${name} (or aws cloudformation delete-stack --stack-name ${name} ${region})` });
    }
  }

  // Buckets: recorded ones, and any of this app's by name (CDK names them after the stack, lowercased).
  const listed = await c.s3.send(new ListBucketsCommand({}));
  const prefixes = [STACK_PREFIX, ...assertStackNames].map((p) => p.toLowerCase());
  const candidates = new Set([...r.bucketNames, ...(listed.Buckets ?? []).map((b) => b.Name ?? '').filter((n) => prefixes.some((p) => n.startsWith(p)))]);
  const buckets: string[] = [];
  for (const name of [...candidates].sort()) {
    const head = await orUndefined(c.s3.send(new HeadBucketCommand({ Bucket: name }))).catch((e) => {
      // A bucket of another region answers with a redirect: not this run's.
      if ((e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 301) return undefined;
      throw e;
    });
    if (!head || (head.BucketRegion && head.BucketRegion !== r.region)) continue;
    buckets.push(name);
    out.push({
      kind: 'bucket',
      id: name,
      removeWith: `aws s3 rm s3://${name} --recursive ${region}; delete its object versions (versioned: the console's "Empty"), then aws s3api delete-bucket --bucket ${name} ${region}`,
    });
  }

  // File systems: recorded ones, and any on a leftover bucket; then their access points.
  const fileSystems = new Set<string>();
  for (const id of r.fileSystemIds) {
    const fsys = await orUndefined(c.s3files.send(new GetFileSystemCommand({ fileSystemId: id })));
    if (fsys && fsys.status !== 'deleted') fileSystems.add(id);
  }
  for (const name of buckets) {
    const list = await c.s3files.send(new ListFileSystemsCommand({ bucket: `arn:aws:s3:::${name}` }));
    for (const f of list.fileSystems ?? []) if (f.fileSystemId && f.status !== 'deleted') fileSystems.add(f.fileSystemId);
  }
  for (const id of [...fileSystems].sort()) {
    const aps = await orUndefined(c.s3files.send(new ListAccessPointsCommand({ fileSystemId: id })));
    for (const ap of aps?.accessPoints ?? []) {
      out.push({ kind: 'access point', id: ap.accessPointId ?? '?', detail: id, removeWith: `aws s3files delete-access-point --access-point-id ${ap.accessPointId} ${region}` });
    }
    out.push({
      kind: 'file system',
      id,
      removeWith: `aws s3files delete-file-system --file-system-id ${id} ${region} (after its access points and mount targets; wait a minute for pending exports)`,
    });
  }

  // Network interfaces still in the run's VPCs (Lambda releases its own ones with a delay).
  if (r.vpcIds.length) {
    const enis = await c.ec2.send(new DescribeNetworkInterfacesCommand({ Filters: [{ Name: 'vpc-id', Values: [...r.vpcIds] }] }));
    for (const eni of enis.NetworkInterfaces ?? []) {
      out.push({
        kind: 'network interface',
        id: eni.NetworkInterfaceId ?? '?',
        detail: `${eni.VpcId} ${eni.Status ?? ''} ${eni.Description ?? ''}`.trim(),
        removeWith: `aws ec2 delete-network-interface --network-interface-id ${eni.NetworkInterfaceId} ${region} (a Lambda interface is released by Lambda within about 20 minutes: wait, then delete what remains)`,
      });
    }
  }

  // Log groups: Lambda creates /aws/lambda/<function> outside the stacks, so destroy leaves them.
  for (const prefix of [`/aws/lambda/${STACK_PREFIX}`, ...assertStackNames.map((t) => `/aws/lambda/${t}`), STACK_PREFIX]) {
    for await (const page of paginateDescribeLogGroups({ client: c.logs }, { logGroupNamePrefix: prefix })) {
      for (const g of page.logGroups ?? []) {
        out.push({ kind: 'log group', id: g.logGroupName ?? '?', removeWith: `aws logs delete-log-group --log-group-name ${g.logGroupName} ${region}` });
      }
    }
  }

  // Pod Identity associations of a cluster that survived (a deleted cluster takes them along).
  for (const name of r.clusterNames) {
    if (!(await orUndefined(c.eks.send(new DescribeClusterCommand({ name }))))) continue;
    const assoc = await c.eks.send(new ListPodIdentityAssociationsCommand({ clusterName: name }));
    for (const a of assoc.associations ?? []) {
      out.push({
        kind: 'Pod Identity association',
        id: a.associationId ?? '?',
        detail: `${name} ${a.namespace}/${a.serviceAccount}`,
        removeWith: `aws eks delete-pod-identity-association --cluster-name ${name} --association-id ${a.associationId} ${region}`,
      });
    }
  }
  return out;
}
