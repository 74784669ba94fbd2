import { z } from 'zod';
import { CaseId } from './common';
import { op } from './op';

/**
 * A case's passages made searchable by meaning in the background, after an embedding model became
 * available (the default one, an import, another model for the case) or the case asked for it.
 */
export interface IndexVectorsStatus {
  case_id: string;
  /**
   * `needed`: passages wait for vectors and nothing makes them yet; `waiting`: queued behind other
   * cases; `running`; `done`: every passage has its vector; `none`: nothing to do, or no embedding
   * model is installed; `failed`: stopped, `problem` says why (tried again later).
   */
  state: 'needed' | 'waiting' | 'running' | 'done' | 'none' | 'failed';
  /** The case's latest passages with a vector, and all of them. */
  embedded: number;
  total: number;
  /** The model the vectors come from; null when none is installed. */
  model_id: string | null;
  problem?: string;
}

/**
 * Where a file version stands. `unchanged` appears only in ingest results (same bytes as before),
 * and so does `skipped` (a link out of the dropped folder, a pipe or device: never read);
 * `indexing` only in `files.list` while a run writes the version's chunks to the index.
 */
export type IngestFileStatus =
  | 'queued'
  | 'parsing'
  | 'embedding'
  | 'indexing'
  | 'indexed'
  | 'unchanged'
  | 'needs_ocr'
  | 'unsupported'
  | 'failed'
  | 'cancelled'
  | 'skipped';

export type IngestStage = 'hashing' | 'parsing' | 'chunking' | 'embedding' | 'indexing';

/** `opinion` and `order`: a court's own paper (its caption read by text/caption.ts); `pleading`: a party's filing. */
export type DocTypeName =
  | 'contract'
  | 'medical_record'
  | 'police_report'
  | 'correspondence'
  | 'pleading'
  | 'opinion'
  | 'order'
  | 'deposition'
  | 'invoice'
  | 'other';

/** One file's outcome in an ingest run (CLI `ingest --json` prints these as `results`). */
/**
 * What a protected PDF says when no password was given. Each shell adds how to give one (the app
 * its "Enter password…" button, the CLI `casefile unlock`).
 */
export const LOCKED_REASON = 'password protected — enter its password, or ask the sender for an unlocked copy';

export interface IngestResultItem {
  file_id: string;
  name: string;
  version: number;
  status: IngestFileStatus;
  reason: string;
}

export interface IngestRunResult {
  job_id: string;
  case_id: string;
  /** `cancelled` when the run was cancelled before every file finished. */
  state: 'done' | 'cancelled';
  results: IngestResultItem[];
  /** Dropped paths not taken (links leaving the folder, pipes, unreadable folders, missing paths); also in `results` as `skipped`. */
  skipped: { path: string; name: string; reason: string }[];
  /** A case on the firm's object storage whose new originals could not be copied there this run: why, in plain words. */
  originals_error?: string;
}

/** A running ingest's handle (ingest.start with `wait: false`). */
export interface IngestJobHandle {
  job_id: string;
  case_id: string;
  state: 'running';
  /** True when the run waits its turn behind another run of the case that is working now. */
  queued?: boolean;
}

/** A file being worked on now, with how far its current stage is. */
export interface IngestCurrentFile {
  name: string;
  /** Null while the file is being hashed (before it is registered). */
  file_id: string | null;
  version: number | null;
  stage: IngestStage;
  /**
   * Units of the current stage done and in all: pages while parsing (known once pdf.js has opened
   * the file), chunks while embedding; null for stages without a count (hashing, chunking, indexing).
   */
  done: number | null;
  total: number | null;
  /** done / total (0–1), null when the stage has no count. */
  fraction: number | null;
  /** Page count of the file once known, else null. */
  pages: number | null;
  /** Seconds left in the current stage, from its rate so far; null until that is meaningful. */
  eta_seconds: number | null;
  /** While parsing: the page being read by OCR now ("OCR page 3 of 5", of `pages`); absent otherwise. */
  ocr_page?: number;
}

