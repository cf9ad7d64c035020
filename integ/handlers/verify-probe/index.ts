/**
 * The verification app's probe (`npx projen verify`), invoked by integ-tests-alpha assertions. It
 * never throws: every answer is `{ outcome, evidence }`, where `outcome` is `confirmed`, `refuted`
 * or `pending` and `evidence` is `b64:` + base64 of a small JSON object (base64 so that
 * integ-tests-alpha, which parses every JSON string in a response, hands it to the stack output as
 * it is; small, since a custom resource's response is limited to 4,096 bytes).
 *
 * The assertion provider gives each call 2 minutes, so a check polls for at most `budgetSeconds`
 * (80) and answers `pending`; the assertion's waiter calls again. A check is keyed by its `salt`
 * (one per run): its start time and its settled result are kept in the bucket under the function's
 * key prefix (`.verify-state/`), so a later call continues it and then repeats the same result.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { GetFileSystemCommand, GetFileSystemPolicyCommand, S3FilesClient } from '@aws-sdk/client-s3files';
import { s3Client } from '../shared/aws';

/** What every check takes: the run's salt (idempotence) and how long one call may poll. */
interface Common {
  readonly salt: string;
  readonly budgetSeconds?: number;
}

export type ProbeEvent = Common & (
  /** Writes, reads back and lists a file through the mount. */
  | { readonly check: 'write-read' }
  /** Writes through the mount and expects EROFS. */
  | { readonly check: 'write-denied' }
  /** PutObject makes a directory; then mkdir inside it through the mount. */
  | { readonly check: 's3-born-mkdir'; readonly expect: 'allowed' | 'denied' }
  /** PutObject, then poll the mount. */
  | { readonly check: 'import-delay'; readonly withinSeconds: number; readonly capSeconds?: number }
  /** Write on the mount, then poll HeadObject. */
  | { readonly check: 'export-delay'; readonly minSeconds: number; readonly maxSeconds: number; readonly capSeconds?: number }
  /** GetFileSystemPolicy: the length read back against its compact JSON. */
  | { readonly check: 'policy-size'; readonly fileSystemId: string }
  /** GetFileSystem: available, with this key. */
  | { readonly check: 'file-system-key'; readonly fileSystemId: string; readonly keyArn: string }
  /** A result another compute wrote to the bucket (EC2 user data): one part of it. */
  | { readonly check: 'read-result'; readonly key: string; readonly part: string }
  /** A file another compute wrote through the same access point (EKS pod). */
  | { readonly check: 'file-appears'; readonly relativePath: string; readonly waitSeconds: number }
  /** An object that must not appear (a root mount's write) within the wait. */
  | { readonly check: 'object-absent'; readonly key: string; readonly waitSeconds: number });

export type Outcome = 'confirmed' | 'refuted' | 'pending';
export interface ProbeResult {
  readonly outcome: Outcome;
  readonly evidence: string;
}

export interface ProbeDeps {
  readonly s3: S3Client;
  readonly s3files: S3FilesClient;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  readonly env: NodeJS.ProcessEnv;
}

const defaultDeps = (): ProbeDeps => ({
  s3: s3Client(),
  s3files: new S3FilesClient({}),
  now: Date.now,
  sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
  env: process.env,
});

export async function handler(event: ProbeEvent): Promise<ProbeResult> {
  return probe(event, defaultDeps());
}

export async function probe(event: ProbeEvent, deps: ProbeDeps): Promise<ProbeResult> {
  try {
    const bucket = deps.env.BUCKET ?? '';
    // Keyed by the event (but for how long one call may poll): other parameters make another check.
    const { budgetSeconds: _budget, ...identity } = event;
    const digest = createHash('sha256').update(JSON.stringify(identity)).digest('hex').slice(0, 16);
    const stateKey = `${deps.env.KEY_PREFIX ?? ''}.verify-state/${event.check}-${digest}.json`;
    const state = (await getJson<State>(deps.s3, bucket, stateKey)) ?? { startedAt: deps.now() };
    if (state.result) return state.result;
    const answer = await run(event, deps, state, deps.now() + (event.budgetSeconds ?? 80) * 1000);
    await deps.s3.send(new PutObjectCommand({ Bucket: bucket, Key: stateKey, Body: JSON.stringify(answer.outcome === 'pending' ? state : { ...state, result: answer }) }));
    return answer;
  } catch (e) {
    // A failure of the probe itself refutes nothing on its own: the evidence says what failed.
    return result('refuted', { probeError: describe(e) });
  }
}

