import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { settableProperties } from './lifecycle/cfn';
import { docsText } from './util/docs';
import { exampleWarnings, synthExample } from './util/synth-example';
import { venvBin } from './validators/templates';

const root = path.join(__dirname, '..');
// The README and docs/: the README shows each task's TypeScript; the detail lives in docs/.
const readme = docsText();
const readmeOnly = fs.readFileSync(path.join(root, 'README.md'), 'utf8');

/** The first fenced block of `lang` after `heading` in the README. */
function block(heading: string, lang: string): string {
  const start = readme.indexOf(heading);
  if (start < 0) throw new Error(`README has no '${heading}'`);
  const match = new RegExp('```' + lang + '(?: [^\\n]*)?\\n([\\s\\S]*?)```').exec(readme.slice(start));
  if (!match) throw new Error(`README has no ${lang} block after '${heading}'`);
  return match[1];
}

// The bindings test (test/bindings/run.sh) synthesizes examples/readme/*; these tests make sure
// those files are exactly what the README shows, so every quick-start snippet is run.
describe('README quick start', () => {
  test.each([
    ['## Quick start', 'quickstart.ts'],
    ['### Sharing one file system', 'sharing.ts'],
  ])('the program under %s is examples/readme/%s', (heading, file) => {
    // GIVEN the program shown in the README and the file the bindings test synthesizes
    const snippet = block(heading, 'ts');
    const tested = fs.readFileSync(path.join(root, 'examples', 'readme', file), 'utf8');

    // THEN they are the same text
    expect(snippet).toEqual(tested);
  });

  test('the README shows TypeScript only, and links each program\'s Python, Java and Go versions, which the bindings check runs', () => {
    expect(readmeOnly).not.toMatch(/```(python|java|go)\n/);
    const run = fs.readFileSync(path.join(root, 'test', 'bindings', 'run.sh'), 'utf8');
    const programs = [...run.matchAll(/^  "([\w-]+) ([\w.-]+\.ts) (\w+\.py) (\w+) (\w+)"$/gm)];
    expect(programs.length).toBeGreaterThanOrEqual(8);
    for (const [, , ts, py, java, go] of programs) {
      for (const file of [ts, py, `${java}.java`, `go/${go}/main.go`]) expect(fs.existsSync(path.join(root, 'examples', 'readme', file))).toBe(true);
      for (const linked of [py, `${java}.java`, `go/${go}/main.go`]) expect(readme).toMatch(new RegExp(`\\]\\((\\.\\./)?examples/readme/${linked.replace(/\./g, '\\.')}\\)`));
    }
  });

  test('the worker the own-function program deploys is shown, as examples/readme/worker/index.js', () => {
    expect(block('`worker/index.js`', 'js')).toEqual(fs.readFileSync(path.join(root, 'examples', 'readme', 'worker', 'index.js'), 'utf8'));
  });

  test('names both commands, and .ci/run calls the test command', () => {
    // GIVEN the two commands the README promises
    const start = readmeOnly.indexOf('\n## The two commands\n');
    expect(start).toBeGreaterThan(readmeOnly.indexOf('\n## Quick start\n'));
    const section = readmeOnly.slice(start + 1).split(/\n## /)[0];
    const fence = /```bash\n([\s\S]*?)```/.exec(section);
    if (!fence) throw new Error('README.md "## The two commands" has no ```bash block');
    // WHEN its commands are read (comments apart)
    const commands = fence[1].split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'));
    // THEN they are exactly setting up + synthesizing the integ app, and the test command
    expect(commands).toEqual(['npm ci && npx cdk synth', 'npm ci && npm run test:ci']);

    // THEN CI runs that same test command
    expect(fs.readFileSync(path.join(root, '.ci', 'run'), 'utf8')).toMatch(/^npm run test:ci$/m);
  });

  test('the CLI note states the schema the pinned aws-cdk-lib writes and the CLI the project tests with', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
    const lib = JSON.parse(fs.readFileSync(path.join(root, 'node_modules', 'aws-cdk-lib', 'package.json'), 'utf8')).version;
    const schema = jest.requireActual('aws-cdk-lib/cloud-assembly-schema').Manifest.version();
    const text = readme.replace(/\s+/g, ' ');
    expect(pkg.devDependencies['aws-cdk-lib']).toBe(lib);
    expect(text).toContain(`aws-cdk-lib ${lib} writes schema ${schema}`);
    expect(text).toContain(`\`aws-cdk\` ${pkg.devDependencies['aws-cdk']}, reads it`);
    // AND the schema the CLI reads up to, and the minimum CLI that npm's schema package records
    const cli = fs.readFileSync(path.join(root, 'node_modules', 'aws-cdk', 'lib', 'index.js'), 'utf8');
    const cliSchema = /cloud-assembly-schema\/schema\/version\.json"[\s\S]{0,400}?revision: (\d+)/.exec(cli)?.[1];
    expect(text).toContain(`reads it (up to schema ${cliSchema})`);
    const schemaPkg = path.join(root, 'node_modules', '@aws-cdk', 'cloud-assembly-schema');
    const minimumCli = JSON.parse(fs.readFileSync(path.join(schemaPkg, 'cli-version.json'), 'utf8')).version;
    const schemaPkgVersion = JSON.parse(fs.readFileSync(path.join(schemaPkg, 'package.json'), 'utf8')).version;
    expect(text).toContain(`You need at least CLI version ${minimumCli} to read this manifest.`);
    expect(text).toContain(`${minimumCli} from npm's lockfile and from pip today (schema package ${schemaPkgVersion};`);
  });

  test('the Java install line installs the sources and javadoc jars, as the bindings check does', () => {
    expect(readme).toMatch(/mvn install:install-file -Dfile=\$j\.jar -DpomFile=\$j\.pom -Dsources=\$j-sources\.jar -Djavadoc=\$j-javadoc\.jar/);
    expect(fs.readFileSync(path.join(root, 'test', 'bindings', 'run.sh'), 'utf8')).toContain('-Dsources="$j-sources.jar" -Djavadoc="$j-javadoc.jar"');
  });

  test('every `npm run <script>` the README names is a script of package.json', () => {
    const scripts = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).scripts;
    const named = [...readme.matchAll(/npm run ([\w:-]+)/g)].map((m) => m[1]);
    expect(named).toEqual(expect.arrayContaining(['test:ci', 'test:fast']));
    expect(named.filter((n) => !(n in scripts))).toEqual([]);
  });
});

