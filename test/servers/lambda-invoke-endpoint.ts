/**
 * A loopback HTTP server for the Lambda routes the integ handlers call, running real handlers
 * in-process, so `@aws-sdk/client-lambda` calls go over HTTP exactly as in AWS:
 * - Invoke (`POST /2015-03-31/functions/{name}/invocations`). Like one Lambda execution environment
 *   per endpoint, invocations run one at a time; each runs with its function's environment variables
 *   applied (and restored afterwards). A thrown error becomes a 200 response with
 *   `X-Amz-Function-Error: Unhandled` and Lambda's error payload. With `X-Amz-Log-Type: Tail` the
 *   response carries Lambda's START/END/REPORT lines in `X-Amz-Log-Result`.
 * - GetFunctionConfiguration and UpdateFunctionConfiguration (`GET`/`PUT .../configuration`): an
 *   update replaces the environment, reports `LastUpdateStatus: InProgress` to the next read, and
 *   makes the next invoke a cold start: the function's `init` runs first and its time is the REPORT
 *   line's `Init Duration`, as on the first invoke.
 */
import { randomUUID } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

export type Handler = (event: any, context: any) => Promise<unknown>;

export interface LocalFunction {
  readonly handler: Handler;
  /** Environment variables for this function, applied during each invocation. */
  readonly env?: Record<string, string>;
  /** Runs before the first invoke of each execution environment (cold start), with the environment applied. */
  readonly init?: () => Promise<void>;
}

export interface LambdaEndpoint {
  readonly url: string;
  /** Names of the functions invoked, in order. */
  readonly invocations: string[];
  /** Names of the functions whose configuration was updated, in order. */
  readonly updates: string[];
  /** Names of the functions whose configuration was read (GetFunctionConfiguration), in order. */
  readonly configurationReads: string[];
  /** The environment a function runs with now (updates included). */
  environmentOf(name: string): Record<string, string>;
  stop(): Promise<void>;
}

