/**
 * Records shared by ingest (which writes them) and the index / tools / citations (which read
 * them). Character offsets are UTF-16 code-unit offsets into the document text of one version.
 */

export type FileKind = 'pdf' | 'docx' | 'text';

export type FileStatus =
  | 'queued'
  | 'parsing'
  | 'embedding'
  | 'indexed'
  | 'unchanged'
  | 'needs_ocr'
  | 'unsupported'
  | 'failed'
  | 'cancelled';

export type DocType =
  | 'contract'
  | 'medical_record'
  | 'police_report'
  | 'correspondence'
  | 'pleading'
  | 'deposition'
  | 'invoice'
  | 'other';

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
  /** sha256 of the chunk text (hex), for de-duplication and rejection sets. */
  hash: string;
  doc_type: DocType;
  /** ISO date (YYYY-MM-DD) or '' when none was found. */
  doc_date: string;
}
