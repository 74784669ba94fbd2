/**
 * Worker-thread entry of the ingest pipeline: parses one file version at a time (pdf.js,
 * mammoth, text), chunks it, and writes its artifacts into the case directory. The main thread
 * only sees small messages: page progress, and the summary plus chunk records at the end.
 * Bundlers: build this file as its own entry and pass its path as the ingest `workerPath`.
 */
import { readFile } from 'node:fs/promises';
import { parentPort } from 'node:worker_threads';
import { chunkDocument, parseFile } from './parse';
import { compactChunks, CaseStore } from './store';
import type { ParseTask, WorkerRequest, WorkerResponse } from './worker-protocol';

const port = parentPort;
const running = new Map<number, AbortController>();

function send(msg: WorkerResponse): void {
  port?.postMessage(msg);
}

async function handleParse(task: ParseTask): Promise<void> {
  const controller = new AbortController();
  running.set(task.id, controller);
  try {
    const bytes = await readFile(task.blobPath);
    let lastPost = 0;
    const outcome = await parseFile({
      bytes,
      name: task.name,
      maxBytes: task.maxBytes,
      signal: controller.signal,
      standardFontDataUrl: task.standardFontDataUrl,
      onPage: (done, total) => {
        const now = Date.now();
        if (done === total || now - lastPost > 100) {
          lastPost = now;
          send({ type: 'page', id: task.id, done, total });
        }
      },
    });
    const { doc, ...summary } = outcome;
    let chunks: ReturnType<typeof chunkDocument> = [];
    if (doc && outcome.status === 'indexed') {
      send({ type: 'stage', id: task.id, stage: 'chunking' });
      chunks = chunkDocument(
        doc,
        { fileId: task.fileId, name: task.name, version: task.version, isLatest: task.isLatest, docType: outcome.docType, docDate: outcome.docDate },
        task.chunking,
      );
      if (controller.signal.aborted) throw controller.signal.reason;
      await new CaseStore(task.caseDir).writeArtifacts(task.fileId, task.version, { text: doc.text, index: doc.index, html: doc.html, chunks: compactChunks(chunks) });
    }
    send({ type: 'done', id: task.id, summary, chunks });
  } catch (err) {
    if (controller.signal.aborted || (err as Error)?.name === 'AbortError') send({ type: 'cancelled', id: task.id });
    else send({ type: 'error', id: task.id, message: err instanceof Error ? err.message : String(err) });
  } finally {
    running.delete(task.id);
  }
}

port?.on('message', (msg: WorkerRequest) => {
  if (msg.type === 'cancel') running.get(msg.id)?.abort();
  else if (msg.type === 'parse') void handleParse(msg);
});
