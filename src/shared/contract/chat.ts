import { z } from 'zod';
import { CaseId } from './common';
import { op } from './op';
import { AGENT_MAX_STEPS, AGENT_TOP_K_MAX } from '../retrieval';

/** How a citation in an answer fared when checked against the conversation's records and the source text. */
export type CitationStatus = 'verified' | 'not_verified' | 'invented';

/**
 * What the cited passage does for the sentence that cites it. Only `quoted` and `supported` are
 * green (`status: 'verified'`):
 * - `quoted`: the sentence's quoted words are in the cited passage;
 * - `supported`: the sentence's key facts (numbers, amounts, durations, dates, names, defined terms)
 *   are in the passage and the sentence is close in meaning to a sentence of it;
 * - `not_supported`: neither (amber), or the source could not be read to check;
 * - `invented`: no tool issued the id in this conversation.
 */
export type SupportLevel = 'quoted' | 'supported' | 'not_supported' | 'invented';

/**
 * How far a passage quoted by the extractive answer ("Find passages") answers the question — not
 * whether its words are on the page (a quote always is): `answer` strong evidence it holds the
 * answer ("Likely answer"), `related` about the question, `closest` the nearest passages when the
 * documents don't appear to answer.
 */
export type PassageRelevance = 'answer' | 'related' | 'closest';

/** The words of a cited passage that support the sentence (whole-document offsets). */
export interface SupportSpan {
  start: number;
  end: number;
  pages: number[];
  text: string;
}

export interface CheckedCitation {
  id: string;
  status: CitationStatus;
  verified: boolean;
  /** Plain words: why it is (not) verified. */
  reason: string;
  /** Present when the id exists in the conversation's records. */
  file_id?: string;
  file_name?: string;
  version?: number;
  pages?: number[];
  start?: number;
  end?: number;
  /** Quoted text of the sentence that was checked against the source, if any. */
  quotes?: string[];
  /** The claim-level verdict (`status` is its green/not-green summary). */
  support?: SupportLevel;
  /** The sentence of the answer that was checked (without its cite markers). */
  sentence?: string;
  /** The supporting words of the passage: the quoted words or the best-matching sentence(s); the chip opens on these. */
  span?: SupportSpan;
  /** The document's title (from its outline), when known. */
  title?: string;
  /** When a cited page was read by OCR: the lowest mean word confidence of those pages (0–100). */
  ocr_confidence?: number;
  /** Where the supporting words are, in documents whose units are not pages: "Sheet Billing, row 14", "Email body". */
  place?: string;
  /** A passage of the extractive answer: how far it answers the question (its quote is a plain fact, not a green mark). */
  relevance?: PassageRelevance;
}

/**
 * How the answer was made: `agent` (the model's answer), `extractive` (the best passages quoted,
 * no model text: asked for, no chat model, or the model's answer was unusable), `no_documents`
 * (the case has nothing searchable; answered without a model).
 */
export type AnswerKind = 'agent' | 'extractive' | 'no_documents';

/** Why the model's answer was replaced by the extractive one. */
export interface AnswerFallback {
  /** Plain words, e.g. "the model repeated itself". */
  reason: string;
  /** What the model wrote, for the record (shown behind a details toggle). */
  model_answer: string;
}

export interface StepSummary {
  tool: string;
  /** Results the tool returned (files, passages, matches). */
  count: number;
  /** Best quality label among them (strong, good, partial, …), when the tool labels results. */
  best_label?: string;
}

/** One iteration of the loop: Thought, then an Action with its input (or the Final Answer). */
export interface AgentStep {
  /** 1-based. */
  index: number;
  kind: 'action' | 'final';
  thought: string;
  /** Tool name, or `final_answer`. */
  action: string;
  input: Record<string, unknown>;
  /** What the model was shown back (empty for the final answer). */
  observation: string;
  summary?: StepSummary;
  /** A policy the engine applied at this step (findFiles first, repeated call, forced answer, …). */
  policy?: string;
  /** True when the model's first reply did not parse and one repair retry was asked for. */
  repaired?: boolean;
  /** True when the tool failed; the error is the observation. */
  error?: boolean;
  /** Arguments in `input` that came from the turn's retrieval defaults (Settings) because the model's call left them out. */
  defaults?: string[];
  timing: { model_ms: number; tool_ms: number };
  tokens: { input: number; output: number };
}

export interface Coverage {
  /** Files in the case (from findFiles; null if the inventory was never taken). */
  files_total: number | null;
  files_listed: number;
  files_searched: number;
  files_read: number;
  /** Names of files whose text was searched or read in this turn. */
  searched: string[];
  read: string[];
  /** Files that cannot be searched (needs OCR, failed, …), by name. */
  unsearchable: { file_name: string; status: string; reason?: string }[];
  /** The question asks for every occurrence. */
  exhaustive: boolean;
  /** Every readable file was searched (grepCase). */
  whole_case_searched: boolean;
  /** The step budget ran out before the agent answered on its own. */
  budget_exhausted: boolean;
  /** One paragraph the user reads under the answer. */
  note: string;
}

