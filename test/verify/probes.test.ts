import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { CreateBucketCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { S3FilesClient } from '@aws-sdk/client-s3files';
import { probe, ProbeDeps, ProbeEvent } from '../../integ/handlers/verify-probe';
import { decodeEvidence } from '../../integ/verify/outcomes';
import { MotoServer, startMotoServer } from '../servers/moto-server';
import { venvBin } from '../validators/templates';

// The verification probes run for real against stand-ins: a temporary directory as the mount,
// moto as S3 (the probe keeps its state there), a copy loop playing S3 Files' import. They check
// the probes' logic and the formats the report reads, not the service.
const ROOT = path.join(__dirname, '..', '..');
let moto: MotoServer;
let s3: S3Client;

beforeAll(async () => {
  moto = await startMotoServer();
  s3 = new S3Client({ region: 'us-east-1', endpoint: moto.url, forcePathStyle: true, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  await s3.send(new CreateBucketCommand({ Bucket: 'verify' }));
}, 60_000);
afterAll(async () => moto?.stop());

function deps(mount: string): ProbeDeps {
  return {
    s3,
    s3files: new S3FilesClient({ region: 'us-east-1', endpoint: 'http://127.0.0.1:9', credentials: { accessKeyId: 'test', secretAccessKey: 'test' }, maxAttempts: 1 }),
    now: Date.now,
    sleep: (ms) => new Promise((r) => setTimeout(r, Math.min(ms, 50))),
    env: { MOUNT_PATH: mount, BUCKET: 'verify', KEY_PREFIX: 'verify/' },
  };
}
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 's3files-verify-probe-'));
const run = async (event: ProbeEvent, mount: string) => {
  const r = await probe(event, deps(mount));
  return { outcome: r.outcome, evidence: decodeEvidence(r.evidence) as Record<string, unknown> };
};

describe('the verification probe (integ/handlers/verify-probe) [python tools]', () => {
  test('write-read: confirmed on a writable mount, and a second call repeats the settled result from its state', async () => {
    const mount = tmp();
    const first = await run({ check: 'write-read', salt: 's1' }, mount);
    expect(first).toMatchObject({ outcome: 'confirmed', evidence: { readBack: true, listed: true } });
    fs.rmSync(path.join(mount, 'probe-s1.txt'));
    expect(await run({ check: 'write-read', salt: 's1' }, mount)).toEqual(first);
    const state = await s3.send(new ListObjectsV2Command({ Bucket: 'verify', Prefix: 'verify/.verify-state/write-read-' }));
    expect(state.KeyCount).toBe(1);
  });

  test('write-denied: a write that succeeds refutes it (EROFS was expected)', async () => {
    expect(await run({ check: 'write-denied', salt: 's2' }, tmp())).toEqual({ outcome: 'refuted', evidence: { writeError: 'none (the write succeeded)' } });
  });

  test('import-delay: pending while the mount does not show the object, then confirmed with the delay once it does', async () => {
    const mount = tmp();
    expect((await run({ check: 'import-delay', withinSeconds: 60, salt: 's3', budgetSeconds: 0 }, mount)).outcome).toBe('pending');
    await new Promise((r) => setTimeout(r, 60));
    // S3 Files' import, played: the object appears on the mount.
    fs.mkdirSync(path.join(mount, 'sync'));
    fs.writeFileSync(path.join(mount, 'sync', 'import-s3.txt'), 's3');
    const settled = await run({ check: 'import-delay', withinSeconds: 60, salt: 's3' }, mount);
    expect(settled).toMatchObject({ outcome: 'confirmed', evidence: { key: 'verify/sync/import-s3.txt', withinSeconds: 60 } });
    // The delay counts from the first call's PutObject, which the second call continued.
    expect(settled.evidence.importMs).toBeGreaterThanOrEqual(50);
  });

  test('read-result: what the EC2 probe put in the bucket decides; missing parts refute', async () => {
    await s3.send(new PutObjectCommand({
      Bucket: 'verify',
      Key: 'verify-results/ec2.json',
      Body: JSON.stringify({ rootMount: { outcome: 'confirmed', evidence: { exitCode: 32 } } }),
    }));
    expect(await run({ check: 'read-result', key: 'verify-results/ec2.json', part: 'rootMount', salt: 's4' }, tmp())).toMatchObject({ outcome: 'confirmed' });
    expect(await run({ check: 'read-result', key: 'verify-results/ec2.json', part: 'accessPointMount', salt: 's4' }, tmp()))
      .toMatchObject({ outcome: 'refuted', evidence: { reported: 'missing' } });
  });

  test('a failing call (here: no S3 Files API) refutes with the error as evidence, never throws', async () => {
    const r = await run({ check: 'policy-size', fileSystemId: 'fs-1', salt: 's5' }, tmp());
    expect(r.outcome).toBe('refuted');
    expect(String(r.evidence.probeError)).toMatch(/ECONNREFUSED|connect/);
  });
});

describe('the EC2 probe script (integ/handlers/verify-ec2/probe.sh) [python tools]', () => {
  const script = path.join(ROOT, 'integ', 'handlers', 'verify-ec2', 'probe.sh');

  test('shellcheck finds nothing', () => {
    const r = spawnSync(venvBin('shellcheck'), [script], { encoding: 'utf8' });
    expect([r.status, r.stdout]).toEqual([0, '']);
  });

  // Stubs for mountpoint, mount, umount and aws; python3, timeout, grep are the real ones.
  function runScript(mountAnswer: { code: number; output: string }) {
    const dir = tmp();
    const bin = path.join(dir, 'bin');
    const s3root = path.join(dir, 's3');
    fs.mkdirSync(bin);
    fs.mkdirSync(path.join(dir, 'mnt'));
    const stub = (name: string, body: string) => fs.writeFileSync(path.join(bin, name), `#!/usr/bin/env bash\n${body}\n`, { mode: 0o755 });
    stub('mountpoint', 'echo "$*" >> "$CALLS"; exit 0');
    stub('mount', `echo "mount $*" >> "$CALLS"; echo ${JSON.stringify(mountAnswer.output)} >&2; exit ${mountAnswer.code}`);
    stub('umount', 'echo "umount $*" >> "$CALLS"');
    fs.copyFileSync(path.join(ROOT, 'test', 'servers', 'aws-cli-stub.sh'), path.join(bin, 'aws'));
    fs.chmodSync(path.join(bin, 'aws'), 0o755);
    fs.mkdirSync(s3root);
    const calls = path.join(dir, 'calls');
    const r = spawnSync('bash', [script], {
      encoding: 'utf8',
      env: {
        PATH: `${bin}:${process.env.PATH}`,
        CALLS: calls,
        S3ROOT: s3root,
        FILE_SYSTEM_ID: 'fs-0123456789abcdef0',
        MOUNT_PATH: path.join(dir, 'mnt'),
        RESULT_URI: 's3://bucket/verify-results/ec2.json',
        ROOT_PROBE: path.join(dir, 'root'),
      },
    });
    const result = fs.existsSync(path.join(s3root, 'verify-results/ec2.json')) ? JSON.parse(fs.readFileSync(path.join(s3root, 'verify-results/ec2.json'), 'utf8')) : undefined;
    return { r, result, calls: fs.readFileSync(calls, 'utf8') };
  }

  test('a refused root mount ("access denied by server") confirms; the access-point mount is written and read', () => {
    const { r, result, calls } = runScript({ code: 32, output: 'mount.nfs4: access denied by server while mounting 127.0.0.1:/' });
    expect(r.status).toBe(0);
    expect(result.accessPointMount.outcome).toBe('confirmed');
    expect(result.rootMount).toEqual({ outcome: 'confirmed', evidence: { exitCode: 32, output: 'mount.nfs4: access denied by server while mounting 127.0.0.1:/' } });
    expect(calls).toMatch(/mount -t s3files fs-0123456789abcdef0:\/ .*\/root/);
  });

  test('a root mount that succeeds refutes, and is unmounted again', () => {
    const { result, calls } = runScript({ code: 0, output: '' });
    expect(result.rootMount.outcome).toBe('refuted');
    expect(calls).toMatch(/umount .*\/root/);
  });
});
