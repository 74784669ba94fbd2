/**
 * Worker-thread entry that renders PDF pages for the source viewer, so a page render (hundreds
 * of milliseconds) never blocks the engine's thread — in Electron, the main process.
 * Bundlers: build this file as its own entry named `render-worker` next to the main bundle.
 */
import { parentPort } from 'node:worker_threads';
import { toApiError } from '../../shared/errors';
import { PdfRenderer, type RenderRequest } from './pdf-render';

export type RenderWorkerRequest = RenderRequest & { id: number };
export type RenderWorkerResponse =
  | { id: number; ok: true; page: Awaited<ReturnType<PdfRenderer['render']>> }
  | { id: number; ok: false; error: ReturnType<typeof toApiError> };

const renderer = new PdfRenderer();
const port = parentPort;

port?.on('message', (msg: RenderWorkerRequest) => {
  renderer.render(msg).then(
    (page) =>
      port.postMessage({ id: msg.id, ok: true, page } satisfies RenderWorkerResponse, [page.png.buffer as ArrayBuffer]),
    (err: unknown) =>
      port.postMessage({ id: msg.id, ok: false, error: toApiError(err) } satisfies RenderWorkerResponse),
  );
});