export type TurnStatus = 'done' | 'cancelled' | 'failed';

export interface ChatAnswer {
  turn_id: string;
  session_id: string;
  case_id: string;
  question: string;
  /** The question after follow-up condensation (equal to `question` for a first question). */
  standalone_question: string;
  answer: string;
  citations: CheckedCitation[];
  steps: AgentStep[];
  coverage: Coverage;
  /** At least one citation quoted or supported, and none not supported on a sentence with facts. */
  grounded: boolean;
  status: TurnStatus;
  error?: string;
  model: string;
  /** `first_answer_ms`: from the question to the first cited answer (the passages, or the answer itself). */
  timing: { total_ms: number; first_answer_ms?: number };
  /** How the answer was made (absent in sessions saved before it existed: `agent`). */
  answer_kind?: AnswerKind;
  /** Set when the model's answer was replaced by the extractive answer. */
  fallback?: AnswerFallback;
  /** Present when the question was limited to documents the user chose (`file_ids`): which, and the line the trace shows. */
  limited_to?: LimitedTo;
  /** Searches of the documents the turn ran: its passages' search(es) and the model's searches (absent in sessions saved before it existed). */
  searches?: number;
  /** Present when the chat's memory shaped this follow-up: passages found earlier used, or the earlier question's documents kept. */
  earlier?: EarlierUse;
}

/**
 * What the chat's memory did for a follow-up. `reused`: answered from passages found earlier in
 * the chat, without searching again; `kept_focus`: the follow-up names no document, so it was
 * searched again within the documents the earlier question was about.
 */
export interface EarlierUse {
  kind: 'reused' | 'kept_focus';
  /** Passages found earlier that the answer quotes (0 when it searched again). */
  passages: number;
  /** The earlier question the follow-up leans on. */
  question: string;
  /** The documents: where the passages come from, or where it searched. */
  files: { file_id: string; file_name: string }[];
  /** The plain-words line the timeline shows ("Used 3 passages found earlier…"). */
  line: string;
}

/** The documents a turn's searches were limited to, and the plain-words line that says so. */
export interface LimitedTo {
  files: { file_id: string; file_name: string }[];
  /** e.g. "Limited to 2 documents you chose: nda-acme.pdf, nda-brightline.pdf". */
  line: string;
}

/** The most documents one question may be limited to. */
export const ASK_FILE_IDS_MAX = 1000;

export interface ChatMessage {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  turn_id: string;
  created: string;
  /** Assistant messages: the turn's outcome (citations, steps, coverage). */
  status?: TurnStatus;
  citations?: CheckedCitation[];
  steps?: AgentStep[];
  coverage?: Coverage;
  grounded?: boolean;
  standalone_question?: string;
  /** Sources this turn saw: cite id, chunk id when known, and a one-line summary. */
  refs?: ChunkRef[];
  model?: string;
  answer_kind?: AnswerKind;
  fallback?: AnswerFallback;
  limited_to?: LimitedTo;
  searches?: number;
  earlier?: EarlierUse;
}

export interface ChunkRef {
  cite: string;
  chunk_id?: string;
  file_name: string;
  pages: number[];
  summary: string;
}

export interface ChatSessionSummary {
  id: string;
  case_id: string;
  title: string;
  created: string;
  updated: string;
  messages: number;
}

export interface ChatSession extends ChatSessionSummary {
  messages_list: ChatMessage[];
}

const SessionId = z
  .string({ error: 'session_id is required' })
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'session_id must be a session id (letters, digits, - and _)');
const TurnId = z
  .string({ error: 'turn_id is required' })
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'turn_id must be a turn id (letters, digits, - and _)');

export { AGENT_TOP_K_MAX };

/**
 * Retrieval defaults for one turn (the user's Settings): the agent's search tools use them whenever
 * the model's own tool call leaves the argument out; an argument the model sets wins.
 */
export const RetrievalDefaults = z
  .object({
    /** Passages per search (retrieve, vector_search, keyword_search); the tools' own default is AGENT_TOP_K_DEFAULT. */
    top_k: z
      .number({ error: `Passages per search must be a whole number from 1 to ${AGENT_TOP_K_MAX}.` })
      .int(`Passages per search must be a whole number from 1 to ${AGENT_TOP_K_MAX}.`)
      .min(1, `Passages per search must be a whole number from 1 to ${AGENT_TOP_K_MAX}.`)
      .max(AGENT_TOP_K_MAX, `Passages per search must be a whole number from 1 to ${AGENT_TOP_K_MAX}.`)
      .optional(),
    /** Minimum score a passage needs; compared with the score of the mode searched (RRF for hybrid, BM25 for keyword, cosine for vector). */
    score_threshold: z
      .number({ error: 'The minimum match must be a number, such as 0.5.' })
      .refine(Number.isFinite, 'The minimum match must be a number, such as 0.5.')
      .optional(),
    /** The search mode whose scores score_threshold is in; when given, the threshold applies only to that tool (hybrid = retrieve). */
    score_threshold_mode: z
      .enum(['hybrid', 'keyword', 'vector'], { error: 'Choose hybrid, keyword or vector for the minimum match.' })
      .optional(),
    /** Rerank the top N fused passages of retrieve (hybrid) when a reranker is installed. */
    rerank_top_n: z
      .number({ error: 'The second check takes a whole number of passages from 1 to 200.' })
      .int('The second check takes a whole number of passages from 1 to 200.')
      .min(1, 'The second check takes a whole number of passages from 1 to 200.')
      .max(200, 'The second check takes a whole number of passages from 1 to 200.')
      .optional(),
  })
  .strict();
