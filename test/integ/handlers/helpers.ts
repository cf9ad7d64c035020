/** Small helpers shared by the handler tests (not a test file itself). */
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { processMount } from '../../../integ/handlers/processor-s3files/index';

export function tempMount(): { path: string; cleanup(): void } {
  const path = mkdtempSync(join(tmpdir(), 's3files-mount-'));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

/**
 * What the processor-s3files suites share: a temp mount with inbox/, made before each test of the
 * calling file and removed after it (mocks restored), and the accessors on it. Call at file level.
 */
export function processorMount() {
  let mount: ReturnType<typeof tempMount>;
  beforeEach(() => {
    mount = tempMount();
    mkdirSync(join(mount.path, 'inbox'));
  });
  afterEach(() => {
    jest.restoreAllMocks();
    mount.cleanup();
  });
  const p = (...parts: string[]) => join(mount.path, ...parts);
  return {
    /** This test's mount directory. */
    mountDir: () => mount.path,
    p,
    inbox: (name: string, data: string | Buffer) => writeFileSync(p('inbox', name), data),
    run: (extra: Partial<Parameters<typeof processMount>[0]> = {}) => processMount({ mountPath: mount.path, concurrency: 4, ...extra }),
  };
}

/** Points the handlers' SDK clients at moto (S3) and the local Lambda endpoint, with dummy credentials. */
export function localEndpointsEnv(motoUrl: string, lambdaUrl: string): Record<string, string> {
  return {
    AWS_ENDPOINT_URL_S3: motoUrl,
    AWS_ENDPOINT_URL_LAMBDA: lambdaUrl,
    S3_FORCE_PATH_STYLE: 'true',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'testing',
    AWS_SECRET_ACCESS_KEY: 'testing',
  };
}

export function list(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

/**
 * Capture what powertools writes to stdout (JSON logs, EMF) so tests stay quiet and can assert on
 * the metrics. Returns the captured lines and a restore function.
 */
export function captureStdout(): { lines: string[]; restore(): void } {
  const lines: string[] = [];
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation(((chunk: unknown) => {
    lines.push(...String(chunk).split('\n').filter((l) => l.trim() !== ''));
    return true;
  }) as never);
  return { lines, restore: () => spy.mockRestore() };
}

/** The EMF documents among captured lines. */
export function emfMetrics(lines: string[]): Record<string, unknown>[] {
  return lines.flatMap((l) => {
    try {
      const doc = JSON.parse(l);
      return doc._aws?.CloudWatchMetrics ? [doc] : [];
    } catch {
      return [];
    }
  });
}

/** Only root can start a child process as another user. */
export const RUNS_AS_ROOT = typeof process.getuid === 'function' && process.getuid() === 0;

/**
 * Runs bundled handlers (what deploys) in child processes as the access point's user, uid 1000,
 * from world-readable temp dirs (the checkout itself may be private to root). `cleanup()` removes them.
 */
export class AccessPointUser {
  private readonly dirs: string[] = [];

  /** A world-readable temp dir, owned by `owner` when given (as the access point root is). */
  public dir(owner?: number): string {
    const d = mkdtempSync(join(tmpdir(), 's3files-uid-'));
    chmodSync(d, 0o755);
    if (owner !== undefined) chownSync(d, owner, owner);
    this.dirs.push(d);
    return d;
  }

  /** Runs assets/integ/handlers/<handler>/index/index.js as uid/gid 1000 with MOUNT_PATH; `result` is what the handler returned. */
  public run(handler: string, mountPath: string): { status: number | null; result?: any; stdout: string; stderr: string } {
    const code = this.dir();
    copyFileSync(join(__dirname, '..', '..', '..', 'assets', 'integ', 'handlers', handler, 'index', 'index.js'), join(code, 'index.js'));
    const script = 'require(process.argv[1]).handler({}).then((r) => console.log("RESULT:" + JSON.stringify(r)), (e) => { console.error("ERROR:" + e.message); process.exit(1); })';
    const r = spawnSync(process.execPath, ['-e', script, join(code, 'index.js')], {
      uid: 1000,
      gid: 1000,
      encoding: 'utf8',
      timeout: 60_000,
      env: { PATH: process.env.PATH, MOUNT_PATH: mountPath, POWERTOOLS_METRICS_DISABLED: 'true', POWERTOOLS_LOG_LEVEL: 'SILENT' },
    });
    if (r.error) {
      throw new Error(`could not start ${process.execPath} as uid 1000 (${r.error.message}): that user must be able to reach the Node.js binary and ${tmpdir()}`);
    }
    const line = r.stdout.split('\n').find((l) => l.startsWith('RESULT:'));
    return { status: r.status, result: line ? JSON.parse(line.slice('RESULT:'.length)) : undefined, stdout: r.stdout, stderr: r.stderr };
  }

  public cleanup(): void {
    this.dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
  }
}

/**
 * A stand-in for S3 Files' import (S3 -> mount) of the S3 Files inbox: objects under
 * `<prefix>inbox/` appear in the mount's inbox/ a moment later, whole, as S3-born files do.
 */
export interface Importer {
  readonly imported: string[];
  stop(): void;
}
export function startInboxImporter(s3: S3Client, bucket: string, prefix: string, mountPath: string): Importer {
  const imported: string[] = [];
  const seen = new Set<string>();
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    void (async () => {
      const objs = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `${prefix}inbox/` }));
      for (const o of objs.Contents ?? []) {
        if (seen.has(`${o.Key}@${o.ETag}`)) continue;
        seen.add(`${o.Key}@${o.ETag}`);
        const res = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: o.Key! }));
        const name = o.Key!.slice(`${prefix}inbox/`.length);
        const tmp = join(mountPath, `.import-${name}`);
        writeFileSync(tmp, Buffer.from(await res.Body!.transformToByteArray()));
        renameSync(tmp, join(mountPath, 'inbox', name));
        imported.push(name);
      }
    })().catch(() => undefined).finally(() => { busy = false; });
  }, 50);
  return { stop: () => clearInterval(timer), imported };
}

