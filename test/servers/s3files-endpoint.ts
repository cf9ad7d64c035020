import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for the S3 Files control plane (REST-JSON, API 2025-05-05), serving the routes
 * `@aws-sdk/client-s3files` calls, with scripted status changes. Point the real SDK at it with
 * `AWS_ENDPOINT_URL_S3FILES=<url>`. Loopback only.
 *
 * Routes (from the SDK's schemas): GET /mount-targets?fileSystemId&maxResults&nextToken,
 * GET /mount-targets/{id}, GET /access-points?fileSystemId, GET /access-points/{id},
 * GET /file-systems?bucket, GET /file-systems/{id}, DELETE /file-systems/{id}?forceDelete.
 * Like the service, DeleteFileSystem is refused (409) while a mount target or access point of the
 * file system is not being deleted, and a deleted file system stays attached to its bucket
 * (listed by ListFileSystems) for as long as its detachment script says.
 */

/** A status, optionally with the service's statusMessage. `absent` = the resource does not exist (yet). */
export type StatusStep = string | { readonly status: string; readonly statusMessage?: string };

/**
 * How a resource's status evolves:
 * - `calls`: one step per time the resource is served (listed or read); the last step sticks.
 * - `time`: the step whose `atMs` (ms after the script was set, on the endpoint's clock) was last reached.
 */
export type Timeline =
  | { readonly kind: 'calls'; readonly steps: readonly StatusStep[] }
  | { readonly kind: 'time'; readonly at: ReadonlyArray<{ readonly atMs: number; readonly step: StatusStep }> };

/** `perCall('creating', 'creating', 'available')`: advances one step per observation. */
export function perCall(...steps: StatusStep[]): Timeline {
  if (steps.length === 0) throw new Error('perCall needs at least one step');
  return { kind: 'calls', steps };
}

/** `atTimes([0, 'creating'], [180_000, 'available'])`: status by elapsed time on the endpoint clock. */
export function atTimes(...at: Array<[number, StatusStep]>): Timeline {
  if (at.length === 0) throw new Error('atTimes needs at least one step');
  return { kind: 'time', at: [...at].sort((a, b) => a[0] - b[0]).map(([atMs, step]) => ({ atMs, step })) };
}

export type Operation =
  | 'ListMountTargets' | 'GetMountTarget' | 'ListAccessPoints' | 'GetAccessPoint' | 'ListFileSystems' | 'GetFileSystem'
  | 'DeleteFileSystem' | 'Unknown';

export interface RecordedRequest {
  readonly operation: Operation;
  readonly method: string;
  readonly path: string;
  readonly query: Record<string, string>;
  readonly status: number;
  /** Endpoint clock (ms) when served. */
  readonly at: number;
}

/** A scripted failure served instead of the real answer, consumed in order. */
export interface Fault {
  /** Only requests for this operation consume it. Default: any operation. */
  readonly operation?: Operation;
  /**
   * 429 = ThrottlingException, 500 = InternalServerException, 503 = ServiceUnavailable;
   * 'stall' holds the request for `stallMs` before answering normally (a hung call).
   */
  readonly status: 429 | 500 | 503 | 'stall';
  /** With 'stall': how long to hold each request (bounded, so the endpoint always stops). Default 30 s. */
  readonly stallMs?: number;
  /** How many consecutive matching requests fail. Default 1. */
  readonly count?: number;
}

export interface MountTargetScript {
  readonly id: string;
  readonly subnetId?: string;
  readonly availabilityZoneId?: string;
  readonly timeline: Timeline;
}

export interface S3FilesEndpointOptions {
  /** Clock for `time` timelines and the request log. Default `Date.now`; a virtual clock compresses time. */
  readonly clock?: () => number;
}

const ACCOUNT = '111122223333';
const REGION = 'us-east-1';

interface Scripted {
  readonly timeline: Timeline;
  readonly setAt: number;
  reads: number;
}

interface MountTargetState extends Scripted {
  readonly id: string;
  readonly fileSystemId: string;
  readonly subnetId: string;
  readonly availabilityZoneId: string;
}

interface AccessPointState extends Scripted {
  readonly id: string;
  readonly fileSystemId: string;
}

interface FileSystemState extends Scripted {
  readonly id: string;
  readonly bucket: string;
  pendingExport?: Scripted;
  /** After deletion: `attached` steps keep it listed for its bucket, `detached` ends that. */
  detachment?: Scripted;
  deleted: boolean;
}

interface ErrorBody {
  readonly status: number;
  readonly type: string;
  readonly message: string;
}

class HttpError extends Error {
  constructor(readonly body: ErrorBody) {
    super(body.message);
  }
}

function normalize(step: StatusStep): { status: string; statusMessage?: string } {
  return typeof step === 'string' ? { status: step } : step;
}

export class S3FilesEndpoint {
  /** Starts the endpoint on 127.0.0.1 and an ephemeral port. */
  static async start(options: S3FilesEndpointOptions = {}): Promise<S3FilesEndpoint> {
    const endpoint = new S3FilesEndpoint(options);
    await new Promise<void>((resolve, reject) => {
      endpoint.server.once('error', reject);
      endpoint.server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = endpoint.server.address() as AddressInfo;
    endpoint.url = `http://127.0.0.1:${port}`;
    return endpoint;
  }

  /** Base URL, e.g. `http://127.0.0.1:40123`. */
  url = '';
  /** Every request served, in order. */
  readonly requests: RecordedRequest[] = [];
  /** Forces smaller pages than the client asks for (to exercise pagination). */
  pageSize: number | undefined;

  private readonly clock: () => number;
  private readonly server: http.Server;
  private readonly mountTargets = new Map<string, MountTargetState>();
  private readonly accessPoints = new Map<string, AccessPointState>();
  private readonly fileSystems = new Map<string, FileSystemState>();
  private readonly listSnapshots = new Map<string, MountTargetState[]>();
  private readonly lastListed = new Map<MountTargetState, { status: string; statusMessage?: string }>();
  private faults: Array<{ operation?: Operation; status: number | 'stall'; stallMs: number; remaining: number }> = [];
  private readonly stalls = new Set<NodeJS.Timeout>();
  private snapshotSeq = 0;

  private constructor(options: S3FilesEndpointOptions) {
    this.clock = options.clock ?? Date.now;
    this.server = http.createServer((req, res) => this.handle(req, res));
    // Keep-alive sockets would hold stop() open.
    this.server.keepAliveTimeout = 1;
  }

  /** Env vars that point the SDK's S3 Files client here. */
  env(): Record<string, string> {
    return { AWS_ENDPOINT_URL_S3FILES: this.url };
  }

  async stop(): Promise<void> {
    for (const t of this.stalls) clearTimeout(t);
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Replaces the mount targets of a file system. */
  setMountTargets(fileSystemId: string, targets: readonly MountTargetScript[]): void {
    for (const [id, mt] of this.mountTargets) {
      if (mt.fileSystemId === fileSystemId) this.mountTargets.delete(id);
    }
    targets.forEach((t, i) => this.mountTargets.set(t.id, {
      id: t.id,
      fileSystemId,
      subnetId: t.subnetId ?? `subnet-${String(i).padStart(8, '0')}`,
      availabilityZoneId: t.availabilityZoneId ?? `use1-az${i + 1}`,
      timeline: t.timeline,
      setAt: this.clock(),
      reads: 0,
    }));
  }

  setAccessPoint(id: string, timeline: Timeline, fileSystemId = 'fs-00000000000000000'): void {
    this.accessPoints.set(id, { id, fileSystemId, timeline, setAt: this.clock(), reads: 0 });
  }

  setFileSystem(id: string, timeline: Timeline, bucket = 'arn:aws:s3:::example-bucket'): void {
    this.fileSystems.set(id, { id, bucket, timeline, setAt: this.clock(), reads: 0, deleted: false });
  }

  /** How long a deleted file system stays attached to its bucket: `attached`/`detached` steps, per ListFileSystems call or by time. */
  setDetachment(fileSystemId: string, timeline: Timeline): void {
    const fs = this.fileSystems.get(fileSystemId);
    if (!fs) throw new Error(`setFileSystem(${fileSystemId}) first`);
    fs.detachment = { timeline, setAt: this.clock(), reads: 0 };
  }

  /**
   * Whether DeleteFileSystem (without forceDelete) is refused with the pending-export conflict:
   * steps are `pending` or `clear`, advancing per DeleteFileSystem call or by time.
   */
  setPendingExport(fileSystemId: string, timeline: Timeline): void {
    const fs = this.fileSystems.get(fileSystemId);
    if (!fs) throw new Error(`setFileSystem(${fileSystemId}) first`);
    fs.pendingExport = { timeline, setAt: this.clock(), reads: 0 };
  }

  /** Queues failures served before the scripted answers. */
  injectFaults(...faults: Fault[]): void {
    for (const f of faults) {
      this.faults.push({ operation: f.operation, status: f.status, stallMs: f.stallMs ?? 30_000, remaining: f.count ?? 1 });
    }
  }

  /** Number of recorded requests, optionally of one operation. */
  count(operation?: Operation): number {
    return operation ? this.requests.filter((r) => r.operation === operation).length : this.requests.length;
  }

  /** Forgets every script, fault and recorded request. */
  reset(): void {
    this.mountTargets.clear();
    this.accessPoints.clear();
    this.fileSystems.clear();
    this.listSnapshots.clear();
    this.faults = [];
    this.requests.length = 0;
    this.pageSize = undefined;
  }

  /** The status a scripted resource shows now; `observe` advances `calls` timelines. */
  private statusOf(s: Scripted, observe: boolean): { status: string; statusMessage?: string } {
    if (s.timeline.kind === 'calls') {
      const step = s.timeline.steps[Math.min(s.reads, s.timeline.steps.length - 1)];
      if (observe) s.reads++;
      return normalize(step);
    }
    const elapsed = this.clock() - s.setAt;
    let current = s.timeline.at[0].step;
    for (const { atMs, step } of s.timeline.at) {
      if (atMs <= elapsed) current = step;
    }
    return normalize(current);
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    // Drain the body (none of the served operations has one).
    req.resume();
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const query = Object.fromEntries(url.searchParams.entries());
      const method = req.method ?? 'GET';
      const [operation, id] = this.route(method, url.pathname);
      const stallMs = this.consumeStall(operation);
      if (stallMs > 0) {
        const timer = setTimeout(() => {
          this.stalls.delete(timer);
          if (!res.destroyed) this.answer(res, method, url, query, operation, id);
        }, stallMs);
        this.stalls.add(timer);
        return;
      }
      this.answer(res, method, url, query, operation, id);
    });
  }

  private answer(
    res: http.ServerResponse, method: string, url: URL, query: Record<string, string>, operation: Operation, id: string | undefined,
  ): void {
    {
      let status = 200;
      let body: unknown;
      try {
        this.consumeFault(operation);
        body = this.dispatch(operation, id, query);
        if (operation === 'DeleteFileSystem') status = 204;
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        status = error.body.status;
        res.setHeader('x-amzn-errortype', error.body.type);
        body = { message: error.body.message, errorCode: error.body.type };
      }
      this.requests.push({ operation, method, path: url.pathname, query, status, at: this.clock() });
      res.statusCode = status;
      res.setHeader('x-amzn-requestid', `req-${this.requests.length}`);
      if (status === 204) {
        res.end();
        return;
      }
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(body));
    }
  }

  /** A scripted stall for this request, if one is queued first. */
  private consumeStall(operation: Operation): number {
    const fault = this.faults.find((f) => f.remaining > 0 && (!f.operation || f.operation === operation));
    if (!fault || fault.status !== 'stall') return 0;
    fault.remaining--;
    this.faults = this.faults.filter((f) => f.remaining > 0);
    return fault.stallMs;
  }

  private route(method: string, path: string): [Operation, string | undefined] {
    const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
    if (method === 'GET' && parts.length === 1 && parts[0] === 'mount-targets') return ['ListMountTargets', undefined];
    if (method === 'GET' && parts.length === 2 && parts[0] === 'mount-targets') return ['GetMountTarget', parts[1]];
    if (method === 'GET' && parts.length === 1 && parts[0] === 'access-points') return ['ListAccessPoints', undefined];
    if (method === 'GET' && parts.length === 2 && parts[0] === 'access-points') return ['GetAccessPoint', parts[1]];
    if (method === 'GET' && parts.length === 1 && parts[0] === 'file-systems') return ['ListFileSystems', undefined];
    if (method === 'GET' && parts.length === 2 && parts[0] === 'file-systems') return ['GetFileSystem', parts[1]];
    if (method === 'DELETE' && parts.length === 2 && parts[0] === 'file-systems') return ['DeleteFileSystem', parts[1]];
    return ['Unknown', undefined];
  }

  private consumeFault(operation: Operation): void {
    const fault = this.faults.find((f) => f.remaining > 0 && (!f.operation || f.operation === operation));
    if (!fault) return;
    fault.remaining--;
    this.faults = this.faults.filter((f) => f.remaining > 0);
    if (fault.status === 429) {
      throw new HttpError({ status: 429, type: 'ThrottlingException', message: 'Rate exceeded' });
    }
    if (fault.status === 500) {
      throw new HttpError({ status: 500, type: 'InternalServerException', message: 'Internal server error' });
    }
    throw new HttpError({ status: 503, type: 'ServiceUnavailable', message: 'Service unavailable' });
  }

  private notFound(what: string, id: string | undefined): never {
    throw new HttpError({ status: 404, type: 'ResourceNotFoundException', message: `${what} '${id}' does not exist.` });
  }

  private dispatch(operation: Operation, id: string | undefined, query: Record<string, string>): unknown {
    switch (operation) {
      case 'ListMountTargets': return this.listMountTargets(query);
      case 'GetMountTarget': return this.getMountTarget(id!);
      case 'ListAccessPoints': return this.listAccessPoints(query);
      case 'GetAccessPoint': return this.getAccessPoint(id!);
      case 'ListFileSystems': return this.listFileSystems(query);
      case 'GetFileSystem': return this.getFileSystem(id!);
      case 'DeleteFileSystem': return this.deleteFileSystem(id!, query.forceDelete === 'true');
      default:
        throw new HttpError({ status: 404, type: 'UnknownOperationException', message: 'No such route on the test endpoint.' });
    }
  }

  private describeMountTarget(mt: MountTargetState, state: { status: string; statusMessage?: string }) {
    return {
      mountTargetId: mt.id,
      fileSystemId: mt.fileSystemId,
      ownerId: ACCOUNT,
      subnetId: mt.subnetId,
      availabilityZoneId: mt.availabilityZoneId,
      vpcId: 'vpc-0123456789abcdef0',
      networkInterfaceId: `eni-${mt.id.replace(/\W/g, '')}`,
      ipv4Address: '10.0.0.10',
      status: state.status,
      ...(state.statusMessage ? { statusMessage: state.statusMessage } : {}),
    };
  }

  private listMountTargets(query: Record<string, string>): unknown {
    const max = Math.min(Number(query.maxResults ?? 100) || 100, this.pageSize ?? Infinity);
    let snapshotId: string;
    let offset = 0;
    let items: Array<ReturnType<S3FilesEndpoint['describeMountTarget']>>;
    if (query.nextToken) {
      const [sid, off] = query.nextToken.split('.');
      const snap = this.listSnapshots.get(sid);
      if (!snap || !/^\d+$/.test(off ?? '')) {
        throw new HttpError({ status: 400, type: 'ValidationException', message: 'Invalid nextToken.' });
      }
      snapshotId = sid;
      offset = Number(off);
      items = snap.map((mt) => this.describeMountTarget(mt, this.lastListed.get(mt)!));
    } else {
      // Each first page observes every mount target once: later pages show that same moment.
      snapshotId = `s${++this.snapshotSeq}`;
      const visible: MountTargetState[] = [];
      for (const mt of this.mountTargets.values()) {
        if (query.fileSystemId && mt.fileSystemId !== query.fileSystemId) continue;
        const state = this.statusOf(mt, true);
        if (state.status === 'absent') continue;
        this.lastListed.set(mt, state);
        visible.push(mt);
      }
      this.listSnapshots.set(snapshotId, visible);
      items = visible.map((mt) => this.describeMountTarget(mt, this.lastListed.get(mt)!));
    }
    const page = items.slice(offset, offset + max);
    const next = offset + max < items.length ? `${snapshotId}.${offset + max}` : undefined;
    return { mountTargets: page, ...(next ? { nextToken: next } : {}) };
  }

  private getMountTarget(id: string): unknown {
    const mt = this.mountTargets.get(id);
    if (!mt) this.notFound('Mount target', id);
    const state = this.statusOf(mt, true);
    if (state.status === 'absent') this.notFound('Mount target', id);
    return { ...this.describeMountTarget(mt, state), securityGroups: ['sg-0123456789abcdef0'] };
  }

  private listAccessPoints(query: Record<string, string>): unknown {
    const accessPoints = [...this.accessPoints.values()]
      .filter((ap) => !query.fileSystemId || ap.fileSystemId === query.fileSystemId)
      .map((ap) => ({ ap, state: this.statusOf(ap, true) }))
      .filter(({ state }) => state.status !== 'absent')
      .map(({ ap, state }) => this.describeAccessPoint(ap, state.status));
    return { accessPoints };
  }

  private listFileSystems(query: Record<string, string>): unknown {
    const fileSystems = [...this.fileSystems.values()]
      .filter((fs) => !query.bucket || fs.bucket === query.bucket)
      .filter((fs) => !fs.deleted || (fs.detachment !== undefined && this.statusOf(fs.detachment, true).status === 'attached'))
      .map((fs) => ({
        fileSystemId: fs.id,
        fileSystemArn: `arn:aws:s3files:${REGION}:${ACCOUNT}:file-system/${fs.id}`,
        bucket: fs.bucket,
        creationTime: Math.floor(fs.setAt / 1000),
        ownerId: ACCOUNT,
        roleArn: `arn:aws:iam::${ACCOUNT}:role/s3files-service`,
        status: fs.deleted ? 'deleted' : this.statusOf(fs, false).status,
      }));
    return { fileSystems };
  }

  private describeAccessPoint(ap: AccessPointState, status: string) {
    return {
      accessPointId: ap.id,
      accessPointArn: `arn:aws:s3files:${REGION}:${ACCOUNT}:file-system/${ap.fileSystemId}/access-point/${ap.id}`,
      fileSystemId: ap.fileSystemId,
      ownerId: ACCOUNT,
      status,
      posixUser: { uid: 1000, gid: 1000 },
      rootDirectory: { path: '/lambda' },
    };
  }

  private getAccessPoint(id: string): unknown {
    const ap = this.accessPoints.get(id);
    if (!ap) this.notFound('Access point', id);
    const state = this.statusOf(ap, true);
    if (state.status === 'absent') this.notFound('Access point', id);
    return {
      accessPointId: ap.id,
      accessPointArn: `arn:aws:s3files:${REGION}:${ACCOUNT}:file-system/${ap.fileSystemId}/access-point/${ap.id}`,
      clientToken: `token-${ap.id}`,
      fileSystemId: ap.fileSystemId,
      ownerId: ACCOUNT,
      status: state.status,
      posixUser: { uid: 1000, gid: 1000 },
      rootDirectory: { path: '/lambda' },
    };
  }

  private getFileSystem(id: string): unknown {
    const fs = this.fileSystems.get(id);
    if (!fs || fs.deleted) this.notFound('File system', id);
    const state = this.statusOf(fs, true);
    if (state.status === 'absent') this.notFound('File system', id);
    return {
      fileSystemId: fs.id,
      fileSystemArn: `arn:aws:s3files:${REGION}:${ACCOUNT}:file-system/${fs.id}`,
      bucket: 'arn:aws:s3:::example-bucket',
      prefix: '',
      creationTime: Math.floor(fs.setAt / 1000),
      ownerId: ACCOUNT,
      roleArn: `arn:aws:iam::${ACCOUNT}:role/s3files-service`,
      status: state.status,
      ...(state.statusMessage ? { statusMessage: state.statusMessage } : {}),
    };
  }

  private deleteFileSystem(id: string, force: boolean): unknown {
    const fs = this.fileSystems.get(id);
    if (!fs || fs.deleted) this.notFound('File system', id);
    // A mount target or access point still being deleted exists, so it still blocks.
    const live = (status: string) => !['absent', 'deleted'].includes(status);
    const inUse = [...this.mountTargets.values()].some((mt) => mt.fileSystemId === id && live(this.statusOf(mt, false).status))
      || [...this.accessPoints.values()].some((ap) => ap.fileSystemId === id && live(this.statusOf(ap, false).status));
    if (inUse) {
      throw new HttpError({ status: 409, type: 'ConflictException', message: `File system '${id}' is in use: delete its mount targets and access points first.` });
    }
    const pending = fs.pendingExport ? this.statusOf(fs.pendingExport, true).status === 'pending' : false;
    if (pending && !force) {
      throw new HttpError({
        status: 409,
        type: 'ConflictException',
        message: `File system '${id}' has data pending export to S3. Use forceDelete=true to delete it without exporting.`,
      });
    }
    fs.deleted = true;
    return undefined;
  }
}
