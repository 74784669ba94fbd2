/**
 * The case tools (src/core/tools) as agent tools: same functions, same validation, results turned
 * into what the loop formats (passages with cite ids, file lists, coverage).
 */
import type { RetrievalDefaults } from '../../shared/contract/chat';
import type { FileListing, SearchResponse } from '../../shared/contract/search';
import { eventDate } from '../../shared/chronology-text';
import {
  AdjacentChunksArgs,
  FindFilesArgs,
  GrepCaseArgs,
  GrepFileArgs,
  OutlineArgs,
  ReadFileArgs,
  ReadSectionArgs,
  RetrieveArgs,
  SingleModeSearchArgs,
  TimelineArgs,
  type CaseTools,
} from '../tools/index';
import { isReadable } from '../tools/document-source';
import { bestLabelOf } from '../retrieval/labels';
import { pagesLabel } from './prompt';
import { defineTool, type AgentTool, type CaseFacts, type PassageItem, type ToolOutcome } from './types';

/** The three search tools differ only in mode: one entry each. */
const SEARCH_TOOLS = [
  {
    name: 'retrieve',
    description: 'Hybrid search (keywords + meaning) over the case; returns passages with cite ids and quality labels.',
    inputSchema: RetrieveArgs,
    what: 'hybrid search',
    mode: 'hybrid',
    rerank: true,
  },
  {
    name: 'keyword_search',
    description: 'Keyword (BM25) search over the case.',
    inputSchema: SingleModeSearchArgs,
    what: 'keyword search',
    mode: 'keyword',
    rerank: false,
  },
  {
    name: 'vector_search',
    description: 'Semantic (meaning) search over the case.',
    inputSchema: SingleModeSearchArgs,
    what: 'semantic search',
    mode: 'vector',
    rerank: false,
  },
] as const;

/** The defaults one search tool takes from the turn's retrieval settings (only what its schema accepts). */
export function searchDefaults(
  retrieval: RetrievalDefaults | undefined,
  tool: { mode: 'hybrid' | 'keyword' | 'vector'; rerank: boolean },
): Record<string, unknown> | undefined {
  if (!retrieval) return undefined;
  const out: Record<string, unknown> = {};
  if (retrieval.top_k !== undefined) out.top_k = retrieval.top_k;
  if (
    retrieval.score_threshold !== undefined &&
    (retrieval.score_threshold_mode === undefined || retrieval.score_threshold_mode === tool.mode)
  ) {
    out.score_threshold = retrieval.score_threshold;
  }
  if (tool.rerank && retrieval.rerank_top_n !== undefined) out.rerank_top_n = retrieval.rerank_top_n;
  return Object.keys(out).length ? out : undefined;
}

export interface CaseToolOptions {
  /** Characters of a readFile window shown to the model. */
  readChars?: number;
  /** Files listed per findFiles observation. */
  listLimit?: number;
  /** The turn's retrieval defaults (Settings): used by the search tools when the model's call leaves an argument out. */
  retrieval?: RetrievalDefaults;
}

function searchOutcome(res: SearchResponse, what: string): ToolOutcome {
  const items: PassageItem[] = res.results.map((r) => ({
    cite: r.citation.id,
    file_name: r.file_name,
    file_id: r.file_id,
    pages: r.citation.pages,
    text: r.text,
    hash: r.hash,
    chunk_id: r.chunk_id,
    label: r.label,
    score: r.score,
    ...(r.section_path ? { section: r.section_path.join(' › ') } : {}),
  }));
  const head = [
    `${res.results.length} passage${res.results.length === 1 ? '' : 's'} (${what}${res.mode === 'hybrid' && !res.semantic ? ', keyword only' : ''}).`,
  ];
  const focus = res.focus;
  const best = res.results[0];
  let readNext: ToolOutcome['readNext'];
  if (focus) {
    head.push(
      `Focused on ${focus.files.map((f) => f.file_name).join(', ')} (the question names ${focus.matched.map((m) => `"${m}"`).join(', ')}).`,
    );
    if (best?.section_id && focus.files.some((f) => f.file_id === best.file_id)) {
      readNext = {
        file_id: best.file_id,
        section: best.section_id,
        label: `${best.file_name} § ${best.section_path!.at(-1)}`,
      };
      head.push(
        `Next: readSection({"file_id": "${best.file_id}", "section": "${best.section_id}"}) reads the whole section of the best passage.`,
      );
    }
  }
  if (!res.semantic && res.semantic_reason && res.mode !== 'keyword')
    head.push(`Semantic search is off: ${res.semantic_reason}`);
  if (res.semantic_coverage && res.mode !== 'keyword') {
    const { embedded, total } = res.semantic_coverage;
    head.push(
      `Part of the case is not embedded yet (${embedded} of ${total} passages): the others were matched by their words only.`,
    );
  }
  if (!res.results.length)
    head.push(
      'Nothing matched: reformulate the query with other words from the question (synonyms, key terms), or use grepCase with a pattern. Do not answer from memory.',
    );
  const bestLabel = bestLabelOf(items.map((i) => i.label));
  return {
    text: head.join(' '),
    items,
    count: res.results.length,
    ...(bestLabel ? { best_label: bestLabel } : {}),
    ...(readNext ? { readNext } : {}),
    citations: res.results.map((r) => r.citation),
    coverage: { searched: [...new Set(res.results.map((r) => r.file_name))] },
  };
}

