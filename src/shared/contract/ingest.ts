import { z } from 'zod';
import { CaseId } from './common';
import { op } from './op';

/** Where a file version stands. `unchanged` appears only in ingest results (same bytes as before). */
export type IngestFileStatus =
  | 'queued'
  | 'parsing'
  | 'embedding'
  | 'indexed'
  | 'unchanged'
  | 'needs_ocr'
  | 'unsupported'
  | 'failed'
  | 'cancelled';

export type IngestStage = 'hashing' | 'parsing' | 'chunking' | 'embedding' | 'indexing';

export type DocTypeName = 'contract' | 'medical_record' | 'police_report' | 'correspondence' | 'pleading' | 'deposition' | 'invoice' | 'other';

/** One file's outcome in an ingest run (CLI `ingest --json` prints these as `results`). */
export interface IngestResultItem {
  fileId: string;
  name: string;
  version: number;
  status: IngestFileStatus;
  reason: string;
}

export interface IngestRunResult {
  jobId: string;
  caseId: string;
  /** `cancelled` when the run was cancelled before every file finished. */
  state: 'done' | 'cancelled';
  results: IngestResultItem[];
  /** Dropped paths not taken (links leaving the folder, unreadable folders, missing paths). */
  skipped: { path: string; reason: string }[];
}

/** A running ingest's handle (ingest.start with `wait: false`). */
export interface IngestJobHandle {
  jobId: string;
  caseId: string;
  state: 'running';
}

export interface IngestProgress {
  caseId: string;
  jobId: string;
  state: 'running' | 'done' | 'cancelled';
  filesDone: number;
  filesTotal: number;
  pagesDone: number;
  /** Pages known so far (grows as files are opened). */
  pagesTotal: number;
  bytesDone: number;
  bytesTotal: number;
  /** Files being worked on now, with their stage. */
  current: { name: string; stage: IngestStage }[];
  /** Files that failed so far. */
  errors: number;
  /** Seconds left (estimate from bytes processed so far); null until it can be estimated. */
  etaSeconds: number | null;
  elapsedSeconds: number;
}

/** One version of a file, as listed. */
export interface FileVersionInfo {
  version: number;
  sha256: string;
  size: number;
  kind: 'pdf' | 'docx' | 'text' | 'unknown';
  pages: number;
  status: IngestFileStatus;
  reason: string;
  doc_type: DocTypeName;
  doc_date: string;
  ingested_at: string;
  empty_pages: number[];
  chunks: number;
}

/** A file of a case: `name` is its path inside the dropped folder; the last version is the latest. */
export interface FileInfo {
  id: string;
  name: string;
  /** Latest version number. */
  version: number;
  versions: FileVersionInfo[];
  /** Doc type of the latest version (user override wins). */
  type: DocTypeName;
  pages: number;
  status: IngestFileStatus;
  reason: string;
  /** ISO date of the document ('' when none was found). */
  date: string;
  size: number;
}

/** A document version's text for the source viewer (DOCX also as HTML). */
export interface FileContent {
  fileId: string;
  name: string;
  version: number;
  kind: 'pdf' | 'docx' | 'text';
  text: string;
  html: string | null;
  /** Character range [start, end) of each page in `text`. */
  pages: { page: number; start: number; end: number }[];
}

const FileId = z.string({ error: 'fileId is required' }).regex(/^[A-Za-z0-9_-]{1,64}$/, 'fileId must be a file id');
const Version = z.number({ error: 'version must be a number' }).int('version must be a whole number').positive('version must be 1 or more');

export const ingestContract = {
  'ingest.start': op<IngestRunResult | IngestJobHandle>()(
    z
      .object({
        caseId: CaseId,
        paths: z.array(z.string().min(1, 'paths must not contain empty strings'), { error: 'paths must be a list of file or folder paths' }).min(1, 'paths must name at least one file or folder'),
        /** true (default): resolve when the run ends, with per-file results; false: return a handle at once and follow events. */
        wait: z.boolean().optional(),
      })
      .strict(),
    'Ingest files and folders into a case (recursively); resumes unfinished work of the case first.',
  ),
  'ingest.cancel': op<{ caseId: string; cancelled: boolean }>()(
    z.object({ caseId: CaseId }).strict(),
    'Cancel the running ingest of a case; unfinished files are marked cancelled and can be resumed.',
  ),
  'ingest.resume': op<{ resumed: IngestRunResult[] }>()(
    z.object({ caseId: CaseId.optional() }).strict(),
    'Finish interrupted or cancelled ingests (of one case, or of every case).',
  ),
  'ingest.status': op<{ progress: IngestProgress | null; pending: number }>()(
    z.object({ caseId: CaseId }).strict(),
    'Progress of the running ingest of a case (null when idle) and how many file versions wait to be finished.',
  ),
  'files.list': op<{ files: FileInfo[] }>()(z.object({ caseId: CaseId }).strict(), 'Files of a case with all their versions.'),
  'files.remove': op<{ removed: { fileId: string; versions: number[] } }>()(
    z.object({ caseId: CaseId, fileId: FileId, version: Version.optional() }).strict(),
    'Remove a file (every version, or one) with its chunks and index entries.',
  ),
  'files.setType': op<{ file: FileInfo }>()(
    z
      .object({
        caseId: CaseId,
        fileId: FileId,
        type: z.enum(['contract', 'medical_record', 'police_report', 'correspondence', 'pleading', 'deposition', 'invoice', 'other'], { error: 'type must be one of contract, medical_record, police_report, correspondence, pleading, deposition, invoice, other' }).nullable(),
      })
      .strict(),
    "Override a file's document type (null: back to the detected one); its chunks are re-indexed with it.",
  ),
  'files.read': op<FileContent>()(
    z.object({ caseId: CaseId, fileId: FileId, version: Version.optional() }).strict(),
    "A version's text (and DOCX HTML) for the source viewer; latest version by default.",
  ),
};

/** A file's status changed during an ingest (event `ingest.file`). */
export interface IngestFileEvent {
  caseId: string;
  jobId: string;
  fileId: string;
  name: string;
  version: number;
  status: IngestFileStatus;
  reason: string;
  /** Set while the file is being worked on. */
  stage?: IngestStage;
  pages?: number;
}
