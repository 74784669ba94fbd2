import type {
  CitationRecord,
  FindFilesResult,
  TimelineResult,
  GrepCaseResult,
  GrepFileResult,
  GrepMatch,
  OutlineResult,
  ReadFileResult,
  ReadSectionResult,
  SearchFocus,
  SearchResponse,
  SearchResult,
} from '../../shared/contract/search';
import { CasefileError } from '../../shared/errors';
import { parseInput } from '../../shared/validate';
import { CitationLedger, type ChunkRecord } from '../domain/index';
import { searchChunks, type Reranker, type SearchOptions, type SemanticState } from '../retrieval/search';
import { DocumentRouter } from '../retrieval/routing';
import { RELEVANCE, RETRIEVAL_TUNING } from '../retrieval/tuning';
import { factTerms, rareWords } from '../retrieval/relevance';
import { sqlInt, sqlString } from '../retrieval/sql';
import type { ChunkStore } from '../retrieval/store';
import { placeOf, batesRangeQuery, findSection, sectionPath, type Section } from '../text/index';
import { caseTimeline } from './timeline';
import {
  isReadable,
  pageAt,
  pagesOf,
  type DocumentInfo,
  type DocumentSource,
  type DocumentText,
} from './document-source';
import { compileUserRegex, guardedMatchAll } from './regex';
import { chosenFiles, scopedSource } from './scope';
import {
  AdjacentChunksArgs,
  FindFilesArgs,
  TimelineArgs,
  GrepCaseArgs,
  GrepFileArgs,
  OutlineArgs,
  ReadFileArgs,
  ReadSectionArgs,
  RetrieveArgs,
  SingleModeSearchArgs,
} from './schemas';

export interface AdjacentChunk {
  chunk_id: string;
  chunk_index: number;
  file_id: string;
  file_name: string;
  version: number;
  pages: [number, number];
  start: number;
  end: number;
  text: string;
  /** True for the chunk asked about. */
  anchor: boolean;
  citation: CitationRecord;
}

export interface CaseToolsDeps {
  caseId: string;
  store: ChunkStore;
  documents: DocumentSource;
  /** Asked on each search, so a model installed or removed while the case is open is noticed. */
  semantic: () => Promise<SemanticState>;
  reranker?: () => Promise<Reranker | null>;
  ledger?: CitationLedger;
  /** The case's document router, kept while its documents do not change (shared by every ledger's tools). */
  routing?: RouterCache;
  /** Only these files (a question the user limited to documents they chose): see `limitedTo`. */
  scope?: readonly string[];
}

/** One router per set of documents (their ids, versions and statuses). */
interface RouterCache {
  key?: string;
  router?: Promise<DocumentRouter>;
}

/** Text that ends a sentence (or a list item, or a quotation): nothing is cut off after it. */
const SENTENCE_END = /[.;:!?)\]"”’]\s*$/;
/** How far adjacency expansion may extend a passage to finish its sentence. */
const ADJACENT_CHARS = 600;

/** A section shorter than this (an item like "(a)") is read with the section around it. */
const CLAUSE_CHARS = 400;

/** Statuses of a file whose words are not all searchable yet. */
const PENDING = new Set(['queued', 'parsing', 'indexing']);

const STATUS_WORDS: Record<string, string> = {
  needs_ocr: 'needs OCR',
  failed: 'failed',
  unsupported: 'unsupported',
  cancelled: 'cancelled',
  queued: 'not ingested yet',
  parsing: 'still ingesting',
  embedding: 'still ingesting',
};

/**
 * The retrieval tools over exactly one case. Every result carries a citation record issued by the
 * tools' ledger (one ledger per conversation; pass the agent's ledger in to share ids).
 */
export class CaseTools {
  readonly caseId: string;
  readonly ledger: CitationLedger;
  private readonly store: ChunkStore;
  private readonly documents: DocumentSource;
  private readonly semanticState: () => Promise<SemanticState>;
  private readonly rerankerOf: () => Promise<Reranker | null>;
  private readonly routing: RouterCache;
  /** The ids every search is limited to, when the question was limited to chosen documents. */
  readonly scope: readonly string[] | undefined;
  private readonly deps: CaseToolsDeps;

