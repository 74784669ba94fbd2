import { z } from 'zod';
import { CaseId } from './common';
import { op } from './op';

/** Where a quoted passage lives: enough to open the document at the right words and draw boxes. */
export interface CitationRecord {
  /** Short id, unique within one conversation (e.g. `c7f2qa`). */
  id: string;
  file_id: string;
  file_name: string;
  version: number;
  /** Pages the passage spans (1-based, ascending). */
  pages: number[];
  /** Character range [start, end) in the document text of that version. */
  start: number;
  end: number;
}

export type SearchMode = 'hybrid' | 'keyword' | 'vector';
/** BM25 labels: strong ≥15, good 8–15, partial 3–8, weak 1–3, none below 1. */
export type KeywordLabel = 'strong' | 'good' | 'partial' | 'weak' | 'none';
/** Cosine labels: strong ≥0.5, good 0.35–0.5, marginal 0.2–0.35, noise below 0.2. */
export type VectorLabel = 'strong' | 'good' | 'marginal' | 'noise';
export type QualityLabel = KeywordLabel | VectorLabel;

/** One component's view of a result: its 1-based rank in that component's list, raw score and label. */
export interface ComponentScore<L extends QualityLabel = QualityLabel> {
  rank: number;
  score: number;
  label: L;
}

export interface SearchResult {
  chunk_id: string;
  file_id: string;
  file_name: string;
  version: number;
  chunk_index: number;
  /** [first page, last page] of the chunk. */
  pages: [number, number];
  start: number;
  end: number;
  text: string;
  hash: string;
  doc_type: string;
  doc_date: string;
  /** The score in the mode searched: BM25 (keyword), cosine similarity (vector), RRF (hybrid), reranker (reranked). */
  score: number;
  label: QualityLabel;
  scores: {
    keyword?: ComponentScore<KeywordLabel>;
    vector?: ComponentScore<VectorLabel>;
    rrf?: number;
    rerank?: number;
    /** Hybrid: the cosine of the passage's sentence closest in meaning to the query (the order's second look). */
    sentence?: number;
  };
  citation: CitationRecord;
  /** Where the passage sits in its document's outline, outermost first ("7 Limitation of Liability", "7.2 Cap"); absent when the document has no headings there. */
  section_path?: string[];
  /** The id ("s12") of the section to read for the whole clause (`tools.readSection`): the innermost one, or the section around a short item. */
  section_id?: string;
  /** The document's title from its outline, when it has one. */
  document_title?: string;
  /** Where the passage is, in documents whose units are not pages: "Sheet Billing, rows 14–17", "Email body". */
  place?: string;
}

/** The documents a question named, which the search focused on (`focus: 'off'` searches the whole case). */
export interface SearchFocus {
  files: { file_id: string; file_name: string; title: string }[];
  /** The question's words that named them. */
  matched: string[];
  /** What was searched within them: the question without the words that named them. */
  query: string;
  /** True when the focused documents gave fewer results than asked and the rest of the case filled the list. */
  widened: boolean;
}

export interface SearchResponse {
  results: SearchResult[];
  /** Present when the question named documents and the search focused on them. */
  focus?: SearchFocus;
  mode: SearchMode;
  /** False when vectors could not be used (no model installed, model changed); `semantic_reason` says why. */
  semantic: boolean;
  semantic_reason?: string;
  /**
   * Present while part of the case has no vectors yet (files just added, their vectors on the
   * way): those passages were found by their words only.
   */
  semantic_coverage?: { embedded: number; total: number };
  /** Present when reranking was asked for (`rerank_top_n`): whether it happened; `rerank_reason` says why not. */
  reranked?: boolean;
  rerank_reason?: string;
}

const IsoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'Give the date as year-month-day, such as 2024-01-31.');

/** Filters every search accepts. */
export const SearchFilters = z.object({
  file_name: z.string().min(1).max(1000).optional(),
  file_name_contains: z.string().min(1).max(1000).optional(),
  /** A version number, `latest` (default: latest version of each file) or `all`. */
  file_version: z.union([z.number().int().positive(), z.literal('latest'), z.literal('all')]).optional(),
  doc_type: z.string().min(1).max(64).optional(),
  date_from: IsoDate.optional(),
  date_to: IsoDate.optional(),
  /**
   * `auto` (default): a question that names documents (a party, a title, a contract type, a file
   * name) is searched in those documents first; `off`: the whole case. A file filter turns it off.
   */
  focus: z.enum(['auto', 'off']).optional(),
});
export type SearchFilters = z.infer<typeof SearchFilters>;