describe('README: what the quick start creates', () => {
  test('the resource count and the waiter\'s parts are those of the synthesized quick start', () => {
    // GIVEN the paragraph after the quick start and the quick start's template
    const said = /served by one provider\s+per\s+stack; and, as the bucket has `eventBridgeEnabled`, aws-cdk-lib's bucket-notifications custom\s+resource with its policy on the bucket and, once per stack, its handler function and role \(\[Things\s+to know\]\(#things-to-know-about-s3-files\)\) \((\d+) resources in all, besides the `CDKMetadata` that `cdk synth` adds;/.exec(readme);
    const resources = Object.values(synthExample('quickstart.ts').QuickStart.Resources) as Array<{ Type: string }>;
    const count = (type: string) => resources.filter((r) => r.Type === type).length;

    // THEN the count is right, and so are the parts it names
    expect(Number(said?.[1])).toBe(resources.length);
    expect([count('AWS::Lambda::Function'), count('AWS::StepFunctions::StateMachine'), count('AWS::EC2::SecurityGroup')]).toEqual([1 + 2 + 3 + 1, 1, 3]);
    expect([count('Custom::S3FilesMountTargetsAvailable'), count('Custom::S3FilesDeleteGuard'), count('AWS::S3Files::MountTarget')]).toEqual([1, 1, 2]);
    expect([count('Custom::S3BucketNotifications'), count('AWS::IAM::Policy') > 0]).toEqual([1, true]);
  });
});

