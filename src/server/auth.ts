/**
 * Who may talk to a server: requests addressed to it (the Host guard against DNS rebinding), from
 * its own page (Origin), carrying its token — as `Authorization: Bearer`, or as the HttpOnly cookie
 * the page gets by opening the printed sign-in URL (`?token=`), which is traded for the cookie once.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Actor, tokenActor } from './actor';
import { BASE_HEADERS, sendError, sendText } from './respond';

/** Cookie holding the token; the port is part of the name so two servers on one machine do not collide. */
export function cookieName(port: number): string {
  return `casefile_token_${port}`;
}

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

function sameToken(given: string | undefined, token: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function cookieToken(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return undefined;
}

function bearerToken(req: IncomingMessage): string | undefined {
  const auth = req.headers.authorization;
  const m = auth ? /^Bearer\s+(.+)$/i.exec(auth) : null;
  return m?.[1]?.trim();
}

/** Cross-site requests are refused even with a cookie (SameSite=Strict already stops browsers sending it). */
export function sameSite(req: IncomingMessage, method: string): boolean {
  const origin = req.headers.origin;
  if (!origin || method === 'GET' || method === 'HEAD') return true;
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}

function plainAddress(address: string): string {
  return address.trim().replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
}

/**
 * The address a request came from. The socket's, unless that is one of the reverse proxies the
 * administrator named (`--trust-proxy`): then the nearest address in X-Forwarded-For that is not one
 * of them, so the sign-in throttle and the audit trail see the person, not the proxy. A header from
 * anyone else is ignored, since a client can write what it likes there.
 */
export function remoteAddress(req: IncomingMessage, trustedProxies: readonly string[] = []): string {
  const socket = plainAddress(req.socket.remoteAddress ?? '');
  if (!trustedProxies.length) return socket;
  const trusted = new Set(trustedProxies.map(plainAddress));
  if (!trusted.has(socket)) return socket;
  const header = req.headers['x-forwarded-for'];
  const chain = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').map(plainAddress);
  for (let i = chain.length - 1; i >= 0; i--) {
    const hop = chain[i] ?? '';
    if (hop && !trusted.has(hop)) return hop;
  }
  return socket;
}

/** On loopback, the Host header must name loopback too (the DNS-rebinding guard); answers 403 when not. */
export function wrongHost(req: IncomingMessage, res: ServerResponse, host: string): boolean {
  const hostHeader = (req.headers.host ?? '').replace(/:\d+$/, '');
  if (!isLoopbackHost(host) || isLoopbackHost(hostHeader)) return false;
  sendText(res, 403, 'Forbidden: this server only answers requests addressed to 127.0.0.1 or localhost.');
  return true;
}

export interface Auth {
  /**
   * Who is asking, when the request may go on to its handler. When null, the request has been
   * answered: refused (wrong Host, not signed in, another site) or a sign-in step answered.
   */
  admit(req: IncomingMessage, res: ServerResponse, url: URL, method: string): Promise<Actor | null>;
  /** The cookie is named after the port, known once listening. */
  setPort(port: number): void;
}

/** The checks of a server bound to `host` whose token is `token`, in the order a request meets them. */
export function createAuth(host: string, token: string, port: number, trustedProxies: readonly string[] = []): Auth {
  let cookie = cookieName(port);
  const authorised = (req: IncomingMessage) =>
    sameToken(bearerToken(req), token) || sameToken(cookieToken(req, cookie), token);

  // Sign-in: the printed URL carries the token once; trade it for a cookie and drop it from the address.
  const signIn = (res: ServerResponse, url: URL, queryToken: string) => {
    if (!sameToken(queryToken, token)) {
      sendText(
        res,
        401,
        'This sign-in link is not valid (the server was restarted?). Open the address `casefile serve` printed.',
      );
      return;
    }
    url.searchParams.delete('token');
    res.writeHead(302, {
      ...BASE_HEADERS,
      'Set-Cookie': `${cookie}=${token}; HttpOnly; SameSite=Strict; Path=/`,
      Location: url.pathname + (url.search || ''),
      'Cache-Control': 'no-store',
    });
    res.end();
  };

  const admit = (req: IncomingMessage, res: ServerResponse, url: URL, method: string): boolean => {
    if (wrongHost(req, res, host)) return false;
    const queryToken = url.searchParams.get('token');
    if (queryToken !== null && (method === 'GET' || method === 'HEAD') && !url.pathname.startsWith('/api/')) {
      signIn(res, url, queryToken);
      return false;
    }
    if (!authorised(req)) {
      if (url.pathname.startsWith('/api/')) {
        sendError(res, 401, {
          code: 'unauthorized',
          message: 'Missing or wrong token. Open the address `casefile serve` printed.',
        });
      } else {
        sendText(
          res,
          401,
          'Casefile: sign in by opening the full address (with ?token=…) that `casefile serve` printed.',
        );
      }
      return false;
    }
    if (!sameSite(req, method)) {
      sendError(res, 403, { code: 'invalid_input', message: 'Requests from other sites are refused.' });
      return false;
    }
    return true;
  };

  return {
    async admit(req, res, url, method) {
      return admit(req, res, url, method) ? tokenActor(remoteAddress(req, trustedProxies)) : null;
    },
    setPort(p) {
      cookie = cookieName(p);
    },
  };
}