  constructor(deps: CaseToolsDeps) {
    this.deps = deps;
    this.scope = deps.scope;
    this.caseId = deps.caseId;
    this.store = deps.store;
    this.documents = deps.documents;
    this.semanticState = deps.semantic;
    this.rerankerOf = deps.reranker ?? (async () => null);
    this.ledger = deps.ledger ?? new CitationLedger();
    this.routing = deps.routing ?? {};
  }

  /** The same tools with another conversation's ledger (ids are unique within a conversation). */
  withLedger(ledger: CitationLedger): CaseTools {
    return new CaseTools({ ...this.deps, ledger, routing: this.routing });
  }

  /**
   * The same tools limited to the files `fileIds` name (and the files, in the order asked): every
   * listing, search, read, grep and the chronology see only them. An id that is not a file of the
   * case is refused in plain words.
   */
  async limitedTo(fileIds: readonly string[]): Promise<{ tools: CaseTools; files: DocumentInfo[] }> {
    const files = chosenFiles(await this.documents.listFiles(), fileIds);
    const ids = files.map((f) => f.id);
    const tools = new CaseTools({
      ...this.deps,
      ledger: this.ledger,
      routing: {},
      scope: ids,
      documents: scopedSource(this.documents, new Set(ids)),
    });
    return { tools, files };
  }

  async semantic(): Promise<{ semantic: boolean; semantic_reason?: string }> {
    const s = await this.semanticState();
    return s.embedder ? { semantic: true } : { semantic: false, semantic_reason: s.reason };
  }

  /** Every file of the case with its status (the extractive answer's check for a case with nothing searchable). */
  async inventory(): Promise<DocumentInfo[]> {
    return this.documents.listFiles();
  }

  /**
   * What the agent's tool check reads (agent/tool-check.ts): a file's latest text and, when `section`
   * is given, the range of that section; no citation is issued. null when the file is not in reach.
   */
  async plainText(
    fileId: string,
    section?: string,
  ): Promise<{ text: string; section?: { id: string; start: number; end: number } } | null> {
    const file = (await this.documents.listFiles()).find((f) => f.id === fileId);
    const doc = file ? await this.documents.readText(file.id, file.version) : null;
    if (!file || !doc) return null;
    if (section === undefined) return { text: doc.text };
    const s = findSection(await this.documents.readSections(file.id, file.version), section);
    return { text: doc.text, ...(s ? { section: { id: s.id, start: s.start, end: s.end } } : {}) };
  }

  /** The case's dated events in order, filtered, each cited (tools/timeline.ts). */
  async timeline(args: TimelineArgs = {}): Promise<TimelineResult> {
    return caseTimeline(this.documents, this.ledger, args, await this.documents.readMarks());
  }

  async findFiles(args: FindFilesArgs = {}): Promise<FindFilesResult> {
    const a = parseInput(FindFilesArgs, args, 'findFiles arguments');
    const needle = a.file_name_contains?.toLocaleLowerCase();
    const all = (await this.documents.listFiles()).filter(
      (f) =>
        (a.file_name === undefined || f.name === a.file_name) &&
        (needle === undefined || f.name.toLocaleLowerCase().includes(needle)) &&
        (a.doc_type === undefined || f.type === a.doc_type),
    );
    const from = (a.page - 1) * a.page_size;
    return {
      files: all.slice(from, from + a.page_size).map((f) => ({
        id: f.id,
        name: f.name,
        version: f.version,
        versions: f.versions,
        type: f.type,
        pages: f.pages,
        status: f.status,
        ...(f.reason ? { reason: f.reason } : {}),
        date: f.date,
        ...(f.email ? { email: f.email } : {}),
        ...(f.parent ? { parent: f.parent } : {}),
        ...(f.children ? { children: f.children } : {}),
      })),
      total: all.length,
      page: a.page,
      page_size: a.page_size,
    };
  }