describe('README: mounting on your own function and on an imported file system', () => {
  const functions = (t: any) => Object.values(t.Resources).filter((r: any) => r.Type === 'AWS::Lambda::Function') as any[];

  test.each([
    ['### Your own function', 'own-function.ts'],
    ['### An existing file system', 'imported.ts'],
    ['### Containers, Batch jobs, instances and agents', 'other-compute.ts'],
    ['### Monitoring', 'monitoring.ts'],
    ['### Storage in one stack, functions in others', 'split-stacks.ts'],
    ['### Who can mount', 'one-access-point.ts'],
  ])('the snippet under %s is examples/readme/%s', (heading, file) => {
    expect(block(heading, 'ts')).toEqual(fs.readFileSync(path.join(root, 'examples', 'readme', file), 'utf8'));
  });

  test('own-function.ts: the function in the compute stack mounts an access point of its own stack on the storage stack\'s file system', () => {
    // WHEN the README program runs
    const templates = synthExample('own-function.ts');
    // THEN its worker has the mount and MOUNT_PATH, and depends on nothing in the compute stack but its own parts
    const [worker] = functions(templates.Compute).filter((f) => f.Properties.FileSystemConfigs);
    const [reports] = Object.entries<any>(templates.Compute.Resources).find(([id, r]) => r.Type === 'AWS::S3Files::AccessPoint' && id.startsWith('Reports'))!;
    expect(worker.Properties.FileSystemConfigs[0]).toMatchObject({ LocalMountPath: '/mnt/reports', Arn: { 'Fn::GetAtt': [reports, 'AccessPointArn'] } });
    expect(worker.Properties.Environment.Variables.MOUNT_PATH).toBe('/mnt/reports');
    expect(JSON.stringify(templates.Storage)).not.toContain('Worker');
  }, 120_000);

  test('imported.ts: a plain lambda.Function mounts an imported access point read-only, with the client group and no tag on its role', () => {
    // WHEN
    const templates = synthExample('imported.ts');
    // THEN
    const t = templates.Consumer;
    const [reader] = functions(t).filter((f) => f.Properties.FileSystemConfigs);
    const arn = (rest: string) => ({ 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, rest]] });
    expect(reader.Properties.FileSystemConfigs[0].Arn).toEqual(arn(':s3files:us-east-1:111111111111:file-system/fs-0123456789abcdef0/access-point/fsap-0123456789abcdef0'));
    expect(reader.Properties.VpcConfig.SecurityGroupIds).toContain('sg-0123456789abcdef0');
    const statements = Object.values(t.Resources).filter((r: any) => r.Type === 'AWS::IAM::Policy').flatMap((p: any) => p.Properties.PolicyDocument.Statement);
    expect(statements).toEqual(expect.arrayContaining([
      expect.objectContaining({ Action: 's3files:ClientMount', Resource: arn(':s3files:us-east-1:111111111111:file-system/fs-0123456789abcdef0') }),
      // (the file system's objects: the whole bucket, as it has no prefix)
      expect.objectContaining({ Action: ['s3:GetObject', 's3:GetObjectVersion'], Resource: arn(':s3:::shared-data-bucket/*') }),
    ]));
    const role = Object.values(t.Resources).find((r: any) => r.Type === 'AWS::IAM::Role') as any;
    expect(role.Properties.Tags).toBeUndefined();
  }, 120_000);
});

