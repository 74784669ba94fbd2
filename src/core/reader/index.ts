/**
 * The reader: the process that turns a file's bytes into text, a page index and the files
 * inside it (worker.ts → parse.ts), behind guards against hostile PDFs and archives, with each
 * format's loader in formats/. The pool that starts it (ingest/pool.ts) finds worker.ts by path
 * and speaks worker-protocol.ts. Others use the page model it shares: an image as a PDF
 * (images.ts) and where each glyph of a line stands (inline.ts).
 */
export { imageToPdf } from './images';
export { inlineModel, inlineOffset, type Stop } from './inline';
export type { ParseSummary, ParseTask, WorkerRequest, WorkerResponse } from './worker-protocol';