const ROUTE = /^\/2015-03-31\/functions\/([^/]+)\/(invocations|configuration)$/;

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function withEnv<T>(env: Record<string, string> | undefined, fn: () => Promise<T>): Promise<T> {
  const saved = new Map<string, string | undefined>();
  for (const [k, v] of Object.entries(env ?? {})) {
    saved.set(k, process.env[k]);
    process.env[k] = v;
  }
  try {
    return await fn();
  } finally {
    for (const [k, v] of saved) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

interface FunctionState {
  env: Record<string, string>;
  /** The next invoke starts a new execution environment. */
  cold: boolean;
  /** GetFunctionConfiguration calls that still see the update in progress. */
  updating: number;
}

export async function startLambdaEndpoint(functions: Record<string, LocalFunction>): Promise<LambdaEndpoint> {
  const invocations: string[] = [];
  const updates: string[] = [];
  const configurationReads: string[] = [];
  const states = new Map<string, FunctionState>(
    Object.entries(functions).map(([name, fn]) => [name, { env: { ...fn.env }, cold: true, updating: 0 }]),
  );
  let queue: Promise<unknown> = Promise.resolve();

  const configuration = (name: string) => {
    const state = states.get(name)!;
    const lastUpdateStatus = state.updating > 0 ? 'InProgress' : 'Successful';
    if (state.updating > 0) state.updating--;
    return {
      FunctionName: name,
      FunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${name}`,
      State: 'Active',
      LastUpdateStatus: lastUpdateStatus,
      MemorySize: 512,
      Environment: { Variables: { ...state.env } },
    };
  };

  /** Runs one invocation; its START/END/REPORT lines as Lambda writes them. */
  const run = (name: string, fn: LocalFunction, payload: string): Promise<{ out: unknown; log: string }> => {
    const requestId = randomUUID();
    const started = Date.now();
    const state = states.get(name)!;
    const context = {
      functionName: name,
      functionVersion: '$LATEST',
      awsRequestId: requestId,
      memoryLimitInMB: '512',
      invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${name}`,
      getRemainingTimeInMillis: () => Math.max(0, 900_000 - (Date.now() - started)),
    };
    const event = payload.trim() === '' ? {} : JSON.parse(payload);
    const result = queue.then(() => withEnv(state.env, async () => {
      let initMs: number | undefined;
      if (state.cold) {
        const t0 = performance.now();
        await fn.init?.();
        initMs = performance.now() - t0;
        state.cold = false;
      }
      const t1 = performance.now();
      const report = (): string => {
        const ms = performance.now() - t1;
        return `START RequestId: ${requestId} Version: $LATEST\nEND RequestId: ${requestId}\n`
          + `REPORT RequestId: ${requestId}\tDuration: ${ms.toFixed(2)} ms\tBilled Duration: ${Math.ceil(ms)} ms\tMemory Size: 512 MB\t`
          + `Max Memory Used: ${Math.round(process.memoryUsage().rss / 1024 / 1024)} MB\t${initMs === undefined ? '' : `Init Duration: ${initMs.toFixed(2)} ms\t`}\n`;
      };
      try {
        return { out: await fn.handler(event, context), log: report() };
      } catch (e) {
        throw Object.assign(e instanceof Error ? e : new Error(String(e)), { log: report() });
      }
    }));
    queue = result.catch(() => undefined);
    return result;
  };

  const server: Server = createServer((req, res) => {
    void (async () => {
      const m = ROUTE.exec((req.url ?? '').split('?')[0]);
      const route = m ? `${req.method} ${m[2]}` : '';
      if (!m || !['POST invocations', 'GET configuration', 'PUT configuration'].includes(route)) {
        send(res, 404, JSON.stringify({ message: `No route for ${req.method} ${req.url}` }), { 'x-amzn-ErrorType': 'UnknownOperationException' });
        return;
      }
      // The SDK sends a name or an ARN; the function name is the last ARN component.
      const name = decodeURIComponent(m[1]).split(':').slice(-1)[0];
      const payload = await readBody(req);
      const fn = functions[name];
      if (!fn) {
        send(res, 404, JSON.stringify({ Type: 'User', message: `Function not found: ${name}` }), { 'x-amzn-ErrorType': 'ResourceNotFoundException' });
        return;
      }
      if (route === 'GET configuration') {
        configurationReads.push(name);
        send(res, 200, JSON.stringify(configuration(name)));
        return;
      }
      if (route === 'PUT configuration') {
        const state = states.get(name)!;
        const body = JSON.parse(payload || '{}');
        if (body.Environment) state.env = { ...body.Environment.Variables };
        // Lambda replaces the execution environments after a configuration update.
        state.cold = true;
        updates.push(name);
        state.updating = 2;
        // The update's own response, then the first read after it, say InProgress.
        send(res, 200, JSON.stringify(configuration(name)));
        return;
      }
      invocations.push(name);
      // Lambda returns the last 4 KB of the invocation's log, base64-encoded.
      const tail = (log: string): Record<string, string> => (req.headers['x-amz-log-type'] === 'Tail'
        ? { 'X-Amz-Log-Result': Buffer.from(log.slice(-4096)).toString('base64') } : {});
      try {
        const { out, log } = await run(name, fn, payload);
        send(res, 200, out === undefined ? 'null' : JSON.stringify(out), { 'X-Amz-Executed-Version': '$LATEST', ...tail(log) });
      } catch (e) {
        const err = e instanceof Error ? e : new Error(String(e));
        send(res, 200, JSON.stringify({ errorType: err.name, errorMessage: err.message, trace: (err.stack ?? '').split('\n') }), {
          'X-Amz-Function-Error': 'Unhandled', 'X-Amz-Executed-Version': '$LATEST', ...tail((e as { log?: string }).log ?? ''),
        });
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    invocations,
    updates,
    configurationReads,
    environmentOf: (name) => ({ ...states.get(name)!.env }),
    stop: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