describe('README: containers, Batch jobs, instances', () => {
  test('other-compute.ts: the service, the job and the instance each mount the access point and wait for the waiter', () => {
    // WHEN the README program runs
    const t = synthExample('other-compute.ts').Pipeline;
    const byType = (type: string) => Object.entries<any>(t.Resources).filter(([, r]) => r.Type === type);
    const [[waiterId]] = byType('Custom::S3FilesMountTargetsAvailable');
    // THEN
    const [[, task]] = byType('AWS::ECS::TaskDefinition');
    expect(task.Properties.Volumes[0].S3FilesVolumeConfiguration.AccessPointArn).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^FilesResults/), 'AccessPointArn'] });
    expect(task.Properties.ContainerDefinitions[0].MountPoints[0]).toMatchObject({ ContainerPath: '/mnt/results', ReadOnly: true });
    const [[, job]] = byType('AWS::Batch::JobDefinition');
    expect(job.Properties.ContainerProperties.Volumes[0].S3FilesVolumeConfiguration).toBeDefined();
    const [[, instance]] = byType('AWS::EC2::Instance');
    expect(JSON.stringify(instance.Properties.UserData)).toContain("s3files_mount '");
    for (const r of [task, job, instance]) expect(r.DependsOn).toContain(waiterId);
    // AND it can deploy as shown: the task and the instance run in subnets whose default route
    // leads to a NAT gateway (public ECR, the efs-utils install), S3 goes through its gateway
    // endpoint, and a task that cannot start fails the deployment (circuit breaker) instead of hanging
    const natRouted = new Set(byType('AWS::EC2::Route').filter(([, r]) => r.Properties.NatGatewayId)
      .map(([, r]) => JSON.stringify(r.Properties.RouteTableId)));
    const routedSubnets = byType('AWS::EC2::SubnetRouteTableAssociation')
      .filter(([, a]) => natRouted.has(JSON.stringify(a.Properties.RouteTableId))).map(([, a]) => JSON.stringify(a.Properties.SubnetId));
    expect(routedSubnets.length).toBeGreaterThan(0);
    expect(routedSubnets).toContain(JSON.stringify(instance.Properties.SubnetId));
    const [[, service]] = byType('AWS::ECS::Service');
    for (const subnet of service.Properties.NetworkConfiguration.AwsvpcConfiguration.Subnets) expect(routedSubnets).toContain(JSON.stringify(subnet));
    expect(service.Properties.DeploymentConfiguration.DeploymentCircuitBreaker).toEqual({ Enable: true, Rollback: true });
    expect(byType('AWS::EC2::VPCEndpoint').map(([, e]) => e.Properties.VpcEndpointType)).toEqual(['Gateway']);
  }, 120_000);
});

describe('README: monitoring', () => {
  test('monitoring.ts: six alarms notifying the topic, and a dashboard', () => {
    const t = synthExample('monitoring.ts').Monitored;
    const alarms = Object.values<any>(t.Resources).filter((r) => r.Type === 'AWS::CloudWatch::Alarm');
    expect(alarms).toHaveLength(6);
    for (const a of alarms) expect(a.Properties.AlarmActions).toEqual([{ Ref: expect.stringMatching(/^Alerts/) }]);
    expect(alarms.find((a) => a.Properties.MetricName === 'ExportAge').Properties.Threshold).toBe(600);
    expect(Object.values<any>(t.Resources).filter((r) => r.Type === 'AWS::CloudWatch::Dashboard')).toHaveLength(1);
  }, 120_000);
});

describe('README: storage in one stack, functions in others', () => {
  test('split-stacks.ts: the storage stack names no function; the three functions mount in the compute stack', () => {
    // WHEN the README program runs
    const { Storage: storage, Compute: compute } = synthExample('split-stacks.ts');
    // THEN nothing in the storage stack refers to the compute stack or its functions and access points
    expect(JSON.stringify(storage)).not.toMatch(/Compute|"(Writer|Reader|Own|Shared)[0-9A-F]{8}"/);
    // AND Writer and Reader share /shared (Reader read-only), Own has its own access point
    const mounted = Object.entries<any>(compute.Resources)
      .filter(([, r]) => r.Type === 'AWS::Lambda::Function' && r.Properties.FileSystemConfigs)
      .map(([id, r]) => [id.replace(/[0-9A-F]{8}$/, ''), r.Properties.FileSystemConfigs[0].Arn['Fn::GetAtt'][0].replace(/[0-9A-F]{8}$/, '')]);
    expect(mounted.sort()).toEqual([['Own', expect.stringMatching(/^Own/)], ['Reader', 'Shared'], ['Writer', 'Shared']]);
    expect(Object.values<any>(compute.Resources).filter((r) => r.Type === 'AWS::S3Files::AccessPoint')).toHaveLength(2);
  }, 120_000);
});