/** A check's memory between calls: when it started, and its result once settled. */
interface State {
  readonly startedAt: number;
  readonly result?: ProbeResult;
}

async function run(event: ProbeEvent, d: ProbeDeps, state: State, deadline: number): Promise<ProbeResult> {
  const mount = d.env.MOUNT_PATH ?? '';
  const bucket = d.env.BUCKET ?? '';
  // The bucket key prefix where this function's access point root is: file-system prefix + path.
  const keyPrefix = d.env.KEY_PREFIX ?? '';
  const salt = event.salt.replace(/[^A-Za-z0-9-]/g, '').slice(0, 40);
  const elapsed = (from = state.startedAt) => d.now() - from;
  const pending = (evidence: unknown) => ({ outcome: 'pending' as const, evidence: encode(evidence) });
  switch (event.check) {
    case 'write-read': {
      const file = path.join(mount, `probe-${salt}.txt`);
      const started = d.now();
      await fs.writeFile(file, salt);
      const back = await fs.readFile(file, 'utf8');
      const listed = (await fs.readdir(mount)).includes(path.basename(file));
      return result(back === salt && listed ? 'confirmed' : 'refuted', { file, readBack: back === salt, listed, ms: d.now() - started });
    }
    case 'write-denied': {
      const code = await errorCode(() => fs.writeFile(path.join(mount, `read-only-${salt}.txt`), salt));
      return result(code === 'EROFS' ? 'confirmed' : 'refuted', { writeError: code ?? 'none (the write succeeded)' });
    }
    case 's3-born-mkdir': {
      const dir = `s3born-${salt}`;
      const key = `${keyPrefix}${dir}/seed.txt`;
      if (!(await exists(d.s3, bucket, key))) await d.s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: salt }));
      const seen = await pollUntil(d, deadline, 500, async () => (await readOrUndefined(path.join(mount, dir, 'seed.txt'))) === salt);
      if (!seen) return elapsed() > 600_000 ? result('refuted', { importTimedOutSeconds: 600 }) : pending({ waitingForImport: key });
      const stat = await fs.stat(path.join(mount, dir));
      const code = await errorCode(() => fs.mkdir(path.join(mount, dir, 'child')));
      const matches = event.expect === 'allowed' ? code === undefined : ['EACCES', 'EPERM'].includes(code ?? '');
      return result(matches ? 'confirmed' : 'refuted', {
        s3BornDir: { uid: stat.uid, gid: stat.gid, mode: (stat.mode % 0o10000).toString(8) }, mkdir: code ?? 'created', expected: event.expect,
      });
    }
    case 'import-delay': {
      const key = `${keyPrefix}sync/import-${salt}.txt`;
      if (!(await exists(d.s3, bucket, key))) await d.s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: salt }));
      const file = path.join(mount, 'sync', `import-${salt}.txt`);
      const seen = await pollUntil(d, deadline, 250, async () => (await readOrUndefined(file)) === salt);
      const cap = event.capSeconds ?? 600;
      if (!seen) return elapsed() > cap * 1000 ? result('refuted', { key, timedOutAfterSeconds: cap }) : pending({ key, waitedMs: elapsed() });
      const ms = elapsed();
      return result(ms <= event.withinSeconds * 1000 ? 'confirmed' : 'refuted', { key, importMs: ms, withinSeconds: event.withinSeconds });
    }
    case 'export-delay': {
      const file = path.join(mount, 'sync', `export-${salt}.txt`);
      if ((await readOrUndefined(file)) !== salt) {
        await fs.mkdir(path.dirname(file), { recursive: true });
        await fs.writeFile(file, salt);
      }
      const key = `${keyPrefix}sync/export-${salt}.txt`;
      const seen = await pollUntil(d, deadline, 1000, () => exists(d.s3, bucket, key));
      const cap = event.capSeconds ?? 600;
      if (!seen) return elapsed() > cap * 1000 ? result('refuted', { key, timedOutAfterSeconds: cap }) : pending({ key, waitedMs: elapsed() });
      const ms = elapsed();
      const ok = ms >= event.minSeconds * 1000 && ms <= event.maxSeconds * 1000;
      return result(ok ? 'confirmed' : 'refuted', { key, exportMs: ms, expectedSeconds: [event.minSeconds, event.maxSeconds] });
    }
    case 'policy-size': {
      const { policy } = await d.s3files.send(new GetFileSystemPolicyCommand({ fileSystemId: event.fileSystemId }));
      const readBack = policy ?? '';
      const compact = JSON.stringify(JSON.parse(readBack));
      return result(readBack.length === compact.length ? 'confirmed' : 'refuted', {
        readBackLength: readBack.length, compactJsonLength: compact.length, limit: 20_000,
      });
    }
    case 'file-system-key': {
      const fsys = await d.s3files.send(new GetFileSystemCommand({ fileSystemId: event.fileSystemId }));
      const ok = fsys.status === 'available' && fsys.kmsKeyId === event.keyArn;
      return result(ok ? 'confirmed' : 'refuted', { status: fsys.status, kmsKeyId: fsys.kmsKeyId, expectedKey: event.keyArn });
    }
    case 'read-result': {
      let body: string | undefined;
      await pollUntil(d, deadline, 2000, async () => (body = await getText(d.s3, bucket, event.key)) !== undefined);
      if (body === undefined) return elapsed() > 1_800_000 ? result('refuted', { key: event.key, absentAfterSeconds: 1800 }) : pending({ key: event.key });
      const part = (JSON.parse(body) as Record<string, { outcome?: string; evidence?: unknown }>)[event.part];
      return result(part?.outcome === 'confirmed' ? 'confirmed' : 'refuted', { key: event.key, part: event.part, reported: part ?? 'missing' });
    }
    case 'file-appears': {
      const seen = await pollUntil(d, deadline, 2000, async () => (await readOrUndefined(path.join(mount, event.relativePath))) !== undefined);
      if (seen) return result('confirmed', { relativePath: event.relativePath, seenAfterMs: elapsed() });
      return elapsed() > event.waitSeconds * 1000 ? result('refuted', { relativePath: event.relativePath, absentAfterSeconds: event.waitSeconds }) : pending({ waitedMs: elapsed() });
    }
    case 'object-absent': {
      const until = Math.min(deadline, state.startedAt + event.waitSeconds * 1000);
      const appeared = await pollUntil(d, until, 5000, () => exists(d.s3, bucket, event.key));
      if (appeared) return result('refuted', { key: event.key, appearedAfterMs: elapsed() });
      return elapsed() >= event.waitSeconds * 1000 ? result('confirmed', { key: event.key, absentForSeconds: event.waitSeconds }) : pending({ waitedMs: elapsed() });
    }
    default:
      return result('refuted', { probeError: `unknown check ${JSON.stringify((event as { check?: unknown }).check)}` });
  }
}

