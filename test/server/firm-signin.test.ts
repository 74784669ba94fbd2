import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import { startServer } from '../../src/server/server';
import { op, signIn, signedIn, startFirm } from '../helpers/firm';
import { tempHome } from '../helpers/home';

const PASSWORD = 'correct horse battery';

describe('firm server – sign-in', () => {
  const home = tempHome('casefile-firm-');
  let firm: Awaited<ReturnType<typeof startFirm>> | undefined;
  afterEach(async () => {
    await firm?.close();
    firm = undefined;
  });

  const start = async (options: Parsed = {}) => {
    firm = await startFirm(home, options);
    await firm.store.addUser('alice', PASSWORD, 'reviewer');
    return firm;
  };
  type Parsed = Parameters<typeof startFirm>[1];

  it('a right password signs in; the cookie is HttpOnly and SameSite=Strict (not Secure without TLS)', async () => {
    const { server } = await start();
    const res = await signIn(server, 'alice', PASSWORD);
    expect(res.status).toBe(200);
    const cookie = res.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).not.toMatch(/Secure/);
    expect(await res.json()).toMatchObject({ user: { name: 'alice', role: 'reviewer' } });
  });

  it('not signed in – operations answer 401; the page itself loads to show the sign-in form', async () => {
    const { server } = await start();
    expect((await op(server, null, 'cases.list', {})).status).toBe(401);
    const session = await fetch(`${server.url}api/session`);
    expect(await session.json()).toEqual({ firm: true, user: null, csrf: null });
  });

  it('a wrong password and an unknown user get the same answer', async () => {
    const { server } = await start();
    const wrong = await signIn(server, 'alice', 'not the password');
    const unknown = await signIn(server, 'mallory', 'not the password');
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(wrong.status);
    expect(await unknown.text()).toBe(await wrong.text());
    expect(wrong.headers.get('set-cookie')).toBeNull();
  });

  it('throttling – after 5 failures the account waits (429, Retry-After), even with the right password, alike for an unknown name', async () => {
    const { server, clock } = await start();
    for (let i = 0; i < 5; i++) expect((await signIn(server, 'alice', `wrong ${i}`)).status).toBe(401);
    for (let i = 0; i < 5; i++) expect((await signIn(server, 'nobody', `wrong ${i}`)).status).toBe(401);
    const locked = await signIn(server, 'alice', PASSWORD);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    const body = (await locked.json()) as { error: { message: string } };
    expect(body.error.message).toMatch(/Too many failed sign-ins\. Try again in \d+ minutes?\./);
    const lockedUnknown = await signIn(server, 'nobody', PASSWORD);
    expect(lockedUnknown.status).toBe(429);
    expect((await lockedUnknown.json()) as unknown).toEqual(body);
    // The window passes: the right password works again.
    clock.now += 16 * 60_000;
    expect((await signIn(server, 'alice', PASSWORD)).status).toBe(200);
  });

  it('throttling – one address failing on many accounts waits too', async () => {
    const { server } = await start({ firm: { throttle: { perAddress: 3 } } });
    for (const name of ['a1', 'a2', 'a3']) expect((await signIn(server, name, 'wrong password')).status).toBe(401);
    expect((await signIn(server, 'alice', PASSWORD)).status).toBe(429);
  });

  it('expiry – a session unused past the idle limit ends, and any session ends at the absolute limit', async () => {
    const { server, clock } = await start({ firm: { sessions: { idleMs: 10 * 60_000, maxMs: 60 * 60_000 } } });
    const idle = await signedIn(server, 'alice', PASSWORD);
    clock.now += 9 * 60_000;
    expect((await op(server, idle, 'cases.list', {})).status).toBe(200);
    clock.now += 11 * 60_000;
    expect((await op(server, idle, 'cases.list', {})).status).toBe(401);

    const busy = await signedIn(server, 'alice', PASSWORD);
    for (let i = 0; i < 6; i++) {
      clock.now += 9 * 60_000;
      expect((await op(server, busy, 'cases.list', {})).status).toBe(200);
    }
    clock.now += 9 * 60_000; // 63 minutes after sign-in, though used 9 minutes ago
    const ended = await op(server, busy, 'cases.list', {});
    expect(ended.status).toBe(401);
    expect(((await ended.json()) as { error: { message: string } }).error.message).toMatch(/not signed in/);
  });

  it('sign-out ends the session on the server: the old cookie no longer works', async () => {
    const { server } = await start();
    const client = await signedIn(server, 'alice', PASSWORD);
    const out = await fetch(`${server.url}api/sign-out`, {
      method: 'POST',
      headers: { Cookie: client.cookie, 'X-Casefile-CSRF': client.csrf },
    });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/Max-Age=0/);
    expect((await op(server, client, 'cases.list', {})).status).toBe(401);
  });

  it('the audit trail holds who signed in, who was refused, what each one did, and the sign-out; the trail is for administrators', async () => {
    const { server, store } = await start();
    await store.addUser('boss', PASSWORD, 'admin');
    expect((await signIn(server, 'alice', 'not the password')).status).toBe(401);
    const client = await signedIn(server, 'alice', PASSWORD);
    expect((await op(server, client, 'cases.list', {})).status).toBe(200);
    // A reviewer may not read or check the trail: only administrators.
    expect((await op(server, client, 'audit.check', {})).status).toBe(403);
    await fetch(`${server.url}api/sign-out`, {
      method: 'POST',
      headers: { Cookie: client.cookie, 'X-Casefile-CSRF': client.csrf },
    });
    const boss = await signedIn(server, 'boss', PASSWORD);
    const check = (await (await op(server, boss, 'audit.check', {})).json()) as { intact: boolean };
    expect(check.intact).toBe(true);
    const entries = readFileSync(path.join(home, 'audit', 'audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { kind: string; actor: { user: string; role: string }; what: object });
    expect(entries.map((e) => [e.kind, e.actor.user])).toEqual([
      ['sign_in_refused', 'alice'],
      ['sign_in', 'alice'],
      ['list_cases', 'alice'],
      ['sign_out', 'alice'],
      ['sign_in', 'boss'],
      ['check_audit', 'boss'],
    ]);
    expect(entries[0]!.what).toEqual({ reason: 'wrong name or password' });
    expect(JSON.stringify(entries)).not.toContain(PASSWORD);
  });

  it('CSRF – a state-changing request without the session token (or from another site) is refused', async () => {
    const { server } = await start();
    const client = await signedIn(server, 'alice', PASSWORD);
    const bare = await op(server, client, 'cases.list', {}, { csrf: false });
    expect(bare.status).toBe(403);
    expect(((await bare.json()) as { error: { message: string } }).error.message).toMatch(/security token/);
    const forged = await op(server, { ...client, csrf: 'x'.repeat(client.csrf.length) }, 'cases.list', {});
    expect(forged.status).toBe(403);
    const crossSite = await fetch(`${server.url}api/op/cases.list`, {
      method: 'POST',
      headers: { Cookie: client.cookie, 'X-Casefile-CSRF': client.csrf, Origin: 'https://evil.example' },
      body: '{}',
    });
    expect(crossSite.status).toBe(403);
    // Sign-out is a change too.
    const out = await fetch(`${server.url}api/sign-out`, { method: 'POST', headers: { Cookie: client.cookie } });
    expect(out.status).toBe(403);
    expect((await op(server, client, 'cases.list', {})).status).toBe(200);
  });

  it('a removed account is signed out at once', async () => {
    const { server, store } = await start();
    await store.addUser('boss', PASSWORD, 'admin');
    const client = await signedIn(server, 'alice', PASSWORD);
    await store.removeUser('alice');
    expect((await op(server, client, 'cases.list', {})).status).toBe(401);
  });
});

