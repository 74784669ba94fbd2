/**
 * Serve mode: a token opens cases, not the disk (issue #11, part 4). Paths come only from uploads
 * or from folders the operator allowed at start; the scripted test model is off unless the server
 * was started for tests; no error carries a file's contents; and the API's edge answers
 * (repeated upload, bad op name, no token, unknown case) say what happened.
 */
import { mkdirSync, mkdtempSync, promises as fs, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import { startServer, type RunningServer, type ServeOptions } from '../../src/server/server';
import { tempHome } from '../helpers/home';

const SECRET = 'TOP-SECRET: the combination is 31-27-4';

/** A POST whose path is sent exactly as written (fetch would re-encode a malformed escape). */
function rawPost(
  server: RunningServer,
  rawPath: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: server.host,
        port: server.port,
        path: rawPath,
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json' },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end('{}');
  });
}

describe('serve mode scope', () => {
  const home = tempHome('casefile-scope-');
  let outside: string;
  let allowed: string;
  let engine: Engine;
  let server: RunningServer | undefined;
  let auth: Record<string, string>;

  beforeEach(async () => {
    // A folder the server was not given (stands in for /etc) and one it was (--allow-path).
    outside = mkdtempSync(path.join(os.tmpdir(), 'casefile-outside-'));
    writeFileSync(path.join(outside, 'secret.txt'), `${SECRET}\nline two\n`);
    writeFileSync(path.join(outside, 'script.json'), `${SECRET}\n`);
    writeFileSync(path.join(outside, 'model.gguf'), SECRET);
    allowed = mkdtempSync(path.join(os.tmpdir(), 'casefile-allowed-'));
    mkdirSync(path.join(allowed, 'Matter'));
    writeFileSync(path.join(allowed, 'Matter', 'letter.txt'), 'The tenant gave ninety days notice of termination.');
    engine = await Engine.open({ home });
  });

  afterEach(async () => {
    await server?.close();
    server = undefined;
    await engine.close();
    rmSync(outside, { recursive: true, force: true });
    rmSync(allowed, { recursive: true, force: true });
  });

  const start = async (options: Partial<ServeOptions> = {}) => {
    server = await startServer({ engine, staticDir: path.join(home, 'no-static'), ...options });
    auth = { Authorization: `Bearer ${server.token}` };
    return server;
  };
  const op = (name: string, body: unknown, headers: Record<string, string> = auth) =>
    fetch(`${server!.url}api/op/${name}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const newCase = async (name: string) => ((await (await op('cases.create', { name })).json()) as { id: string }).id;
  const fileNames = async (caseId: string) =>
    ((await (await op('files.list', { case_id: caseId })).json()) as { files: { name: string }[] }).files.map(
      (f) => f.name,
    );

  it('ingest.start – a path outside uploads and --allow-path is refused (403, plain words); nothing is read', async () => {
    await start();
    const caseId = await newCase('Probe');
    for (const p of [
      path.join(outside, 'secret.txt'),
      outside,
      '/etc/passwd',
      `${home}/uploads/../../${path.basename(outside)}/secret.txt`,
    ]) {
      const res = await op('ingest.start', { case_id: caseId, paths: [p], wait: true });
      expect(res.status, p).toBe(403);
      const body = (await res.json()) as { error: { code: string; message: string; fields: { field: string }[] } };
      expect(body.error.code).toBe('forbidden');
      expect(body.error.message).toMatch(/only reads files uploaded/);
      expect(body.error.message).toMatch(/--allow-path/);
      expect(body.error.fields[0]!.field).toBe('paths.0');
    }
    expect(await fileNames(caseId)).toEqual([]);
    // Nothing reached the case, so the agent's file reader has nothing to give back either.
    const read = await op('tools.grepCase', { case_id: caseId, pattern: 'TOP-SECRET' });
    expect(JSON.stringify(await read.json())).not.toContain('combination');
  });

  it('ingest.start – folders allowed with --allow-path are read; a link in them pointing outside is not followed', async () => {
    symlinkSync(path.join(outside, 'secret.txt'), path.join(allowed, 'Matter', 'shortcut.txt'));
    symlinkSync(outside, path.join(allowed, 'door'));
    await start({ allowPaths: [allowed] });
    const caseId = await newCase('Allowed');
    const ok = await op('ingest.start', { case_id: caseId, paths: [path.join(allowed, 'Matter')], wait: true });
    expect(ok.status).toBe(200);
    expect(await fileNames(caseId)).toEqual(['letter.txt']);
    // The link itself, named directly, resolves outside: refused.
    for (const p of [
      path.join(allowed, 'Matter', 'shortcut.txt'),
      path.join(allowed, 'door', 'secret.txt'),
      path.join(allowed, '..', path.basename(outside)),
    ]) {
      const res = await op('ingest.start', { case_id: caseId, paths: [p], wait: true });
      expect(res.status, p).toBe(403);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/--allow-path/);
    }
    expect(await fileNames(caseId)).toEqual(['letter.txt']);
  });

  it('models.import and chat.ask model files outside the allowed folders are refused', async () => {
    await start();
    const imp = await op('models.import', { path: path.join(outside, 'model.gguf') });
    expect(imp.status).toBe(403);
    const impBody = (await imp.json()) as { error: { code: string; message: string } };
    expect(impBody.error.code).toBe('forbidden');
    expect(impBody.error.message).not.toContain('combination');
    const caseId = await newCase('Models');
    const ask = await op('chat.ask', {
      case_id: caseId,
      question: 'What is the combination?',
      model: path.join(outside, 'model.gguf'),
    });
    expect(ask.status).toBe(403);
    expect(JSON.stringify(await ask.json())).not.toContain('combination');
  });

  it('chat.ask – scripted: models are refused unless the server was started for tests, and never echo the file', async () => {
    await start();
    const caseId = await newCase('Scripted');
    for (const model of [
      'scripted:/etc/passwd',
      `scripted:${path.join(outside, 'script.json')}`,
      '  scripted:x.json',
    ]) {
      const res = await op('chat.ask', { case_id: caseId, question: 'Anything?', model });
      expect(res.status, model).toBe(403);
      const text = await res.text();
      expect(text).toMatch(/--allow-scripted-models/);
      expect(text).not.toContain('combination');
      expect(text).not.toMatch(/root:/);
    }
    await server!.close();
    // Started for tests: the script is read, but a file that is not a script is not echoed back.
    await start({ allowScriptedModels: true });
    const res = await op('chat.ask', {
      case_id: caseId,
      question: 'Anything?',
      model: `scripted:${path.join(outside, 'script.json')}`,
    });
    const text = await res.text();
    expect(text).toMatch(/not valid JSON|could not be read/);
    expect(text).not.toContain('combination');
    expect(text).not.toContain('TOP-SECRET');
  });

  it('upload – a repeated PUT of the same path answers 409 and keeps the first upload', async () => {
    await start();
    const batch = (await (await fetch(`${server!.url}api/upload`, { method: 'POST', headers: auth })).json()) as {
      batch: string;
      dir: string;
    };
    const put = (body: string) =>
      fetch(`${server!.url}api/upload/${batch.batch}?path=${encodeURIComponent('Matter/a.txt')}`, {
        method: 'PUT',
        headers: auth,
        body,
      });
    const first = await put('the first upload');
    expect(first.status).toBe(200);
    const stored = ((await first.json()) as { path: string }).path;
    const again = await put('a second upload');
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe('conflict');
    expect(await fs.readFile(stored, 'utf8')).toBe('the first upload');
  });

  it('op names – a malformed percent-escape is a 400 with a message, not a 500', async () => {
    await start();
    for (const raw of ['/api/op/%E0%A4%A', '/api/op/cases.list%', '/api/op/%zz']) {
      const res = await rawPost(server!, raw, auth);
      expect(res.status, raw).toBe(400);
      const body = JSON.parse(res.body) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('invalid_input');
      expect(body.error.message).toMatch(/operation name/);
      expect(body.error.message).not.toMatch(/URI malformed/);
    }
  });

  it('no token – 401 with the unauthorized code', async () => {
    await start();
    const res = await op('cases.list', {}, {});
    expect(res.status).toBe(401);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('unauthorized');
    expect(body.error.message).toMatch(/token/);
  });

  it('files.list – a case id that does not exist is a 404, not an empty list', async () => {
    await start();
    const res = await op('files.list', { case_id: 'cnosuchcase00' });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });
});