  /** Hybrid search (keyword + vector, RRF), optionally reranked; keyword only when vectors are off, saying why. Focused on the documents the question names. */
  async retrieve(args: RetrieveArgs, signal?: AbortSignal): Promise<SearchResponse> {
    const a = parseInput(RetrieveArgs, args, 'retrieve arguments');
    const reranker = a.rerank_top_n ? await this.rerankerOf() : null;
    return this.withContext(await this.focused({ ...a, mode: 'hybrid', signal }, reranker));
  }

  async vector_search(args: SingleModeSearchArgs, signal?: AbortSignal): Promise<SearchResponse> {
    const a = parseInput(SingleModeSearchArgs, args, 'vector_search arguments');
    return this.withContext(await this.focused({ ...a, mode: 'vector', signal }, null));
  }

  async keyword_search(args: SingleModeSearchArgs, signal?: AbortSignal): Promise<SearchResponse> {
    const a = parseInput(SingleModeSearchArgs, args, 'keyword_search arguments');
    return this.withContext(await this.focused({ ...a, mode: 'keyword', signal }, null));
  }

  /**
   * A question that names documents is searched within them, without the words that named them;
   * when they give fewer results than asked, the rest of the case fills the list. No focus with a
   * file filter (but a question that names the filtered document is searched without those words),
   * `focus: 'off'`, or a question that names no document.
   */
  private async focused(
    asked: SearchOptions & { focus?: 'auto' | 'off' | undefined },
    reranker: Reranker | null,
  ): Promise<SearchResponse> {
    const semantic = await this.semanticState();
    // Limited to chosen documents: every search below (focused or widening) stays within them.
    const options = this.scope ? { ...asked, file_ids: this.scope } : asked;
    if (options.focus === 'off' || options.file_name_contains !== undefined)
      return searchChunks(this.store, semantic, options, this.ledger, reranker);
    const routing = await (await this.router()).route(options.query, {
      textFrequency: (term, cap) => this.store.documentFrequency(term, cap),
      shareInFocus: (term, fileIds) => this.store.shareOfPassages(term, fileIds),
      // Not where the caller chose the document: there a name the text holds is what is asked
      // about ("governed by New York law" within one contract), not which document.
      ...(options.file_name === undefined && options.file_id === undefined
        ? { documentsWith: (term: string, cap: number) => this.store.documentsWith(term, cap) }
        : {}),
    });
    if (options.file_name !== undefined || options.file_id !== undefined) {
      // Searched within one document: the words that name it are left out, as in a focused search.
      const named = routing?.focus.some((f) => f.file_name === options.file_name || f.file_id === options.file_id);
      return searchChunks(
        this.store,
        semantic,
        named ? { ...options, query: routing!.clauseQuery } : options,
        this.ledger,
        reranker,
      );
    }
    if (!routing) return searchChunks(this.store, semantic, options, this.ledger, reranker);
    const fileIds = routing.focus.map((f) => f.file_id);
    const inDocs = await searchChunks(
      this.store,
      semantic,
      { ...options, query: routing.clauseQuery, file_ids: fileIds },
      this.ledger,
      reranker,
    );
    const missing = options.top_k - inDocs.results.length;
    const rest =
      missing > 0
        ? (
            await searchChunks(
              this.store,
              semantic,
              {
                ...options,
                top_k: missing,
                reject_hashes: [...(options.reject_hashes ?? []), ...inDocs.results.map((r) => r.hash)],
              },
              this.ledger,
              reranker,
            )
          ).results
        : [];
    return {
      ...inDocs,
      results: [...inDocs.results, ...rest],
      focus: { files: routing.focus, matched: routing.matched, query: routing.clauseQuery, widened: rest.length > 0 },
    };
  }

  /**
   * The documents `query` names (the focus a search of it would have), without searching their
   * passages; null when it names none. A chat's memory asks it of a follow-up before searching.
   */
  async named(query: string): Promise<SearchFocus['files'] | null> {
    const routing = await (await this.router()).route(query, {
      textFrequency: (term, cap) => this.store.documentFrequency(term, cap),
      shareInFocus: (term, fileIds) => this.store.shareOfPassages(term, fileIds),
    });
    return routing?.focus ?? null;
  }

