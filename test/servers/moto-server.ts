import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';

/** A running moto server (real S3 API on loopback). */
export interface MotoServer {
  /** Base URL, e.g. `http://127.0.0.1:45123`: use it as `AWS_ENDPOINT_URL_S3`. */
  readonly url: string;
  readonly port: number;
  /** Stops the server process this helper started (idempotent). */
  stop(): Promise<void>;
}

export interface StartMotoServerOptions {
  /** Path of the moto_server binary. Default: `<repo>/.venv/bin/moto_server` (made by test/setup). */
  readonly binary?: string;
  /** How long to wait for the server to answer. Default 30 s (the machine is slow and shared). */
  readonly readyTimeoutMs?: number;
}

const REPO_ROOT = path.resolve(__dirname, '..', '..');

/** Asks the OS for a free loopback port. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

function probe(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get(`${url}/moto-api/`, (res) => {
      res.resume();
      resolve((res.statusCode ?? 500) < 500);
    });
    req.on('error', () => resolve(false));
    req.setTimeout(2_000, () => {
      req.destroy();
      resolve(false);
    });
  });
}

/**
 * Starts `moto_server` on 127.0.0.1 and a free port, and resolves once it answers HTTP.
 * The caller owns the process: call `stop()` (e.g. in `afterAll`).
 */
export async function startMotoServer(options: StartMotoServerOptions = {}): Promise<MotoServer> {
  const binary = options.binary ?? path.join(REPO_ROOT, '.venv', 'bin', 'moto_server');
  if (!fs.existsSync(binary)) {
    throw new Error(`moto_server not found at ${binary}: run "bash test/setup/python-venv.sh" first.`);
  }
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(binary, ['-H', '127.0.0.1', '-p', String(port)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    // Keep only the tail: enough to explain a failed start.
    stderr = (stderr + chunk.toString()).slice(-4_000);
  });
  let exited = false;
  const exitPromise = new Promise<void>((resolve) => child.once('exit', () => {
    exited = true;
    resolve();
  }));

  const stop = async (): Promise<void> => {
    if (!exited) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => {
        if (!exited) child.kill('SIGKILL');
      }, 5_000);
      await exitPromise;
      clearTimeout(timer);
    }
  };

  const deadline = Date.now() + (options.readyTimeoutMs ?? 30_000);
  while (Date.now() < deadline) {
    if (exited) {
      throw new Error(`moto_server exited before it was ready (port ${port}): ${stderr.trim()}`);
    }
    if (await probe(url)) {
      return { url, port, stop };
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  await stop();
  throw new Error(`moto_server did not answer on ${url} within ${options.readyTimeoutMs ?? 30_000} ms: ${stderr.trim()}`);
}