export const SearchInput = SearchFilters.extend({
  case_id: CaseId,
  query: z.string({ error: 'query is required' }).trim().min(1, 'Type what to search for.').max(4000),
  mode: z.enum(['hybrid', 'keyword', 'vector']).default('hybrid'),
  k: z.number().int().min(1).max(200).default(10),
  score_threshold: z.number().optional(),
  rerank_top_n: z.number().int().min(1).max(200).optional(),
  /** Chunk hashes the caller has already seen or rejected. */
  reject_hashes: z.array(z.string().max(128)).max(10_000).optional(),
  /** Only these files (ids of the case; an unknown id is refused). */
  file_ids: z
    .array(
      z
        .string()
        .min(1, 'A chosen document has no id; choose the documents again.')
        .max(200, 'A chosen document id is too long; choose the documents again.'),
      { error: 'Choose the documents as a list.' },
    )
    .min(1, 'Choose at least one document.')
    .max(1000, 'file_ids may name at most 1000 documents')
    .optional(),
}).strict();

export interface FileListing {
  id: string;
  name: string;
  version: number;
  versions: number[];
  type: string;
  pages: number;
  status: string;
  reason?: string;
  date: string;
  /** An email's sender and subject. */
  email?: { from: string; subject: string };
  /** The file this one was taken out of (an email it is attached to, an archive it is in): its name. */
  parent?: string;
  /** How many files were taken out of this one. */
  children?: number;
}

export interface FindFilesResult {
  files: FileListing[];
  total: number;
  page: number;
  page_size: number;
}

export interface ReadFileResult {
  file_id: string;
  file_name: string;
  version: number;
  /** The window actually returned: [start, end) in the document text. */
  start: number;
  end: number;
  /** Length of the whole document text. */
  total_length: number;
  pages: number[];
  text: string;
  /** True when the window reaches the end of the document. */
  eof: boolean;
  citation: CitationRecord;
}

/** One section of a document's outline: its heading and the text up to the next heading of the same or a higher level. */
export interface OutlineSection {
  /** Stable within a version: "s1", "s2", … in document order. */
  id: string;
  /** 1 = title, article, exhibit; 2 = section; 3 = subsection; 4 = deeper. */
  level: number;
  /** As printed ("7.2", "IV", "(a)"), or ''. */
  number: string;
  /** The heading's title words, or '' for a bare number. */
  title: string;
  kind: string;
  /** The section's range [start, end) in the document text; the heading line ends at heading_end. */
  start: number;
  end: number;
  heading_end: number;
  pages: number[];
  /** Cites the heading line. */
  citation: CitationRecord;
}

export interface OutlineResult {
  file_id: string;
  file_name: string;
  version: number;
  sections: OutlineSection[];
  /** The document's defined terms ("Licensed Product", "Agreement"), each with its definition's citation. */
  defined_terms?: { term: string; start: number; end: number; pages: number[]; citation: CitationRecord }[];
}

export interface ReadSectionResult extends ReadFileResult {
  section: Pick<OutlineSection, 'id' | 'level' | 'number' | 'title'>;
}

export interface GrepMatch {
  file_id: string;
  file_name: string;
  version: number;
  start: number;
  end: number;
  page: number;
  match: string;
  context: string;
  citation: CitationRecord;
}

export interface GrepFileResult {
  file_id: string;
  file_name: string;
  version: number;
  matches: GrepMatch[];
  /** Matches in the file (may exceed `matches.length` when `limit` cut the list). */
  total: number;
  truncated: boolean;
}

export interface GrepCaseResult {
  files: { file_id: string; file_name: string; version: number; count: number; matches: GrepMatch[] }[];
  total_matches: number;
  coverage: {
    files_searched: number;
    files_with_hits: number;
    not_searchable: { file_name: string; status: string; reason?: string }[];
    /** One line a person can read, e.g. "searched 12 files, 3 with hits; not searchable: scan.pdf (needs OCR)". */
    line: string;
  };
  truncated: boolean;
}