  /**
   * What the question speaks of that no readable document of the case uses, in its text or its
   * names: its names (`factTerms`: "Costco", "Singapore"), and in a large case its rarer words
   * (`rareWords`: "ransomware"). Nothing while a document is still being read (its words are not
   * all searchable yet).
   */
  async unmentioned(question: string): Promise<{ names: string[]; words: string[] }> {
    const none = { names: [], words: [] };
    const names = factTerms(question);
    const large = (await this.store.count('is_latest = true')) >= RELEVANCE.rareWordsCase;
    const words = large ? rareWords(question) : [];
    if (!names.length && !words.length) return none;
    const files = await this.documents.listFiles();
    if (files.some((f) => PENDING.has(f.status))) return none;
    const router = await this.router();
    const unused = async (terms: string[]) => {
      const out: string[] = [];
      for (const term of terms)
        if (!router.names(term) && (await this.store.documentFrequency(term.toLowerCase(), 0)) === 0) out.push(term);
      return out;
    };
    return { names: await unused(names), words: await unused(words) };
  }

  /** The case's document router, built again only when its readable documents change. */
  private async router(): Promise<DocumentRouter> {
    const files = (await this.documents.listFiles()).filter((f) => isReadable(f.status));
    const key = files.map((f) => `${f.id}@${f.version}`).join(',');
    if (this.routing.key !== key || !this.routing.router) {
      this.routing.key = key;
      this.routing.router = Promise.all(
        files.map(async (f) => {
          const profile = await this.documents.readProfile(f.id, f.version);
          return {
            file_id: f.id,
            file_name: f.name,
            title: profile?.title ?? '',
            parties: profile?.parties ?? [],
            date: f.date,
          };
        }),
      ).then((docs) => new DocumentRouter(docs));
      this.routing.router.catch(() => {
        this.routing.router = undefined;
      });
    }
    return this.routing.router;
  }

  /**
   * Each result's place in its document: the section path around its middle, and the document's
   * title (from the outline). Adjacency expansion: a passage that stops mid-sentence is extended to
   * the end of that sentence (at most `ADJACENT_CHARS` further), from the document text — still
   * exactly the document's words, its citation extended with it.
   */
  private async withContext(res: SearchResponse): Promise<SearchResponse> {
    const outlines = new Map<string, Promise<Section[]>>();
    const profiles = new Map<string, ReturnType<DocumentSource['readProfile']>>();
    for (const r of res.results) {
      const key = `${r.file_id}@${r.version}`;
      if (RETRIEVAL_TUNING.adjacency && !SENTENCE_END.test(r.text)) await this.completeSentence(r);
      let sections = outlines.get(key);
      if (!sections) outlines.set(key, (sections = this.documents.readSections(r.file_id, r.version).catch(() => [])));
      const all = await sections;
      const around = sectionPath(all, r.start + Math.floor((r.end - r.start) / 2));
      const path = around.map((s) => [s.number, s.title].filter(Boolean).join(' '));
      if (path.length) {
        r.section_path = path;
        // The section to read for the whole clause: the innermost one, unless it is a short item ("(a)") inside a section.
        const readable =
          [...around].reverse().find((x) => x.level <= 2 || x.end - x.start >= CLAUSE_CHARS) ??
          around[around.length - 1]!;
        r.section_id = readable.id;
      }
      // The name citations give the document ("Gildernew v. Gantner"), else its outline's title.
      let names = profiles.get(key);
      if (!names) profiles.set(key, (names = this.documents.readProfile(r.file_id, r.version).catch(() => null)));
      const profile = await names;
      const title = profile?.short_name || profile?.title || all.find((s) => s.kind === 'title')?.title;
      if (title) r.document_title = title;
      const doc = await this.documents.readText(r.file_id, r.version);
      const place = doc && placeOf(doc, pagesOf(doc.pageStarts, r.start, r.end), r.start, r.end);
      if (place) r.place = place;
    }
    return res;
  }

