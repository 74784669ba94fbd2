import { Engine } from '../../src/core/engine';
import { startServer, type RunningServer, type ServeOptions } from '../../src/server/server';

/** A firm server on loopback in a fresh home, with a clock the test moves. */
export async function startFirm(home: string, options: Partial<ServeOptions> = {}) {
  const engine = await Engine.open({ home });
  const clock = { now: Date.now() };
  const server = await startServer({
    engine,
    ...options,
    firm: { now: () => clock.now, ...options.firm },
  });
  const store = await engine.firmStore();
  return {
    engine,
    server,
    store,
    clock,
    async close() {
      await server.close();
      await engine.close();
    },
  };
}

/** Someone signed in: their session cookie and CSRF token, sent with each request. */
export interface Client {
  cookie: string;
  csrf: string;
}

export async function signIn(server: RunningServer, user: string, password: string): Promise<Response> {
  return fetch(`${server.url}api/sign-in`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ user, password }),
  });
}

/** Sign in and keep the session; fails the test when refused. */
export async function signedIn(server: RunningServer, user: string, password: string): Promise<Client> {
  const res = await signIn(server, user, password);
  if (res.status !== 200) throw new Error(`sign-in of ${user} answered ${res.status}: ${await res.text()}`);
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const { csrf } = (await res.json()) as { csrf: string };
  return { cookie, csrf };
}

/** Call an operation as `client` (with its CSRF token unless `csrf: false`). */
export function op(
  server: RunningServer,
  client: Client | null,
  name: string,
  body: unknown,
  opts: { csrf?: boolean } = {},
): Promise<Response> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (client) headers.Cookie = client.cookie;
  if (client && opts.csrf !== false) headers['X-Casefile-CSRF'] = client.csrf;
  return fetch(`${server.url}api/op/${encodeURIComponent(name)}`, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
  });
}