export type RetrievalDefaults = z.infer<typeof RetrievalDefaults>;

/** Documents a question is limited to: ids of files of the case, at least one, at most ASK_FILE_IDS_MAX. */
export const FileIds = z
  .array(
    z
      .string({ error: 'Choose the documents as a list.' })
      .min(1, 'A chosen document has no id; choose the documents again.')
      .max(200, 'A chosen document id is too long; choose the documents again.'),
    {
      error: 'Choose the documents as a list.',
    },
  )
  .min(1, 'Choose at least one document.')
  .max(ASK_FILE_IDS_MAX, `file_ids may name at most ${ASK_FILE_IDS_MAX} documents`);

export const ChatAskInput = z
  .object({
    case_id: CaseId,
    session_id: SessionId.optional(),
    question: z
      .string({ error: 'question is required' })
      .trim()
      .min(1, 'Type a question.')
      .max(4000, 'A question can be at most 4,000 characters; shorten it.'),
    /** Installed model id, path to a .gguf, `endpoint:<model>` or `scripted:<script.json>`; default: the configured/first chat model. */
    model: z.string().min(1).max(4096).optional(),
    max_steps: z
      .number()
      .int()
      .min(1, `max_steps must be between 1 and ${AGENT_MAX_STEPS}`)
      .max(AGENT_MAX_STEPS, `max_steps must be between 1 and ${AGENT_MAX_STEPS}`)
      .optional(),
    /** Client-chosen id for the turn, so it can be cancelled before the answer arrives. */
    turn_id: TurnId.optional(),
    /** Defaults for the agent's searches in this turn (the model's explicit arguments win). */
    retrieval: RetrievalDefaults.optional(),
    /** `extractive`: no model; the best passages for the question, quoted and cited ("Find passages"). Default `agent`. */
    mode: z.enum(['agent', 'extractive'], { error: 'Choose how to answer: agent or extractive.' }).optional(),
    /** Limit every search of this turn to these documents (ids from tools.findFiles / the documents list). */
    file_ids: FileIds.optional(),
  })
  .strict();

export const ChatExportInput = z
  .object({
    case_id: CaseId,
    session_id: SessionId,
    /** `md` (default) or `docx` (Word, citations as footnotes). */
    format: z.enum(['md', 'docx'], { error: 'Export as md (Markdown) or docx (Word).' }).optional(),
    /** Export only this turn's question and answer. */
    turn_id: TurnId.optional(),
  })
  .strict();

export interface ChatExport {
  /** The Markdown export (always present, whatever the format). */
  markdown: string;
  /** The file name for the chosen format (…md or …docx). */
  filename: string;
  format: 'md' | 'docx';
  /** The Word document, base64, when `format` is `docx`. */
  docx_base64?: string;
}

export const chatContract = {
  'chat.ask': op<ChatAnswer>()(ChatAskInput, 'Ask the case agent a question; agent.* events stream while it runs.'),
  'chat.cancel': op<{ turn_id: string; cancelled: boolean }>()(
    z.object({ turn_id: TurnId }).strict(),
    'Cancel a running turn; its partial trace is kept.',
  ),
  'chat.sessions': op<{ sessions: ChatSessionSummary[] }>()(
    z.object({ case_id: CaseId }).strict(),
    'Chat sessions of a case, newest first.',
  ),
  'chat.session': op<ChatSession>()(
    z.object({ case_id: CaseId, session_id: SessionId }).strict(),
    'One chat session with its messages.',
  ),
  'chat.rename': op<ChatSessionSummary>()(
    z
      .object({
        case_id: CaseId,
        session_id: SessionId,
        title: z
          .string()
          .trim()
          .min(1, 'Give the chat a title.')
          .max(200, 'A chat title can be at most 200 characters.'),
      })
      .strict(),
    'Rename a chat session.',
  ),
  'chat.delete': op<{ id: string; deleted: true }>()(
    z.object({ case_id: CaseId, session_id: SessionId }).strict(),
    'Delete a chat session.',
  ),
  'chat.export': op<ChatExport>()(
    ChatExportInput,
    'A chat session (or one turn) as Markdown or Word, with its citations.',
  ),
};