  private async completeSentence(r: SearchResult): Promise<void> {
    const doc = await this.documents.readText(r.file_id, r.version);
    if (!doc || doc.text.slice(r.start, r.end) !== r.text) return;
    const after = doc.text.slice(r.end, r.end + ADJACENT_CHARS);
    const stop = after.search(/[.;!?](?=\s|$)|\n\s*\n/);
    if (stop < 0) return;
    const end = r.end + stop + (after[stop] === '\n' ? 0 : 1);
    r.text = doc.text.slice(r.start, end);
    r.end = end;
    const pages = pagesOf(doc.pageStarts, r.start, end);
    r.pages = [pages[0]!, pages[pages.length - 1]!];
    const { id: _unused, ...span } = r.citation;
    r.citation = this.ledger.issue({ ...span, end, pages });
  }

  /** Search in a given mode (the `search` operation and the CLI). */
  async search(
    mode: 'hybrid' | 'keyword' | 'vector',
    args: Omit<RetrieveArgs, 'top_k'> & { top_k: number },
    signal?: AbortSignal,
  ): Promise<SearchResponse> {
    // A Bates range is searched as its numbers, so the stamped pages come first (by their words).
    const range = batesRangeQuery(args.query);
    if (range) {
      const { rerank_top_n: _rerank, ...keyword } = args;
      return this.keyword_search({ ...keyword, query: range }, signal);
    }
    if (mode === 'hybrid') return this.retrieve(args, signal);
    const { rerank_top_n: rerank, ...rest } = args;
    const res = mode === 'vector' ? await this.vector_search(rest, signal) : await this.keyword_search(rest, signal);
    return rerank ? { ...res, reranked: false, rerank_reason: 'reranking applies to hybrid search only' } : res;
  }

  async readFile(args: ReadFileArgs): Promise<ReadFileResult> {
    const a = parseInput(ReadFileArgs, args, 'readFile arguments');
    const { file, version, doc } = await this.openText(a.file_id, a.version);
    const total = doc.text.length;
    const start = Math.min(a.offset, total);
    const end = Math.min(total, start + a.max_length);
    const pages = end > start ? pagesOf(doc.pageStarts, start, end) : [pageAt(doc.pageStarts, Math.max(0, total - 1))];
    return {
      file_id: file.id,
      file_name: file.name,
      version,
      start,
      end,
      total_length: total,
      pages,
      text: doc.text.slice(start, end),
      eof: end >= total,
      citation: this.ledger.issue({ file_id: file.id, file_name: file.name, version, pages, start, end }),
    };
  }

  /** The document's outline: each heading with its section's range, pages and a citation of the heading line. */
  async outline(args: OutlineArgs): Promise<OutlineResult> {
    const a = parseInput(OutlineArgs, args, 'outline arguments');
    const { file, version, doc } = await this.openText(a.file_id, a.version);
    const sections = (await this.documents.readSections(file.id, version)).map((s) => {
      const pages = pagesOf(doc.pageStarts, s.start, Math.max(s.start + 1, s.end));
      return {
        id: s.id,
        level: s.level,
        number: s.number,
        title: s.title,
        kind: s.kind,
        start: s.start,
        end: s.end,
        heading_end: s.headingEnd,
        pages,
        citation: this.ledger.issue({
          file_id: file.id,
          file_name: file.name,
          version,
          pages: pagesOf(doc.pageStarts, s.start, s.headingEnd),
          start: s.start,
          end: s.headingEnd,
        }),
      };
    });
    const defined = (await this.documents.readProfile(file.id, version))?.defined;
    const defined_terms = defined?.map((d) => {
      const pages = pagesOf(doc.pageStarts, d.start, d.end);
      return {
        term: d.term,
        start: d.start,
        end: d.end,
        pages,
        citation: this.ledger.issue({
          file_id: file.id,
          file_name: file.name,
          version,
          pages,
          start: d.start,
          end: d.end,
        }),
      };
    });
    return { file_id: file.id, file_name: file.name, version, sections, ...(defined_terms ? { defined_terms } : {}) };
  }

