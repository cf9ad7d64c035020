import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as zlib from 'zlib';
import { App, Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as autoscaling from 'aws-cdk-lib/aws-autoscaling';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Ec2Mount, S3FilesAccessPoint, S3FilesFileSystem } from '../../src';
import { mountCommand, MOUNT_FUNCTION, MIN_EFS_UTILS_VERSION, PER_BOOT_SCRIPT } from '../../src/private/mount/ec2-user-data';
import { byPrefix, isolatedVpc, newStack, only, warnings } from '../util/template';
import { venvBin } from '../validators/templates';

/** Temp directories the tests made, removed when the file's tests end. */
const tempDirs: string[] = [];
const afterCleanup = (dir: string) => tempDirs.push(dir);
afterAll(() => tempDirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

const AMI = ec2.MachineImage.latestAmazonLinux2023();
const TYPE = ec2.InstanceType.of(ec2.InstanceClass.T4G, ec2.InstanceSize.MICRO);

function withAccessPoint(stack: Stack = newStack()) {
  const vpc = isolatedVpc(stack);
  const fileSystem = new S3FilesFileSystem(stack, 'Files', { vpc });
  const accessPoint = fileSystem.addAccessPoint('Data', { path: '/data' });
  return { stack, vpc, fileSystem, accessPoint };
}

function instanceIn(stack: Stack, vpc: ec2.IVpc, id = 'Host', extra: Partial<ec2.InstanceProps> = {}): ec2.Instance {
  return new ec2.Instance(stack, id, {
    vpc, instanceType: TYPE, machineImage: AMI, vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED }, ...extra,
  });
}

/** The rendered user data of the first instance, with CloudFormation's Fn::Join flattened (tokens shown as <Ref>). */
function renderedUserData(t: Template, type = 'AWS::EC2::Instance', at: (p: any) => any = (p) => p.UserData): string {
  const [, resource] = only(t, type);
  const join = at(resource.Properties)['Fn::Base64']['Fn::Join'];
  return join[1].map((part: any) => (typeof part === 'string' ? part : `<${JSON.stringify(part)}>`)).join(join[0]);
}