/** The agent's view of one case's tools. */
/**
 * The tools a model too small to answer may use when it is picked anyway: the inventory, one search,
 * the section of a clause and a grep. A short catalogue is a short prompt and a simpler step
 * grammar — the first call of a turn reads and generates about half as many tokens.
 */
export const SMALL_MODEL_TOOLS: readonly string[] = ['findFiles', 'retrieve', 'readSection', 'grepCase'];

/** What the tool check reads of the case (the files in reach, a file's text, a section's range). */
export function caseFactsFor(tools: CaseTools): CaseFacts {
  const scope = tools.scope ? new Set(tools.scope) : null;
  return {
    files: async () =>
      (await tools.inventory()).filter((f) => !scope || scope.has(f.id)).map((f) => ({ id: f.id, name: f.name })),
    text: async (fileId, section) => (scope && !scope.has(fileId) ? null : tools.plainText(fileId, section)),
  };
}

export function agentToolsFor(tools: CaseTools, options: CaseToolOptions = {}): AgentTool[] {
  return [
    findFilesTool(tools, options.listLimit ?? 40),
    ...searchTools(tools, options),
    readFileTool(tools, options.readChars ?? 2000),
    outlineTool(tools),
    readSectionTool(tools, options.readChars ?? 2000),
    grepFileTool(tools),
    grepCaseTool(tools),
    timelineTool(tools),
    adjacentChunksTool(tools),
  ];
}

/**
 * One file of findFiles: "- notice.eml (id=…, v1, email from Jane Doe, subject "Re: Notice of
 * default", 2023-05-02, 2 attachments)"; a file taken out of another is indented under it
 * ("attached to" / "in" its container).
 */
function fileLine(f: FileListing): string {
  const status = isReadable(f.status)
    ? ''
    : `, NOT SEARCHABLE: ${f.status.replace('_', ' ')}${f.reason ? ` (${f.reason})` : ''}`;
  const what = f.email
    ? `email from ${f.email.from || 'unknown sender'}, subject "${f.email.subject}"`
    : `${f.type}, ${f.pages} page${f.pages === 1 ? '' : 's'}`;
  const held = f.children ? `, ${f.children} ${f.email ? 'attachment' : 'file'}${f.children === 1 ? '' : 's'}` : '';
  const where = f.parent ? `, ${/\.(eml|msg)$/i.test(f.parent) ? 'attached to' : 'in'} ${f.parent}` : '';
  return `${f.parent ? '  ' : ''}- ${f.name} (id=${f.id}, v${f.version}, ${what}${f.date ? `, ${f.date}` : ''}${held}${where}${status})`;
}

/** findFiles: the case's inventory, with what cannot be searched and why. */
function findFilesTool(tools: CaseTools, listLimit: number): AgentTool {
  return defineTool({
    name: 'findFiles',
    description: 'List the files of the case (id, name, version, type, pages, status, date). Call it first.',
    inputSchema: FindFilesArgs,
    grammarProperties: {},
    async run(input) {
      const res = await tools.findFiles({
        ...input,
        page_size: Math.min(Number(input.page_size ?? listLimit), listLimit),
      });
      const where = tools.scope ? 'the user limited this question to' : 'in the case';
      const lines = [
        `${res.total} file${res.total === 1 ? '' : 's'} ${where}${res.files.length < res.total ? ` (showing ${res.files.length})` : ''}:`,
      ];
      for (const f of res.files) lines.push(fileLine(f));
      lines.push(
        'Next: search these files for the words of the question (retrieve, keyword_search, or grepCase for every occurrence).',
      );
      return {
        text: lines.join('\n'),
        count: res.total,
        citations: [],
        coverage: {
          total: input.file_name || input.file_name_contains || input.doc_type ? undefined : res.total,
          listed: res.files.map((f) => f.name),
          unsearchable: res.files
            .filter((f) => !isReadable(f.status))
            .map((f) => ({ file_name: f.name, status: f.status, ...(f.reason ? { reason: f.reason } : {}) })),
        },
      } satisfies ToolOutcome;
    },
  });
}

