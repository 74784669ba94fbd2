import { createReadStream, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import { sha256Of } from '../../src/core/models/download';
import type { ModelsProgressEvent } from '../../src/shared/events';
import { sharedDir, tempHome } from '../helpers/home';
import { testModels } from '../helpers/models';

const { miniLmDir } = testModels();
const stories = path.join(sharedDir, 'models', 'stories260K', 'stories260K.gguf');

/** A loopback stand-in for a model hub: `/<owner>/<repo>/resolve/main/<path>`, with HTTP Range. */
const routes: Record<string, string> = {
  '/tiny/stories/resolve/main/stories260K.gguf': stories,
  '/files/stories260K.gguf': stories,
};
for (const f of [
  'config.json',
  'tokenizer.json',
  'tokenizer_config.json',
  'special_tokens_map.json',
  '1_Pooling/config.json',
  'onnx/model_quantized.onnx',
]) {
  routes[`/Xenova/all-MiniLM-L6-v2/resolve/main/${f}`] = path.join(miniLmDir, f);
}
const ranges: string[] = [];
let server: http.Server;
let base = '';
const savedEndpoint = process.env.HF_ENDPOINT;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const file = routes[decodeURIComponent(req.url ?? '')];
    if (!file) {
      res.writeHead(404).end('not found');
      return;
    }
    const size = statSync(file).size;
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    if (range) {
      ranges.push(`${req.url} ${req.headers.range}`);
      const start = Number(range[1]);
      res.writeHead(206, { 'content-length': size - start, 'content-range': `bytes ${start}-${size - 1}/${size}` });
      createReadStream(file, { start }).pipe(res);
    } else {
      res.writeHead(200, { 'content-length': size });
      createReadStream(file).pipe(res);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  process.env.HF_ENDPOINT = base;
});

afterAll(async () => {
  if (savedEndpoint === undefined) delete process.env.HF_ENDPOINT;
  else process.env.HF_ENDPOINT = savedEndpoint;
  await new Promise((resolve) => server.close(resolve));
});

describe('models.download (loopback model hub)', () => {
  it('models.download – a Hugging Face file reference is fetched, checked against its sha256, validated and registered', async () => {
    const home = tempHome();
    const engine = await Engine.open({ home });
    const progress: ModelsProgressEvent[] = [];
    engine.events.on('models.progress', (p) => progress.push(p));
    const sha256 = await sha256Of(stories);
    const result = await engine.router.call('models.download', { source: 'tiny/stories/stories260K.gguf', sha256 });
    expect(result.model).toMatchObject({
      id: 'stories260K',
      kind: 'chat',
      format: 'gguf',
      context_length: 2048,
      sha256,
      source: 'installed',
    });
    expect(readFileSync(result.model.path).equals(readFileSync(stories))).toBe(true);
    expect(progress.at(-1)).toEqual({
      model_id: 'stories260K',
      file: 'stories260K.gguf',
      received_bytes: 1185376,
      total_bytes: 1185376,
    });
    expect(existsSync(path.join(home, 'models', '.downloads', 'stories260K'))).toBe(false);
    await engine.close();
  });

  it('models.download – resumes a partial download with an HTTP Range request', async () => {
    const home = tempHome();
    const engine = await Engine.open({ home });
    const partialDir = path.join(home, 'models', '.downloads', 'stories260K');
    mkdirSync(partialDir, { recursive: true });
    writeFileSync(path.join(partialDir, 'stories260K.gguf.partial'), readFileSync(stories).subarray(0, 500_000));
    const result = await engine.router.call('models.download', { source: `${base}/files/stories260K.gguf` });
    expect(ranges).toContain('/files/stories260K.gguf bytes=500000-');
    expect(readFileSync(result.model.path).equals(readFileSync(stories))).toBe(true);
    await engine.close();
  });

  it('models.download – a Hugging Face transformers.js repo becomes an embedding model that loads', async () => {
    const home = tempHome();
    const engine = await Engine.open({ home });
    const result = await engine.router.call('models.download', { source: 'Xenova/all-MiniLM-L6-v2' });
    expect(result.model).toMatchObject({ id: 'all-MiniLM-L6-v2', kind: 'embedding', dimension: 384, is_default: true });
    expect(existsSync(path.join(home, 'models', 'all-MiniLM-L6-v2', 'onnx', 'model_quantized.onnx'))).toBe(true);
    await engine.close();
  });

  it('models.download – refuses a wrong checksum, an unknown repo, and says plainly when the host is unreachable', async () => {
    const home = tempHome();
    const engine = await Engine.open({ home });
    await expect(
      engine.router.call('models.download', { source: 'tiny/stories/stories260K.gguf', sha256: '0'.repeat(64) }),
    ).rejects.toMatchObject({
      code: 'failed',
      message: expect.stringContaining('has sha256'),
    });
    await expect(engine.router.call('models.download', { source: 'nobody/nothing' })).rejects.toMatchObject({
      code: 'not_found',
    });
    // A port nobody listens on stands for a machine without a network.
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await expect(
      engine.router.call('models.download', { source: `http://127.0.0.1:${port}/model.gguf` }),
    ).rejects.toMatchObject({
      code: 'unavailable',
      message: expect.stringMatching(new RegExp(`^Cannot reach 127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\)\\. `)),
      remedy: {
        app: expect.stringMatching(/Choose a model file/),
        cli: expect.stringMatching(/casefile models import/),
      },
    });
    await expect(
      engine.router.call('models.download', { source: 'https://example.com/page.html' }),
    ).rejects.toMatchObject({ code: 'invalid_input' });
    expect((await engine.router.call('models.list', {})).models).toEqual([]);
    await engine.close();
  });
});