/** Polls `test` until it is true (true) or the deadline (epoch ms) passes (false). */
async function pollUntil(d: ProbeDeps, deadline: number, everyMs: number, test: () => Promise<boolean>): Promise<boolean> {
  for (;;) {
    if (await test()) return true;
    if (d.now() + everyMs > deadline) return false;
    await d.sleep(everyMs);
  }
}

async function readOrUndefined(file: string): Promise<string | undefined> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch {
    return undefined;
  }
}

async function errorCode(action: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await action();
    return undefined;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code ?? describe(e);
  }
}

async function exists(s3: S3Client, bucket: string, key: string): Promise<boolean> {
  try {
    await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    return true;
  } catch (e) {
    if ((e as { name?: string }).name === 'NotFound' || (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return false;
    throw e;
  }
}

async function getJson<T>(s3: S3Client, bucket: string, key: string): Promise<T | undefined> {
  const text = await getText(s3, bucket, key);
  return text === undefined ? undefined : JSON.parse(text) as T;
}

async function getText(s3: S3Client, bucket: string, key: string): Promise<string | undefined> {
  try {
    const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return await out.Body!.transformToString();
  } catch (e) {
    if ((e as { name?: string }).name === 'NoSuchKey') return undefined;
    throw e;
  }
}

function describe(e: unknown): string {
  const err = e as { name?: string; message?: string };
  return `${err.name ?? 'Error'}: ${err.message ?? String(e)}`.slice(0, 300);
}

export function encode(evidence: unknown): string {
  return 'b64:' + Buffer.from(JSON.stringify(evidence)).toString('base64');
}

function result(outcome: Outcome, evidence: unknown): ProbeResult {
  return { outcome, evidence: encode(evidence) };
}
