import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { ComparisonStack } from '../integ/stacks/comparison-stack';
import { CROSS_COMPUTE_FILE, CrossComputeStack } from '../integ/stacks/cross-compute-stack';
import { Ec2BenchmarkStack } from '../integ/stacks/ec2-benchmark-stack';

describe('integ app: the comparison stack works out of the box for files uploaded through the S3 API', () => {
  const app = new App();
  const stack = new ComparisonStack(app, 'Comparison');
  const template = Template.fromStack(stack);
  const logicalId = (construct: { node: { defaultChild?: unknown } }) => stack.getLogicalId(construct.node.defaultChild as never);

  test('a deploy-time trigger creates the working directories through the same access point the processor mounts', () => {
    // GIVEN / WHEN the synthesized stack
    const functions = template.findResources('AWS::Lambda::Function');
    const mountArn = (id: string) => functions[id].Properties.FileSystemConfigs[0].Arn;
    // THEN the preparer mounts exactly what the processor mounts
    expect(mountArn(logicalId(stack.prepareDirectories))).toEqual(mountArn(logicalId(stack.processorS3Files)));
    // AND a Trigger invokes the preparer's current version (so it runs again when the handler changes)
    template.hasResourceProperties('Custom::Trigger', {
      HandlerArn: { Ref: Match.stringLikeRegexp('^PrepareDirectoriesCurrentVersion') },
      InvocationType: 'RequestResponse',
    });
    // AND the preparer waits for the mount targets like every mounted function
    expect(functions[logicalId(stack.prepareDirectories)].DependsOn).toEqual(expect.arrayContaining([expect.stringMatching(/^FileSystemMountTargetsAvailable/)]));
  });

  test('the bucket keeps a replaced result as a noncurrent version for 30 days (what integ/README.md promises of a re-upload)', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      VersioningConfiguration: { Status: 'Enabled' },
      LifecycleConfiguration: { Rules: Match.arrayWith([Match.objectLike({ Status: 'Enabled', NoncurrentVersionExpiration: { NoncurrentDays: 30 } })]) },
    });
    expect(Object.keys(template.findResources('AWS::S3::Bucket'))).toHaveLength(1);
  });

  test('the S3-API processor may write, read and delete its claim markers and leases under processing/, and put under failed/', () => {
    const policies = template.findResources('AWS::IAM::Policy');
    const role = stack.getLogicalId(stack.processorS3Api.role!.node.defaultChild as never);
    const statements = Object.values(policies)
      .filter((p: any) => p.Properties.Roles.some((r: any) => r.Ref === role))
      .flatMap((p: any) => p.Properties.PolicyDocument.Statement);
    const on = (prefix: string, action: string) => statements.some((s: any) =>
      [s.Action].flat().some((a: string) => a === action || (a.endsWith('*') && action.startsWith(a.slice(0, -1))))
      && JSON.stringify(s.Resource).includes(`/${prefix}`));
    for (const action of ['s3:PutObject', 's3:GetObject', 's3:GetObjectVersion', 's3:DeleteObject', 's3:DeleteObjectVersion']) {
      expect([action, on('processing/*', action)]).toEqual([action, true]);
    }
    // AND it may copy what it cannot process to failed/ (reported once), and abort a multipart copy a killed run left
    expect(['failed/*', on('failed/*', 's3:PutObject'), on('processed/*', 's3:AbortMultipartUpload')]).toEqual(['failed/*', true, true]);
    expect(on('failed/*', 's3:DeleteObject')).toBe(false);
  });
});

describe('integ app: the functions behind the benchmark\'s coldStart and directRead modes', () => {
  const stack = new ComparisonStack(new App(), 'Comparison');
  const template = Template.fromStack(stack);
  const functions = template.findResources('AWS::Lambda::Function');
  const props = (fn: { node: { defaultChild?: unknown } }) => functions[stack.getLogicalId(fn.node.defaultChild as never)].Properties;
  const benchmarkStatements = () => Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((p: any) => p.Properties.Roles.some((r: any) => r.Ref === stack.getLogicalId(stack.benchmark.role!.node.defaultChild as never)))
    .flatMap((p: any) => p.Properties.PolicyDocument.Statement);

  test('three processors, identical but for DirectS3Read, mount the processor\'s access point; the benchmark gets their names', () => {
    for (const mode of ['AUTO', 'ENABLED', 'DISABLED'] as const) {
      const fn = props(stack.directReadProcessors[mode]);
      expect(fn.FileSystemConfigs).toEqual([{ ...props(stack.processorS3Files).FileSystemConfigs[0], S3FilesConfig: { DirectS3Read: mode } }]);
      expect([fn.MemorySize, fn.Handler, fn.Code.S3Key]).toEqual([512, 'index.handler', props(stack.processorS3Files).Code.S3Key]);
    }
    const names = JSON.stringify(props(stack.benchmark).Environment.Variables.DIRECT_READ_FUNCTIONS);
    for (const fn of Object.values(stack.directReadProcessors)) expect(names).toContain(stack.getLogicalId(fn.node.defaultChild as never));
  });

  test('the cold-start twins run the same code with the same memory in the same subnets; only one has the mount', () => {
    const mounted = props(stack.coldStartTwins.mounted);
    const unmounted = props(stack.coldStartTwins.unmounted);
    expect(mounted.Code).toEqual(unmounted.Code);
    expect([mounted.MemorySize, mounted.Runtime, mounted.Architectures]).toEqual([unmounted.MemorySize, unmounted.Runtime, unmounted.Architectures]);
    expect(mounted.VpcConfig.SubnetIds).toEqual(unmounted.VpcConfig.SubnetIds);
    expect(mounted.FileSystemConfigs).toHaveLength(1);
    expect(unmounted.FileSystemConfigs).toBeUndefined();
  });

  test('the benchmark may update the configuration of the two twins, and of nothing else', () => {
    const updates = benchmarkStatements().filter((st: any) => [st.Action].flat().some((a: string) => a.startsWith('lambda:') && a.includes('Configuration')));
    expect(updates).toEqual([{
      Action: ['lambda:GetFunctionConfiguration', 'lambda:UpdateFunctionConfiguration'],
      Effect: 'Allow',
      Resource: [stack.coldStartTwins.mounted, stack.coldStartTwins.unmounted].map((fn) => ({ 'Fn::GetAtt': [stack.getLogicalId(fn.node.defaultChild as never), 'Arn'] })),
    }]);
  });
});

