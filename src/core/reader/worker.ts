/**
 * Reader process of the ingest pipeline (a child process the pool watches and may kill): parses
 * one file version at a time (pdf.js, mammoth, text), chunks it, and writes its artifacts into the
 * case directory. The app only sees small messages: page progress, and the summary plus chunk
 * records at the end. Bundlers: build this file as its own entry and pass its path as the ingest
 * `workerPath`.
 */
import { readFile, rm } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import type { OcrEngine } from '../ocr/tesseract';
import { parseFile, type ParseOutcome } from './parse';
import { extractEvents, chunkDocument, structureOf } from '../text/index';
import { compactChunks, CaseStore } from '../documents/index';
import type { ParseSummary, ParseTask, WorkerRequest, WorkerResponse } from './worker-protocol';
import type { ChildFile, StoredChild } from '../domain/index';

const running = new Map<number, AbortController>();

/** This reader's OCR engine per language, loaded with its first task that asks for OCR (tesseract.js is not loaded otherwise). */
const ocrEngines = new Map<string, Promise<OcrEngine>>();
function ocrEngine(language: string): Promise<OcrEngine> {
  let engine = ocrEngines.get(language);
  if (!engine)
    ocrEngines.set(
      language,
      (engine = import('../ocr/tesseract').then(({ OcrEngine }) => new OcrEngine({ lang: language }))),
    );
  return engine;
}

function send(msg: WorkerResponse): void {
  if (process.connected) process.send?.(msg);
}

async function handleParse(task: ParseTask): Promise<void> {
  const controller = new AbortController();
  running.set(task.id, controller);
  send({ type: 'started', id: task.id });
  try {
    const bytes = await readFile(task.blobPath);
    const store = new CaseStore(task.caseDir);
    let lastPost = 0;
    const outcome = await parseFile({
      bytes,
      name: task.name,
      maxBytes: task.maxBytes,
      limits: task.limits,
      ...(task.batesPrefix !== undefined ? { batesPrefix: task.batesPrefix } : {}),
      keepChild: async (c) => ({ name: c.name, stored: await store.writeBlob(c.bytes!) }),
      signal: controller.signal,
      standardFontDataUrl: task.standardFontDataUrl,
      ...(task.password !== undefined ? { password: task.password } : {}),
      ...(task.ocr
        ? {
            ocr: {
              engine: await ocrEngine(task.ocr.language),
              cacheDir: task.ocr.cacheDir,
              onPage: (page: number, total: number) => send({ type: 'ocr', id: task.id, page, total }),
            },
          }
        : {}),
      onPage: (done, total) => {
        const now = Date.now();
        if (done === total || now - lastPost > 100) {
          lastPost = now;
          send({ type: 'page', id: task.id, done, total });
        }
      },
    });
    const { doc, children, ...rest } = outcome;
    const summary: ParseSummary = rest;
    if (children?.length) summary.children = await storeChildren(store, children, controller.signal);
    let chunks: ReturnType<typeof chunkDocument> = [];
    if (doc && outcome.status === 'indexed') chunks = await chunkAndStore(task, doc, outcome, store, controller.signal);
    // The pages kept for a resume are in the artifacts now.
    if (task.ocr) await rm(task.ocr.cacheDir, { recursive: true, force: true });
    send({ type: 'done', id: task.id, summary, chunks, rss: process.memoryUsage.rss() });
  } catch (err) {
    if (controller.signal.aborted || (err as Error)?.name === 'AbortError') send({ type: 'cancelled', id: task.id });
    else send({ type: 'error', id: task.id, message: err instanceof Error ? err.message : String(err) });
  } finally {
    running.delete(task.id);
  }
}

/** Chunk an indexed document, write its artifacts and (where they can be found) its dated events. */
async function chunkAndStore(
  task: ParseTask,
  doc: NonNullable<ParseOutcome['doc']>,
  outcome: ParseOutcome,
  store: CaseStore,
  signal: AbortSignal,
): Promise<ReturnType<typeof chunkDocument>> {
  send({ type: 'stage', id: task.id, stage: 'chunking' });
  const structure = structureOf(doc.text, doc.index, task.name, doc.html, { subject: doc.email?.subject });
  const chunks = chunkDocument(
    doc,
    {
      fileId: task.fileId,
      name: task.name,
      version: task.version,
      isLatest: task.isLatest,
      docType: outcome.docType,
      docDate: outcome.docDate,
    },
    task.chunking,
    structure,
  );
  if (signal.aborted) throw signal.reason;
  await store.writeArtifacts(task.fileId, task.version, {
    text: doc.text,
    index: doc.index,
    html: doc.html,
    structure,
    chunks: compactChunks(chunks),
  });
  // The chronology's dated events; a failure here leaves them to be extracted when first asked for.
  const dayFirst = task.dayFirst ?? false;
  await extractEvents(doc.text, doc.index, {
    docDate: outcome.docDate,
    dayFirst,
    parties: structure.profile.parties,
  }).then(
    (events) => store.writeEvents(task.fileId, task.version, events, dayFirst),
    () => undefined,
  );
  return chunks;
}

/** The files inside a file, stored as originals of the case (a file of the same bytes is stored once). */
async function storeChildren(store: CaseStore, children: ChildFile[], signal: AbortSignal): Promise<StoredChild[]> {
  const out: StoredChild[] = [];
  for (const c of children) {
    signal.throwIfAborted();
    if (c.stored) out.push({ name: c.name, ...c.stored });
    else if (c.bytes) out.push({ name: c.name, ...(await store.writeBlob(c.bytes)) });
    else out.push({ name: c.name, sha256: '', size: 0, reason: c.reason ?? 'could not be taken out of the file' });
  }
  return out;
}

process.on('message', (msg: WorkerRequest) => {
  if (msg.type === 'cancel') running.get(msg.id)?.abort();
  else if (msg.type === 'parse') void handleParse(msg);
});
// The app went away (closed or killed): nothing is waiting for this reader any more.
process.on('disconnect', () => process.exit(0));
// The same, checked from a thread of its own: this thread may be busy in one long step (a page,
// a stream) when the app dies, with no watchdog left to stop it.
const orphanWatch = new Worker(
  `const { workerData } = require('node:worker_threads');
   setInterval(() => {
     let alive = true;
     try { process.kill(workerData.ppid, 0); } catch (err) { alive = err.code === 'EPERM'; }
     if (!alive || process.ppid !== workerData.ppid) process.kill(workerData.pid, 'SIGKILL');
   }, 500);`,
  { eval: true, execArgv: [], workerData: { ppid: process.ppid, pid: process.pid } },
);
orphanWatch.unref();
