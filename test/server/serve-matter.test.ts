/**
 * Serve mode moves a matter the way the page does: "Export matter…" downloads the file
 * (`POST /api/export`), "Import matter…" uploads it and imports the upload (`cases.import`). The
 * server never writes a matter file where it was not allowed to, nor imports one from elsewhere.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import { startServer, type RunningServer } from '../../src/server/server';
import { tempHome } from '../helpers/home';

const running: { engine: Engine; server: RunningServer }[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) {
    await r.server.close();
    await r.engine.close();
  }
});

async function serve(home: string) {
  const engine = await Engine.open({ home, ingest: { concurrency: 1, ocr: false } });
  const server = await startServer({ engine, staticDir: path.join(home, 'no-static') });
  running.push({ engine, server });
  const auth = { Authorization: `Bearer ${server.token}` };
  const op = (name: string, input: unknown) =>
    fetch(`${server.url}api/op/${name}`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify(input),
    });
  return { engine, server, auth, op };
}

describe('serve mode: moving a matter', () => {
  it('downloads a locked matter file, and imports it on another server from an upload', async () => {
    const homeA = tempHome('casefile-serve-matter-a-');
    const a = await serve(homeA);
    const { id } = await a.engine.router.call('cases.create', { name: 'Acme / Roadrunner' });
    const drop = path.join(homeA, 'drop');
    mkdirSync(drop);
    writeFileSync(path.join(drop, 'memo.txt'), 'The anvil was delivered on 3 March 2021 to the canyon.\n');
    await a.engine.router.call('ingest.start', { case_id: id, paths: [drop] });

    const res = await fetch(`${a.server.url}api/export`, {
      method: 'POST',
      headers: { ...a.auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ case_id: id, passphrase: 'beep beep 1949' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toContain('filename="Acme   Roadrunner.casefile"');
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(Buffer.from(bytes.subarray(0, 8)).toString('latin1')).toBe('CFMATTER');
    // Removed once sent.
    await expect.poll(() => readdirSync(path.join(homeA, 'exports'))).toEqual([]);

    // Written on the server's disk: refused outside the folders allowed with --allow-path.
    const outside = await a.op('cases.export', { case_id: id, out: path.join(homeA, 'elsewhere.casefile') });
    expect(outside.status).toBe(403);
    expect(existsSync(path.join(homeA, 'elsewhere.casefile'))).toBe(false);

    const homeB = tempHome('casefile-serve-matter-b-');
    const b = await serve(homeB);
    const notUploaded = path.join(homeB, 'matter.casefile');
    writeFileSync(notUploaded, bytes);
    expect((await b.op('cases.import', { path: notUploaded, passphrase: 'beep beep 1949' })).status).toBe(403);
    const { batch } = (await (
      await fetch(`${b.server.url}api/upload`, { method: 'POST', headers: b.auth })
    ).json()) as {
      batch: string;
    };
    const put = await fetch(`${b.server.url}api/upload/${batch}?path=acme.casefile`, {
      method: 'PUT',
      headers: b.auth,
      body: bytes,
    });
    const uploaded = ((await put.json()) as { path: string }).path;
    const wrong = await b.op('cases.import', { path: uploaded, passphrase: 'beep beep' });
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as { error: { message: string } }).error.message).toBe(
      'The passphrase does not open this matter file.',
    );
    const imported = await b.op('cases.import', { path: uploaded, passphrase: 'beep beep 1949' });
    expect(imported.status).toBe(200);
    expect(((await imported.json()) as { case: { id: string; name: string } }).case).toMatchObject({
      id,
      name: 'Acme / Roadrunner',
    });
    await expect.poll(() => existsSync(path.join(homeB, 'uploads', batch))).toBe(false);
    const found = await b.engine.router.call('search', { case_id: id, query: 'anvil delivered', mode: 'keyword' });
    expect(found.results[0]?.text).toContain('The anvil was delivered');
  });
});