export interface IngestProgress {
  case_id: string;
  job_id: string;
  state: 'running' | 'done' | 'cancelled';
  files_done: number;
  files_total: number;
  pages_done: number;
  /**
   * Pages of the run: exact for files already opened or finished; while `pages_estimated` is true
   * it adds an estimate for files not opened yet (their bytes at the pages-per-byte seen so far).
   */
  pages_total: number;
  /** True while some files' page counts are not known yet (pages_total is then partly an estimate). */
  pages_estimated: boolean;
  bytes_done: number;
  bytes_total: number;
  /** Files being worked on now, with their stage and its progress. */
  current: IngestCurrentFile[];
  /** Files that failed so far. */
  errors: number;
  /** Seconds left (estimate from bytes processed so far); null until it can be estimated. */
  eta_seconds: number | null;
  elapsed_seconds: number;
  /** What was added to the case while this run works (file or folder names), queued to run after it. */
  waiting: string[];
  /**
   * Set while this run waits for another Casefile process that is adding files to the case (a
   * drop whose caller does not wait: the app, the served page); it starts once that process is
   * done. `message` is the sentence to show; `pid` the other process (0 when it could not be told).
   */
  blocked_by?: { pid: number; message: string };
  /**
   * Semantic search coverage of the case: its latest passages with vectors, of all. A file is
   * keyword-searchable once parsed; its vectors follow ("semantic search 38% (2,880 of 7,560
   * passages)"). Absent until the run's embedding stage reports, and for a case without an
   * embedding model.
   */
  semantic?: { embedded: number; total: number };
}

/** What `index.reindex` did. */
export interface ReindexResult {
  case_id: string;
  /** Document versions chunked and indexed again. */
  versions: number;
  /** Chunks those versions hold now. */
  chunks: number;
  /** Readable versions that were already current (left as they were). */
  current: number;
}

/** One version of a file, as listed. */
export interface FileVersionInfo {
  version: number;
  sha256: string;
  size: number;
  /**
   * `image`: a photo or scan (PNG, JPEG, TIFF, WebP…), read by OCR and shown as pages like a PDF.
   * `email`: an .eml or Outlook .msg (its attachments are files of their own); `spreadsheet`: .xlsx,
   * .xls, .ods or .csv, a sheet a unit; `archive`: a .zip, its files listed under it. `text` also
   * covers what is read as text: .doc, RTF, web pages.
   */
  kind: 'pdf' | 'docx' | 'text' | 'image' | 'email' | 'spreadsheet' | 'archive' | 'unknown';
  pages: number;
  status: IngestFileStatus;
  reason: string;
  doc_type: DocTypeName;
  doc_date: string;
  ingested_at: string;
  empty_pages: number[];
  /** Pages read by OCR and their mean word confidence (0–100); absent when none was. */
  ocr_pages?: { page: number; confidence: number }[];
  /** An email's headers. */
  email?: EmailInfo;
  /** A Word file's tracked changes and comments: `summary` in words ("12 tracked changes by Opposing Counsel, 3 comments"). */
  annotations?: { summary: string; count: { insertions: number; deletions: number; comments: number } };
  /** Where its pages are Bates-stamped: the first and last numbers ("ACME000101", "ACME000103"). */
  bates?: { first: string; last: string };
  /** A deposition or hearing transcript: the deponent's last name (null for a hearing) and its printed pages. */
  transcript?: { deponent: string | null; first_page: number; last_page: number };
  chunks: number;
  /**
   * A password-protected PDF: `needs_password` until `files.unlock` is given its password (then
   * it is read), `unlocked` while this engine has the password to show its pages. Absent otherwise.
   */
  locked?: 'needs_password' | 'unlocked';
}

/** An email's headers as the message gives them (`date` in UTC, `iso_date` its day). */
export interface EmailInfo {
  from: string;
  to: string;
  cc: string;
  date: string;
  iso_date: string;
  subject: string;
  /** The names of its attachments, as listed under it. */
  attachments: string[];
}

