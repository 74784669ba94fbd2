/**
 * A firm server's sign-in sessions and the throttle on failed sign-ins. Sessions are kept in
 * `<home>/firm/sessions.json` as well as in memory, so a restart of the server signs nobody out;
 * the file holds a hash of each session's cookie, never the cookie itself. Time comes from `now`,
 * so tests move the clock instead of waiting.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readTextIfExists, writeJsonAtomic } from '../core/util/fs';

export interface SessionLimits {
  /** A session unused this long ends. Default 30 minutes. */
  idleMs: number;
  /** A session ends this long after sign-in, used or not. Default 12 hours. */
  maxMs: number;
}

export interface Session {
  /** A hash of the session's cookie: what the server keeps, in memory and on disk. */
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

/** The key a session is kept under: a hash of its cookie, so the sessions file grants no sign-in. */
function keyOf(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

/** A last-seen time moved by less than this is not written at once (it is with the next change). */
const LAST_SEEN_SAVE_MS = 60_000;

export class Sessions {
  private readonly byId = new Map<string, Session>();
  /** Writes one at a time, in order; a failed write is retried by the next change. */
  private saving: Promise<void> = Promise.resolve();
  private savedAt = 0;

  /** `file`: where the sessions are kept between restarts (none: in memory only). */
  constructor(
    private readonly limits: SessionLimits,
    private readonly now: () => number,
    private readonly file?: string,
  ) {}

  /** Read the sessions kept by an earlier run; a missing or damaged file leaves none (everyone signs in again). */
  async load(): Promise<void> {
    if (!this.file) return;
    let kept: unknown;
    try {
      kept = JSON.parse((await readTextIfExists(this.file)) ?? '{"sessions":[]}');
    } catch {
      kept = { sessions: [] };
    }
    const t = this.now();
    for (const s of (kept as { sessions?: Session[] }).sessions ?? []) {
      const whole =
        typeof s?.id === 'string' &&
        typeof s.user === 'string' &&
        typeof s.csrf === 'string' &&
        Number.isFinite(s.created) &&
        Number.isFinite(s.lastSeen);
      if (whole && this.live(s, t)) this.byId.set(s.id, { ...s });
    }
  }

  /** Write the sessions (when kept in a file); resolves once written or failed. */
  private save(): Promise<void> {
    if (!this.file) return Promise.resolve();
    const file = this.file;
    this.savedAt = this.now();
    this.saving = this.saving.then(() =>
      writeJsonAtomic(file, { sessions: [...this.byId.values()] }).catch(() => {
        this.savedAt = 0;
      }),
    );
    return this.saving;
  }

  /** A new session of `user`, and the cookie that names it (given to the browser only). */
  async start(user: string): Promise<{ session: Session; token: string }> {
    this.prune();
    const t = this.now();
    const token = randomBytes(32).toString('base64url');
    const session: Session = {
      id: keyOf(token),
      user,
      csrf: randomBytes(24).toString('base64url'),
      created: t,
      lastSeen: t,
    };
    this.byId.set(session.id, session);
    await this.save();
    return { session, token };
  }

  private live(s: Session, t: number): boolean {
    return t - s.lastSeen <= this.limits.idleMs && t - s.created <= this.limits.maxMs;
  }

  /** The live session of the cookie `token`, its idle clock restarted; an expired one is ended. */
  touch(token: string | undefined): Session | undefined {
    if (!token) return undefined;
    const id = keyOf(token);
    const s = this.byId.get(id);
    if (!s) return undefined;
    const t = this.now();
    if (!this.live(s, t)) {
      this.byId.delete(id);
      void this.save();
      return undefined;
    }
    s.lastSeen = t;
    // Kept at most a minute behind on disk: a restart may end an idle session that much early.
    if (t - this.savedAt >= LAST_SEEN_SAVE_MS) void this.save();
    return s;
  }

  async end(id: string): Promise<void> {
    if (this.byId.delete(id)) await this.save();
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