const FileId = z.string({ error: 'file_id is required' }).min(1).max(200);
const Pattern = z.string({ error: 'pattern is required' }).min(1, 'Type what to find.').max(1000);
const Flags = z
  .string()
  .regex(/^[imsu]*$/, 'flags may only contain i, m, s, u')
  .max(4)
  .optional();

export const FindFilesInput = z
  .object({
    case_id: CaseId,
    file_name: z.string().max(1000).optional(),
    file_name_contains: z.string().max(1000).optional(),
    doc_type: z.string().max(64).optional(),
    page: z.number().int().min(1).default(1),
    page_size: z.number().int().min(1).max(500).default(50),
  })
  .strict();

export const ReadFileInput = z
  .object({
    case_id: CaseId,
    file_id: FileId,
    version: z.number().int().positive().optional(),
    offset: z.number().int().min(0).default(0),
    max_length: z.number().int().min(1).max(100_000).default(4000),
  })
  .strict();

export const OutlineInput = z
  .object({
    case_id: CaseId,
    file_id: FileId,
    version: z.number().int().positive().optional(),
  })
  .strict();

export const ReadSectionInput = z
  .object({
    case_id: CaseId,
    file_id: FileId,
    version: z.number().int().positive().optional(),
    /** A section's id from the outline ("s4"), its number ("7.2") or words of its title ("limitation of liability"). */
    section: z.string({ error: 'section is required' }).trim().min(1, 'Name the section to read.').max(200),
    max_length: z.number().int().min(1).max(100_000).default(8000),
  })
  .strict();

export const GrepFileInput = z
  .object({
    case_id: CaseId,
    file_id: FileId,
    version: z.number().int().positive().optional(),
    pattern: Pattern,
    flags: Flags,
    context_chars: z.number().int().min(0).max(2000).default(80),
    limit: z.number().int().min(1).max(1000).default(50),
  })
  .strict();

export const GrepCaseInput = z
  .object({
    case_id: CaseId,
    pattern: Pattern,
    flags: Flags,
    file_name_contains: z.string().max(1000).optional(),
    doc_type: z.string().max(64).optional(),
    context_chars: z.number().int().min(0).max(2000).default(80),
    limit_per_file: z.number().int().min(1).max(200).default(5),
    limit: z.number().int().min(1).max(5000).default(200),
  })
  .strict();

const IsoDay = z.string().regex(/^\d{4}(-\d{2}(-\d{2})?)?$/, 'dates are written YYYY-MM-DD (or YYYY-MM, YYYY)');

export const TimelineInput = z
  .object({
    case_id: CaseId,
    /** Events on or after this day (YYYY, YYYY-MM or YYYY-MM-DD). */
    from: IsoDay.optional(),
    /** Events on or before this day (a month or year: to its end). */
    to: IsoDay.optional(),
    /** Words every listed event's sentence holds (any order, case aside). */
    query: z.string().trim().max(500).optional(),
    /** Only this document (its name, or words of it). */
    file_name: z.string().max(1000).optional(),
    /** Only events that name this person or organisation (words of the name). */
    person: z.string().trim().max(200).optional(),
    /** Only events of documents of this type (contract, correspondence, medical_record…). */
    doc_type: z.string().max(64).optional(),
    /** Only events marked so. */
    mark: z
      .enum(['key', 'disputed', 'irrelevant'], { error: 'Mark the event as key, disputed or irrelevant.' })
      .optional(),
    limit: z.number().int().min(1).max(5000).default(200),
  })
  .strict();

export const TimelineMarkInput = z
  .object({
    case_id: CaseId,
    /** The event's `key` (from tools.timeline). */
    key: z
      .string({ error: 'key is required' })
      .regex(/^[A-Za-z0-9_-]{1,64}@v\d+:\d+-\d+$/, 'key must be an event key from the chronology'),
    /** key / disputed / irrelevant; null clears it; absent leaves it. */
    mark: z.enum(['key', 'disputed', 'irrelevant']).nullable().optional(),
    /** The note (replaces the one before; '' clears it); absent leaves it. */
    note: z.string().max(4000).optional(),
  })
  .strict();

