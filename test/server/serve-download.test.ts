/**
 * Serve mode: `models.download` makes the server fetch an address for whoever holds the token
 * (issue #42, item 4). It is off unless the operator named the hosts it may download from
 * (--allow-downloads-from), every address asked (redirects too) must be on one of them, and a
 * refusal is the same for every source, so it cannot be used to probe addresses.
 */
import { createReadStream, existsSync, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import { startServer, type RunningServer, type ServeOptions } from '../../src/server/server';
import { sharedDir, tempHome } from '../helpers/home';

const stories = path.join(sharedDir, 'models', 'stories260K', 'stories260K.gguf');

/** A loopback stand-in for a model host: one GGUF, a page that is not one, a redirect to another host name, and 404 for the rest. */
let hub: http.Server;
let port = 0;
const asked: string[] = [];

beforeAll(async () => {
  hub = http.createServer((req, res) => {
    asked.push(`${req.headers.host} ${req.url}`);
    if (req.url === '/files/stories260K.gguf') {
      res.writeHead(200, { 'content-length': statSync(stories).size });
      createReadStream(stories).pipe(res);
    } else if (req.url === '/files/page.gguf') {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html>an intranet page</html>');
    } else if (req.url === '/elsewhere/stories260K.gguf') {
      res.writeHead(302, { location: `http://localhost:${port}/files/stories260K.gguf` }).end();
    } else {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise<void>((resolve) => hub.listen(0, '127.0.0.1', resolve));
  port = (hub.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => hub.close(resolve));
});

/** A port nobody listens on: an address that does not answer. */
async function closedPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const p = (s.address() as AddressInfo).port;
  await new Promise((resolve) => s.close(resolve));
  return p;
}

describe('serve mode: models.download', () => {
  const home = tempHome('casefile-serve-download-');
  let engine: Engine;
  let server: RunningServer | undefined;
  let auth: Record<string, string>;

  beforeEach(async () => {
    // Hugging Face names go to the loopback host too, under a name no test allows.
    engine = await Engine.open({
      home: tempHome('casefile-serve-download-'),
      env: { ...process.env, HF_ENDPOINT: `http://localhost:${port}` },
    });
    asked.length = 0;
  });

  afterEach(async () => {
    await server?.close();
    server = undefined;
    await engine.close();
  });

  const start = async (options: Partial<ServeOptions> = {}) => {
    server = await startServer({ engine, staticDir: path.join(home, 'no-static'), ...options });
    auth = { Authorization: `Bearer ${server.token}` };
  };
  const download = async (source: string) => {
    const res = await fetch(`${server!.url}api/op/models.download`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...auth },
      body: JSON.stringify({ source }),
    });
    return {
      status: res.status,
      body: (await res.json()) as { error?: { code: string; message: string }; model?: { id: string } },
    };
  };
  const installed = async () => (await engine.router.call('models.list', {})).models.map((m) => m.id);

  it('without --allow-downloads-from – every download is refused alike, before anything is fetched, and nothing is installed', async () => {
    await start();
    const closed = await closedPort();
    const sources = [
      `http://127.0.0.1:${port}/files/stories260K.gguf`, // a model that is there
      `http://127.0.0.1:${port}/files/missing.gguf`, // a 404
      `http://127.0.0.1:${port}/files/page.gguf`, // an address that answers with something else
      `http://127.0.0.1:${closed}/model.gguf`, // an address that does not answer
      'tiny/stories/stories260K.gguf', // a Hugging Face name
    ];
    const answers = await Promise.all(sources.map(download));
    for (const [i, a] of answers.entries()) {
      expect(a.status, sources[i]).toBe(403);
      expect(a.body.error).toEqual(answers[0]!.body.error);
    }
    expect(answers[0]!.body.error!.code).toBe('forbidden');
    expect(answers[0]!.body.error!.message).toMatch(/Downloading models is off on this server.*--allow-downloads-from/);
    expect(answers[0]!.body.error!.message).not.toMatch(/127\.0\.0\.1|stories/);
    expect(asked).toEqual([]);
    expect(await installed()).toEqual([]);
    expect(existsSync(path.join(engine.home, 'models', '.downloads'))).toBe(false);
  });

  it('with --allow-downloads-from – a model on an allowed host is downloaded and installed', async () => {
    await start({ allowDownloadsFrom: ['127.0.0.1'] });
    const ok = await download(`http://127.0.0.1:${port}/files/stories260K.gguf`);
    expect(ok.status).toBe(200);
    expect(ok.body.model?.id).toBe('stories260K');
    expect(await installed()).toEqual(['stories260K']);
    // On an allowed host the errors say what went wrong.
    const missing = await download(`http://127.0.0.1:${port}/files/missing.gguf`);
    expect(missing.body.error).toMatchObject({
      code: 'not_found',
      message: expect.stringMatching(/has no missing\.gguf/),
    });
  });

  it('with --allow-downloads-from – another host, or a redirect to one, is refused alike and nothing is installed', async () => {
    await start({ allowDownloadsFrom: ['localhost.invalid', `127.0.0.1:${port}`] });
    const closed = await closedPort();
    const refused = await Promise.all(
      [
        `http://localhost:${port}/files/stories260K.gguf`,
        `http://127.0.0.1:${closed}/model.gguf`,
        `http://127.0.0.2:${port}/files/stories260K.gguf`,
        'tiny/stories/stories260K.gguf',
      ].map(download),
    );
    for (const r of refused) {
      expect(r.status).toBe(403);
      expect(r.body.error).toEqual(refused[0]!.body.error);
    }
    expect(refused[0]!.body.error!.message).toMatch(
      /only from localhost\.invalid, 127\.0\.0\.1:\d+, and that source is not one of them/,
    );
    expect(asked).toEqual([]);
    // The allowed host sends the download on to a host that is not allowed: refused before that host is asked.
    const redirected = await download(`http://127.0.0.1:${port}/elsewhere/stories260K.gguf`);
    expect(redirected.status).toBe(403);
    expect(redirected.body.error).toEqual(refused[0]!.body.error);
    expect(asked).toEqual([`127.0.0.1:${port} /elsewhere/stories260K.gguf`]);
    expect(await installed()).toEqual([]);
  });
});
