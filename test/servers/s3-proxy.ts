import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback proxy in front of a real S3 endpoint (moto) that answers as S3 does where moto does not,
 * and lets a test act at an exact request:
 * - `EncodingType=url` on ListObjectVersions and ListMultipartUploads (moto 5.2.5 ignores it there
 *   and sends a key holding `\r` as it is, which an XML 1.0 parser reads back as `\n`): the answer's
 *   key elements are URL-encoded as the S3 API reference lists them for each operation (versions:
 *   Key, KeyMarker, NextKeyMarker, Prefix, Delimiter; uploads: Delimiter, KeyMarker, Prefix,
 *   NextKeyMarker, Key) and `<EncodingType>url</EncodingType>` is added. Encoded as a form (a space
 *   as `+`, `/` kept, every other byte outside `A-Za-z0-9-_.~*` as `%XX` of its UTF-8).
 *   ListObjectsV2 moto encodes itself.
 * - `hooks`: each request is shown to them before it is forwarded; one can answer it instead (an S3
 *   error), hold it (never answered: the test kills the client meanwhile), or delay it.
 * Path-style requests only; loopback only.
 */
export interface ProxiedRequest {
  readonly method: string;
  readonly bucket: string;
  /** The object key, decoded ('' for bucket requests). */
  readonly key: string;
  readonly query: URLSearchParams;
  readonly headers: http.IncomingHttpHeaders;
}

export type HookAction =
  | { readonly error: { readonly status: number; readonly code: string; readonly message: string } }
  | { readonly hold: true }
  | { readonly delayMs: number };

export type Hook = (request: ProxiedRequest) => HookAction | undefined | Promise<HookAction | undefined>;

const ENCODED_ELEMENTS: Record<string, string[]> = {
  versions: ['Key', 'KeyMarker', 'NextKeyMarker', 'Prefix', 'Delimiter'],
  uploads: ['Delimiter', 'KeyMarker', 'Prefix', 'NextKeyMarker', 'Key'],
};

/** S3's `url` encoding of a key, as a form value. */
export function s3UrlEncode(key: string): string {
  return [...Buffer.from(key, 'utf8')].map((b) => {
    const c = String.fromCharCode(b);
    if (/[A-Za-z0-9\-_.~*/]/.test(c)) return c;
    return b === 0x20 ? '+' : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }).join('');
}

const unescapeXml = (s: string): string => s.replace(/&(lt|gt|quot|apos|amp|#(\d+)|#x([0-9a-fA-F]+));/g, (_, name, dec, hex) => {
  if (dec) return String.fromCodePoint(Number(dec));
  if (hex) return String.fromCodePoint(parseInt(hex, 16));
  return ({ lt: '<', gt: '>', quot: '"', apos: '\'', amp: '&' } as Record<string, string>)[name];
});

export class S3Proxy {
  public static async start(upstream: string): Promise<S3Proxy> {
    const proxy = new S3Proxy(upstream);
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  public readonly hooks: Hook[] = [];
  /** Every request seen (method, key and query), in order. */
  public readonly seen: ProxiedRequest[] = [];
  private readonly server: http.Server;
  private readonly held: http.ServerResponse[] = [];

  private constructor(private readonly upstream: string) {
    this.server = http.createServer((req, res) => void this.handle(req, res).catch((e) => {
      if (!res.headersSent) res.writeHead(502);
      res.end(String(e));
    }));
  }

  public get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  public async stop(): Promise<void> {
    this.held.splice(0).forEach((r) => r.destroy());
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    const [bucket = '', ...rest] = url.pathname.split('/').filter((_, i) => i > 0);
    const request: ProxiedRequest = {
      method: req.method ?? 'GET', bucket: decodeURIComponent(bucket), key: decodeURIComponent(rest.join('/')), query: url.searchParams, headers: req.headers,
    };
    this.seen.push(request);
    for (const hook of this.hooks) {
      const action = await hook(request);
      if (!action) continue;
      if ('hold' in action) {
        this.held.push(res);
        req.resume();
        return;
      }
      if ('delayMs' in action) {
        await new Promise((r) => setTimeout(r, action.delayMs));
        continue;
      }
      req.resume();
      res.writeHead(action.error.status, { 'content-type': 'application/xml' });
      res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${action.error.code}</Code><Message>${action.error.message}</Message></Error>`);
      return;
    }
    const listing = req.method === 'GET' && request.key === '' && url.searchParams.get('encoding-type') === 'url'
      ? Object.keys(ENCODED_ELEMENTS).find((q) => url.searchParams.has(q)) : undefined;
    const target = new URL(req.url ?? '/', this.upstream);
    const upstream = http.request(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
      if (!listing || answer.statusCode !== 200) {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        return;
      }
      const chunks: Buffer[] = [];
      answer.on('data', (c: Buffer) => chunks.push(c));
      answer.on('end', () => {
        const body = Buffer.from(encodeListing(Buffer.concat(chunks).toString('utf8'), ENCODED_ELEMENTS[listing]), 'utf8');
        const { 'content-length': _, 'transfer-encoding': __, ...headers } = answer.headers;
        res.writeHead(200, { ...headers, 'content-length': body.length });
        res.end(body);
      });
    });
    upstream.on('error', (error) => {
      if (!res.headersSent) res.writeHead(502);
      res.end(String(error));
    });
    req.pipe(upstream);
  }
}

/** The listing with `elements` URL-encoded and `<EncodingType>url</EncodingType>` added (once, after the root's opening tag). */
function encodeListing(xml: string, elements: string[]): string {
  let out = xml;
  for (const el of elements) {
    out = out.replace(new RegExp(`<${el}>([^<]*)</${el}>`, 'g'), (_, text: string) => `<${el}>${s3UrlEncode(unescapeXml(text))}</${el}>`);
  }
  if (/<EncodingType>/.test(out)) return out;
  return out.replace(/(<(ListVersionsResult|ListMultipartUploadsResult)\b[^>]*>)/, '$1<EncodingType>url</EncodingType>');
}