  /** One section's text (up to max_length characters from its heading), cited. */
  async readSection(args: ReadSectionArgs): Promise<ReadSectionResult> {
    const a = parseInput(ReadSectionArgs, args, 'readSection arguments');
    const { file, version, doc } = await this.openText(a.file_id, a.version);
    const sections = await this.documents.readSections(file.id, version);
    const s = findSection(sections, a.section);
    if (!s) {
      const known = sections.slice(0, 12).map((x) => `${x.id} ${[x.number, x.title].filter(Boolean).join(' ')}`.trim());
      throw new CasefileError(
        'not_found',
        `"${file.name}" has no section "${a.section}"${known.length ? `; its outline starts: ${known.join('; ')}` : ' (no headings were found in it)'}.`,
      );
    }
    const end = Math.min(s.end, s.start + a.max_length);
    const pages = pagesOf(doc.pageStarts, s.start, Math.max(s.start + 1, end));
    return {
      file_id: file.id,
      file_name: file.name,
      version,
      start: s.start,
      end,
      total_length: doc.text.length,
      pages,
      text: doc.text.slice(s.start, end),
      eof: end >= doc.text.length,
      citation: this.ledger.issue({ file_id: file.id, file_name: file.name, version, pages, start: s.start, end }),
      section: { id: s.id, level: s.level, number: s.number, title: s.title },
    };
  }

  async grepFile(args: GrepFileArgs): Promise<GrepFileResult> {
    const a = parseInput(GrepFileArgs, args, 'grepFile arguments');
    const re = compileUserRegex(a.pattern, a.flags);
    const { file, version, doc } = await this.openText(a.file_id, a.version);
    const { hits, total } = guardedMatchAll(re, doc.text, a.limit);
    return {
      file_id: file.id,
      file_name: file.name,
      version,
      matches: hits.map((h) => this.toMatch(file, version, doc, h, a.context_chars)),
      total,
      truncated: total > hits.length,
    };
  }

  async grepCase(args: GrepCaseArgs): Promise<GrepCaseResult> {
    const a = parseInput(GrepCaseArgs, args, 'grepCase arguments');
    const re = compileUserRegex(a.pattern, a.flags);
    const needle = a.file_name_contains?.toLocaleLowerCase();
    const files = (await this.documents.listFiles()).filter(
      (f) =>
        (needle === undefined || f.name.toLocaleLowerCase().includes(needle)) &&
        (a.doc_type === undefined || f.type === a.doc_type),
    );
    const out: GrepCaseResult['files'] = [];
    const notSearchable: GrepCaseResult['coverage']['not_searchable'] = [];
    let searched = 0;
    let totalMatches = 0;
    let returned = 0;
    let truncated = false;
    for (const f of files) {
      const doc = isReadable(f.status) ? await this.documents.readText(f.id, f.version) : null;
      if (!doc) {
        notSearchable.push({ file_name: f.name, status: f.status, ...(f.reason ? { reason: f.reason } : {}) });
        continue;
      }
      searched++;
      const room = Math.max(0, Math.min(a.limit_per_file, a.limit - returned));
      const { hits, total } = guardedMatchAll(re, doc.text, room);
      if (total === 0) continue;
      totalMatches += total;
      returned += hits.length;
      if (hits.length < total) truncated = true;
      out.push({
        file_id: f.id,
        file_name: f.name,
        version: f.version,
        count: total,
        matches: hits.map((h) => this.toMatch(f, f.version, doc, h, a.context_chars)),
      });
    }
    const parts = [
      `searched ${searched} file${searched === 1 ? '' : 's'}, ${out.length} with hits (${totalMatches} match${totalMatches === 1 ? '' : 'es'})`,
    ];
    if (notSearchable.length) {
      parts.push(
        `not searchable: ${notSearchable.map((n) => `${n.file_name} (${STATUS_WORDS[n.status] ?? n.status})`).join(', ')}`,
      );
    }
    return {
      files: out,
      total_matches: totalMatches,
      coverage: {
        files_searched: searched,
        files_with_hits: out.length,
        not_searchable: notSearchable,
        line: parts.join('; '),
      },
      truncated,
    };
  }