describe('Ec2Mount.onInstance: the template', () => {
  test('user data defines the mount function once and calls it per access point with the ids and path', () => {
    // GIVEN
    const { stack, vpc, fileSystem, accessPoint } = withAccessPoint();
    const other = fileSystem.addAccessPoint('Other', { path: '/other' });
    const host = instanceIn(stack, vpc);
    // WHEN
    Ec2Mount.onInstance(host, accessPoint, { mountPath: '/mnt/data' });
    Ec2Mount.onInstance(host, other, { mountPath: '/mnt/other', readOnly: true, mountTimeout: Duration.minutes(2) });
    // THEN
    const t = Template.fromStack(stack);
    const script = renderedUserData(t);
    // AND the client group is joined once, however many mounts
    const [, instance] = only(t, 'AWS::EC2::Instance');
    const groups = instance.Properties.SecurityGroupIds.map((g: unknown) => JSON.stringify(g));
    expect(new Set(groups).size).toBe(groups.length);
    expect(script.split('s3files_mount() (').length - 1).toBe(1);
    expect(script).toMatch(new RegExp(`s3files_mount '<\\{"Fn::GetAtt":\\["Files[0-9A-F]+","FileSystemId"\\]\\}>' '<\\{"Fn::GetAtt":\\["FilesData[0-9A-F]+","AccessPointId"\\]\\}>' '/mnt/data' false ${MIN_EFS_UTILS_VERSION.replace(/\./g, '\\.')} 600`));
    expect(script).toMatch(/s3files_mount '.*' '<\{"Fn::GetAtt":\["FilesOther[0-9A-F]+","AccessPointId"\]\}>' '\/mnt\/other' true [0-9.]+ 120/);
  });

  test('the same access point at the same path twice is mounted once', () => {
    // GIVEN
    const { stack, vpc, accessPoint } = withAccessPoint();
    const host = instanceIn(stack, vpc);
    // WHEN
    Ec2Mount.onInstance(host, accessPoint, { mountPath: '/mnt/data' });
    Ec2Mount.onInstance(host, accessPoint, { mountPath: '/mnt/data/' });
    // THEN
    const script = renderedUserData(Template.fromStack(stack));
    expect(script.match(/^s3files_mount '/gm)).toHaveLength(1);
  });

  test('the role gets the scoped client actions and direct reads, joins the client group, and the instance waits for the waiter', () => {
    // GIVEN
    const { stack, vpc, accessPoint } = withAccessPoint();
    const host = instanceIn(stack, vpc);
    // WHEN
    Ec2Mount.onInstance(host, accessPoint);
    // THEN
    const t = Template.fromStack(stack);
    const [, policy] = byPrefix(t, 'AWS::IAM::Policy', 'HostInstanceRoleDefaultPolicy');
    const st = policy.Properties.PolicyDocument.Statement;
    expect(st).toEqual(expect.arrayContaining([
      expect.objectContaining({ Action: ['s3files:ClientMount', 's3files:ClientWrite'], Condition: { ArnEquals: { 's3files:AccessPointArn': { 'Fn::GetAtt': [expect.stringMatching(/^FilesData/), 'AccessPointArn'] } } } }),
      expect.objectContaining({ Action: 's3files:GetAccessPoint' }),
      expect.objectContaining({ Action: 's3files:ListMountTargets' }),
      expect.objectContaining({ Action: ['s3:GetObject', 's3:GetObjectVersion'], Resource: { 'Fn::Join': ['', [expect.anything(), '/*']] } }),
      // as the S3 user guide's compute-role policy has it
      { Effect: 'Allow', Action: 's3:ListBucket', Resource: { 'Fn::GetAtt': [expect.stringMatching(/^FilesBucket/), 'Arn'] } },
      // and publishes its metrics in its two namespaces, and its log to its own log group (its defaults, v3.2.0)
      { Effect: 'Allow', Action: 'cloudwatch:PutMetricData', Resource: '*', Condition: { StringEquals: { 'cloudwatch:namespace': ['efs-utils/S3Files', 'efs-utils/EFS'] } } },
      {
        Effect: 'Allow',
        Action: ['logs:CreateLogGroup', 'logs:PutRetentionPolicy', 'logs:CreateLogStream', 'logs:DescribeLogStreams', 'logs:PutLogEvents'],
        Resource: [
          { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':logs:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':log-group:/aws/efs/utils']] },
          { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':logs:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':log-group:/aws/efs/utils:*']] },
        ],
      },
    ]));
    const [, role] = byPrefix(t, 'AWS::IAM::Role', 'HostInstanceRole');
    expect(JSON.stringify(role.Properties.Tags ?? [])).not.toContain('s3files-client-');
    const [, instance] = only(t, 'AWS::EC2::Instance');
    expect(instance.Properties.SecurityGroupIds).toEqual(expect.arrayContaining([{ 'Fn::GetAtt': [expect.stringMatching(/^FilesClientSecurityGroup/), 'GroupId'] }]));
    const [waiterId] = byPrefix(t, 'Custom::S3FilesMountTargetsAvailable', 'FilesMountTargetsAvailable');
    expect(instance.DependsOn).toEqual(expect.arrayContaining([waiterId]));
  });

  test('an Auto Scaling group and a launch template get the same', () => {
    // GIVEN
    const { stack, vpc, accessPoint } = withAccessPoint();
    const group = new autoscaling.AutoScalingGroup(stack, 'Fleet', {
      vpc, instanceType: TYPE, machineImage: AMI, vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
    });
    const template = new ec2.LaunchTemplate(stack, 'Template', {
      machineImage: AMI,
      instanceType: TYPE,
      userData: ec2.UserData.forLinux(),
      role: new iam.Role(stack, 'TemplateRole', { assumedBy: new iam.ServicePrincipal('ec2.amazonaws.com') }),
      securityGroup: new ec2.SecurityGroup(stack, 'TemplateGroup', { vpc }),
    });
    // WHEN
    Ec2Mount.onAutoScalingGroup(group, accessPoint, { readOnly: true });
    Ec2Mount.onLaunchTemplate(template, accessPoint);
    // THEN
    const t = Template.fromStack(stack);
    const [waiterId] = byPrefix(t, 'Custom::S3FilesMountTargetsAvailable', 'FilesMountTargetsAvailable');
    const [, asg] = only(t, 'AWS::AutoScaling::AutoScalingGroup');
    expect(asg.DependsOn).toEqual(expect.arrayContaining([waiterId]));
    const [, lt] = byPrefix(t, 'AWS::EC2::LaunchTemplate', 'Template');
    expect(lt.DependsOn).toEqual(expect.arrayContaining([waiterId]));
    expect(JSON.stringify(lt.Properties.LaunchTemplateData.UserData)).toContain('s3files_mount');
    expect(lt.Properties.LaunchTemplateData.SecurityGroupIds).toEqual(expect.arrayContaining([{ 'Fn::GetAtt': [expect.stringMatching(/^FilesClientSecurityGroup/), 'GroupId'] }]));
    // the launch template's AZs are the launcher's: a warning says they are not checked
    expect(warnings(stack).join('\n')).toMatch(/launch template's instances launch into are not known/);
    // and a group without an update policy would keep running instances on the old mount
    expect(warnings(stack).join('\n')).toMatch(/Fleet has no update policy, so a later change of the mount .* reaches only new instances.*UpdatePolicy\.rollingUpdate\(\)/);
  });

  test('user data past EC2\'s 16 KB with the mount is a synth error naming its size; just under it passes', () => {
    // GIVEN instances whose own user data is 14 KB and 4 KB
    const build = (ownBytes: number) => {
      const { stack, vpc, accessPoint } = withAccessPoint();
      const host = instanceIn(stack, vpc);
      host.userData.addCommands(`# ${'x'.repeat(ownBytes)}`);
      Ec2Mount.onInstance(host, accessPoint);
      return () => Template.fromStack(stack);
    };
    // WHEN / THEN
    expect(build(14 * 1024)).toThrow(/invalid userData: with the S3 Files mount it is about \d+ bytes, and EC2 accepts at most 16384 \(16 KB, before base64\)\. Fix: move the rest/);
    expect(build(4 * 1024)).not.toThrow();
  });

  test('a group with a rolling or replacing update policy gets no update-policy warning', () => {
    const { stack, vpc, accessPoint } = withAccessPoint();
    for (const [id, updatePolicy] of [['Rolling', autoscaling.UpdatePolicy.rollingUpdate()], ['Replacing', autoscaling.UpdatePolicy.replacingUpdate()]] as const) {
      Ec2Mount.onAutoScalingGroup(new autoscaling.AutoScalingGroup(stack, id, {
        vpc, instanceType: TYPE, machineImage: AMI, vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED }, updatePolicy,
      }), accessPoint);
    }
    expect(warnings(stack).join('\n')).not.toMatch(/no update policy/);
  });

  test('in another stack: the instance references the storage stack, never the reverse', () => {
    // GIVEN
    const app = new App();
    const storage = new Stack(app, 'Storage');
    const { vpc, accessPoint } = withAccessPoint(storage);
    const compute = new Stack(app, 'Compute');
    // WHEN
    Ec2Mount.onInstance(instanceIn(compute, vpc), accessPoint);
    // THEN
    const t = Template.fromStack(compute);
    expect(compute.dependencies).toContain(storage);
    expect(storage.dependencies).toEqual([]);
    t.hasResourceProperties('AWS::EC2::Instance', {
      SecurityGroupIds: Match.arrayWith([{ 'Fn::ImportValue': Match.stringLikeRegexp('ClientSecurityGroup') }]),
    });
  });
});

describe('Ec2Mount.onInstance: refusals', () => {
  test.each<[string, (s: Stack, vpc: ec2.IVpc, ap: S3FilesAccessPoint) => void, RegExp]>([
    ['a Windows instance', (s, vpc, ap) => Ec2Mount.onInstance(instanceIn(s, vpc, 'Win', { machineImage: ec2.MachineImage.latestWindows(ec2.WindowsVersion.WINDOWS_SERVER_2022_ENGLISH_FULL_BASE) }), ap),
      /TestStack\/Win: invalid machineImage "Windows": the S3 Files mount helper \(amazon-efs-utils\) runs on Linux only/],
    ['a mount path with a space', (s, vpc, ap) => Ec2Mount.onInstance(instanceIn(s, vpc), ap, { mountPath: '/mnt/my data' }),
      /invalid mountPath "\/mnt\/my data": it is written into \/etc\/fstab and a shell command/],
    ['a relative mount path', (s, vpc, ap) => Ec2Mount.onInstance(instanceIn(s, vpc), ap, { mountPath: 'mnt' }), /invalid mountPath "mnt": it must be an absolute path/],
    ['a mount timeout over an hour', (s, vpc, ap) => Ec2Mount.onInstance(instanceIn(s, vpc), ap, { mountTimeout: Duration.hours(2) }),
      /invalid mountTimeout 2 hours: the boot script retries the mount for 1 second to 1 hour/],
    ['a launch template without user data', (s, _vpc, ap) => Ec2Mount.onLaunchTemplate(new ec2.LaunchTemplate(s, 'Bare', { machineImage: AMI }), ap),
      /TestStack\/Bare: invalid userData undefined: the launch template has no user data.*Fix: create the launch template with `userData`: `ec2\.UserData\.forLinux\(\)`/],
    ['a launch template without a role', (s, _vpc, ap) => Ec2Mount.onLaunchTemplate(new ec2.LaunchTemplate(s, 'NoRole', { userData: ec2.UserData.forLinux() }), ap),
      /TestStack\/NoRole: invalid role undefined: the launch template has no role/],
    ['an Auto Scaling group built from a launch template', (s, vpc, ap) => {
      const launchTemplate = new ec2.LaunchTemplate(s, 'LT', { machineImage: AMI, instanceType: TYPE });
      Ec2Mount.onAutoScalingGroup(new autoscaling.AutoScalingGroup(s, 'FromLt', { vpc, launchTemplate }), ap);
    }, /TestStack\/FromLt: invalid autoScalingGroup "TestStack\/FromLt": it was created from a launch template.*`Ec2Mount\.onLaunchTemplate\(\)`/],
    ['two access points at one mount path', (s, vpc, ap) => {
      const host = instanceIn(s, vpc);
      Ec2Mount.onInstance(host, ap);
      Ec2Mount.onInstance(host, (ap.fileSystem as S3FilesFileSystem).addAccessPoint('Other', { path: '/other' }));
    }, /TestStack\/Host: invalid mountPath "\/mnt\/s3files": the user data of the instance already mounts TestStack\/Files\/Data there.*Fix: give each access point its own `mountPath`/],
    ['two access points at one mount path of a launch template', (s, vpc, ap) => {
      const lt = new ec2.LaunchTemplate(s, 'LT', {
        machineImage: AMI,
        userData: ec2.UserData.forLinux(),
        securityGroup: new ec2.SecurityGroup(s, 'Sg', { vpc }),
        role: new iam.Role(s, 'Role', { assumedBy: new iam.ServicePrincipal('ec2.amazonaws.com') }),
      });
      Ec2Mount.onLaunchTemplate(lt, ap, { mountPath: '/data' });
      Ec2Mount.onLaunchTemplate(lt, (ap.fileSystem as S3FilesFileSystem).addAccessPoint('Other', { path: '/other' }), { mountPath: '/data' });
    }, /TestStack\/LT: invalid mountPath "\/data": the user data of the launch template's instances already mounts TestStack\/Files\/Data there/],
    ['one access point read-write, then read-only at the same path', (s, vpc, ap) => {
      const host = instanceIn(s, vpc);
      Ec2Mount.onInstance(host, ap);
      Ec2Mount.onInstance(host, ap, { readOnly: true });
    }, /invalid readOnly true: the user data of the instance already mounts this access point at \/mnt\/s3files read-write/],
    ['a mount path under another mount path of the same user data', (s, vpc, ap) => {
      const host = instanceIn(s, vpc);
      Ec2Mount.onInstance(host, ap, { mountPath: '/mnt/data' });
      Ec2Mount.onInstance(host, (ap.fileSystem as S3FilesFileSystem).addAccessPoint('Other', { path: '/other' }), { mountPath: '/mnt/data/current' });
    }, /TestStack\/Host: invalid mountPath "\/mnt\/data\/current": it lies under \/mnt\/data, where the user data of the instance already mounts TestStack\/Files\/Data: a mount point inside another mount is a directory of the outer access point, which cannot be made immutable, so while nothing is mounted there writes land in the outer access point\. Fix: give each mount a directory of its own, none inside another \(e\.g\. "\/mnt\/data" and "\/mnt\/logs"\)/],
    ['a mount path that contains another mount path of the same user data (the same access point)', (s, vpc, ap) => {
      const host = instanceIn(s, vpc);
      Ec2Mount.onInstance(host, ap, { mountPath: '/mnt/data/current/' });
      Ec2Mount.onInstance(host, ap, { mountPath: '/mnt/data' });
    }, /TestStack\/Host: invalid mountPath "\/mnt\/data": the user data of the instance already mounts TestStack\/Files\/Data at \/mnt\/data\/current, which lies under it: a mount point inside another mount .* Fix: give each mount a directory of its own/],
    ['ec2.MultipartUserData', (s, vpc, ap) => Ec2Mount.onInstance(instanceIn(s, vpc, 'Multi', { userData: new ec2.MultipartUserData() }), ap),
      /TestStack\/Multi: invalid userData ec2\.MultipartUserData: the boot script installs a per-boot script that reads the user data back from the instance metadata service on every boot and runs its s3files_mount lines as a shell script; in a MIME multipart body they are base64-encoded inside a part, where it would not find them, so a later change of the mount would never reach a running instance\. Fix: use `ec2\.UserData\.forLinux\(\)` and put the commands of the other parts into it \(`userData\.addCommands\(\)`; a cloud-config part as the shell commands that do the same\)/],
  ])('refuses %s', (_what, build, message) => {
    const { stack, vpc, accessPoint } = withAccessPoint();
    expect(() => build(stack, vpc, accessPoint)).toThrow(message);
  });

  test('an instance in an AZ without a mount target', () => {
    // GIVEN mount targets in the first two of three AZs
    const stack = new Stack(new App(), 'TestStack', { env: { account: '111111111111', region: 'us-east-1' } });
    const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 3, natGateways: 0, subnetConfiguration: [{ name: 'Isolated', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }] });
    const files = new S3FilesFileSystem(stack, 'Files', { vpc, vpcSubnets: { subnets: vpc.isolatedSubnets.slice(0, 2) } });
    const host = instanceIn(stack, vpc, 'Far', { vpcSubnets: { subnets: [vpc.isolatedSubnets[2]] } });
    // WHEN / THEN
    expect(() => Ec2Mount.onInstance(host, files.addAccessPoint('Data', { path: '/lambda' }))).toThrow(/TestStack\/Far: invalid vpcSubnets "dummy1c": TestStack\/Files has mount targets only in dummy1a, dummy1b/);
  });
});

// ---------------------------------------------------------------------------------------------
// The script itself: shellcheck, then run it against stub dnf/yum/rpm/mount/umount/mountpoint/
// chattr/mkdir/sleep/curl on PATH and a local HTTP server as the metadata service, with /etc/fstab
// and /var/lib bind-mounted from temp files in a private mount namespace.

const STUBS: Record<string, string> = {
  'rpm': '[ -s "$STATE/installed" ] && cat "$STATE/installed" || exit 1',
  // A file $STATE/fail_<tool> makes that tool fail (dnf, yum, download, installer).
  // $STATE/stop_in_install: the first dnf is where the instance is stopped (the boot script and the mount function are killed).
  'dnf': [
    'echo "dnf $*" >> "$STATE/calls"',
    'if [ -e "$STATE/stop_in_install" ]; then rm -f "$STATE/stop_in_install"; kill -KILL "$BOOT_PID" "$PPID"; exit 137; fi',
    '[ ! -e "$STATE/fail_dnf" ] || exit 1; if [ -e "$STATE/repo" ]; then cp "$STATE/repo" "$STATE/installed"; fi',
  ].join('\n'),
  'yum': 'echo "yum $*" >> "$STATE/calls"; [ ! -e "$STATE/fail_yum" ] || exit 1; if [ -e "$STATE/repo" ]; then cp "$STATE/repo" "$STATE/installed"; fi',
  'mount': [
    'echo "mount $*" >> "$STATE/calls"',
    'n=$(( $(cat "$STATE/mount_attempts" 2>/dev/null || echo 0) + 1 )); echo "$n" > "$STATE/mount_attempts"',
    'if [ "$n" -gt "$(cat "$STATE/fail_mounts")" ]; then echo "$1" >> "$STATE/mounted"; exit 0; fi',
    'echo "mount.s3files: Connection timed out" >&2; exit 32',
  ].join('\n'),
  // What is mounted: one path a line in $STATE/mounted.
  'mountpoint': 'grep -qxF -- "$2" "$STATE/mounted" 2>/dev/null',
  // As the kernel does: a path with a mount below it is busy; a lazy unmount detaches it and everything below.
  'umount': [
    'echo "umount $*" >> "$STATE/calls"',
    'lazy=; if [ "$1" = -l ]; then lazy=1; shift; fi',
    'if [ -z "$lazy" ] && awk -v p="$1" \'index($0, p "/") == 1 { found = 1 } END { exit !found }\' "$STATE/mounted" 2>/dev/null; then echo "umount: $1: target is busy." >&2; exit 32; fi',
    'awk -v p="$1" \'$0 != p && index($0, p "/") != 1\' "$STATE/mounted" > "$STATE/mounted.new" 2>/dev/null || true; mv "$STATE/mounted.new" "$STATE/mounted"',
  ].join('\n'),
  // The immutable directories, one a line in $STATE/immutable (chattr +i / -i, as on ext4 or xfs).
  'chattr': [
    'echo "chattr $*" >> "$STATE/calls"',
    '[ -e "$2" ] || { echo "chattr: No such file or directory while trying to stat $2" >&2; exit 1; }',
    'awk -v p="$2" \'$0 != p\' "$STATE/immutable" > "$STATE/immutable.new" 2>/dev/null || true; mv "$STATE/immutable.new" "$STATE/immutable"',
    'if [ "$1" = +i ]; then echo "$2" >> "$STATE/immutable"; fi',
  ].join('\n'),
  // No new entry in an immutable directory, unless something is mounted over it (the entry is then on the mount).
  'mkdir': [
    'for a in "$@"; do',
    '  case "$a" in -*) continue;; esac',
    '  d="$a"; while [ ! -e "$d" ]; do d="$(dirname "$d")"; done',
    '  if [ "$d" != "$a" ] && grep -qxF -- "$d" "$STATE/immutable" 2>/dev/null && ! grep -qxF -- "$d" "$STATE/mounted" 2>/dev/null; then',
    '    echo "mkdir: cannot create directory \'$a\': Operation not permitted" >&2; exit 1',
    '  fi',
    'done',
    'exec /usr/bin/mkdir "$@"',
  ].join('\n'),
  // The instance metadata service is a local HTTP server (IMDS_SERVER), reached by the real curl with the script's flags,
  // its time limits a tenth as long; and the efs-utils project's installer (it installs what $STATE/repo holds).
  'curl': [
    'case "$*" in',
    '  *169.254.169.254*)',
    '    echo "curl $*" >> "$STATE/calls"',
    '    port="$(cat "$STATE/imds_port")"; args=(); prev=',
    '    for a in "$@"; do',
    '      case "$prev" in --connect-timeout|--max-time|-m) a="$(awk -v t="$a" \'BEGIN { print t / 10 }\')";; esac',
    '      prev="$a"; args+=("$(printf \'%s\' "$a" | sed "s#^http://169.254.169.254/#http://127.0.0.1:$port/#")")',
    '    done',
    '    exec /usr/bin/curl "${args[@]}";;',
    '  *efs-utils-installer.sh*) echo "curl $*" >> "$STATE/calls"; [ ! -e "$STATE/fail_download" ] || exit 6',
    '    printf \'%s\\n\' \'echo "installer $*" >> "$STATE/calls"\' \'[ ! -e "$STATE/fail_installer" ] || exit 1\' \'if [ -e "$STATE/repo" ]; then cp "$STATE/repo" "$STATE/installed"; rm -f "$STATE/dpkg_status"; fi\';;',
    '  *) exit 22;;',
    'esac',
  ].join('\n'),
  // dpkg on Debian-family images (only there: see Scenario.packages).
  'dpkg-query': '[ -s "$STATE/installed" ] && printf "Package: amazon-efs-utils\\nStatus: %s\\nVersion: %s-1\\n" "$(cat "$STATE/dpkg_status" 2>/dev/null || echo install ok installed)" "$(cat "$STATE/installed")" || exit 1',
  // $STATE/stop_in_retry: the instance is stopped during the first wait between two mount attempts (the whole boot is killed).
  'sleep': 'echo "sleep $*" >> "$STATE/calls"; if [ -e "$STATE/stop_in_retry" ]; then rm -f "$STATE/stop_in_retry"; kill -KILL 0; fi; /bin/sleep 0.05',
  // $STATE/stop_writing_fstab: the instance is stopped (the whole boot is killed) after the first 20 bytes of a new
  // /etc/fstab are written, whether written in place (cat > /etc/fstab) or as a new file in /etc (dd of=/etc/.fstab...).
  'cat': [
    'if [ -e "$STATE/stop_writing_fstab" ] && [ "$(readlink -f "/proc/$$/fd/1")" = /etc/fstab ]; then',
    '  rm -f "$STATE/stop_writing_fstab"; /usr/bin/head -c 20 "$@"; kill -KILL 0',
    'fi',
    'exec /usr/bin/cat "$@"',
  ].join('\n'),
  'dd': [
    'out=; for a in "$@"; do case "$a" in of=*) out="${a#of=}";; esac; done',
    'case "$out" in /etc/*fstab*)',
    '  if [ -e "$STATE/stop_writing_fstab" ]; then rm -f "$STATE/stop_writing_fstab"; /usr/bin/head -c 20 > "$out"; kill -KILL 0; fi;;',
    'esac',
    'exec /usr/bin/dd "$@"',
  ].join('\n'),
};

/**
 * IMDSv2 on 127.0.0.1: a token for PUT /latest/api/token, then $STATE/user-data for GET
 * /latest/user-data with that token. No $STATE/user-data: nothing listens (connection refused).
 * $STATE/imds_503 = n: the first n requests of each path answer 503; $STATE/imds_silent: it
 * accepts connections and never answers. Each request is logged to $STATE/imds_requests.
 */
const IMDS_SERVER = String.raw`
const fs = require('fs'); const http = require('http'); const path = require('path');
const at = (f) => path.join(process.env.STATE, f);
const fail503 = fs.existsSync(at('imds_503')) ? Number(fs.readFileSync(at('imds_503'), 'utf8')) : 0;
const seen = {};
const server = http.createServer((req, res) => {
  fs.appendFileSync(at('imds_requests'), req.method + ' ' + req.url + '\n');
  if (fs.existsSync(at('imds_silent'))) return;
  seen[req.url] = (seen[req.url] || 0) + 1;
  if (seen[req.url] <= fail503) { res.writeHead(503); res.end(); return; }
  if (req.method === 'PUT' && req.url === '/latest/api/token' && req.headers['x-aws-ec2-metadata-token-ttl-seconds']) { res.end('token'); return; }
  if (req.method === 'GET' && req.url === '/latest/user-data' && req.headers['x-aws-ec2-metadata-token'] === 'token') {
    res.end(fs.readFileSync(at('user-data'))); return;
  }
  res.writeHead(404); res.end();
});
server.listen(0, '127.0.0.1', () => {
  fs.writeFileSync(at('imds_port.new'), String(server.address().port));
  fs.renameSync(at('imds_port.new'), at('imds_port'));
  if (!fs.existsSync(at('user-data'))) server.close();
});
setTimeout(() => process.exit(0), 60000);
`;

interface Scenario {
  readonly installed?: string;
  readonly repo?: string;
  readonly failMounts?: number;
  /** An s3files line for the same mount path from an earlier boot, with this access point. */
  readonly earlierAccessPoint?: string;
  readonly managers?: Array<'dnf' | 'yum'>;
  /** /etc/os-release (default: Amazon Linux 2023). */
  readonly os?: string;
  /** The image's package format: rpm (rpm and dnf/yum stubs) or deb (dpkg-query, no rpm). Default rpm. */
  readonly packages?: 'rpm' | 'deb';
  /** dpkg's Status line for the installed package (default "install ok installed"). */
  readonly dpkgStatus?: string;
  /** This install step fails (exit status not 0). */
  readonly fail?: 'dnf' | 'yum' | 'download' | 'installer';
  readonly timeout?: number;
  readonly readOnly?: boolean;
  /** Where the user data mounts, under the instance's /mnt (default "data"). */
  readonly mountAt?: string;
  /**
   * Run the per-boot script from where it is installed (`script`, default the library's) instead
   * of the user data, with this user data served by the metadata service.
   */
  readonly perBoot?: { readonly userData?: (mountPath: string, otherPath: string) => string | Buffer; readonly script?: string };
  /** The metadata service answers 503 to the first n requests of each path, or never answers. */
  readonly imds?: { readonly first503?: number; readonly silent?: boolean };
  /** The instance is stopped while the user data's first dnf runs. */
  readonly stopInInstall?: boolean;
  /** After the user data, the instance boots again: the per-boot script the first boot installed (if any) runs. */
  readonly reboot?: boolean;
  /** Already mounted when the script starts (mounted at boot from the fstab). */
  readonly mounted?: boolean;
  /** Another s3files fstab line, for a second path. */
  readonly otherLine?: boolean;
  /** The paths an earlier boot's user data mounted through this library (its state file). */
  readonly managed?: 'both' | 'main';
  /**
   * More of an earlier boot's state, by path under the instance's /mnt: s3files fstab lines (path to
   * access point), what is mounted, the paths the library manages, and the local directories it made
   * immutable (they exist).
   */
  readonly earlierBoot?: {
    readonly fstab?: Record<string, string>;
    readonly mounted?: string[];
    readonly managed?: string[];
    readonly immutable?: string[];
  };
  /** The first boot's user data (default: the library's, mounting the one path). */
  readonly userData?: (mountPath: string, otherPath: string) => string;
  /** The first boot is stopped while it writes the new /etc/fstab. */
  readonly stopWritingFstab?: boolean;
  /** /etc/fstab's mode before the first boot (default 0644), and its group (when the tests run as root). */
  readonly fstabMode?: number;
  readonly fstabGid?: number;
  /**
   * After the first boot, the instance is stopped and started again once per entry: the s3files lines
   * of /etc/fstab are mounted at boot, then the per-boot script runs with this user data.
   */
  readonly laterBoots?: readonly LaterBoot[];
}

interface LaterBoot {
  readonly userData: (mountPath: string, otherPath: string) => string;
  /** Mount attempts that fail in this boot (default 0). */
  readonly failMounts?: number;
  /** The instance is stopped during the first wait between two mount attempts. */
  readonly stopInRetry?: boolean;
  /** The instance is stopped while this boot writes a new /etc/fstab. */
  readonly stopWritingFstab?: boolean;
}

interface FileStat {
  readonly ino: number;
  readonly mode: number;
  readonly uid: number;
  readonly gid: number;
}

interface Boot {
  readonly status: number | null;
  readonly stderr: string;
  /** Wall-clock seconds the boot took. */
  readonly seconds: number;
}

interface Run extends Boot {
  readonly calls: string[];
  readonly fstab: string;
  readonly mountDir: boolean;
  /** The per-boot script the run installed, if any. */
  readonly perBoot?: string;
  readonly mountPath: string;
  readonly otherPath: string;
  /** What is mounted, and the immutable directories, when the run ends. */
  readonly mounted: string[];
  readonly immutable: string[];
  /** The requests the metadata service saw ("PUT /latest/api/token"). */
  readonly imds: string[];
  /** With `reboot`: the first boot (the user data), and whether it left a per-boot script; the rest is the second boot's. */
  readonly firstBoot?: Boot & { readonly perBootInstalled: boolean; readonly fstab: string };
  /** With `laterBoots`: each of them; the first boot's result is then in `firstBoot`. */
  readonly laterBoots?: Boot[];
  /** The paths the library manages (its state file) when the run ends. */
  readonly managed: string[];
  /** /etc/fstab's inode and mode before the first boot and when the run ends. */
  readonly fstabFile: { readonly before: FileStat; readonly after: FileStat };
  /** Entries of /etc named like a temporary file of the scripts. */
  readonly etcLeftovers: string[];
}

const PER_BOOT_FILE = 'cloud/scripts/per-boot/50-s3files-mounts.sh';

function runScript(s: Scenario): Run {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's3files-userdata-'));
  const state = path.join(dir, 'state');
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(state);
  fs.mkdirSync(bin);
  const managers = s.managers ?? ['dnf'];
  const deb = s.packages === 'deb';
  for (const [name, body] of Object.entries(STUBS)) {
    if ((name === 'dnf' || name === 'yum') && (deb || !managers.includes(name))) continue;
    if ((name === 'rpm' && deb) || (name === 'dpkg-query' && !deb)) continue;
    fs.writeFileSync(path.join(bin, name), `#!/bin/bash\n${body}\n`, { mode: 0o755 });
  }
  const imdsServer = path.join(dir, 'imds.js');
  fs.writeFileSync(imdsServer, IMDS_SERVER);
  if (s.installed) fs.writeFileSync(path.join(state, 'installed'), s.installed);
  if (s.dpkgStatus) fs.writeFileSync(path.join(state, 'dpkg_status'), s.dpkgStatus);
  if (s.repo) fs.writeFileSync(path.join(state, 'repo'), s.repo);
  if (s.fail) fs.writeFileSync(path.join(state, `fail_${s.fail}`), '');
  if (s.stopInInstall) fs.writeFileSync(path.join(state, 'stop_in_install'), '');
  if (s.imds?.first503) fs.writeFileSync(path.join(state, 'imds_503'), String(s.imds.first503));
  if (s.imds?.silent) fs.writeFileSync(path.join(state, 'imds_silent'), '');
  fs.writeFileSync(path.join(state, 'fail_mounts'), String(s.failMounts ?? 0));
  fs.writeFileSync(path.join(state, 'calls'), '');
  // The namespace's /etc: a directory of its own (so a file can be renamed over /etc/fstab) holding fstab and
  // os-release, and for every other entry of the host's /etc a link into it (bound at host-etc) or the same symlink.
  const etc = path.join(dir, 'etc');
  const hostEtc = path.join(dir, 'host-etc');
  fs.mkdirSync(etc);
  fs.mkdirSync(hostEtc);
  for (const e of fs.readdirSync('/etc')) {
    if (e === 'fstab' || e === 'os-release') continue;
    const link = fs.lstatSync(path.join('/etc', e)).isSymbolicLink() ? fs.readlinkSync(path.join('/etc', e)) : path.join(hostEtc, e);
    fs.symlinkSync(link, path.join(etc, e));
  }
  const osRelease = path.join(etc, 'os-release');
  fs.writeFileSync(osRelease, s.os ?? 'NAME="Amazon Linux"\nVERSION="2023"\nID="amzn"\nID_LIKE="fedora"\nVERSION_ID="2023"\n');
  const fstab = path.join(etc, 'fstab');
  const underMnt = (p: string) => path.join(dir, 'mnt', p);
  const mountPath = underMnt(s.mountAt ?? 'data');
  const otherPath = underMnt('other');
  const fstabLine = (p: string, accessPoint: string) => `fs-0123456789abcdef0:/ ${p} s3files _netdev,nofail,accesspoint=${accessPoint} 0 0\n`;
  const earlier = s.earlierAccessPoint ? fstabLine(mountPath, s.earlierAccessPoint) : '';
  const other = s.otherLine ? fstabLine(otherPath, 'fsap-0ther00000000000') : '';
  const before = s.earlierBoot ?? {};
  const earlierLines = Object.entries(before.fstab ?? {}).map(([p, ap]) => fstabLine(underMnt(p), ap)).join('');
  fs.writeFileSync(fstab, `# /etc/fstab\nUUID=abc / xfs defaults 0 1\n${earlier}${other}${earlierLines}`);
  fs.chmodSync(fstab, s.fstabMode ?? 0o644);
  if (s.fstabGid !== undefined && process.getuid?.() === 0) fs.chownSync(fstab, 0, s.fstabGid);
  const fstabStat = () => {
    const st = fs.statSync(fstab);
    return { ino: st.ino, mode: st.mode % 0o10000, uid: st.uid, gid: st.gid };
  };
  const fstabBefore = fstabStat();
  const mountedBefore = [...(s.mounted ? [mountPath, ...(s.otherLine ? [otherPath] : [])] : []), ...(before.mounted ?? []).map(underMnt)];
  if (mountedBefore.length) fs.writeFileSync(path.join(state, 'mounted'), mountedBefore.map((p) => `${p}\n`).join(''));
  for (const p of before.immutable ?? []) fs.mkdirSync(underMnt(p), { recursive: true });
  if (before.immutable) fs.writeFileSync(path.join(state, 'immutable'), before.immutable.map((p) => `${underMnt(p)}\n`).join(''));
  const userData = s.userData?.(mountPath, otherPath) ?? `#!/bin/bash\n${MOUNT_FUNCTION}\n${mountCommand({ fileSystemId: 'fs-0123456789abcdef0', accessPointId: 'fsap-0123456789abcdef0', mountPath, readOnly: s.readOnly ?? false, timeoutSeconds: s.timeout ?? 60, clientActions: 'ClientMount,ClientWrite' })}\n`;
  if (s.stopWritingFstab) fs.writeFileSync(path.join(state, 'stop_writing_fstab'), '');
  // /var/lib of this namespace is a temp directory: the script installs its per-boot script there.
  const varLib = path.join(dir, 'var-lib');
  fs.mkdirSync(varLib);
  const perBootFile = path.join(varLib, PER_BOOT_FILE);
  const managed = [...(s.managed ? [mountPath, ...(s.managed === 'both' ? [otherPath] : [])] : []), ...(before.managed ?? []).map(underMnt)];
  if (managed.length) {
    fs.mkdirSync(path.join(varLib, 'cdk-s3files-lambda'));
    fs.writeFileSync(path.join(varLib, 'cdk-s3files-lambda', 'mount-paths'), managed.map((p) => `${p}\n`).join(''));
  }
  // Only the stubs and the basic tools: a real dnf/yum/mount on this machine must not be found.
  const isolatedPath = `${bin}:/usr/bin:/bin`;
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  // One boot: the script runs (as the boot's top process, BOOT_PID, for a stop to kill), with the metadata
  // service up if asked; the namespace's /etc/fstab, /etc/os-release and /var/lib are the temp files.
  const boot = (script: string, imds: boolean): Boot => {
    fs.rmSync(path.join(state, 'imds_port'), { force: true });
    const start = Date.now();
    const run = spawnSync('unshare', [...(asRoot ? [] : ['--map-root-user']), '--mount', 'bash', '-c', [
      'set -e',
      `/usr/bin/mount --bind "${varLib}" /var/lib; /usr/bin/mount --bind /etc "${hostEtc}"; /usr/bin/mount --bind "${etc}" /etc`,
      `export PATH="${isolatedPath}" STATE="${state}"`,
      'if [ "$IMDS" = 1 ]; then',
      `  "${process.execPath}" "${imdsServer}" < /dev/null >> "$STATE/imds.log" 2>&1 & server=$!`,
      '  trap \'kill "$server" 2>/dev/null || true\' EXIT',
      '  for _ in $(seq 200); do [ -e "$STATE/imds_port" ] && break; /usr/bin/sleep 0.05; done',
      'fi',
      'rc=0',
      `timeout -k 1 20 bash -c 'export BOOT_PID=$$; exec bash "$1"' boot "${script}" || rc=$?`,
      'exit "$rc"',
    ].join('\n')], { encoding: 'utf8', env: { ...process.env, STATE: state, IMDS: imds ? '1' : '0' }, timeout: 40_000 });
    return { status: run.status, stderr: run.stderr, seconds: (Date.now() - start) / 1000 };
  };
  const asList = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);
  let firstBoot: Run['firstBoot'];
  let laterBoots: Boot[] | undefined;
  let last: Boot;
  if (s.perBoot) {
    fs.mkdirSync(path.dirname(perBootFile), { recursive: true });
    fs.writeFileSync(perBootFile, s.perBoot.script ?? PER_BOOT_SCRIPT, { mode: 0o755 });
    if (s.perBoot.userData) fs.writeFileSync(path.join(state, 'user-data'), s.perBoot.userData(mountPath, otherPath));
    last = boot(perBootFile, true);
  } else {
    const script = path.join(dir, 'user-data.sh');
    fs.writeFileSync(script, userData);
    last = boot(script, false);
    if (s.laterBoots) {
      firstBoot = { ...last, perBootInstalled: fs.existsSync(perBootFile), fstab: fs.readFileSync(fstab, 'utf8') };
      laterBoots = s.laterBoots.map((b) => {
        // A stop and start: the s3files lines of /etc/fstab are mounted at boot (nofail: the target answers here).
        const lines = fs.readFileSync(fstab, 'utf8').split('\n').map((l) => l.split(/\s+/)).filter((f) => f[2] === 's3files');
        fs.writeFileSync(path.join(state, 'mounted'), lines.map((f) => `${f[1]}\n`).join(''));
        fs.writeFileSync(path.join(state, 'fail_mounts'), String(b.failMounts ?? 0));
        fs.rmSync(path.join(state, 'mount_attempts'), { force: true });
        if (b.stopInRetry) fs.writeFileSync(path.join(state, 'stop_in_retry'), '');
        if (b.stopWritingFstab) fs.writeFileSync(path.join(state, 'stop_writing_fstab'), '');
        fs.writeFileSync(path.join(state, 'user-data'), b.userData(mountPath, otherPath));
        return boot(perBootFile, true);
      });
      last = laterBoots[laterBoots.length - 1];
    }
    if (s.reboot) {
      const perBootInstalled = fs.existsSync(perBootFile);
      firstBoot = { ...last, perBootInstalled, fstab: fs.readFileSync(fstab, 'utf8') };
      // A stop and start: nothing is mounted; cloud-init runs the per-boot scripts, not the user data.
      fs.rmSync(path.join(state, 'mounted'), { force: true });
      fs.writeFileSync(path.join(state, 'user-data'), userData);
      last = perBootInstalled ? boot(perBootFile, true) : { status: 0, stderr: '', seconds: 0 };
    }
  }
  const result: Run = {
    ...last,
    calls: asList(path.join(state, 'calls')),
    fstab: fs.readFileSync(fstab, 'utf8'),
    mountDir: fs.existsSync(mountPath),
    perBoot: fs.existsSync(perBootFile) ? fs.readFileSync(perBootFile, 'utf8') : undefined,
    mountPath,
    otherPath,
    mounted: asList(path.join(state, 'mounted')),
    immutable: asList(path.join(state, 'immutable')),
    imds: asList(path.join(state, 'imds_requests')),
    firstBoot,
    laterBoots,
    managed: asList(path.join(varLib, 'cdk-s3files-lambda', 'mount-paths')),
    fstabFile: { before: fstabBefore, after: fstabStat() },
    etcLeftovers: fs.readdirSync(etc).filter((e) => e.includes('cdk-s3files-tmp')),
  };
  fs.rmSync(dir, { recursive: true, force: true });
  return result;
}