describe('firm server – a restart', () => {
  const home = tempHome('casefile-firm-restart-');
  let firm: Awaited<ReturnType<typeof startFirm>> | undefined;
  afterEach(async () => {
    await firm?.close();
    firm = undefined;
  });

  /** Stop the server and start a new one on the same home and port, as an administrator's restart would. */
  const restart = async (clockNow: number) => {
    const port = firm!.server.port;
    await firm!.close();
    firm = await startFirm(home, { port });
    firm.clock.now = clockNow;
    return firm;
  };

  it('signs nobody out; the sessions file holds no cookie; sign-out and expiry outlast it too', async () => {
    firm = await startFirm(home);
    await firm.store.addUser('alice', PASSWORD, 'reviewer');
    const kept = await signedIn(firm.server, 'alice', PASSWORD);
    const leaving = await signedIn(firm.server, 'alice', PASSWORD);
    const out = await fetch(`${firm.server.url}api/sign-out`, {
      method: 'POST',
      headers: { Cookie: leaving.cookie, 'X-Casefile-CSRF': leaving.csrf },
    });
    expect(out.status).toBe(200);
    const file = readFileSync(path.join(home, 'firm', 'sessions.json'), 'utf8');
    expect(file).not.toContain(kept.cookie.split('=')[1]);

    const t = firm.clock.now;
    const after = await restart(t + 60_000);
    // The same cookie and CSRF token work on the new process: nobody signs in again.
    const list = await op(after.server, kept, 'cases.list', {});
    expect(list.status).toBe(200);
    expect(await (await fetch(`${after.server.url}api/session`, { headers: { Cookie: kept.cookie } })).json()).toEqual({
      firm: true,
      user: { name: 'alice', role: 'reviewer' },
      csrf: kept.csrf,
    });
    // A session signed out before the restart stays ended.
    expect((await op(after.server, leaving, 'cases.list', {})).status).toBe(401);
    // A copied sessions file signs nobody in: what it holds is not a cookie.
    const stolen = (JSON.parse(file) as { sessions: { id: string; csrf: string }[] }).sessions[0]!;
    const port = after.server.port;
    const forged = { cookie: `casefile_session_${port}=${stolen.id}`, csrf: stolen.csrf };
    expect((await op(after.server, forged, 'cases.list', {})).status).toBe(401);
    // Idle past the limit while the server was down: ended.
    const later = await restart(t + 31 * 60_000 + 60_000);
    expect((await op(later.server, kept, 'cases.list', {})).status).toBe(401);
  });
});

