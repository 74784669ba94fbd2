/**
 * A firm server's sign-in sessions (in memory: a restart signs everyone out) and the throttle on
 * failed sign-ins. Time comes from `now`, so tests move the clock instead of waiting.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';

export interface SessionLimits {
  /** A session unused this long ends. Default 30 minutes. */
  idleMs: number;
  /** A session ends this long after sign-in, used or not. Default 12 hours. */
  maxMs: number;
}

export interface Session {
  id: string;
  user: string;
  /** Sent back in the `X-Casefile-CSRF` header of every state-changing request. */
  csrf: string;
  created: number;
  lastSeen: number;
}

export function sameSecret(given: string | undefined, secret: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}

export class Sessions {
  private readonly byId = new Map<string, Session>();

  constructor(
    private readonly limits: SessionLimits,
    private readonly now: () => number,
  ) {}

  start(user: string): Session {
    this.prune();
    const t = this.now();
    const session: Session = {
      id: randomBytes(32).toString('base64url'),
      user,
      csrf: randomBytes(24).toString('base64url'),
      created: t,
      lastSeen: t,
    };
    this.byId.set(session.id, session);
    return session;
  }

  private live(s: Session, t: number): boolean {
    return t - s.lastSeen <= this.limits.idleMs && t - s.created <= this.limits.maxMs;
  }

  /** The live session of `id`, its idle clock restarted; an expired one is ended. */
  touch(id: string | undefined): Session | undefined {
    if (!id) return undefined;
    const s = this.byId.get(id);
    if (!s) return undefined;
    const t = this.now();
    if (!this.live(s, t)) {
      this.byId.delete(id);
      return undefined;
    }
    s.lastSeen = t;
    return s;
  }

  end(id: string): void {
    this.byId.delete(id);
  }

  private prune(): void {
    const t = this.now();
    for (const [id, s] of this.byId) if (!this.live(s, t)) this.byId.delete(id);
  }
}

export interface ThrottleLimits {
  /** Failed sign-ins of one account, then the account waits. Default 5. */
  perAccount: number;
  /** Failed sign-ins from one address, then the address waits. Default 20. */
  perAddress: number;
  /** The window failures are counted in, and the longest wait. Default 15 minutes. */
  windowMs: number;
}

/** Failed sign-ins per account name (known or not, alike) and per address, in a sliding window. */
export class Throttle {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly limits: ThrottleLimits,
    private readonly now: () => number,
  ) {}

  private recent(key: string): number[] {
    const since = this.now() - this.limits.windowMs;
    const kept = (this.failures.get(key) ?? []).filter((t) => t > since);
    if (kept.length) this.failures.set(key, kept);
    else this.failures.delete(key);
    return kept;
  }

  /** Seconds to wait before `account` may try again from `address`; 0 when it may now. */
  waitSeconds(account: string, address: string): number {
    const waits = [
      [`user:${account}`, this.limits.perAccount],
      [`addr:${address}`, this.limits.perAddress],
    ] as const;
    let wait = 0;
    for (const [key, limit] of waits) {
      const times = this.recent(key);
      if (times.length < limit) continue;
      const until = (times[times.length - limit] ?? 0) + this.limits.windowMs;
      wait = Math.max(wait, Math.ceil((until - this.now()) / 1000));
    }
    return wait;
  }

  failed(account: string, address: string): void {
    // Names tried once and never again would otherwise stay: past many keys, forget the stale ones.
    if (this.failures.size > 10_000) for (const key of [...this.failures.keys()]) this.recent(key);
    for (const key of [`user:${account}`, `addr:${address}`]) this.failures.set(key, [...this.recent(key), this.now()]);
  }

  /** A right password clears the account's failures (not the address's). */
  succeeded(account: string): void {
    this.failures.delete(`user:${account}`);
  }
}
