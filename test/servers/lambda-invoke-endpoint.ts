/**
 * A loopback HTTP server for the Lambda Invoke route (`POST /2015-03-31/functions/{name}/invocations`)
 * that runs real handlers in-process, so `@aws-sdk/client-lambda` calls go over HTTP exactly as in AWS.
 *
 * Like one Lambda execution environment per endpoint, invocations run one at a time; each runs with
 * its function's environment variables applied (and restored afterwards). A thrown error becomes a
 * 200 response with `X-Amz-Function-Error: Unhandled` and Lambda's error payload.
 */
import { randomUUID } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

export type Handler = (event: any, context: any) => Promise<unknown>;

export interface LocalFunction {
  readonly handler: Handler;
  /** Environment variables for this function, applied during each invocation. */
  readonly env?: Record<string, string>;
}

export interface LambdaEndpoint {
  readonly url: string;
  /** Names of the functions invoked, in order. */
  readonly invocations: string[];
  stop(): Promise<void>;
}

const ROUTE = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/;

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

export async function startLambdaEndpoint(functions: Record<string, LocalFunction>): Promise<LambdaEndpoint> {
  const invocations: string[] = [];
  let queue: Promise<unknown> = Promise.resolve();

  const run = (name: string, fn: LocalFunction, payload: string) => {
    const requestId = randomUUID();
    const started = Date.now();
    const context = {
      functionName: name,
      functionVersion: '$LATEST',
      awsRequestId: requestId,
      memoryLimitInMB: '512',
      invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${name}`,
      getRemainingTimeInMillis: () => Math.max(0, 900_000 - (Date.now() - started)),
    };
    const event = payload.trim() === '' ? {} : JSON.parse(payload);
    const result = queue.then(() => withEnv(fn.env, () => fn.handler(event, context)));
    queue = result.catch(() => undefined);
    return result;
  };

  const server: Server = createServer((req, res) => {
    void (async () => {
      const m = ROUTE.exec((req.url ?? '').split('?')[0]);
      if (req.method !== 'POST' || !m) {
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
      invocations.push(name);
      try {
        const out = await run(name, fn, payload);
        send(res, 200, out === undefined ? 'null' : JSON.stringify(out), { 'X-Amz-Executed-Version': '$LATEST' });
      } catch (e) {
        const err = e instanceof Error ? e : new Error(String(e));
        send(res, 200, JSON.stringify({ errorType: err.name, errorMessage: err.message, trace: (err.stack ?? '').split('\n') }), {
          'X-Amz-Function-Error': 'Unhandled', 'X-Amz-Executed-Version': '$LATEST',
        });
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    invocations,
    stop: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