/** One dated event of the chronology, cited. */
export interface TimelineEvent {
  /** YYYY-MM-DD; with `precision` month or year, the first day of it. */
  date: string;
  date_end?: string;
  precision: 'day' | 'month' | 'year';
  /** A day and month that could be read either way round ("03/04/2020"). */
  ambiguous?: true;
  /** The words that gave the date. */
  date_text: string;
  /** The sentence. */
  text: string;
  /** The event in a short line (at most 160 characters): the sentence without citations, descriptions of parties and its opening date. */
  line: string;
  /**
   * A relative date ("Three days later"): counted from the anchor the text gives (`computed`), or,
   * where the text gives no count ("less than one month later"), no date of its own: `date` is then
   * its anchor's, so it is listed with it.
   */
  relative?: { text: string; anchor: string; anchor_date: string; computed: boolean };
  people: string[];
  file_id: string;
  file_name: string;
  /** The document's short name, as citations give it ("Gildernew v. Gantner"), when it has one. */
  title?: string;
  version: number;
  doc_type: string;
  pages: number[];
  start: number;
  end: number;
  citation: CitationRecord;
  /** Where it is in a document of named units ("Sheet Billing, row 3"). */
  place?: string;
  /** The event's key: its document version and character range (marks and notes are kept by it). */
  key: string;
  /** What the lawyer marked it, and their note. */
  mark?: 'key' | 'disputed' | 'irrelevant';
  note?: string;
}

export interface TimelineResult {
  /** In date order (a day before the month or year that holds it); ties in document order. */
  events: TimelineEvent[];
  /** Events that matched, before `limit`. */
  total: number;
  coverage: {
    /** Readable documents looked at, and how many have dated events. */
    documents: number;
    with_events: number;
    /** Documents whose text could not be read (their dates are not in the chronology). */
    not_readable: { file_name: string; status: string; reason?: string }[];
    /** One line a person can read. */
    line: string;
  };
}

export const TimelineExportInput = TimelineInput.extend({
  format: z.enum(['csv', 'docx'], { error: 'Export as csv or docx (Word).' }),
  /** An export holds every event that matches, up to this many. */
  limit: z.number().int().min(1).max(5000).default(5000),
}).strict();

/** The chronology as a file: CSV text, or a Word document in base64. */
export interface TimelineExport {
  format: 'csv' | 'docx';
  filename: string;
  csv?: string;
  docx_base64?: string;
  events: number;
}

export const ReembedInput = z
  .object({
    case_id: CaseId,
    /** An installed embedding model id; default: the default embedding model. */
    model_id: z.string().min(1).max(200).optional(),
  })
  .strict();

export const searchContract = {
  'index.reembed': op<{ model_id: string; dimension: number; chunks: number }>()(
    ReembedInput,
    'Re-embed every chunk of a case with another embedding model (turns semantic search on for a case indexed without one).',
  ),
  search: op<SearchResponse>()(SearchInput, 'Search one case: keyword (BM25), vector (cosine) or hybrid (RRF).'),
  'tools.findFiles': op<FindFilesResult>()(FindFilesInput, 'List the files of a case, filtered and paginated.'),
  'tools.readFile': op<ReadFileResult>()(
    ReadFileInput,
    'Read a window of a document’s text (latest version by default).',
  ),
  'tools.grepFile': op<GrepFileResult>()(GrepFileInput, 'Regular-expression search in one document.'),
  'tools.outline': op<OutlineResult>()(
    OutlineInput,
    'A document’s outline: its headings and sections, each with pages and a citation.',
  ),
  'tools.readSection': op<ReadSectionResult>()(
    ReadSectionInput,
    'Read one section of a document (by outline id, number or title), with a citation.',
  ),
  'tools.grepCase': op<GrepCaseResult>()(
    GrepCaseInput,
    'Regular-expression search over every readable file of a case.',
  ),
  'tools.timeline': op<TimelineResult>()(
    TimelineInput,
    'The case’s dated events (its chronology), filtered, each cited to its sentence.',
  ),
  'tools.timelineMark': op<{ key: string; mark: 'key' | 'disputed' | 'irrelevant' | null; note: string }>()(
    TimelineMarkInput,
    'Mark one event of the chronology key, disputed or irrelevant, and keep a note on it.',
  ),
  'tools.timelineExport': op<TimelineExport>()(
    TimelineExportInput,
    'The chronology, filtered, as CSV or as a Word table with pin cites.',
  ),
};