/** readFile: a window of a file's text, cited. */
function readFileTool(tools: CaseTools, readChars: number): AgentTool {
  return defineTool({
    name: 'readFile',
    description: 'Read a window of a file’s text by file_id (from findFiles), from offset.',
    inputSchema: ReadFileArgs,
    async run(input) {
      const r = await tools.readFile({
        ...input,
        max_length: Math.min(Number(input.max_length ?? readChars), readChars),
      });
      const more = r.eof ? 'end of file' : `more from offset ${r.end}`;
      return {
        text: `${r.file_name} v${r.version}, characters ${r.start}-${r.end} of ${r.total_length} (${pagesLabel(r.pages)}; ${more}) [cite:${r.citation.id}]:\n${r.text}`,
        count: 1,
        citations: [r.citation],
        coverage: { read: [r.file_name] },
        read: { file_id: r.file_id, start: r.start, text: r.text },
      };
    },
  });
}

/** Defined terms an outline observation lists (each cited where it is defined). */
const MAX_DEFINED_SHOWN = 40;

/** outline: a document's headings and defined terms, to pick the section to read. */
function outlineTool(tools: CaseTools, maxLines = 60): AgentTool {
  return defineTool({
    name: 'outline',
    description:
      'The sections of one document (file_id from findFiles or a passage): id, number, title, pages. Then readSection.',
    inputSchema: OutlineArgs,
    async run(input) {
      const r = await tools.outline(input);
      const lines = [
        `${r.file_name} v${r.version}: ${r.sections.length} section${r.sections.length === 1 ? '' : 's'}${r.sections.length > maxLines ? ` (first ${maxLines})` : ''}.`,
      ];
      for (const s of r.sections.slice(0, maxLines))
        lines.push(
          `${'  '.repeat(Math.max(0, s.level - 1))}- ${s.id} ${[s.number, s.title].filter(Boolean).join(' ') || s.kind} (${pagesLabel(s.pages)})`,
        );
      if (!r.sections.length) lines.push('No headings were found: read it with readFile.');
      const defined = (r.defined_terms ?? []).slice(0, MAX_DEFINED_SHOWN);
      if (defined.length)
        lines.push(`Defined terms: ${defined.map((d) => `"${d.term}" [cite:${d.citation.id}]`).join(', ')}`);
      return {
        text: lines.join('\n'),
        count: r.sections.length,
        citations: defined.map((d) => d.citation),
        coverage: { read: [r.file_name] },
      };
    },
  });
}

/** readSection: one section's text, cited. */
function readSectionTool(tools: CaseTools, readChars: number): AgentTool {
  return defineTool({
    name: 'readSection',
    description:
      'Read one section of a document, whole: file_id, and section as an id from outline or a passage ("s12"), a number ("7.2") or title words.',
    inputSchema: ReadSectionArgs,
    async run(input) {
      const r = await tools.readSection({
        ...input,
        max_length: Math.min(Number(input.max_length ?? readChars), readChars),
      });
      const name = [r.section.number, r.section.title].filter(Boolean).join(' ');
      const more = r.end < r.start + r.text.length || r.eof ? '' : ` (first ${r.text.length} characters)`;
      return {
        text: `${r.file_name} v${r.version} § ${name} (${pagesLabel(r.pages)})${more} [cite:${r.citation.id}]:\n${r.text}`,
        count: 1,
        citations: [r.citation],
        coverage: { read: [r.file_name] },
        read: { file_id: r.file_id, start: r.start, text: r.text },
      };
    },
  });
}

/** grepFile: every match of a pattern in one file. */
function grepFileTool(tools: CaseTools): AgentTool {
  return defineTool({
    name: 'grepFile',
    description: 'Regular-expression search in one file (file_id from findFiles); confirms exact wording.',
    inputSchema: GrepFileArgs,
    async run(input) {
      const r = await tools.grepFile(input);
      const items: PassageItem[] = r.matches.map((m) => ({
        cite: m.citation.id,
        file_name: m.file_name,
        pages: m.citation.pages,
        text: m.context,
      }));
      return {
        text: `${r.total} match${r.total === 1 ? '' : 'es'} in ${r.file_name}${r.truncated ? ` (first ${r.matches.length} shown)` : ''}.`,
        items,
        count: r.total,
        citations: r.matches.map((m) => m.citation),
        coverage: { searched: [r.file_name] },
      };
    },
  });
}