describe('firm server – behind a reverse proxy', () => {
  const home = tempHome('casefile-firm-proxy-');
  let firm: Awaited<ReturnType<typeof startFirm>> | undefined;
  afterEach(async () => {
    await firm?.close();
    firm = undefined;
  });

  const fromClient = (server: { url: string }, user: string, password: string, forwardedFor: string) =>
    fetch(`${server.url}api/sign-in`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': forwardedFor },
      body: JSON.stringify({ user, password }),
    });

  it('with --trust-proxy the throttle and the audit trail see the client the proxy names', async () => {
    firm = await startFirm(home, { trustedProxies: ['127.0.0.1', '::1'], firm: { throttle: { perAddress: 3 } } });
    await firm.store.addUser('alice', PASSWORD, 'reviewer');
    for (const name of ['a1', 'a2', 'a3'])
      expect((await fromClient(firm.server, name, 'wrong password', '10.0.0.7')).status).toBe(401);
    // The address that failed waits; another person behind the same proxy does not.
    expect((await fromClient(firm.server, 'alice', PASSWORD, '10.0.0.7')).status).toBe(429);
    expect((await fromClient(firm.server, 'alice', PASSWORD, '203.0.113.9, 10.0.0.8')).status).toBe(200);
    const entries = readFileSync(path.join(home, 'audit', 'audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { kind: string; actor: { address: string } });
    expect(entries.map((e) => [e.kind, e.actor.address])).toEqual([
      ['sign_in_refused', '10.0.0.7'],
      ['sign_in_refused', '10.0.0.7'],
      ['sign_in_refused', '10.0.0.7'],
      ['sign_in_refused', '10.0.0.7'],
      ['sign_in', '10.0.0.8'],
    ]);
  });

  it('without it, X-Forwarded-For is ignored: a client cannot slip the throttle by naming other addresses', async () => {
    firm = await startFirm(home, { firm: { throttle: { perAddress: 3 } } });
    await firm.store.addUser('alice', PASSWORD, 'reviewer');
    for (const [i, name] of ['a1', 'a2', 'a3'].entries())
      expect((await fromClient(firm.server, name, 'wrong password', `10.0.0.${i + 1}`)).status).toBe(401);
    expect((await fromClient(firm.server, 'alice', PASSWORD, '10.0.0.99')).status).toBe(429);
  });
});

describe('single-token server', () => {
  const home = tempHome('casefile-token-');

  it('has no accounts: firm operations are refused, and /api/session says so', async () => {
    const engine = await Engine.open({ home });
    const server = await startServer({ engine });
    const auth = { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' };
    const res = await fetch(`${server.url}api/op/firm.users.add`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ name: 'eve', password: 'a long password' }),
    });
    const session = await fetch(`${server.url}api/session`, { headers: auth });
    await server.close();
    await engine.close();
    expect(res.status).toBe(403);
    expect(await session.json()).toEqual({ firm: false, user: null, csrf: null });
  });
});

describe('firm server – TLS', () => {
  const home = tempHome('casefile-firm-tls-');

  it('refuses to listen beyond loopback without TLS', async () => {
    const engine = await Engine.open({ home });
    await expect(startServer({ engine, host: '0.0.0.0', allowRemote: true, firm: {} })).rejects.toThrow(/TLS/);
    await engine.close();
  });

  it('over TLS the session cookie is Secure', async () => {
    const dir = path.join(home, 'tls');
    mkdirSync(dir, { recursive: true });
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    const cert = readFileSync(path.join(dir, 'cert.pem'));
    const key = readFileSync(path.join(dir, 'key.pem'));
    const firm = await startFirm(home, { tls: { cert, key } });
    await firm.store.addUser('alice', PASSWORD, 'reviewer');
    expect(firm.server.url).toMatch(/^https:/);
    const answer = await new Promise<{ status: number; cookie: string }>((resolve, reject) => {
      const req = https.request(
        `${firm.server.url}api/sign-in`,
        { method: 'POST', ca: cert, headers: { 'Content-Type': 'application/json' } },
        (res) => {
          res.resume();
          resolve({ status: res.statusCode ?? 0, cookie: String(res.headers['set-cookie'] ?? '') });
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ user: 'alice', password: PASSWORD }));
    });
    await firm.close();
    expect(answer.status).toBe(200);
    expect(answer.cookie).toMatch(/; Secure/);
    expect(answer.cookie).toMatch(/HttpOnly/);
  });
});
