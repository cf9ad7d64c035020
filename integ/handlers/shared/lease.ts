/**
 * Leases for claims: a live invocation renews a heartbeat record every `ttl / 6`; another
 * invocation takes its claims over once the record is older than `ttl`.
 *
 * Liveness is judged only with the storage server's clock: the age of another invocation's record
 * is (server time of my own latest write) − (server time of its latest write). Neither host's
 * clock is read for it, so skewed clocks cannot make a live claim look dead or a dead one live.
 * The holder judges its own lease with its monotonic clock: it stops working once
 * `ttl − heartbeat` has passed since the start of its last successful renewal, which is before
 * any observer can see the lease expire (the renewal reached the server after it started).
 */
import { performance } from 'node:perf_hooks';

/** Lease length: a killed invocation's claims are taken over this long after its last heartbeat. */
export const DEFAULT_LEASE_SECONDS = 30;
/** The longest lease a processor accepts; a record that promises a longer one is damaged and counts as expired. */
export const MAX_LEASE_SECONDS = 3600;
/** Heartbeats per lease: a live holder renews 6 times per lease, so one slow renewal costs nothing. */
export const HEARTBEATS_PER_LEASE = 6;

/** Where a lease record lives (a file on the mount, an object in the bucket). */
export interface LeaseStore {
  /**
   * Create or renew the record with `body`; resolves to the storage server's time of this write
   * in epoch ms. Throws `LeaseLost` if the record was taken away (another invocation adopted it).
   */
  write(body: string, create: boolean): Promise<number>;
  /** Remove the record (best effort). */
  remove(): Promise<void>;
}

/** This invocation's lease was taken over or could not be renewed in time: stop and leave the rest. */
export class LeaseLost extends Error {
  constructor(reason: string) {
    super(`lease lost: ${reason}; the remaining claims are left for the invocation that takes them over`);
  }
}

/** What a lease record says about its holder: the lease length it promised to renew within. */
export interface LeaseRecord {
  readonly owner: string;
  readonly ttlMs: number;
  readonly beat: number;
  /** Written by a holder that finished and left claims for the next invocation: expired at once. */
  readonly released?: boolean;
}

export function parseLeaseRecord(text: string): LeaseRecord | undefined {
  try {
    const r = JSON.parse(text);
    return typeof r?.owner === 'string' && Number.isFinite(r?.ttlMs) && r.ttlMs > 0 ? r as LeaseRecord : undefined;
  } catch {
    return undefined;
  }
}

export interface LeaseOptions {
  readonly owner: string;
  readonly ttlMs: number;
  readonly log?: (message: string, extra: Record<string, unknown>) => void;
}

export class Lease {
  public readonly owner: string;
  public readonly ttlMs: number;
  public readonly heartbeatMs: number;
  private readonly store: LeaseStore;
  private readonly log: (message: string, extra: Record<string, unknown>) => void;
  private beat = 0;
  /** Monotonic start of the last successful write. */
  private renewedAt = -Infinity;
  private serverTime = 0;
  private lost?: string;
  private timer?: NodeJS.Timeout;
  private inFlight?: Promise<number>;

  constructor(store: LeaseStore, opts: LeaseOptions) {
    this.store = store;
    this.owner = opts.owner;
    this.ttlMs = opts.ttlMs;
    this.heartbeatMs = Math.max(1, Math.floor(opts.ttlMs / HEARTBEATS_PER_LEASE));
    this.log = opts.log ?? (() => undefined);
  }

  /** Write the record for the first time and start renewing it in the background. */
  public async start(): Promise<void> {
    await this.write(true);
    this.schedule();
  }

  /** Renew now; resolves to the server's time of the write (the "now" for judging other leases). */
  public async renew(): Promise<number> {
    this.inFlight ??= this.write(false).finally(() => { this.inFlight = undefined; });
    return this.inFlight;
  }

  /** True while this invocation may still act on its claims (see the module comment). */
  public held(): boolean {
    return this.lost === undefined && performance.now() - this.renewedAt < this.ttlMs - this.heartbeatMs;
  }

  /** Throws `LeaseLost` unless `held()`. */
  public assertHeld(): void {
    if (this.lost !== undefined) throw new LeaseLost(this.lost);
    if (!this.held()) throw new LeaseLost(`not renewed for ${Math.round(performance.now() - this.renewedAt)} ms`);
  }

  /** Server time of this lease's latest write. */
  public get serverNow(): number {
    return this.serverTime;
  }

  /**
   * Whether a record last written at server time `writtenAt`, by a holder that promised to renew
   * within `ttlMs`, has expired as of this lease's latest write. Call `renew()` first for a fresh "now".
   */
  public expired(writtenAt: number, ttlMs = this.ttlMs): boolean {
    if (this.damage(writtenAt, ttlMs) !== undefined) return true;
    return this.serverTime - writtenAt > ttlMs;
  }

  /**
   * Why a record cannot be a live holder's, or undefined. Waiting for a damaged record would strand
   * its claims: one that promises more than any processor may hold, or one stamped further in the
   * future than the longest lease (a clock step back, a restore that kept times), whose holder's
   * renewals would have brought it back to the server's present long ago.
   */
  public damage(writtenAt: number, ttlMs = this.ttlMs): string | undefined {
    if (ttlMs > MAX_LEASE_SECONDS * 1000) return 'lease promises more than the longest lease a processor may hold: treated as expired';
    if (writtenAt - this.serverTime > MAX_LEASE_SECONDS * 1000) {
      return 'lease stamped more than the longest lease in the future (a clock step or a restore with times): treated as expired';
    }
    return undefined;
  }

  public get lostReason(): string | undefined {
    return this.lost;
  }

  /** Stop renewing and remove the record. */
  public async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.inFlight?.catch(() => undefined);
    if (this.lost === undefined) await this.store.remove().catch(() => undefined);
    this.lost ??= 'stopped';
  }

  /**
   * Stop renewing and leave the record marked released, so the next invocation takes the claims
   * still held over at once instead of a lease later. Falls back to leaving the record as it is.
   */
  public async release(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.inFlight?.catch(() => undefined);
    if (this.lost === undefined) {
      await this.write(false, true).catch((e) => this.log('could not mark the lease released (it expires instead)', { owner: this.owner, error: String(e) }));
    }
    this.lost ??= 'released';
  }

  private body(released: boolean): string {
    const record: LeaseRecord = { owner: this.owner, ttlMs: this.ttlMs, beat: this.beat, ...(released ? { released } : {}) };
    return `${JSON.stringify(record)}\n`;
  }

  private async write(create: boolean, released = false): Promise<number> {
    if (this.lost !== undefined) throw new LeaseLost(this.lost);
    const started = performance.now();
    this.beat += 1;
    try {
      const at = await this.store.write(this.body(released), create);
      this.renewedAt = started;
      this.serverTime = at;
      return at;
    } catch (e) {
      if (e instanceof LeaseLost) {
        this.lost = e.message;
        this.log('lease lost', { owner: this.owner, reason: e.message });
      }
      throw e;
    }
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.renew().then(() => undefined, (e) => {
        if (!(e instanceof LeaseLost)) this.log('lease renewal failed (retrying)', { owner: this.owner, error: String(e) });
      }).finally(() => {
        if (this.lost === undefined && this.timer) this.schedule();
      });
    }, this.heartbeatMs);
    // The lease never keeps a finished invocation (or a test process) alive.
    this.timer.unref();
  }
}
