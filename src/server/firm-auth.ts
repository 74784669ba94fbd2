/**
 * Sign-in for a firm server (`casefile serve --firm`): each person signs in with their own name and
 * password (`POST /api/sign-in`) and gets a session cookie (HttpOnly, SameSite=Strict, Secure over
 * TLS). Sessions end when idle or old, or at sign-out. Failed sign-ins are throttled per account
 * and per address, and answered alike whether the account exists or not. A state-changing request
 * carries the session's token in `X-Casefile-CSRF` besides coming from the server's own page.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import type { AuditKind } from '../core/audit/entry';
import type { AuditLog } from '../core/audit/log';
import type { FirmStore } from '../core/firm/index';
import { type FirmUser, UserName } from '../shared/contract/firm';
import type { Actor } from './actor';
import { cookieToken, remoteAddress, sameSite, wrongHost, type Auth } from './auth';
import { sendError, sendJson } from './respond';
import { sameSecret, type Session, Sessions, Throttle, type SessionLimits, type ThrottleLimits } from './sessions';

export const CSRF_HEADER = 'x-casefile-csrf';

export interface FirmAuthOptions {
  host: string;
  store: FirmStore;
  port: number;
  /** Served over TLS: the cookie is marked Secure. */
  tls: boolean;
  sessions?: Partial<SessionLimits>;
  throttle?: Partial<ThrottleLimits>;
  /** The clock, in milliseconds (tests move it). Default Date.now. */
  now?: () => number;
  /** The audit trail: sign-ins, refused ones and sign-outs are recorded in it. */
  audit?: AuditLog;
  /** Reverse proxies whose X-Forwarded-For names the client (./auth.ts remoteAddress). */
  trustedProxies?: readonly string[];
}

const WRONG = 'The user name or password is wrong.';

/** Up to 16 KB of JSON `{ user, password }`, or null. */
async function readCredentials(req: IncomingMessage): Promise<{ user: string; password: string } | null> {
  let text = '';
  for await (const chunk of req) {
    text += (chunk as Buffer).toString('utf8');
    if (text.length > 16_384) return null;
  }
  try {
    const body = JSON.parse(text) as { user?: unknown; password?: unknown };
    const user = UserName.safeParse(body.user);
    if (typeof body.password !== 'string') return null;
    // A name that could never be an account is checked as an unknown one would be.
    return { user: user.success ? user.data : String(body.user ?? '').slice(0, 64), password: body.password };
  } catch {
    return null;
  }
}