describe('integ app: -c directS3Read picks the S3 Files processor\'s direct-read mode for the benchmark', () => {
  test.each([[undefined, 'AUTO'], ['ENABLED', 'ENABLED'], ['DISABLED', 'DISABLED'], ['AUTO', 'AUTO']])('%s -> %s', (mode, rendered) => {
    const stack = new ComparisonStack(new App(), 'C', { directS3Read: mode });
    const fn = Template.fromStack(stack).findResources('AWS::Lambda::Function')[stack.getLogicalId(stack.processorS3Files.node.defaultChild as never)];
    expect(fn.Properties.FileSystemConfigs[0].S3FilesConfig).toEqual({ DirectS3Read: rendered });
  });

  test('a bad mode is refused with the choices', () => {
    expect(() => new ComparisonStack(new App(), 'C', { directS3Read: 'ON' })).toThrow('Invalid directS3Read "ON" (context -c directS3Read=...): use ENABLED, DISABLED or AUTO.');
  });
});

describe('integ app: the cross-compute stack (a Lambda writes, a Fargate task reads)', () => {
  const app = new App();
  const stack = new CrossComputeStack(app, 'CrossCompute');
  const template = Template.fromStack(stack);

  test('the processor and the reader task mount the same access point; the task read-only', () => {
    // GIVEN / WHEN the synthesized stack
    const processor = template.findResources('AWS::Lambda::Function')[stack.getLogicalId(stack.processor.node.defaultChild as never)];
    const [task] = Object.values(template.findResources('AWS::ECS::TaskDefinition')) as any[];
    // THEN
    const apArn = processor.Properties.FileSystemConfigs[0].Arn;
    expect(task.Properties.Volumes[0].S3FilesVolumeConfiguration.AccessPointArn).toEqual(apArn);
    expect(task.Properties.ContainerDefinitions[0].MountPoints).toEqual([expect.objectContaining({ ContainerPath: '/mnt/shared', ReadOnly: true })]);
    // AND the task checks the result the processor publishes (processed/<name>/<name> and its .meta.json)
    const command = task.Properties.ContainerDefinitions[0].Command.join(' ');
    expect(command).toContain(`test -s /mnt/shared/processed/${CROSS_COMPUTE_FILE}/${CROSS_COMPUTE_FILE}.meta.json`);
  });

  test('a RunTask with the stack\'s subnets and groups joins the file system\'s client group', () => {
    const resolved = stack.resolve(stack.taskSecurityGroups);
    expect(resolved).toContainEqual({ 'Fn::GetAtt': [expect.stringMatching(/^FileSystemClientSecurityGroup/), 'GroupId'] });
    expect(stack.taskSubnets).toHaveLength(2);
  });
});

describe('integ app: the EC2 benchmark stack', () => {
  const app = new App();
  const stack = new Ec2BenchmarkStack(app, 'Ec2Benchmark', { sizes: '1M 2M' });
  const template = Template.fromStack(stack);

  test('user data mounts the access point, refuses to benchmark an unmounted path, then runs run.sh with the report', () => {
    const [instance] = Object.values(template.findResources('AWS::EC2::Instance')) as any[];
    const join = instance.Properties.UserData['Fn::Base64']['Fn::Join'];
    const script: string = join[1].map((p: unknown) => (typeof p === 'string' ? p : '<token>')).join(join[0]);
    const mount = script.indexOf("s3files_mount '<token>' '<token>' '/mnt/bench'");
    const guard = script.indexOf('mountpoint -q /mnt/bench ||');
    const bench = script.indexOf('bash /opt/ec2-benchmark/run.sh');
    expect(mount).toBeGreaterThan(0);
    expect(guard).toBeGreaterThan(mount);
    expect(bench).toBeGreaterThan(guard);
    expect(script).toMatch(/MOUNT_DIR=\/mnt\/bench BUCKET=<token> PREFIX=bench\/ OUT=\/var\/tmp\/ec2-benchmark REPORT=\/opt\/ec2-benchmark\/index.js SIZES='1M 2M'/);
  });

  test('no NAT: the instance reaches S3 through the gateway endpoint and Session Manager through interface endpoints', () => {
    template.resourceCountIs('AWS::EC2::NatGateway', 0);
    template.hasResourceProperties('AWS::EC2::VPCEndpoint', { VpcEndpointType: 'Gateway' });
    expect(Object.keys(template.findResources('AWS::EC2::VPCEndpoint', { Properties: { VpcEndpointType: 'Interface' } }))).toHaveLength(3);
  });
});
