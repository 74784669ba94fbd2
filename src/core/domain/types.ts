/**
 * Records shared by ingest (which writes them) and the index / tools / citations (which read
 * them). Character offsets are UTF-16 code-unit offsets into the document text of one version.
 */

import type { DocTypeName, EmailInfo, IngestFileStatus } from '../../shared/contract/ingest';

export type FileKind = 'pdf' | 'docx' | 'text';

/** The contract's names are the single source; the core uses them under its own names. */
export type FileStatus = Exclude<IngestFileStatus, 'indexing'>;
export type DocType = DocTypeName;

/** One chunk as stored in the case's LanceDB `chunks` table (plus `vector` when embeddings are on). */
export interface ChunkRecord {
  /** `<file name>@v<version>#<index>` */
  chunk_id: string;
  file_id: string;
  file_name: string;
  version: number;
  /** True for the newest version of its file; retrieval filters on it by default. */
  is_latest: boolean;
  chunk_index: number;
  /** Character range [start, end) in the document text. */
  start: number;
  end: number;
  page_start: number;
  page_end: number;
  text: string;
  /**
   * The document's title and the section path at the chunk's start (text/structure.ts): searched
   * as its own weighted field and embedded with the text. '' in a case indexed before contexts.
   */
  context: string;
  /** sha256 of the chunk text (hex), for de-duplication and rejection sets. */
  hash: string;
  doc_type: DocType;
  /** ISO date (YYYY-MM-DD) or '' when none was found. */
  doc_date: string;
}

/** Status of a version that no running ingest will change any more. */
export const TERMINAL_STATUSES: readonly FileStatus[] = ['indexed', 'unchanged', 'needs_ocr', 'unsupported', 'failed'];
/** Status of a version an interrupted ingest left unfinished (redone on resume). */
export const PENDING_STATUSES: readonly FileStatus[] = ['queued', 'parsing', 'embedding'];

/** What a file was detected as (magic bytes first, extension second). */
/** What a file is: a readable kind, an image (read as a PDF made of it, by OCR), or not read. */
export type DetectedKind = FileKind | 'image' | 'email' | 'spreadsheet' | 'archive' | 'unknown';

/** One stored version of a file record (files.json). */
export interface VersionRecord {
  version: number;
  sha256: string;
  size: number;
  kind: DetectedKind;
  /** Page count (PDF pages; fixed-size pseudo-pages for DOCX and text); 0 before parsing or when unreadable. */
  pages: number;
  status: FileStatus;
  /** Plain-words reason for failed / unsupported / needs_ocr / cancelled; '' otherwise. */
  reason: string;
  doc_type: DocType;
  /** ISO date (YYYY-MM-DD) or ''. */
  doc_date: string;
  /** ISO timestamp of registration (set again when the version finishes). */
  ingested_at: string;
  /** 1-based pages that carry no text (scanned pages in a partly scanned PDF). */
  empty_pages: number[];
  /** Pages read by OCR and their mean word confidence (0–100); absent when none was. */
  ocr_pages?: { page: number; confidence: number }[];
  /** A password-protected PDF (read only with the password the user gave; see util/passwords.ts). */
  locked?: true;
  /** An email's headers. */
  email?: EmailMeta;
  /** A Word file's tracked changes and comments. */
  annotations?: DocAnnotations;
  /** Where the document is Bates-stamped: its range. */
  bates?: BatesRange;
  /** Where the document is a transcript: its deponent and pages. */
  transcript?: TranscriptInfo;
  /** Number of chunks stored for this version. */
  chunks: number;
}

/** An email's headers (the contract's EmailInfo: the message's own words, `date` in UTC). */
export type EmailMeta = EmailInfo;

/** A Bates-stamped document's first and last numbers ("ACME000101", "ACME000103"). */
export interface BatesRange {
  first: string;
  last: string;
}

/** A transcript as listed: its deponent's last name (null for a hearing) and its printed pages. */
export interface TranscriptInfo {
  deponent: string | null;
  first_page: number;
  last_page: number;
}

/** A Word file's tracked changes and comments, counted: `summary` says it in words. */
export interface DocAnnotations {
  summary: string;
  count: { insertions: number; deletions: number; comments: number };
}

/**
 * A file inside another (an email's attachment, an archive's entry): read through the same
 * pipeline as a file of its own, listed under its container. `reason` instead of `bytes`: it could
 * not be taken out (encrypted in the archive, over a limit), and is listed as failed with it.
 */
export interface ChildFile {
  /** Its path inside the container ("notice.pdf", "production/vol1/0001.pdf"). */
  name: string;
  bytes?: Uint8Array;
  reason?: string;
  /** Already stored as an original of the case (its bytes let go). */
  stored?: { sha256: string; size: number };
}

/** A child file as the reader stored it: its bytes are in the case's blobs under `sha256` ('' with a reason). */
export interface StoredChild {
  name: string;
  sha256: string;
  size: number;
  reason?: string;
}