/**
 * A file of a case: `name` is its path inside the dropped folder; the last version is the latest.
 * A file taken out of another (an email's attachment, an archive's file) is named under it
 * ("mail/notice.eml/contract.pdf") and says so in `parent`; its container counts it in `children`.
 */
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
  /** The latest version's `locked` (see FileVersionInfo). */
  locked?: 'needs_password' | 'unlocked';
  /** The latest version's kind (see FileVersionInfo). */
  kind: FileVersionInfo['kind'];
  /** The latest version's email headers, for an email. */
  email?: EmailInfo;
  /** The file this one was taken out of (the email it is attached to, the archive it is in). */
  parent?: { id: string; name: string; subject?: string; date?: string };
  /** How many files were taken out of this one (attachments, archive files); absent when none. */
  children?: number;
  /** When the file was deleted from the folder the case follows (ISO time): the stored copy is kept. Absent while it is there. */
  source_removed?: string;
  /** Only while a run works on the latest version: its live stage and that stage's fraction (null: no count). */
  live?: { stage: IngestStage; fraction: number | null };
  /**
   * Only while the latest version's passages still wait for their vectors (found by their words
   * meanwhile): how many of them have one. Absent once all have, and in a case without an embedding model.
   */
  semantic?: { embedded: number; total: number };
  /**
   * The document's title as a user names it: an email's subject, a court paper's case name
   * ("Gildernew v. Gantner"), a contract's title with its parties ("Exclusive Distributor Agreement —
   * Water Now / Hydraspin"), from its outline ("MARKETING AGREEMENT"), else the file name made
   * readable (text/profile.ts). Optional: older engines do not send it.
   */
  title?: string;
  /** The name to cite it by ("Gildernew v. Gantner"; a contract's title without its parties). Optional, as `title`. */
  short_name?: string;
  /** A court's opinion or order: its court, docket number and date decided (YYYY-MM-DD), as its caption gives them. */
  court?: string;
  docket?: string;
  decided?: string;
}

/** What `files.unlock` did. */
export interface UnlockResult {
  file_id: string;
  name: string;
  /** True when the file was read again with the password (it had not been read); false when it only shows its pages now. */
  reread: boolean;
  /** The run that read it (a handle with `wait: false`); null when it was not read again. */
  run: IngestRunResult | IngestJobHandle | null;
}

/** A document version's text for the source viewer (DOCX also as HTML). */
export interface FileContent {
  file_id: string;
  name: string;
  version: number;
  kind: 'pdf' | 'docx' | 'text';
  text: string;
  html: string | null;
  /** Character range [start, end) of each page in `text`. */
  pages: { page: number; start: number; end: number }[];
}

const FileId = z.string({ error: 'file_id is required' }).regex(/^[A-Za-z0-9_-]{1,64}$/, 'file_id must be a file id');
const Version = z
  .number({ error: 'A version is a whole number, 1 or more.' })
  .int('A version is a whole number, 1 or more.')
  .positive('A version is a whole number, 1 or more.');

