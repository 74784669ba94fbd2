import type { IngestLimits, ChunkingOptions, ChunkRecord, StoredChild } from '../domain/index';
import type { ParseOutcome } from './parse';

/** Main → worker: parse, chunk and store one file version. */
export interface ParseTask {
  type: 'parse';
  id: number;
  caseDir: string;
  blobPath: string;
  name: string;
  fileId: string;
  version: number;
  isLatest: boolean;
  maxBytes: number;
  /** Limits the reader checks itself (pages, decoded bytes, image pixels, DOCX expansion). */
  limits?: Partial<IngestLimits>;
  chunking: ChunkingOptions;
  standardFontDataUrl?: string;
  /** Read pages without a text layer by OCR, in this language, keeping each page read in `cacheDir` until the file is done. */
  ocr?: { language: string; cacheDir: string };
  /** The password of a protected PDF (in memory only). */
  password?: string;
  /** The case reads numeric dates day first (03/04/2020 = 3 April) for the chronology. */
  dayFirst?: boolean;
  /** The file's Bates prefix as the user gave it (null: not stamped); absent: detected. */
  batesPrefix?: string | null;
}

export interface CancelTask {
  type: 'cancel';
  id: number;
}

export type WorkerRequest = ParseTask | CancelTask;

/**
 * What the worker learned about the version (artifacts are already on disk when it reports); the
 * files inside it (attachments, archive entries) are stored originals by then, listed by hash.
 */
export type ParseSummary = Omit<ParseOutcome, 'doc' | 'children'> & { children?: StoredChild[] };

export type WorkerResponse =
  /** The reader has loaded and begins the task: its time limits count from here, not from its start-up. */
  | { type: 'started'; id: number }
  | { type: 'page'; id: number; done: number; total: number }
  /** Page `page` of `total` starts being read by OCR. */
  | { type: 'ocr'; id: number; page: number; total: number }
  | { type: 'stage'; id: number; stage: 'chunking' }
  /** `rss`: the reader's resident bytes once the file is done, for the pool to replace a reader that kept its peak. */
  | { type: 'done'; id: number; summary: ParseSummary; chunks: ChunkRecord[]; rss?: number }
  | { type: 'cancelled'; id: number }
  | { type: 'error'; id: number; message: string };