/** One file of a case: its name is its path relative to the dropped folder, with '/' separators. */
export interface FileRecord {
  id: string;
  name: string;
  versions: VersionRecord[];
  /** User's doc type override (wins over the heuristic); null when none. */
  doc_type_override: DocType | null;
  /** The file this one was taken out of (the email it is attached to, the archive it is in): its id. */
  parent?: string;
  /** The Bates prefix the user gave ("ACME"), or null: the user says it is not Bates-stamped; absent: detected. */
  bates_prefix?: string | null;
  /** When the followed folder it came from lost it (ISO time): the stored copy is kept, the list says so. Absent while it is there. */
  source_removed?: string;
}

/** files.json of a case. */
export interface FileManifest {
  schemaVersion: 1;
  files: FileRecord[];
}

/**
 * Geometry of one PDF page, compact: `items` is a flat list of ITEM_STRIDE numbers per text item:
 * [start, length, a, b, c, d, e, f, width, height, font] — start/length is the item's character range in
 * the document text, a..f its pdf.js transform (PDF user space), width/height its size, font an index
 * into `fonts` ([ascent, descent, vertical 0|1]).
 */
export interface PageGeometry {
  /** 1-based page number. */
  page: number;
  /** Character range [start, end) of this page in the document text. */
  start: number;
  end: number;
  /** Page view box [x0, y0, x1, y1] in PDF user space, and /Rotate in degrees. */
  view: [number, number, number, number];
  rotate: number;
  /**
   * Per font: [ascent, descent, vertical 0|1, family 0 sans / 1 serif / 2 mono (absent in old data),
   * box ascent, box descent]. ascent/descent are pdf.js's (the font file's extremes); box ascent and
   * descent (em, absent in older data and where the PDF's FontDescriptor could not be read) are the
   * FontDescriptor's, as poppler sizes word boxes — citation boxes use them when present.
   */
  fonts: [number, number, number, number?, number?, number?][];
  items: number[];
  /**
   * Format 2+: per font (same index as `fonts`), the real advance widths (1/1000 em) of the
   * characters that font draws on this page, from the embedded font; 0 where unknown (vertical or
   * equal-width fonts). Absent in format 1 data: positions inside items are then estimated.
   */
  widths?: (Record<string, number> | 0)[];
  /**
   * Format 3+: where the inline model (reader/inline.ts) misplaces a word by more than a fraction
   * of a point — spacing shared out unevenly, as justified lines and TJ adjustments do — the exact
   * offset of that word boundary, from the page's glyph positions: flat triples [item ordinal,
   * character index within the item, offset along the item in user space]. Absent where none is needed.
   */
  stops?: number[];
  /**
   * Format 3+: where words inside an item sit on another base line than the item's, or at another
   * size (pdf.js joins words set a little higher or lower, and small capitals drawn smaller, into
   * one item): flat quadruples [item ordinal, character index, dy, size] — from that character
   * on, the base line is dy above the item's (user space, along the item's up direction) and the
   * text's em is `size`, until the item's next lift. Absent where none is needed.
   */
  lifts?: number[];
  /** Set when the page was read by OCR: its mean word confidence (0–100). */
  ocr?: { confidence: number };
  /**
   * What the unit this pseudo-page belongs to is called where it is cited, in documents whose
   * units are not pages: "Sheet Billing" (a spreadsheet), "Attachment list" (an email). Absent: "p. N".
   */
  label?: string;
  /** The page's Bates number as stamped ("ACME0001234"), where the document is Bates-stamped (text/bates.ts). */
  bates?: string;
}

export interface TranscriptLine {
  /** The line number as printed in the margin (1–28). */
  line: number;
  /** The line's text after its number: [start, end) in the document text (empty for a blank line). */
  start: number;
  end: number;
}

export interface TranscriptPage {
  /** 1-based page of the file (PDF page). */
  page: number;
  /** The transcript's page number as printed. */
  transcriptPage: number;
  lines: TranscriptLine[];
}

export interface TranscriptLayout {
  /** The deponent's last name ("Smith", cited "Smith Dep."), or null (a hearing, or not found). */
  deponent: string | null;
  pages: TranscriptPage[];
}

/** Version of the stored pages.json format: 2 adds `PageGeometry.widths`, 3 adds `PageGeometry.stops` and `lifts`. */
export const PAGES_FORMAT = 3;

export const ITEM_STRIDE = 11;

/** Pages of a version: for PDFs with geometry; DOCX/text pseudo-pages carry only ranges. */
export interface PageIndex {
  kind: FileKind;
  /** Format of this record (absent = 1). */
  format?: number;
  pages: PageGeometry[];
  /** DOCX/text: paragraph ranges [start, end) in the document text. */
  paragraphs?: [number, number][];
  /** A deposition or hearing transcript: its numbered lines per page, cited "Smith Dep. 42:10–17" (text/transcript.ts). */
  transcript?: TranscriptLayout;
  /** The exhibit the document is, where its file name or first line says so ("Exhibit 14"): cited "Exhibit 14, p. 3". */
  exhibit?: string;
  /** A Word file's core properties (docProps/core.xml): its title, where it has one. */
  properties?: { title?: string };
}

/** Chunker settings (per case, `settings.chunking` in case.json). */
export interface ChunkingOptions {
  size: number;
  overlap: number;
  separators: string[];
}

export const DEFAULT_CHUNKING: ChunkingOptions = {
  size: 1000,
  overlap: 150,
  separators: ['\n\n', '\n', '. ', ' ', ''],
};