describe('README: every CloudFormation property, and where it is set', () => {
  /** Resource type -> the property names its rows list (a row with an empty first cell continues the type above). */
  function table(): Map<string, Set<string>> {
    const start = readme.indexOf('### Every CloudFormation property, and where it is set');
    const rows = readme.slice(start).split('\n').filter((l) => l.startsWith('| ')).slice(1); // past the header row
    const out = new Map<string, Set<string>>();
    let type = '';
    for (const row of rows) {
      const [typeCell, propCell] = row.split('|').slice(1, 3).map((c) => c.trim());
      if (typeCell) type = typeCell.replace(/`/g, '');
      const props = out.get(type) ?? new Set<string>();
      for (const m of propCell.matchAll(/`([A-Za-z0-9.]+)`/g)) props.add(m[1]);
      for (const m of propCell.matchAll(/\(with `([A-Za-z]+)`\)/g)) props.add(`${propCell.match(/`([A-Za-z]+)`/)![1]}.${m[1]}`);
      out.set(type, props);
    }
    return out;
  }

  test.each(['AWS::S3Files::FileSystem', 'AWS::S3Files::MountTarget', 'AWS::S3Files::AccessPoint', 'AWS::S3Files::FileSystemPolicy'])(
    'lists each settable property of %s in cfn-lint\'s schema', (type) => {
      // GIVEN the properties CloudFormation's schema lets a template set
      const settable = settableProperties(type);
      expect(settable.length).toBeGreaterThan(1);
      // WHEN the README's table is read
      const listed = table().get(type) ?? new Set<string>();
      // THEN none is missing (a nested property counts when its parent or itself is listed)
      const missing = settable.filter((p) => !listed.has(p) && !listed.has(p.split('.')[0]));
      expect(missing).toEqual([]);
    });
});

describe('README programs: warnings', () => {
  // A README program is what users copy: it synthesizes without a warning (aws-cdk-lib's and the
  // library's), unless the text around it names the warning's id and says why it is expected.
  const programs = fs.readdirSync(path.join(root, 'examples', 'readme')).filter((f) => f.endsWith('.ts'));
  test.each(programs)('%s synthesizes without warnings, or the README says why', (program) => {
    // The README section that shows the program: from its heading to the next of the same level.
    const text = fs.readFileSync(path.join(root, 'examples', 'readme', program), 'utf8');
    const at = readme.indexOf(text);
    // (headings of level 2 and below: a `# ` line inside a Python or shell block is a comment)
    const heading = /\n#{2,6} /g;
    const starts = [...readme.matchAll(heading)].map((m) => m.index!);
    const from = Math.max(...starts.filter((i) => i < at));
    const to = Math.min(...starts.filter((i) => i > at + text.length), readme.length);
    const section = at < 0 ? '' : readme.slice(from, to);
    const unexplained = exampleWarnings(program).filter((w) => {
      const id = / \[ack: ([^\]]+)\]$/.exec(w)?.[1];
      return !id || !section.includes(`\`${id}\``);
    });
    expect(unexplained).toEqual([]);
  }, 120_000);
});

describe('README programs: cfn-lint', () => {
  // The Python and Java versions synthesize the same templates (test/bindings/run.sh compares them).
  test('every README program\'s templates pass cfn-lint with no error [python tools]', () => {
    const programs = fs.readdirSync(path.join(root, 'examples', 'readme')).filter((f) => f.endsWith('.ts'));
    expect(programs.length).toBeGreaterThanOrEqual(7);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's3files-readme-lint-'));
    for (const program of programs) {
      for (const [stack, template] of Object.entries(synthExample(program))) {
        fs.writeFileSync(path.join(dir, `${program}-${stack}.json`), JSON.stringify(template));
      }
    }
    const files = fs.readdirSync(dir).map((f) => path.join(dir, f));
    const result = spawnSync(venvBin('cfn-lint'), ['--format', 'parseable', '--', ...files], { encoding: 'utf8' });
    fs.rmSync(dir, { recursive: true, force: true });
    expect(result.stdout.split('\n').filter((line: string) => /:E\d{4}:/.test(line))).toEqual([]);
    expect(result.stderr).toBe('');
  });
});
