import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback proxy in front of a real S3 endpoint (moto) that behaves like S3 with an S3 Files file
 * system still attached to a bucket: DeleteBucket on that bucket answers 409
 * `BucketHasS3FileSystemAttached` for the next `refusals` calls, then is passed through. Every other
 * request goes to the upstream unchanged. Loopback only.
 */
export class S3AttachedProxy {
  public static async start(upstream: string): Promise<S3AttachedProxy> {
    const proxy = new S3AttachedProxy(upstream);
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  /** Buckets still "attached", with how many DeleteBucket calls are refused before one passes. */
  private readonly refusals = new Map<string, number>();
  /** DeleteBucket calls seen, by bucket, with their answer. */
  public readonly deleteBucketCalls: Array<{ readonly bucket: string; readonly status: number }> = [];
  private readonly server: http.Server;

  private constructor(private readonly upstream: string) {
    this.server = http.createServer((req, res) => this.handle(req, res));
  }

  public get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** DeleteBucket on `bucket` is refused the next `count` times. */
  public keepAttached(bucket: string, count: number): void {
    this.refusals.set(bucket, count);
  }

  public async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://x');
    const segments = url.pathname.split('/').filter(Boolean);
    // Path-style DeleteBucket: DELETE /<bucket> with no key and no subresource query.
    if (req.method === 'DELETE' && segments.length === 1 && url.search === '') {
      const bucket = decodeURIComponent(segments[0]);
      const left = this.refusals.get(bucket) ?? 0;
      if (left > 0) {
        this.refusals.set(bucket, left - 1);
        this.deleteBucketCalls.push({ bucket, status: 409 });
        req.resume();
        res.writeHead(409, { 'content-type': 'application/xml' });
        res.end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>BucketHasS3FileSystemAttached</Code>'
          + `<Message>The bucket you tried to delete has an S3 file system attached.</Message><BucketName>${bucket}</BucketName></Error>`);
        return;
      }
    }
    const target = new URL(req.url ?? '/', this.upstream);
    const upstream = http.request(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
      if (req.method === 'DELETE' && segments.length === 1 && url.search === '') {
        this.deleteBucketCalls.push({ bucket: decodeURIComponent(segments[0]), status: answer.statusCode ?? 0 });
      }
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', (error) => {
      res.writeHead(502);
      res.end(String(error));
    });
    req.pipe(upstream);
  }
}