function waitMessage(seconds: number): string {
  const minutes = Math.ceil(seconds / 60);
  return `Too many failed sign-ins. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;
}

interface FirmState {
  store: FirmStore;
  /** The address a request came from (through a trusted proxy, the client's). */
  address(req: IncomingMessage): string;
  audit?: AuditLog;
  sessions: Sessions;
  throttle: Throttle;
  /** The Set-Cookie value for a session id ('' and 0: clear it). */
  setCookie(value: string, maxAge?: number): string;
  /** The signed-in account of a request, with its session. */
  current(req: IncomingMessage): Promise<{ session: Session; user: FirmUser } | undefined>;
}

/**
 * Record a sign-in event; false once it has answered 503 because the trail could not be written
 * (as for an operation, nothing is done that the trail does not hold).
 */
async function recorded(
  state: FirmState,
  res: ServerResponse,
  actor: Actor,
  kind: AuditKind,
  what: Record<string, unknown>,
): Promise<boolean> {
  if (!state.audit) return true;
  try {
    await state.audit.append({ actor, case_id: null, kind, what });
    return true;
  } catch (err) {
    sendError(res, 503, {
      code: 'unavailable',
      message: `This server could not write its audit trail, so it did not sign you in or out. Tell whoever runs it: ${(err as Error).message}`,
    });
    return false;
  }
}

/** `POST /api/sign-in`: throttled, then the password checked; the same answer for an unknown name and a wrong password. */
async function signIn(state: FirmState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const given = await readCredentials(req);
  if (!given) {
    sendError(res, 400, { code: 'invalid_input', message: 'Send the user name and password as JSON.' });
    return;
  }
  const address = state.address(req);
  const asked: Actor = { user: given.user, role: 'reviewer', address };
  const wait = state.throttle.waitSeconds(given.user, address);
  if (wait > 0) {
    if (!(await recorded(state, res, asked, 'sign_in_refused', { reason: 'too many failed sign-ins' }))) return;
    res.setHeader('Retry-After', String(wait));
    sendError(res, 429, { code: 'unauthorized', message: waitMessage(wait) });
    return;
  }
  const user = await state.store.signIn(given.user, given.password);
  if (!user) {
    state.throttle.failed(given.user, address);
    if (!(await recorded(state, res, asked, 'sign_in_refused', { reason: 'wrong name or password' }))) return;
    sendError(res, 401, { code: 'unauthorized', message: WRONG });
    return;
  }
  state.throttle.succeeded(given.user);
  if (!(await recorded(state, res, { user: user.name, role: user.role, address }, 'sign_in', {}))) return;
  const { session, token } = await state.sessions.start(user.name);
  res.setHeader('Set-Cookie', state.setCookie(token));
  sendJson(res, 200, { firm: true, user: { name: user.name, role: user.role }, csrf: session.csrf });
}

/** `GET /api/session`, `POST /api/sign-in`, `POST /api/sign-out`: answered here; true when the path was one of them. */
async function signInRoutes(
  state: FirmState,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  method: string,
): Promise<boolean> {
  if (path === '/api/sign-in' && method === 'POST') {
    await signIn(state, req, res);
    return true;
  }
  const signed = await state.current(req);
  if (path === '/api/session' && method === 'GET') {
    const user = signed ? { name: signed.user.name, role: signed.user.role } : null;
    sendJson(res, 200, { firm: true, user, csrf: signed?.session.csrf ?? null });
    return true;
  }
  if (path === '/api/sign-out' && method === 'POST') {
    if (signed && !sameSecret(headerOf(req, CSRF_HEADER), signed.session.csrf)) return refuseCsrf(res);
    if (signed) {
      const actor: Actor = { user: signed.user.name, role: signed.user.role, address: state.address(req) };
      if (!(await recorded(state, res, actor, 'sign_out', {}))) return true;
      await state.sessions.end(signed.session.id);
    }
    res.setHeader('Set-Cookie', state.setCookie('', 0));
    sendJson(res, 200, { signed_out: true });
    return true;
  }
  return false;
}

/** The checks of a firm server, in the order a request meets them; sessions of an earlier run are read back. */
export async function createFirmAuth(options: FirmAuthOptions): Promise<Auth> {
  const { host, store, tls } = options;
  const now = options.now ?? Date.now;
  let cookie = `casefile_session_${options.port}`;
  const limits = { idleMs: 30 * 60_000, maxMs: 12 * 3600_000, ...options.sessions };
  const sessions = new Sessions(limits, now, path.join(store.dir, 'sessions.json'));
  await sessions.load();
  const state: FirmState = {
    store,
    address: (req) => remoteAddress(req, options.trustedProxies),
    ...(options.audit ? { audit: options.audit } : {}),
    sessions,
    throttle: new Throttle({ perAccount: 5, perAddress: 20, windowMs: 15 * 60_000, ...options.throttle }, now),
    setCookie: (value, maxAge) =>
      `${cookie}=${value}; HttpOnly; SameSite=Strict; Path=/${tls ? '; Secure' : ''}${maxAge === undefined ? '' : `; Max-Age=${maxAge}`}`,
    // A removed account's session ends with it.
    async current(req) {
      const session = sessions.touch(cookieToken(req, cookie));
      if (!session) return undefined;
      const user = await store.user(session.user);
      if (!user) await sessions.end(session.id);
      return user ? { session, user } : undefined;
    },
  };

  const admit = async (req: IncomingMessage, res: ServerResponse, url: URL, method: string): Promise<Actor | null> => {
    if (wrongHost(req, res, host)) return null;
    if (!sameSite(req, method)) {
      sendError(res, 403, { code: 'invalid_input', message: 'Requests from other sites are refused.' });
      return null;
    }
    // The page itself (the app's files, no case data) loads before sign-in: it shows the sign-in form.
    if (!url.pathname.startsWith('/api/'))
      return { user: 'not signed in', role: 'reviewer', address: state.address(req) };
    if (await signInRoutes(state, req, res, url.pathname, method)) return null;
    const signed = await state.current(req);
    if (!signed) {
      req.resume();
      sendError(res, 401, {
        code: 'unauthorized',
        message: 'You are not signed in (or your session ended). Sign in again.',
      });
      return null;
    }
    const changes = method !== 'GET' && method !== 'HEAD';
    if (changes && !sameSecret(headerOf(req, CSRF_HEADER), signed.session.csrf)) {
      req.resume();
      refuseCsrf(res);
      return null;
    }
    return { user: signed.user.name, role: signed.user.role, address: state.address(req) };
  };

  return {
    admit,
    setPort(p) {
      cookie = `casefile_session_${p}`;
    },
  };
}

function headerOf(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function refuseCsrf(res: ServerResponse): true {
  sendError(res, 403, {
    code: 'forbidden',
    message: 'This request lacks the page’s security token. Reload the page and try again.',
  });
  return true;
}