describe('the user-data script', () => {
  test('passes shellcheck [python tools]', () => {
    // GIVEN the script as an instance runs it
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's3files-sc-'));
    afterCleanup(dir);
    const file = path.join(dir, 'user-data.sh');
    fs.writeFileSync(file, `#!/bin/bash\n${MOUNT_FUNCTION}\n${mountCommand({ fileSystemId: 'fs-0123456789abcdef0', accessPointId: 'fsap-0123456789abcdef0', mountPath: '/mnt/s3files', readOnly: false, timeoutSeconds: 600, clientActions: 'ClientMount,ClientWrite' })}\n`);
    // WHEN
    const lint = spawnSync(venvBin('shellcheck'), ['--shell=bash', '--severity=style', file], { encoding: 'utf8' });
    // THEN
    expect(lint.stdout + lint.stderr).toBe('');
    expect(lint.status).toBe(0);
  });

  test('installs amazon-efs-utils with dnf, writes one fstab line, and retries the mount until the target answers', () => {
    // GIVEN no efs-utils, a repo with 3.2.0, and a mount target that refuses the first two attempts
    const r = runScript({ repo: '3.2.0', failMounts: 2 });
    // THEN
    expect(r.stderr).toMatch(/mounted fs-0123456789abcdef0 \(fsap-0123456789abcdef0\)/);
    expect(r.status).toBe(0);
    expect(r.calls.filter((c) => c.startsWith('dnf'))).toEqual(['dnf install -y amazon-efs-utils']);
    expect(r.calls.filter((c) => c.startsWith('mount'))).toHaveLength(3);
    expect(r.calls.filter((c) => c.startsWith('sleep'))).toEqual(['sleep 2', 'sleep 4']);
    const lines = r.fstab.split('\n').filter((l) => l.includes(' s3files '));
    expect(lines).toEqual([expect.stringMatching(/^fs-0123456789abcdef0:\/ \S+\/mnt\/data s3files _netdev,nofail,accesspoint=fsap-0123456789abcdef0 0 0$/)]);
    expect(r.fstab).toContain('UUID=abc / xfs defaults 0 1');
    expect(r.mountDir).toBe(true);
  });

  test('a re-run replaces its fstab line instead of adding one; read-only mounts get ro; a current efs-utils is left alone', () => {
    // GIVEN an fstab that already has a line for this path (an earlier boot, another access point)
    const again = runScript({ installed: '3.2.0', readOnly: true, earlierAccessPoint: 'fsap-00000000000000000' });
    // THEN
    expect(again.status).toBe(0);
    const lines = again.fstab.split('\n').filter((l) => l.includes(' s3files '));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/accesspoint=fsap-0123456789abcdef0,ro 0 0$/);
    expect(again.calls.filter((c) => /^(dnf|yum)/.test(c))).toEqual([]);
  });

  test('the mount point refuses writes while nothing is mounted (chattr +i before the first mount), and a per-boot script is installed', () => {
    // GIVEN / WHEN a first boot
    const r = runScript({ installed: '3.2.0' });
    // THEN the directory is made immutable before it is mounted over
    expect(r.status).toBe(0);
    const calls = r.calls.filter((c) => /^(chattr|mount)/.test(c));
    expect(calls[0]).toBe(`chattr +i ${r.mountPath}`);
    expect(calls[1]).toMatch(/^mount /);
    // AND the per-boot script is the one the library ships
    expect(r.perBoot).toBe(`${PER_BOOT_SCRIPT}\n`);
  });

  test('the per-boot script passes shellcheck [python tools]', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's3files-sc-'));
    afterCleanup(dir);
    const file = path.join(dir, 'per-boot.sh');
    fs.writeFileSync(file, PER_BOOT_SCRIPT);
    const lint = spawnSync(venvBin('shellcheck'), ['--shell=bash', '--severity=style', file], { encoding: 'utf8' });
    expect(lint.stdout + lint.stderr).toBe('');
    expect(lint.status).toBe(0);
  });

  test('a later boot applies the user data CloudFormation changed: the new access point is written and mounted anew; a mount no longer asked for is dropped', () => {
    // GIVEN an instance that booted with the old access point mounted at the path, and a second s3files path from an older version,
    // WHEN the per-boot script runs with user data that now names another access point for the path, read-only
    const r = runScript({
      installed: '3.2.0',
      earlierAccessPoint: 'fsap-00000000000000000',
      mounted: true,
      otherLine: true,
      managed: 'both',
      perBoot: {
        userData: (mountPath) => `#!/bin/bash\necho unrelated user data\n${MOUNT_FUNCTION}\n${mountCommand({ fileSystemId: 'fs-0123456789abcdef0', accessPointId: 'fsap-0aaaaaaaaaaaaaaaa', mountPath, readOnly: true, timeoutSeconds: 5, clientActions: 'ClientMount' })}\n`,
      },
    });
    // THEN
    expect(r.stderr).toMatch(/the mount of \S+ changed: unmounting the previous one/);
    expect(r.status).toBe(0);
    const lines = r.fstab.split('\n').filter((l) => l.includes(' s3files '));
    expect(lines).toEqual([`fs-0123456789abcdef0:/ ${r.mountPath} s3files _netdev,nofail,accesspoint=fsap-0aaaaaaaaaaaaaaaa,ro 0 0`]);
    expect(r.calls.filter((c) => /^(u?mount) /.test(c))).toEqual([`umount ${r.otherPath}`, `umount ${r.mountPath}`, `mount ${r.mountPath}`]);
    // AND the unrelated part of the user data did not run again
    expect(r.stderr).not.toContain('unrelated user data');
  });

  test('a later boot leaves alone the s3files lines this library did not write (an administrator\'s mount, another tool\'s)', () => {
    // GIVEN a second s3files line that the library never managed
    const r = runScript({
      installed: '3.2.0',
      earlierAccessPoint: 'fsap-0123456789abcdef0',
      mounted: true,
      otherLine: true,
      managed: 'main',
      perBoot: {
        userData: (mountPath) => `#!/bin/bash\n${MOUNT_FUNCTION}\n${mountCommand({ fileSystemId: 'fs-0123456789abcdef0', accessPointId: 'fsap-0123456789abcdef0', mountPath, readOnly: false, timeoutSeconds: 5, clientActions: 'ClientMount,ClientWrite' })}\n`,
      },
    });
    // THEN it is neither unmounted nor dropped
    expect(r.status).toBe(0);
    expect(r.calls.filter((c) => /^(u?mount) /.test(c))).toEqual([]);
    expect(r.fstab).toContain(`${r.otherPath} s3files`);
  });

  test('a later boot with unchanged user data changes nothing; without the metadata service it keeps /etc/fstab', () => {
    const same = runScript({
      installed: '3.2.0',
      earlierAccessPoint: 'fsap-0123456789abcdef0',
      mounted: true,
      perBoot: {
        userData: (mountPath) => `#!/bin/bash\n${MOUNT_FUNCTION}\n${mountCommand({ fileSystemId: 'fs-0123456789abcdef0', accessPointId: 'fsap-0123456789abcdef0', mountPath, readOnly: false, timeoutSeconds: 5, clientActions: 'ClientMount,ClientWrite' })}\n`,
      },
    });
    expect(same.status).toBe(0);
    expect(same.calls.filter((c) => /^(u?mount) /.test(c))).toEqual([]);
    const offline = runScript({ installed: '3.2.0', earlierAccessPoint: 'fsap-00000000000000000', perBoot: {} });
    expect(offline.status).toBe(0);
    expect(offline.stderr).toMatch(/the instance metadata service did not answer: keeping \/etc\/fstab as it is/);
    expect(offline.fstab).toContain('accesspoint=fsap-00000000000000000');
  });

  /** User data as the library renders it, mounting one access point at a path. */
  const userDataMounting = (mountPath: string, accessPointId: string) => `#!/bin/bash\n${MOUNT_FUNCTION}\n${mountCommand({ fileSystemId: 'fs-0123456789abcdef0', accessPointId, mountPath, readOnly: false, timeoutSeconds: 5, clientActions: 'ClientMount,ClientWrite' })}\n`;
  const s3filesLines = (r: Run) => r.fstab.split('\n').filter((l) => l.includes(' s3files '));
  const mountCalls = (r: Run) => r.calls.filter((c) => /^(u?mount|chattr) /.test(c));

  test('a later boot whose user data mounts under a path it dropped makes that directory writable again (chattr -i) and mounts there; a dropped path elsewhere stays immutable', () => {
    // GIVEN an instance that mounted /mnt/data and /mnt/other (each immutable underneath),
    // WHEN the user data now mounts /mnt/data/current instead
    const r = runScript({
      installed: '3.2.0',
      earlierBoot: { fstab: { data: 'fsap-00000000000000000', other: 'fsap-0ther00000000000' }, mounted: ['data', 'other'], managed: ['data', 'other'], immutable: ['data', 'other'] },
      perBoot: { userData: (mountPath) => userDataMounting(`${mountPath}/current`, 'fsap-0aaaaaaaaaaaaaaaa') },
    });
    // THEN
    const current = `${r.mountPath}/current`;
    expect(r.stderr).toMatch(/mounted fs-0123456789abcdef0 \(fsap-0aaaaaaaaaaaaaaaa\)/);
    expect(r.status).toBe(0);
    expect(s3filesLines(r)).toEqual([`fs-0123456789abcdef0:/ ${current} s3files _netdev,nofail,accesspoint=fsap-0aaaaaaaaaaaaaaaa 0 0`]);
    expect(mountCalls(r)).toEqual([`umount ${r.mountPath}`, `chattr -i ${r.mountPath}`, `umount ${r.otherPath}`, `chattr +i ${current}`, `mount ${current}`]);
    expect(r.mounted).toEqual([current]);
    expect(r.immutable.sort()).toEqual([current, r.otherPath].sort());
    expect(r.stderr).toContain(`${r.otherPath} is no longer in the user data: unmounting it and dropping its fstab line (the directory stays immutable: chattr -i to use it)`);
  });

  test('a later boot that drops the outer of two nested mounts (an older version allowed them) mounts the inner one again', () => {
    // GIVEN /mnt/data and /mnt/data/b mounted; /mnt/data/b was made on the mount of /mnt/data, so it is
    // not on the local disk and only /mnt/data is immutable;
    // WHEN the user data keeps only /mnt/data/b
    const r = runScript({
      installed: '3.2.0',
      earlierBoot: { fstab: { 'data': 'fsap-00000000000000000', 'data/b': 'fsap-0bbbbbbbbbbbbbbbb' }, mounted: ['data', 'data/b'], managed: ['data', 'data/b'], immutable: ['data'] },
      perBoot: { userData: (mountPath) => userDataMounting(`${mountPath}/b`, 'fsap-0bbbbbbbbbbbbbbbb') },
    });
    // THEN /mnt/data is detached with what is under it, made writable, and /mnt/data/b is made and mounted
    const inner = `${r.mountPath}/b`;
    expect(r.status).toBe(0);
    expect(mountCalls(r)).toEqual([`umount ${r.mountPath}`, `umount -l ${r.mountPath}`, `chattr -i ${r.mountPath}`, `chattr +i ${inner}`, `mount ${inner}`]);
    expect(s3filesLines(r)).toEqual([`fs-0123456789abcdef0:/ ${inner} s3files _netdev,nofail,accesspoint=fsap-0bbbbbbbbbbbbbbbb 0 0`]);
    expect(r.mounted).toEqual([inner]);
  });

  test('when the mount point cannot be made (an immutable directory above it) it stops and names that directory and how to free it', () => {
    // GIVEN /mnt/data immutable (a mount there once), WHEN the user data mounts /mnt/data/current
    const r = runScript({ installed: '3.2.0', mountAt: 'data/current', earlierBoot: { immutable: ['data'] } });
    // THEN
    const above = path.dirname(r.mountPath);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`s3files_mount: could not create the mount point ${r.mountPath}: ${above} is likely immutable (this library makes a mount point immutable while nothing is mounted there; lsattr -d ${above} shows an i): run chattr -i ${above}, or mount elsewhere`);
    expect(mountCalls(r)).toEqual([]);
    expect(s3filesLines(r)).toEqual([]);
  });

  // Each call to the metadata service: [connect timeout, time limit, retries, delay], from the recorded command line.
  const imdsLimits = (r: Run) => r.calls.filter((c) => c.includes('169.254.169.254')).map((c) => {
    const flag = (name: string) => Number(new RegExp(` --${name} ([0-9.]+) `).exec(c)?.[1]);
    return [flag('connect-timeout'), flag('max-time'), flag('retry'), flag('retry-delay')];
  });

  test('a later boot retries the metadata service: a 503 to the token and to the user data still applies the new user data', () => {
    // GIVEN the old access point mounted, WHEN IMDS answers 503 once on each path, then the new user data
    const r = runScript({
      installed: '3.2.0',
      earlierAccessPoint: 'fsap-00000000000000000',
      mounted: true,
      managed: 'main',
      imds: { first503: 1 },
      perBoot: { userData: (mountPath) => userDataMounting(mountPath, 'fsap-0aaaaaaaaaaaaaaaa') },
    });
    // THEN
    expect(r.status).toBe(0);
    expect(r.imds).toEqual(['PUT /latest/api/token', 'PUT /latest/api/token', 'GET /latest/user-data', 'GET /latest/user-data']);
    expect(s3filesLines(r)).toEqual([`fs-0123456789abcdef0:/ ${r.mountPath} s3files _netdev,nofail,accesspoint=fsap-0aaaaaaaaaaaaaaaa 0 0`]);
    expect(mountCalls(r)).toEqual([`umount ${r.mountPath}`, `mount ${r.mountPath}`]);
    expect(imdsLimits(r)).toHaveLength(2);
  });

  test('a later boot whose metadata service never answers gives up within its time limits, after a few retries, and keeps /etc/fstab', () => {
    // GIVEN the old access point mounted, WHEN IMDS accepts connections and never answers
    const r = runScript({
      installed: '3.2.0',
      earlierAccessPoint: 'fsap-00000000000000000',
      mounted: true,
      managed: 'main',
      imds: { silent: true },
      perBoot: { userData: (mountPath) => userDataMounting(mountPath, 'fsap-0aaaaaaaaaaaaaaaa') },
    });
    // THEN
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/the instance metadata service did not answer: keeping \/etc\/fstab as it is/);
    expect(s3filesLines(r)).toEqual([`fs-0123456789abcdef0:/ ${r.mountPath} s3files _netdev,nofail,accesspoint=fsap-00000000000000000 0 0`]);
    expect(mountCalls(r)).toEqual([]);
    // AND the token call (the only one) has a connect timeout, a time limit, and 1 to 5 retries 1 s apart
    const [[connect, limit, retries, delay], ...rest] = imdsLimits(r);
    expect(rest).toEqual([]);
    expect(connect).toBeLessThanOrEqual(limit);
    expect(limit).toBeLessThanOrEqual(10);
    expect(retries).toBeGreaterThanOrEqual(1);
    expect(retries).toBeLessThanOrEqual(5);
    expect(delay).toBe(1);
    expect(r.imds).toEqual(Array(retries + 1).fill('PUT /latest/api/token'));
    // the harness divides the time limits by 10: the attempts and the delays between them, and some slack to start
    expect(r.seconds).toBeLessThan((retries + 1) * limit / 10 + retries * delay + 3);
  });

  test('an instance stopped while its first boot installs amazon-efs-utils gets its mount at the next boot: the per-boot script is installed first', () => {
    // GIVEN no efs-utils, WHEN the instance is stopped during dnf install, and started again
    const r = runScript({ repo: '3.2.0', stopInInstall: true, reboot: true });
    // THEN the first boot was killed, but left the per-boot script
    expect(r.firstBoot).toEqual(expect.objectContaining({ status: 137, perBootInstalled: true }));
    // AND the next boot installs, writes the line and mounts
    expect(r.status).toBe(0);
    expect(r.calls.filter((c) => /^(dnf|mount) /.test(c))).toEqual(['dnf install -y amazon-efs-utils', 'dnf install -y amazon-efs-utils', `mount ${r.mountPath}`]);
    expect(s3filesLines(r)).toEqual([`fs-0123456789abcdef0:/ ${r.mountPath} s3files _netdev,nofail,accesspoint=fsap-0123456789abcdef0 0 0`]);
    expect(r.mounted).toEqual([r.mountPath]);
  });

  /** User data as the library renders it, mounting each [path, access point] with a 10-minute timeout. */
  const userDataMountingAll = (mounts: Array<[string, string]>) => `#!/bin/bash\n${MOUNT_FUNCTION}\n${mounts.map(([mountPath, accessPointId]) => mountCommand({ fileSystemId: 'fs-0123456789abcdef0', accessPointId, mountPath, readOnly: false, timeoutSeconds: 600, clientActions: 'ClientMount,ClientWrite' })).join('\n')}\n`;
  const line = (p: string, accessPoint: string) => `fs-0123456789abcdef0:/ ${p} s3files _netdev,nofail,accesspoint=${accessPoint} 0 0`;

  test.each<[string, LaterBoot]>([
    ['while /mnt/data\'s mount retries', { failMounts: 1000, stopInRetry: true, userData: () => '' }],
    ['while it writes the new /etc/fstab', { stopWritingFstab: true, userData: () => '' }],
  ])('a boot stopped %s forgets no managed path: the next boot that drops /mnt/other unmounts it and drops its fstab line', (_when, stop) => {
    // GIVEN boot 1 mounts /mnt/data and /mnt/other; boot 2 changes /mnt/data's access point and is stopped;
    // boot 3's user data no longer has /mnt/other
    const r = runScript({
      installed: '3.2.0',
      userData: (data, other) => userDataMountingAll([[data, 'fsap-0aaaaaaaaaaaaaaa1'], [other, 'fsap-0bbbbbbbbbbbbbbb1']]),
      laterBoots: [
        { ...stop, userData: (data, other) => userDataMountingAll([[data, 'fsap-0aaaaaaaaaaaaaaa2'], [other, 'fsap-0bbbbbbbbbbbbbbb1']]) },
        { userData: (data) => userDataMountingAll([[data, 'fsap-0aaaaaaaaaaaaaaa2']]) },
      ],
    });
    // THEN boot 1 mounted both, boot 2 was stopped, and boot 3 dropped /mnt/other: unmounted, its fstab line gone, no longer managed
    expect(r.firstBoot).toMatchObject({ status: 0 });
    expect(r.laterBoots!.map((b) => b.status)).toEqual([137, 0]);
    expect(r.stderr).toContain(`${r.otherPath} is no longer in the user data: unmounting it and dropping its fstab line`);
    expect(r.calls).toContain(`umount ${r.otherPath}`);
    expect(r.mounted).toEqual([r.mountPath]);
    expect(s3filesLines(r)).toEqual([line(r.mountPath, 'fsap-0aaaaaaaaaaaaaaa2')]);
    expect(r.fstab).toContain('UUID=abc / xfs defaults 0 1');
    expect(r.managed).toEqual([r.mountPath]);
    expect(r.etcLeftovers).toEqual([]);
  });

  test('/etc/fstab is replaced by a rename, never written in place: a new file with the old one\'s mode and owner', () => {
    // GIVEN an /etc/fstab with mode 0640 (and group adm where the tests run as root), WHEN a first boot adds its line
    const r = runScript({ installed: '3.2.0', fstabMode: 0o640, fstabGid: 4 });
    // THEN the file is another inode, with the same mode and owner, and the line is in it
    expect(r.status).toBe(0);
    expect(r.fstabFile.after.ino).not.toBe(r.fstabFile.before.ino);
    expect(r.fstabFile.after).toMatchObject({ mode: 0o640, uid: r.fstabFile.before.uid, gid: r.fstabFile.before.gid });
    expect(s3filesLines(r)).toEqual([line(r.mountPath, 'fsap-0123456789abcdef0')]);
    expect(r.etcLeftovers).toEqual([]);
  });

  test('an instance stopped while its first boot writes /etc/fstab keeps the old /etc/fstab whole; the next boot adds the line', () => {
    // GIVEN / WHEN the instance is stopped 20 bytes into the new /etc/fstab, and started again
    const r = runScript({ installed: '3.2.0', stopWritingFstab: true, reboot: true });
    // THEN the first boot was killed and left /etc/fstab as it was
    expect(r.firstBoot).toEqual(expect.objectContaining({ status: 137, perBootInstalled: true }));
    expect(r.firstBoot!.fstab).toBe('# /etc/fstab\nUUID=abc / xfs defaults 0 1\n');
    // AND the next boot wrote the line, mounted, and removed the partial file the stop left
    expect(r.status).toBe(0);
    expect(r.fstab).toBe(`# /etc/fstab\nUUID=abc / xfs defaults 0 1\n${line(r.mountPath, 'fsap-0123456789abcdef0')}\n`);
    expect(r.mounted).toEqual([r.mountPath]);
    expect(r.etcLeftovers).toEqual([]);
  });

  /** A MIME multipart body as ec2.MultipartUserData renders it: the script is base64 in a part. */
  const multipart = (script: string) => 'Content-Type: multipart/mixed; boundary="+AWS+CDK+User+Data+Separator=="\nMIME-Version: 1.0\n\n'
    + '--+AWS+CDK+User+Data+Separator==\nContent-Type: text/x-shellscript; charset="utf-8"\nContent-Transfer-Encoding: base64\n\n'
    + `${Buffer.from(script).toString('base64')}\n--+AWS+CDK+User+Data+Separator==--\n`;

  test.each<[string, (script: string) => string | Buffer, RegExp]>([
    ['MIME multipart (ec2.MultipartUserData)', multipart, /the user data is not a shell script \(it starts with "Content-Type: multipart\/mixed; boundary=/],
    ['gzip-compressed', (script) => zlib.gzipSync(script), /the user data is not a shell script \(it does not start with text: compressed\?\)/],
  ])('a later boot whose user data is %s keeps /etc/fstab and its mounts as they are', (_what, encode, message) => {
    // GIVEN the access point mounted, WHEN the user data read back is not a shell script
    const r = runScript({
      installed: '3.2.0',
      earlierAccessPoint: 'fsap-00000000000000000',
      mounted: true,
      managed: 'main',
      perBoot: { userData: (mountPath) => encode(userDataMounting(mountPath, 'fsap-0aaaaaaaaaaaaaaaa')) },
    });
    // THEN nothing is unmounted or dropped
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toMatch(/: keeping \/etc\/fstab as it is/);
    expect(mountCalls(r)).toEqual([]);
    expect(s3filesLines(r)).toEqual([`fs-0123456789abcdef0:/ ${r.mountPath} s3files _netdev,nofail,accesspoint=fsap-00000000000000000 0 0`]);
    expect(r.mounted).toEqual([r.mountPath]);
  });

  test('a per-boot script that the user data replaces while it runs (one of an older version) runs nothing of the new one', () => {
    // GIVEN an older, shorter per-boot script installed and running, WHEN the user data installs the current one
    const older = PER_BOOT_SCRIPT.replace(/^# Installed by .*\n/m, '');
    expect(older.length).toBeLessThan(PER_BOOT_SCRIPT.length);
    const r = runScript({
      installed: '3.2.0',
      earlierAccessPoint: 'fsap-00000000000000000',
      mounted: true,
      managed: 'main',
      perBoot: { script: older, userData: (mountPath) => userDataMounting(mountPath, 'fsap-0aaaaaaaaaaaaaaaa') },
    });
    // THEN it ends where it ended (bash reads a script as it goes: a file rewritten in place would go on in the new text)
    expect(r.stderr).not.toMatch(/command not found|syntax error|unexpected|unbound variable/);
    expect(r.status).toBe(0);
    expect(mountCalls(r)).toEqual([`umount ${r.mountPath}`, `mount ${r.mountPath}`]);
    expect(r.perBoot).toBe(`${PER_BOOT_SCRIPT}\n`);
  });

  // /etc/os-release as each image ships it (abridged).
  const OS = {
    al2023: 'NAME="Amazon Linux"\nVERSION="2023"\nID="amzn"\nID_LIKE="fedora"\nVERSION_ID="2023"\n',
    al2: 'NAME="Amazon Linux"\nVERSION="2"\nID="amzn"\nID_LIKE="centos rhel fedora"\nVERSION_ID="2"\n',
    rhel9: 'NAME="Red Hat Enterprise Linux"\nID="rhel"\nID_LIKE="fedora"\nVERSION_ID="9.4"\n',
    ubuntu2204: 'NAME="Ubuntu"\nID=ubuntu\nID_LIKE=debian\nVERSION_ID="22.04"\n',
    sles15: 'NAME="SLES"\nID="sles"\nID_LIKE="suse"\nVERSION_ID="15.6"\n',
    debian12: 'NAME="Debian GNU/Linux"\nID=debian\nVERSION_ID="12"\n',
    leap: 'NAME="openSUSE Leap"\nID="opensuse-leap"\nID_LIKE="suse opensuse"\nVERSION_ID="15.6"\n',
  };
  const INSTALLER = ['curl -fsSL --retry 5 https://amazon-efs-utils.aws.com/efs-utils-installer.sh', 'installer --install'];
  const installSteps = (r: Run) => r.calls.filter((c) => /^(curl|installer|dnf|yum|mount) /.test(c));

  test.each<[string, Scenario, string[]]>([
    ['Amazon Linux 2023', { os: OS.al2023 }, ['dnf install -y amazon-efs-utils']],
    ['Amazon Linux 2', { os: OS.al2, managers: ['yum'] }, ['yum install -y amazon-efs-utils']],
    ['RHEL 9', { os: OS.rhel9, managers: ['dnf', 'yum'] }, INSTALLER],
    ['Ubuntu 22.04', { os: OS.ubuntu2204, packages: 'deb' }, INSTALLER],
    ['SLES 15', { os: OS.sles15, managers: [] }, INSTALLER],
    ['openSUSE Leap 15.6', { os: OS.leap, managers: [] }, INSTALLER],
    ['Ubuntu 22.04 with a package removed but its config kept (dpkg "deinstall ok config-files")', { os: OS.ubuntu2204, packages: 'deb', installed: '3.2.0', dpkgStatus: 'deinstall ok config-files' }, INSTALLER],
  ])('on %s it installs amazon-efs-utils the documented way, checks the version, then mounts', (_name, scenario, install) => {
    // GIVEN no efs-utils, and 3.2.0 in the repositories / from the installer
    const r = runScript({ ...scenario, repo: '3.2.0' });
    // THEN it installed, then wrote the fstab line and mounted
    expect(r.status).toBe(0);
    expect(installSteps(r)).toEqual([...install, `mount ${r.mountPath}`]);
    expect(r.fstab).toContain(' s3files _netdev,nofail,accesspoint=fsap-0123456789abcdef0 0 0');
  });

  test('a current dpkg package with an epoch (1:3.2.0-1) counts as installed: nothing is installed', () => {
    const r = runScript({ os: OS.ubuntu2204, packages: 'deb', installed: '1:3.2.0' });
    expect(r.status).toBe(0);
    expect(installSteps(r)).toEqual([`mount ${r.mountPath}`]);
  });

  test('the installer is named in the log with the distribution it runs on', () => {
    const r = runScript({ os: OS.ubuntu2204, packages: 'deb', repo: '3.2.0' });
    expect(r.stderr).toContain('installing amazon-efs-utils on ubuntu 22.04 with the efs-utils installer');
  });

  test.each<[string, Scenario, RegExp, string[]]>([
    ['the distribution is one this library does not install on (Debian 12)', { os: OS.debian12, packages: 'deb' },
      /amazon-efs-utils >= 3\.0\.0 is not installed, and this library installs it only on Amazon Linux, RHEL, Ubuntu and SLES, not on debian 12: install it in the image/, []],
    // An image with dnf but no ID in os-release: no guess that it is Amazon Linux.
    ['/etc/os-release names no distribution', { os: '' }, /installs it only on Amazon Linux, RHEL, Ubuntu and SLES, not on unknown :/, []],
    ['the installer cannot be downloaded', { os: OS.ubuntu2204, packages: 'deb', fail: 'download' },
      /downloading the efs-utils installer \(from amazon-efs-utils\.aws\.com: the instance needs a route to the internet\) failed on ubuntu 22\.04: fix what its messages above say, or install amazon-efs-utils >= 3\.0\.0 in the image/, [INSTALLER[0]]],
    ['the installer fails', { os: OS.sles15, managers: [], fail: 'installer' }, /the efs-utils installer failed on sles 15\.6: fix what its messages above say/, INSTALLER],
    // RHEL has dnf, but its repositories carry no amazon-efs-utils: the installer is what ran.
    ['the installer leaves an old version', { os: OS.rhel9, repo: '2.3.0' }, /amazon-efs-utils '2\.3\.0' is installed, but S3 Files needs >= 3\.0\.0/, INSTALLER],
    ['dnf fails', { os: OS.al2023, fail: 'dnf' }, /dnf install failed on amzn 2023: fix what its messages above say/, ['dnf install -y amazon-efs-utils']],
    ['yum cannot upgrade an old version', { os: OS.al2, managers: ['yum'], installed: '2.0.4', fail: 'yum' }, /yum install failed on amzn 2: fix what its messages above say/, ['yum install -y amazon-efs-utils']],
  ])('stops before fstab and the mount, with a reason, when %s', (_what, scenario, message, steps) => {
    const r = runScript({ repo: '3.2.0', ...scenario });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(message);
    // the install steps that ran, in order, and no mount after them
    expect(installSteps(r)).toEqual(steps);
    expect(r.calls.filter((c) => /^(u?mount|chattr) /.test(c))).toEqual([]);
    expect(r.fstab).not.toContain(' s3files ');
  });

  test('on an Ubuntu image with a current amazon-efs-utils (a dpkg package) nothing is installed', () => {
    const r = runScript({ os: 'ID=ubuntu\nVERSION_ID="24.04"\n', packages: 'deb', installed: '3.1.2' });
    expect(r.status).toBe(0);
    expect(r.calls.filter((c) => /^(curl|installer)/.test(c))).toEqual([]);
  });

  test('an old efs-utils is upgraded with yum where there is no dnf', () => {
    const r = runScript({ installed: '2.0.4', repo: '3.1.2', managers: ['yum'] });
    expect(r.status).toBe(0);
    expect(r.calls.filter((c) => c.startsWith('yum'))).toEqual(['yum install -y amazon-efs-utils', 'yum update -y amazon-efs-utils']);
  });

  test.each<[string, Scenario, RegExp]>([
    ['the repo only has a version too old for S3 Files', { installed: '2.0.4', repo: '2.3.0' }, /amazon-efs-utils '2\.3\.0' is installed, but S3 Files needs >= 3\.0\.0/],
    ['there is no dnf or yum', { managers: [] }, /no dnf or yum: install amazon-efs-utils >= 3\.0\.0 yourself/],
    ['the mount target never answers', { installed: '3.2.0', failMounts: 1000, timeout: 1 }, /could not mount fs-0123456789abcdef0 \(fsap-0123456789abcdef0\) at \S+ within 1 s: check that the instance's subnet has a mount target/],
  ])('fails with a reason when %s', (_what, scenario, message) => {
    const r = runScript(scenario);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(message);
  });
});
