import { mkdtempSync, promises as fs, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import { startServer, type RunningServer } from '../../src/server/server';
import { tempHome } from '../helpers/home';

/** A raw GET whose path is sent exactly as written (fetch would normalise `..`). */
function rawGet(
  server: RunningServer,
  rawPath: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: server.host, port: server.port, path: rawPath, method: 'GET', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('serve mode', () => {
  const home = tempHome('casefile-serve-');
  let engine: Engine;
  let server: RunningServer;
  let staticDir: string;
  let auth: Record<string, string>;

  beforeEach(async () => {
    staticDir = mkdtempSync(path.join(os.tmpdir(), 'casefile-static-'));
    writeFileSync(path.join(staticDir, 'index.html'), '<!doctype html><title>Casefile</title><div id="root"></div>');
    mkdirSync(path.join(staticDir, 'assets'));
    writeFileSync(path.join(staticDir, 'assets', 'app.js'), 'console.log("hi")');
    // A secret next to the static root that traversal must not reach.
    writeFileSync(path.join(path.dirname(staticDir), `${path.basename(staticDir)}-secret.txt`), 'secret');
    engine = await Engine.open({ home });
    server = await startServer({ engine, staticDir });
    auth = { Authorization: `Bearer ${server.token}` };
  });

  afterEach(async () => {
    await server.close();
    await engine.close();
    rmSync(staticDir, { recursive: true, force: true });
    rmSync(`${staticDir}-secret.txt`, { force: true });
  });

  const op = (name: string, body: unknown, headers: Record<string, string> = auth) =>
    fetch(`${server.url}api/op/${name}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('startServer – listens on loopback with a random token', () => {
    expect(server.host).toBe('127.0.0.1');
    expect(server.token.length).toBeGreaterThanOrEqual(32);
    expect(server.loginUrl).toBe(`${server.url}?token=${server.token}`);
  });

  it('former names – a request may still use caseId (until 0.2); the answer carries both names', async () => {
    const { id } = (await (await op('cases.create', { name: 'Names' })).json()) as { id: string };
    // The former names alone.
    const old = await op('cases.setDateOrder', { caseId: id, dayFirst: true });
    expect(old.status).toBe(200);
    expect(((await old.json()) as { dates: unknown }).dates).toEqual({ day_first: true, dayFirst: true });
    // The names now.
    const now = await op('cases.setDateOrder', { case_id: id, day_first: false });
    expect(now.status).toBe(200);
    expect(((await now.json()) as { dates: unknown }).dates).toEqual({ day_first: false, dayFirst: false });
    // Both: the name now wins, the former one is dropped (not refused as an unknown field).
    const both = await op('cases.setDateOrder', {
      caseId: 'no-such-case',
      case_id: id,
      day_first: true,
      dayFirst: false,
    });
    expect(both.status).toBe(200);
    expect(((await both.json()) as { dates: { day_first: boolean } }).dates.day_first).toBe(true);
    // A bad value under the former name is reported under the name now.
    const bad = await op('cases.get', { caseId: '../x' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { fields: { field: string }[] } }).error.fields[0]!.field).toBe('case_id');
    // An answer with renamed fields carries the former names beside them.
    const vectors = (await (await op('index.vectors', { case_id: id })).json()) as Record<string, unknown>;
    expect(vectors).toMatchObject({ case_id: id, caseId: id });
    expect(vectors.model_id).toBe(vectors.modelId);
  });

  it('token – every request without it gets 401', async () => {
    expect((await op('cases.list', {}, {})).status).toBe(401);
    expect((await op('cases.list', {}, { Authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await fetch(server.url)).status).toBe(401);
    expect((await fetch(`${server.url}assets/app.js`)).status).toBe(401);
    expect((await fetch(`${server.url}api/events`)).status).toBe(401);
    expect((await fetch(`${server.url}?token=nope`, { redirect: 'manual' })).status).toBe(401);
    const body = (await (await op('cases.list', {}, {})).json()) as { error: { message: string } };
    expect(body.error.message).toMatch(/token/);
  });

  it('sign-in link – trades the token for an HttpOnly SameSite=Strict cookie', async () => {
    const res = await fetch(server.loginUrl, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/');
    const cookie = res.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const pair = cookie.split(';')[0]!;
    const page = await fetch(server.url, { headers: { Cookie: pair } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
    expect((await op('cases.list', {}, { Cookie: pair })).status).toBe(200);
  });

  it('operations – create, list, rename and delete a case through HTTP', async () => {
    const created = (await (await op('cases.create', { name: 'Smith / Jones ⚖️' })).json()) as {
      id: string;
      name: string;
    };
    expect(created.name).toBe('Smith / Jones ⚖️');
    const list = (await (await op('cases.list', {})).json()) as { cases: { id: string }[] };
    expect(list.cases.map((c) => c.id)).toEqual([created.id]);
    const renamed = await op('cases.rename', { case_id: created.id, name: 'Renamed' });
    expect(renamed.status).toBe(200);
    expect(((await renamed.json()) as { name: string }).name).toBe('Renamed');
    expect((await op('cases.delete', { case_id: created.id })).status).toBe(200);
    const gone = await op('cases.get', { case_id: created.id });
    expect(gone.status).toBe(404);
    expect(((await gone.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });

  it('operations – bad JSON and bad fields get a 400 naming the field', async () => {
    const badJson = await op('cases.create', '{"name": ');
    expect(badJson.status).toBe(400);
    const badJsonBody = (await badJson.json()) as {
      error: { code: string; message: string; fields: { field: string }[] };
    };
    expect(badJsonBody.error.code).toBe('invalid_input');
    expect(badJsonBody.error.message).toMatch(/not valid JSON/);
    expect(badJsonBody.error.fields[0]!.field).toBe('(body)');

    const empty = await op('cases.create', { name: '   ' });
    expect(empty.status).toBe(400);
    const emptyBody = (await empty.json()) as {
      error: { fields: { field: string; message: string }[]; message: string };
    };
    expect(emptyBody.error.fields).toEqual([{ field: 'name', message: 'Enter a name.' }]);
    expect(JSON.stringify(emptyBody)).not.toMatch(/at .*\.ts:\d+/); // no stack trace

    const extra = await op('cases.list', { bogus: 1 });
    expect(extra.status).toBe(400);

    const unknown = await op('no.such.op', {});
    expect(unknown.status).toBe(404);
    expect((await fetch(`${server.url}api/op/cases.list`, { headers: auth })).status).toBe(405);
  });

  it('operations – an unknown operation is a 404 not_found (by its reason, not its message)', async () => {
    const res = await op('no.such.op', {});
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: { code: 'not_found', message: 'Unknown operation "no.such.op".' } });
  });

  it('events – the SSE stream delivers cases.changed', async () => {
    const controller = new AbortController();
    const res = await fetch(`${server.url}api/events`, { headers: auth, signal: controller.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    const created = (await (await op('cases.create', { name: 'Evented' })).json()) as { id: string };
    let text = '';
    while (!text.includes(created.id)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    controller.abort();
    const line = text.split('\n').find((l) => l.startsWith('data: ') && l.includes(created.id))!;
    expect(JSON.parse(line.slice(6))).toEqual({
      name: 'cases.changed',
      payload: { case_id: created.id, caseId: created.id, kind: 'created' },
    });
  });

  it('static files – served with types, the page with a strict CSP', async () => {
    const page = await fetch(server.url, { headers: auth });
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/script-src 'self'/);
    expect(csp).not.toMatch(/unsafe/);
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    const js = await fetch(`${server.url}assets/app.js`, { headers: auth });
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/javascript/);
    expect((await fetch(`${server.url}assets/missing.js`, { headers: auth })).status).toBe(404);
  });

  it('static files – path traversal is refused', async () => {
    const secret = `${path.basename(staticDir)}-secret.txt`;
    for (const p of [`/../${secret}`, `/%2e%2e/${secret}`, `/assets/..%2f..%2f${secret}`, `/..%5c${secret}`, '/%00']) {
      const res = await rawGet(server, p, auth);
      expect(res.status, p).toBe(404);
      expect(res.body).not.toContain('secret');
    }
  });

  it('host header – requests not addressed to loopback are refused (DNS rebinding)', async () => {
    const res = await rawGet(server, '/', { ...auth, Host: 'evil.example:80' });
    expect(res.status).toBe(403);
  });

  it('upload – stores files under the home and refuses paths that escape', async () => {
    const start = (await (await fetch(`${server.url}api/upload`, { method: 'POST', headers: auth })).json()) as {
      batch: string;
      dir: string;
    };
    expect(start.dir.startsWith(path.join(home, 'uploads'))).toBe(true);
    const put = (p: string, body: string) =>
      fetch(`${server.url}api/upload/${start.batch}?path=${encodeURIComponent(p)}`, {
        method: 'PUT',
        headers: auth,
        body,
      });
    const ok = await put('Smith/notes/a.txt', 'hello');
    expect(ok.status).toBe(200);
    const { top, path: stored } = (await ok.json()) as { top: string; path: string };
    expect(top).toBe(path.join(start.dir, 'Smith'));
    expect(await fs.readFile(stored, 'utf8')).toBe('hello');
    for (const bad of ['../escape.txt', 'Smith/../../x', '/etc/passwd', 'a\\b', '']) {
      expect((await put(bad, 'x')).status, bad).toBe(400);
    }
    expect((await put('Smith/notes/a.txt', 'again')).status).toBe(409);
    const escaped = await fs.stat(path.join(home, 'escape.txt')).catch(() => null);
    expect(escaped).toBeNull();
  });

  it('upload then ingest – the uploaded folder is ingested with its relative names, then removed', async () => {
    const { id: caseId } = (await (await op('cases.create', { name: 'Uploaded' })).json()) as { id: string };
    const start = (await (await fetch(`${server.url}api/upload`, { method: 'POST', headers: auth })).json()) as {
      batch: string;
      dir: string;
    };
    let top = '';
    for (const [rel, text] of [
      ['Matter/letters/one.txt', 'The first letter about the lease.'],
      ['Matter/two.txt', 'The second note.'],
    ]) {
      const res = await fetch(`${server.url}api/upload/${start.batch}?path=${encodeURIComponent(rel!)}`, {
        method: 'PUT',
        headers: auth,
        body: text,
      });
      top = ((await res.json()) as { top: string }).top;
    }
    const run = await op('ingest.start', { case_id: caseId, paths: [top], wait: true });
    expect(run.status).toBe(200);
    const result = (await run.json()) as { state: string; results: { name: string; status: string }[] };
    expect(result.state).toBe('done');
    expect(result.results.map((r) => [r.name, r.status]).sort()).toEqual([
      ['letters/one.txt', 'indexed'],
      ['two.txt', 'indexed'],
    ]);
    // Removed in the background after the run (vitest's poll gives up after 1 s by default: too short on a loaded machine).
    await expect
      .poll(
        () =>
          fs.stat(start.dir).then(
            () => 'present',
            () => 'removed',
          ),
        { timeout: 30_000 },
      )
      .toBe('removed');
  });

  it('startServer – refuses a non-loopback host without allowRemote', async () => {
    await expect(startServer({ engine, host: '0.0.0.0', staticDir })).rejects.toThrow(/--allow-remote/);
  });
});