/** grepCase: every match of a pattern in every readable file, with coverage. */
function grepCaseTool(tools: CaseTools): AgentTool {
  return defineTool({
    name: 'grepCase',
    description:
      'Regular-expression search over every readable file of the case; use it for "every / all / each time / list" questions.',
    inputSchema: GrepCaseArgs,
    async run(input) {
      const r = await tools.grepCase(input);
      const items: PassageItem[] = r.files.flatMap((f) =>
        f.matches.map((m) => ({
          cite: m.citation.id,
          file_name: m.file_name,
          pages: m.citation.pages,
          text: m.context,
        })),
      );
      const perFile = r.files.map((f) => `${f.file_name}: ${f.count}`).join(', ');
      return {
        text: `${r.total_matches} match${r.total_matches === 1 ? '' : 'es'}${perFile ? ` (${perFile})` : ''}. Coverage: ${r.coverage.line}.${r.truncated ? ' Some matches were not shown (limit).' : ''}`,
        items,
        count: r.total_matches,
        citations: items.map((i) => ({
          ...r.files.flatMap((f) => f.matches).find((m) => m.citation.id === i.cite)!.citation,
        })),
        coverage: {
          searched: r.files.map((f) => f.file_name),
          unsearchable: r.coverage.not_searchable,
          wholeCase: !input.file_name_contains && !input.doc_type,
        },
      };
    },
  });
}

/** timeline: the case's dated events in order — for "when did…", "list every date…", "what happened between…". */
function timelineTool(tools: CaseTools): AgentTool {
  return defineTool({
    name: 'timeline',
    description:
      'The dated events of the case in date order, each with its sentence and citation; filter by from/to (YYYY-MM-DD), query words, file_name or person. Use it for "when did…", "last time…", "every date…" questions.',
    inputSchema: TimelineArgs,
    async run(input) {
      const r = await tools.timeline({ ...input, limit: Math.min(Number(input.limit ?? 40), 40) });
      const items: PassageItem[] = r.events.map((e) => ({
        cite: e.citation.id,
        file_name: e.file_name,
        pages: e.pages,
        text: e.text,
        label: eventDate(e, { ambiguity: false }) + (e.ambiguous ? ' (day and month could be either way round)' : ''),
        file_id: e.file_id,
      }));
      return {
        text: `${r.total} dated event${r.total === 1 ? '' : 's'}${r.events.length < r.total ? ` (showing the first ${r.events.length})` : ''}, in date order. Coverage: ${r.coverage.line}.`,
        items,
        count: r.total,
        citations: r.events.map((e) => e.citation),
        coverage: {
          searched: [...new Set(r.events.map((e) => e.file_name))],
          unsearchable: r.coverage.not_readable,
          wholeCase: !input.file_name,
        },
      };
    },
  });
}

/** getAdjacentChunks: the passages around a search hit. */
function adjacentChunksTool(tools: CaseTools): AgentTool {
  return defineTool({
    name: 'getAdjacentChunks',
    description: 'The passages just before and after a chunk_id (from a search result), in order.',
    inputSchema: AdjacentChunksArgs,
    async run(input) {
      const r = await tools.getAdjacentChunks(input);
      const items: PassageItem[] = r.chunks.map((c) => ({
        cite: c.citation.id,
        file_name: c.file_name,
        pages: c.citation.pages,
        text: c.text,
        chunk_id: c.chunk_id,
      }));
      return {
        text: `${r.chunks.length} neighbouring passage${r.chunks.length === 1 ? '' : 's'}.`,
        items,
        count: r.chunks.length,
        citations: r.chunks.map((c) => c.citation),
        coverage: { read: [...new Set(r.chunks.map((c) => c.file_name))] },
      };
    },
  });
}

/** The search tools (retrieve, keyword_search, vector_search…), with the user's retrieval defaults. */
function searchTools(tools: CaseTools, options: CaseToolOptions): AgentTool[] {
  const withRejected = <T extends { reject_hashes?: string[] | undefined }>(
    input: T,
    rejected: ReadonlySet<string>,
  ): T =>
    rejected.size ? { ...input, reject_hashes: [...new Set([...(input.reject_hashes ?? []), ...rejected])] } : input;
  return SEARCH_TOOLS.map(({ name, description, inputSchema, what, mode, rerank }) =>
    defineTool({
      name,
      description,
      inputSchema,
      defaults: searchDefaults(options.retrieval, { mode, rerank }),
      async run(input, ctx) {
        return searchOutcome(await tools[name](withRejected(input, ctx.rejected), ctx.signal), what);
      },
    }),
  );
}
