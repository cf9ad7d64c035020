import { CloudFormationClient, CreateStackCommand } from '@aws-sdk/client-cloudformation';
import { CloudWatchLogsClient, CreateLogGroupCommand } from '@aws-sdk/client-cloudwatch-logs';
import { CreateNetworkInterfaceCommand, CreateSubnetCommand, CreateVpcCommand, EC2Client } from '@aws-sdk/client-ec2';
import { EKSClient } from '@aws-sdk/client-eks';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { S3FilesClient } from '@aws-sdk/client-s3files';
import { findLeftovers, LeftoverClients, Recorded } from '../../integ/verify/leftovers';
import { EksPodIdentityEndpoint } from '../servers/eks-pod-identity-endpoint';
import { MotoServer, startMotoServer } from '../servers/moto-server';
import { perCall, S3FilesEndpoint } from '../servers/s3files-endpoint';

// The leftovers check with the real SDK clients against moto (S3, EC2, CloudWatch Logs,
// CloudFormation), the local S3 Files stand-in and a local EKS endpoint for Pod Identity.
const region = 'us-east-1';
const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
let moto: MotoServer;
let s3files: S3FilesEndpoint;
let eks: EksPodIdentityEndpoint;
let clients: LeftoverClients;

beforeAll(async () => {
  [moto, s3files, eks] = await Promise.all([
    startMotoServer(), S3FilesEndpoint.start(),
    EksPodIdentityEndpoint.start({ ClusterEB0386A7: [{ namespace: 'kube-system', serviceAccount: 'efs-csi-node-sa', associationId: 'a-1' }] }),
  ]);
  const at = (endpoint: string) => ({ region, credentials, endpoint });
  clients = {
    cloudformation: new CloudFormationClient(at(moto.url)),
    s3: new S3Client({ ...at(moto.url), forcePathStyle: true }),
    s3files: new S3FilesClient(at(s3files.url)),
    ec2: new EC2Client(at(moto.url)),
    logs: new CloudWatchLogsClient(at(moto.url)),
    eks: new EKSClient(at(eks.url)),
  };
}, 60_000);

afterAll(async () => {
  await Promise.all([moto?.stop(), s3files?.stop(), eks?.stop()]);
});

const nothingRecorded: Recorded = { region, stackNames: ['S3FilesVerifyCore'], bucketNames: [], fileSystemIds: ['fs-00000000000000001'], vpcIds: [], clusterNames: ['GoneCluster'] };

test('a clean account: nothing is reported, and every kind was looked for [python tools]', async () => {
  // GIVEN an account where the run left nothing (moto empty; the recorded file system and cluster are gone)
  // WHEN the check runs
  const found = await findLeftovers(clients, nothingRecorded);
  // THEN nothing is found, after asking EKS about the recorded cluster
  expect(found).toEqual([]);
  expect(eks.requests).toContain('GET /clusters/GoneCluster');
});

test('what a failed run leaves is reported, each with the command that removes it, and nothing else [python tools]', async () => {
  // GIVEN a stack that was not destroyed, its bucket (with an unrelated bucket beside it), a file system
  // on that bucket with an access point, a network interface in the run's VPC, Lambda log groups of
  // the run (and one of another app), and a cluster whose Pod Identity association remains
  await clients.cloudformation.send(new CreateStackCommand({ StackName: 'S3FilesVerifyCore', TemplateBody: JSON.stringify({ Resources: { H: { Type: 'AWS::CloudFormation::WaitConditionHandle' } } }) }));
  for (const b of ['s3filesverifycore-filesystembucket-1a2b3c', 'someone-elses-bucket']) await clients.s3.send(new CreateBucketCommand({ Bucket: b }));
  s3files.setFileSystem('fs-0123456789abcdef0', perCall('available'), 'arn:aws:s3:::s3filesverifycore-filesystembucket-1a2b3c');
  s3files.setAccessPoint('fsap-0123456789abcdef0', perCall('available'), 'fs-0123456789abcdef0');
  const vpc = (await clients.ec2.send(new CreateVpcCommand({ CidrBlock: '10.0.0.0/16' }))).Vpc!.VpcId!;
  const subnet = (await clients.ec2.send(new CreateSubnetCommand({ VpcId: vpc, CidrBlock: '10.0.1.0/24' }))).Subnet!.SubnetId!;
  const eni = (await clients.ec2.send(new CreateNetworkInterfaceCommand({ SubnetId: subnet, Description: 'AWS Lambda VPC ENI-S3FilesVerifyCore-Writer' }))).NetworkInterface!.NetworkInterfaceId!;
  for (const g of ['/aws/lambda/S3FilesVerifyCore-Writer1234', '/aws/lambda/VerifyCoreDefaultTestDeployAssertAF6091A9-SingletonFunction', '/aws/lambda/their-function']) {
    await clients.logs.send(new CreateLogGroupCommand({ logGroupName: g }));
  }

  // WHEN the check runs with what the run recorded
  const found = await findLeftovers(clients, { ...nothingRecorded, vpcIds: [vpc], clusterNames: ['GoneCluster', 'ClusterEB0386A7'] });

  // THEN each is reported once with its removal command, and the other app's bucket and log group are not
  expect(found.map((l) => [l.kind, l.id])).toEqual([
    ['stack', 'S3FilesVerifyCore'],
    ['bucket', 's3filesverifycore-filesystembucket-1a2b3c'],
    ['access point', 'fsap-0123456789abcdef0'],
    ['file system', 'fs-0123456789abcdef0'],
    ['network interface', eni],
    ['log group', '/aws/lambda/S3FilesVerifyCore-Writer1234'],
    ['log group', '/aws/lambda/VerifyCoreDefaultTestDeployAssertAF6091A9-SingletonFunction'],
    ['Pod Identity association', 'a-1'],
  ]);
  const command = (id: string) => found.find((l) => l.id === id)!.removeWith;
  expect(command('fs-0123456789abcdef0')).toMatch(/^aws s3files delete-file-system --file-system-id fs-0123456789abcdef0 --region us-east-1/);
  expect(command('fsap-0123456789abcdef0')).toBe('aws s3files delete-access-point --access-point-id fsap-0123456789abcdef0 --region us-east-1');
  expect(command('a-1')).toBe('aws eks delete-pod-identity-association --cluster-name ClusterEB0386A7 --association-id a-1 --region us-east-1');
  expect(command(eni)).toMatch(new RegExp(`^aws ec2 delete-network-interface --network-interface-id ${eni} --region us-east-1`));
  expect(command('S3FilesVerifyCore')).toContain('npx cdk destroy S3FilesVerifyCore');
});