export const ingestContract = {
  'ingest.start': op<IngestRunResult | IngestJobHandle>()(
    z
      .object({
        case_id: CaseId,
        paths: z
          .array(z.string().min(1, 'A file or folder path is empty; choose the files again.'), {
            error: 'Give the files and folders to add as a list of paths.',
          })
          .min(1, 'Choose at least one file or folder to add.'),
        /** true (default): resolve when the run ends, with per-file results; false: return a handle at once and follow events. */
        wait: z.boolean().optional(),
        /**
         * true: the run ends once every file is searchable by its words (parsed and in the
         * full-text index); their vectors are made by the case's next run. Default: both stages.
         */
        searchable: z.boolean().optional(),
      })
      .strict(),
    'Ingest files and folders into a case (recursively); resumes unfinished work of the case first.',
  ),
  'ingest.cancel': op<{ case_id: string; cancelled: boolean }>()(
    z.object({ case_id: CaseId }).strict(),
    'Cancel the running ingest of a case; unfinished files are marked cancelled and can be resumed.',
  ),
  'ingest.resume': op<{ resumed: IngestRunResult[] }>()(
    z.object({ case_id: CaseId.optional() }).strict(),
    'Finish interrupted or cancelled ingests (of one case, or of every case).',
  ),
  'ingest.status': op<{ progress: IngestProgress | null; pending: number }>()(
    z.object({ case_id: CaseId }).strict(),
    'Progress of the running ingest of a case (null when idle) and how many file versions wait to be finished.',
  ),
  'index.reindex': op<ReindexResult>()(
    z
      .object({
        case_id: CaseId,
        /** true: every readable version; default: only versions indexed before the current chunking (contexts, structure). */
        all: z.boolean().optional(),
      })
      .strict(),
    "Upgrade a case's index to the current chunking (outline, structure-aware chunks with contexts) from its stored text, without reading the files again; resumable, progress as index.progress events.",
  ),
  'index.vectors': op<IndexVectorsStatus>()(
    z.object({ case_id: CaseId }).strict(),
    "How far a case's passages are searchable by meaning: whether some wait for their vectors, and the background catch-up's progress.",
  ),
  'index.catchUp': op<IndexVectorsStatus>()(
    z.object({ case_id: CaseId }).strict(),
    "Make a case's passages that wait for their vectors searchable by meaning now, in the background, before other cases; progress as index.vectors events.",
  ),
  'files.list': op<{ files: FileInfo[] }>()(
    z.object({ case_id: CaseId }).strict(),
    'Files of a case with all their versions.',
  ),
  'files.remove': op<{ removed: { file_id: string; versions: number[] } }>()(
    z.object({ case_id: CaseId, file_id: FileId, version: Version.optional() }).strict(),
    'Remove a file (every version, or one) with its chunks and index entries.',
  ),
  'files.setBates': op<{ file: FileInfo }>()(
    z
      .object({
        case_id: CaseId,
        file_id: FileId,
        prefix: z
          .string({ error: 'Give the Bates prefix as text, or clear it.' })
          .trim()
          .min(2, 'A Bates prefix has at least 2 characters, such as ACME.')
          .max(40, 'A Bates prefix has at most 40 characters.')
          .regex(
            /^[A-Za-z][A-Za-z0-9 _-]*$/,
            'A Bates prefix starts with a letter and holds only letters, digits, spaces, - or _.',
          )
          .nullable(),
      })
      .strict(),
    'Say which Bates prefix a document is stamped with (its pages are marked again from their text, without reading the file again), or null: it is not Bates-stamped.',
  ),
  'files.setType': op<{ file: FileInfo }>()(
    z
      .object({
        case_id: CaseId,
        file_id: FileId,
        type: z
          .enum(
            [
              'contract',
              'medical_record',
              'police_report',
              'correspondence',
              'pleading',
              'opinion',
              'order',
              'deposition',
              'invoice',
              'other',
            ],
            {
              error:
                'The document type is one of contract, medical_record, police_report, correspondence, pleading, opinion, order, deposition, invoice or other.',
            },
          )
          .nullable(),
      })
      .strict(),
    "Override a file's document type (null: back to the detected one); its chunks are re-indexed with it.",
  ),
  'files.retry': op<IngestRunResult | IngestJobHandle>()(
    z.object({ case_id: CaseId, file_id: FileId, wait: z.boolean().optional() }).strict(),
    'Read a failed (or set-aside) file again, by hand: its latest version is queued and an ingest run finishes it.',
  ),
  'files.unlock': op<UnlockResult>()(
    z
      .object({
        case_id: CaseId,
        file_id: FileId,
        password: z
          .string({ error: 'password is required' })
          .min(1, 'Enter the password.')
          .max(1024, 'That password is too long (at most 1,024 characters).'),
        wait: z.boolean().optional(),
      })
      .strict(),
    'Open a password-protected PDF with its password: read it if it was not, and show its pages. The password is checked first (a wrong one is refused), kept in memory (or the system keychain in the desktop app), never written in plain text; the stored original is unchanged.',
  ),
  'files.read': op<FileContent>()(
    z.object({ case_id: CaseId, file_id: FileId, version: Version.optional() }).strict(),
    "A version's text (and DOCX HTML) for the source viewer; latest version by default.",
  ),
};

/** A file's status changed during an ingest (event `ingest.file`). */
export interface IngestFileEvent {
  case_id: string;
  job_id: string;
  file_id: string;
  name: string;
  version: number;
  status: IngestFileStatus;
  reason: string;
  /** Set while the file is being worked on. */
  stage?: IngestStage;
  pages?: number;
}