  async getAdjacentChunks(args: AdjacentChunksArgs): Promise<{ chunks: AdjacentChunk[] }> {
    const a = parseInput(AdjacentChunksArgs, args, 'getAdjacentChunks arguments');
    const inScope = this.scope ? ` AND file_id IN (${this.scope.map(sqlString).join(', ')})` : '';
    const [anchor] = await this.store.rows(`chunk_id = ${sqlString(a.chunk_id)}${inScope}`, 1);
    if (!anchor)
      throw new CasefileError(
        'not_found',
        `No chunk "${a.chunk_id}" in this case. Use a chunk_id from a search result.`,
      );
    const rows = await this.store.rows(
      `file_id = ${sqlString(anchor.file_id)} AND version = ${sqlInt(anchor.version)} AND chunk_index >= ${sqlInt(anchor.chunk_index - a.before)} AND chunk_index <= ${sqlInt(anchor.chunk_index + a.after)}`,
    );
    rows.sort((x, y) => x.chunk_index - y.chunk_index);
    return { chunks: rows.map((c) => this.toAdjacent(c, c.chunk_id === anchor.chunk_id)) };
  }

  private toAdjacent(c: ChunkRecord, anchor: boolean): AdjacentChunk {
    const pages: number[] = [];
    for (let p = c.page_start; p <= c.page_end; p++) pages.push(p);
    return {
      chunk_id: c.chunk_id,
      chunk_index: c.chunk_index,
      file_id: c.file_id,
      file_name: c.file_name,
      version: c.version,
      pages: [c.page_start, c.page_end],
      start: c.start,
      end: c.end,
      text: c.text,
      anchor,
      citation: this.ledger.issue({
        file_id: c.file_id,
        file_name: c.file_name,
        version: c.version,
        pages,
        start: c.start,
        end: c.end,
      }),
    };
  }

  private toMatch(
    file: DocumentInfo,
    version: number,
    doc: DocumentText,
    h: { start: number; end: number; match: string },
    ctx: number,
  ): GrepMatch {
    const from = Math.max(0, h.start - ctx);
    const to = Math.min(doc.text.length, h.end + ctx);
    const pages = pagesOf(doc.pageStarts, h.start, Math.max(h.end, h.start + 1));
    return {
      file_id: file.id,
      file_name: file.name,
      version,
      start: h.start,
      end: h.end,
      page: pages[0]!,
      match: h.match,
      context: `${from > 0 ? '…' : ''}${doc.text.slice(from, to)}${to < doc.text.length ? '…' : ''}`,
      citation: this.ledger.issue({
        file_id: file.id,
        file_name: file.name,
        version,
        pages,
        start: h.start,
        end: h.end,
      }),
    };
  }

  private async openText(
    fileId: string,
    version?: number,
  ): Promise<{ file: DocumentInfo; version: number; doc: DocumentText }> {
    const file = (await this.documents.listFiles()).find((f) => f.id === fileId);
    if (!file) {
      if (this.scope)
        throw new CasefileError(
          'not_found',
          `The file "${fileId}" is not among the documents this question is limited to. Use findFiles to list them.`,
        );
      throw new CasefileError(
        'not_found',
        `No file with id "${fileId}" in this case. Use findFiles to list the files.`,
      );
    }
    const v = version ?? file.version;
    if (!file.versions.includes(v)) {
      throw new CasefileError(
        'not_found',
        `"${file.name}" has no version ${v}; it has version${file.versions.length === 1 ? '' : 's'} ${file.versions.join(', ')}.`,
      );
    }
    const doc = await this.documents.readText(file.id, v);
    if (!doc) {
      throw new CasefileError(
        'unavailable',
        `"${file.name}" has no readable text (${STATUS_WORDS[file.status] ?? file.status}${file.reason ? `: ${file.reason}` : ''}).`,
      );
    }
    return { file, version: v, doc };
  }
}

export type { SearchResult };
