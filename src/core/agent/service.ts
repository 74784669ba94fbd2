/**
 * The case agent as an engine feature: `chat.*` operations, agent.* events, per-case chat
 * sessions, running turns that can be cancelled, and the local model runtime (loaded once,
 * unloaded when idle, closed with the engine).
 */
import type {
  AgentStep,
  AnswerFallback,
  AnswerKind,
  ChatAnswer,
  ChatMessage,
  CheckedCitation,
  ChunkRef,
  Coverage,
  EarlierUse,
  LimitedTo,
  RetrievalDefaults,
} from '../../shared/contract/chat';
import type { SearchResult } from '../../shared/contract/search';
import { CasefileError } from '../../shared/errors';
import { answerMessage } from '../../shared/citation-text';
import { CitationLedger } from '../domain/index';
import { findCites, verifyCitations } from '../citations/verify';
import type { CaseTools } from '../tools/case-tools';
import { isReadable, type DocumentInfo } from '../tools/document-source';
import { degenerateReason } from './degenerate';
import {
  extractiveAnswer,
  noDocumentsAnswer,
  type ExtractiveAnswer,
  type ExtractiveOptions,
  type ExtractiveWhy,
} from './extractive';
import { caseVerifier, type CaseVerifier } from './verification';
import type { CasesPort, ModelCatalogPort } from '../ports';
import type { EventBus } from '../bus';
import type { HandlerMap } from '../router/router';
import { openCaseTools, type ToolsPorts } from '../tools/index';
import { limitLine } from '../tools/scope';
import { newId } from '../util/ids';
import { NoChatModelError, resolveModel, type EndpointConfig, type ResolvedModel } from './backends';
import { agentToolsFor, caseFactsFor, SMALL_MODEL_TOOLS } from './agent-tools';
import { condenseQuestion } from './condense';
import { LlamaHost } from './llama-host';
import type { LlamaRuntimeOptions } from './llama-provider';
import { runAgent, type AgentRunResult, type RunAgentOptions } from './loop';
import { clampMaxSteps } from './policies';
import { trimText } from './prompt';
import { exportChat } from './export';
import { ChatStore, priorRefs, replayHistory, toSession } from './sessions';
import type { AgentTool, PassageItem } from './types';
import {
  EARLIER_PASSAGES,
  familiesOf,
  isElliptical,
  planRecall,
  type FocusedFile,
  type FocusReason,
  type RecallPlan,
} from './recall';
import { plural } from '../../shared/format';
import { citedPassages, documentsKey, SessionMemory } from './session-memory';

/** The step that quotes the best passages (the extractive answer), as the timeline shows it. */
export const FIND_PASSAGES = 'find_passages';
/** The timeline's note on a turn answered with the passages, by why (a fallback names its reason). */
const EXTRACTIVE_POLICY: Partial<Record<ExtractiveWhy, string>> = {
  asked: 'Find passages: the best passages, quoted, without a model',
  no_model: 'no chat model is installed: the best passages, quoted',
  small_model: 'the installed chat model is too small to answer: the best passages, quoted',
};

/** Why an answer with no supported sentence is replaced. */
export const UNSUPPORTED_ANSWER = "no sentence of the model's answer is supported by the passage it cites";

/** Coverage of a turn that took no agent steps (`only`: the documents it searched, when not all of them). */
function plainCoverage(files: DocumentInfo[], note: string, only?: readonly string[]): Coverage {
  const unsearchable = files
    .filter((f) => !isReadable(f.status))
    .map((f) => ({ file_name: f.name, status: f.status, ...(f.reason ? { reason: f.reason } : {}) }));
  const searched = files.filter((f) => isReadable(f.status) && (!only || only.includes(f.name))).map((f) => f.name);
  return {
    files_total: files.length,
    files_listed: files.length,
    files_searched: searched.length,
    files_read: 0,
    searched,
    read: [],
    unsearchable,
    exhaustive: false,
    whole_case_searched: false,
    budget_exhausted: false,
    note,
  };
}

/** Tools whose step searched the documents' words (counted in a turn's `searches`). */
const SEARCH_TOOLS = new Set(['retrieve', 'keyword_search', 'vector_search', 'grepCase', 'grepFile']);

/** A step of the model's that ran a search (one answered from an earlier step did not). */
function ranSearch(step: AgentStep): boolean {
  return SEARCH_TOOLS.has(step.action) && !step.error && !/repeated call/i.test(step.policy ?? '');
}

/** The passages found earlier that a follow-up's model sees first, when the chat's memory reused them. */
function earlierFor(first: Passages): Pick<RunAgentOptions, 'earlier'> {
  const { recall } = first;
  if (recall?.earlier?.kind !== 'reused') return {};
  return { earlier: { passages: first.found.seen, question: recall.earlier.question, note: recall.note! } };
}

/** "msa.txt", "a.pdf and b.pdf", "a.pdf, b.pdf and 3 more". */
function namesOf(files: readonly { file_name: string }[]): string {
  const names = files.map((f) => f.file_name);
  if (names.length <= 2) return names.join(' and ');
  return `${names.slice(0, 2).join(', ')} and ${names.length - 2} more`;
}

/** Why a follow-up was searched again in the earlier question's documents, in plain words. */
const KEPT_WHY: Record<FocusReason | 'not answered', string> = {
  'another family': 'it asks about another kind of clause',
  'not elliptical': 'it asks something new about them',
  'nothing remembered': 'nothing found there earlier was kept',
  'several documents': 'each document is searched on its own',
  'not answered': 'the passages found earlier do not answer it',
};

/** A follow-up answered from the passages found earlier: what the trace and the answer say. */
function reusedRecall(plan: Extract<RecallPlan, { kind: 'reuse' }>, found: ExtractiveAnswer): TurnRecall {
  const n = found.seen.length;
  const files = plan.focus.map((f) => ({ file_id: f.file_id, file_name: f.file_name }));
  return {
    earlier: {
      kind: 'reused',
      passages: n,
      question: plan.from,
      files,
      line: `Used ${plural(n, 'passage')} found earlier`,
    },
    note: `follow-up: used ${plural(n, 'passage')} found earlier in this chat for “${plan.from}”; not searched again`,
    followUp: true,
    focus: plan.focus,
    passages: [],
  };
}

/** A follow-up searched again within the earlier question's documents. */
function keptRecall(plan: Extract<RecallPlan, { kind: 'reuse' | 'focus' }>, found: ExtractiveAnswer): TurnRecall {
  const files = plan.focus.map((f) => ({ file_id: f.file_id, file_name: f.file_name }));
  const why = KEPT_WHY[plan.kind === 'reuse' ? 'not answered' : plan.why];
  const line = `Searched again in ${namesOf(files)}, which the earlier question was about`;
  return {
    earlier: { kind: 'kept_focus', passages: 0, question: plan.from, files, line },
    note: `follow-up names no document: searched again in ${namesOf(files)}, which “${plan.from}” was about (${why})`,
    followUp: true,
    focus: plan.focus,
    passages: found.results,
  };
}

/** The documents a searched turn focused on: those its question named, else the few the user chose. */
function focusOf(found: ExtractiveAnswer, limited: LimitedTo | undefined): FocusedFile[] {
  if (found.focus.length || !limited || limited.files.length > CHOSEN_FOCUS_MAX) return found.focus;
  return limited.files.map((f) => ({ ...f, title: '' }));
}

/** Documents the user chose that a follow-up may keep to, at most. */
const CHOSEN_FOCUS_MAX = 5;

/** The step of the passages, as the chat's memory shaped them: used from earlier (no search), or searched in the earlier documents. */
function recallStep(step: AgentStep, recall: TurnRecall): void {
  const earlier = recall.earlier!;
  step.policy = [recall.note, step.policy].filter(Boolean).join('; ');
  if (earlier.kind === 'kept_focus') {
    step.input = { ...step.input, documents: earlier.files.map((f) => f.file_name) };
    return;
  }
  step.action = EARLIER_PASSAGES;
  step.input = { ...step.input, question: earlier.question };
  step.observation = `${earlier.line} in this chat (for “${earlier.question}”): not searched again.`;
  step.summary = { tool: EARLIER_PASSAGES, count: earlier.passages };
}

/** The coverage note of an extractive answer. */
function extractiveNote(files: DocumentInfo[], earlier: EarlierUse | undefined): string {
  if (earlier?.kind === 'reused')
    return `${earlier.line} in this chat, in ${namesOf(earlier.files)}; the documents were not searched again.`;
  if (earlier?.kind === 'kept_focus')
    return `Searched ${namesOf(earlier.files)}, the document${earlier.files.length === 1 ? '' : 's'} the earlier question was about, for the passages closest to the question.`;
  const readable = files.filter((f) => isReadable(f.status)).length;
  return `Searched the ${readable} readable file${readable === 1 ? '' : 's'} of the case for the passages closest to the question.`;
}

/** What the agent needs: the tools' ports, the model catalog, case.json, the events it emits and those that change a case's documents. */
export interface AgentPorts extends ToolsPorts, ModelCatalogPort {
  readonly cases: Pick<CasesPort, 'readMeta' | 'caseDir'>;
  readonly events: Pick<EventBus, 'emit' | 'on'>;
}

export interface AgentOptions {
  llama?: LlamaRuntimeOptions;
  /** OpenAI-compatible endpoint (the engine passes CASEFILE_ENDPOINT_URL's; none otherwise). */
  endpoint?: EndpointConfig;
  /** The model of a turn that names none (the engine passes CASEFILE_SCRIPTED_MODEL's or CASEFILE_CHAT_MODEL's). */
  defaultModel?: string;
  /** Output tokens per step (default 768; the engine passes CASEFILE_AGENT_MAX_TOKENS). */
  maxOutputTokens?: number;
  /** Bounds of a constrained step's thought and answer (characters). */
  thoughtChars?: number;
  answerChars?: number;
  /** Bound of each string argument of a constrained tool call (characters). */
  argChars?: number;
  /** Passage characters shown per result, and per observation. */
  passageChars?: number;
  observationChars?: number;
  /** The chat's memory of what it found (default on): a follow-up may use passages found earlier, or keep the earlier documents. */
  sessionMemory?: boolean;
  /** Replace the case tools (benchmarks); default: the index's tools bound to the case. */
  toolsFor?: (caseId: string, ledger: CitationLedger, retrieval?: RetrievalDefaults) => Promise<AgentTool[]>;
}

export interface AskInput {
  case_id: string;
  session_id?: string | undefined;
  question: string;
  model?: string | undefined;
  max_steps?: number | undefined;
  turn_id?: string | undefined;
  /** Defaults for the agent's searches (Settings); the model's explicit arguments win. */
  retrieval?: RetrievalDefaults | undefined;
  /** `extractive`: the best passages quoted, no model. */
  mode?: 'agent' | 'extractive' | undefined;
  /** Limit every search of the turn to these files of the case ("Ask about these"). */
  file_ids?: string[] | undefined;
}

/** Bounds (characters) of a model too small to answer, picked anyway. */
const SMALL_MODEL_BOUNDS = { thoughtChars: 160, answerChars: 600, observationChars: 900 };

/**
 * Characters of observation per step so that a full turn fits the model's context (≈3.5 characters
 * a token) beside the system prompt and the reply: a turn that overflows is shifted, and the model
 * then reads the whole conversation again.
 */
function observationBudget(contextTokens: number, maxSteps: number, maxOutputTokens: number): number {
  return Math.round(Math.min(3000, Math.max(600, ((contextTokens - 1200 - maxOutputTokens) * 3.5) / (maxSteps + 1))));
}

/** One turn in flight: what it was asked, where it is kept, and what it has learnt so far. */
interface TurnState {
  input: AskInput;
  chats: ChatStore;
  session: Awaited<ReturnType<ChatStore['read']>>;
  ref: { case_id: string; session_id: string; turn_id: string };
  signal: AbortSignal;
  started: number;
  /** The model's label, once resolved. */
  label: string;
  /** The question as asked, or its stand-alone form after condensing a follow-up. */
  standalone: string;
  /** The documents the user limited the question to, once checked. */
  limited?: LimitedTo;
  /** When the first cited answer was ready (ms since `started`). */
  firstAnswerMs?: number;
  /** The case's documents when the turn began (`documentsKey`), for the chat's memory. */
  documents?: string;
  /** What the chat's memory did for the turn, and what the turn leaves it; set by its first passages. */
  recall?: TurnRecall;
  /** Searches of the documents the turn ran so far. */
  searches: number;
}

/** What the chat's memory did for a turn, and what the turn leaves it. */
interface TurnRecall {
  /** Set when memory shaped the turn (passages found earlier, or the earlier documents kept). */
  earlier?: EarlierUse;
  /** The step's note in the trace: why the passages were not searched, or searched where they were. */
  note?: string;
  /** The turn leant on an earlier one (a follow-up the memory had something for). */
  followUp: boolean;
  /** The documents the turn focused on, and the passages found there (what the chat remembers). */
  focus: FocusedFile[];
  passages: SearchResult[];
}

/** The best passages for a question, quoted, verified and graded: a turn's first answer, or its last. */
interface Passages {
  found: ExtractiveAnswer;
  citations: CheckedCitation[];
  grounded: boolean;
  /** The search's time, for its step on the timeline. */
  ms: number;
  /** The question they answer. */
  question: string;
  /** Set when they are the turn's first passages and the chat's memory shaped them. */
  recall?: TurnRecall;
}

export class AgentService {
  private runtimeInstance: LlamaHost | undefined;
  private readonly running = new Map<string, { caseId: string; controller: AbortController }>();
  /** What each chat found so far (null when the options turn it off). */
  private readonly memory: SessionMemory | null;
  private readonly unlisten: (() => void)[] = [];

  constructor(
    private readonly ports: AgentPorts,
    private readonly options: AgentOptions = {},
  ) {
    this.memory = options.sessionMemory === false ? null : new SessionMemory();
    const memory = this.memory;
    if (memory) {
      // A document added, changed, read again or removed may change any answer found before.
      this.unlisten.push(
        ports.events.on('cases.changed', ({ case_id: caseId, kind }) => {
          if (kind !== 'renamed' && kind !== 'settings') memory.forgetCase(caseId);
        }),
        ports.events.on('ingest.file', ({ case_id: caseId }) => memory.forgetCase(caseId)),
      );
    }
  }

  /** The local model runtime (its own process, started on first call), created on first use. */
  runtime(): LlamaHost {
    this.runtimeInstance ??= new LlamaHost(this.options.llama ?? {});
    return this.runtimeInstance;
  }

  store(caseId: string): ChatStore {
    return new ChatStore(caseId, this.ports.cases.caseDir(caseId));
  }

  cancel(turnId: string): boolean {
    const t = this.running.get(turnId);
    if (!t) return false;
    t.controller.abort(new CasefileError('cancelled', 'Cancelled.'));
    return true;
  }

  cancelCase(caseId: string): void {
    for (const [id, t] of this.running) if (t.caseId === caseId) this.cancel(id);
  }

  /** A chat was deleted: what it found is forgotten. */
  forgetChat(caseId: string, sessionId: string): void {
    this.memory?.forgetChat(caseId, sessionId);
  }

  async close(): Promise<void> {
    for (const off of this.unlisten.splice(0)) off();
    for (const id of [...this.running.keys()]) this.cancel(id);
    await this.runtimeInstance?.close();
    this.runtimeInstance = undefined;
  }

  async ask(input: AskInput, outer?: AbortSignal): Promise<ChatAnswer> {
    const started = performance.now();
    const { case_id: caseId } = input;
    await this.ports.cases.readMeta(caseId);
    const chats = this.store(caseId);
    const session = input.session_id ? await chats.read(input.session_id) : await chats.create(input.question);
    const turnId = input.turn_id ?? newId('t', 12);
    if (this.running.has(turnId)) throw new CasefileError('conflict', `A turn with id ${turnId} is already running.`);
    const controller = new AbortController();
    const onOuter = () => controller.abort(outer?.reason);
    outer?.addEventListener('abort', onOuter, { once: true });
    if (outer?.aborted) controller.abort(outer.reason);
    this.running.set(turnId, { caseId, controller });
    const turn: TurnState = {
      input,
      chats,
      session,
      ref: { case_id: caseId, session_id: session.id, turn_id: turnId },
      signal: controller.signal,
      started,
      label: input.model ?? 'default',
      standalone: input.question,
      searches: 0,
    };
    try {
      return await this.runTurn(turn);
    } catch (err) {
      const result = this.failedAnswer(turn, err);
      await this.persist(chats, session.id, input.question, result, [], null).catch(() => undefined);
      this.ports.events.emit('agent.done', { ...turn.ref, result });
      if (result.status === 'cancelled') return result;
      throw err;
    } finally {
      outer?.removeEventListener('abort', onOuter);
      this.running.delete(turnId);
    }
  }

  /**
   * Answer at once when nothing is searchable; give the extractive answer when asked for, when no
   * chat model is installed, or when the default one is too small to answer; otherwise send the
   * passages first and let the model compose underneath (`compose`).
   */
  private async runTurn(turn: TurnState): Promise<ChatAnswer> {
    const { input, ref, signal } = turn;
    const ledger = new CitationLedger(turn.session.ledger);
    // A model the turn names is checked first: naming one that cannot be used is an error whatever the case holds.
    const named = input.model !== undefined && input.mode !== 'extractive' ? await this.resolve(input.model) : null;
    const caseTools = await this.toolsOf(turn, ledger);
    const files = await caseTools.inventory();
    const nothing = noDocumentsAnswer(files);
    if (nothing) {
      turn.label = 'none';
      return this.finish(turn, {
        answer: nothing,
        kind: 'no_documents',
        steps: [],
        coverage: plainCoverage(files, 'No search: the case has nothing searchable yet.'),
        ledger,
        seen: [],
        verification: { citations: [], grounded: false },
      });
    }
    const verifier = await caseVerifier(this.ports, ref.case_id, signal);
    const passagesOnly = (why: ExtractiveWhy) => {
      turn.label = 'none';
      this.announce(turn);
      return this.extractive(turn, { why, caseTools, ledger, verifier, files, steps: [] });
    };
    if (input.mode === 'extractive') return passagesOnly('asked');
    let resolved: ResolvedModel;
    try {
      resolved = named ?? (await this.resolve(undefined));
    } catch (err) {
      if (!(err instanceof NoChatModelError)) throw err;
      return passagesOnly('no_model');
    }
    // Nothing was picked and the only model would write nothing worth waiting for: the passages, now.
    if (resolved.tooSmall) return passagesOnly('small_model');
    turn.label = resolved.label;
    this.announce(turn);
    // Answer first: the passages go out now; the model writes underneath and replaces them only if its answer verifies.
    const first = await this.passages(turn, { caseTools, ledger, verifier, why: 'asked', question: input.question });
    this.ports.events.emit('agent.passages', {
      ...ref,
      answer: first.found.answer,
      citations: first.citations,
      model: turn.label,
      first_answer_ms: turn.firstAnswerMs!,
    });
    return this.compose(turn, resolved, { caseTools, ledger, verifier, files, first });
  }

  /** The model's part of a turn: condense a follow-up, run the loop, keep its answer only if it verifies. */
  private async compose(
    turn: TurnState,
    resolved: ResolvedModel,
    o: { caseTools: CaseTools; ledger: CitationLedger; verifier: CaseVerifier; files: DocumentInfo[]; first: Passages },
  ): Promise<ChatAnswer> {
    const { input, ref, signal } = turn;
    const { caseTools, ledger, verifier, files, first } = o;
    const events = this.ports.events;
    const catalogue = this.options.toolsFor
      ? await this.options.toolsFor(ref.case_id, ledger, input.retrieval)
      : agentToolsFor(caseTools, input.retrieval ? { retrieval: input.retrieval } : {});
    const tools = resolved.small ? catalogue.filter((t) => SMALL_MODEL_TOOLS.includes(t.name)) : catalogue;
    const history = replayHistory(turn.session.messages);
    const maxOutputTokens = this.options.maxOutputTokens ?? 768;
    const bounds = this.stepBounds(resolved, input.max_steps, maxOutputTokens);
    if (history.length) await this.condense(turn, resolved, history, maxOutputTokens);
    const run = await runAgent({
      model: resolved.model,
      format: resolved.format,
      tools,
      question:
        turn.standalone === input.question
          ? turn.standalone
          : `${turn.standalone} (asked as a follow-up: "${input.question}")`,
      searchQuery: turn.standalone,
      history,
      priorRefs: priorRefs(turn.session.messages),
      ...(input.max_steps ? { maxSteps: input.max_steps } : {}),
      maxOutputTokens,
      ...bounds,
      ...(this.options.argChars ? { argChars: this.options.argChars } : {}),
      ...(this.options.passageChars ? { passageChars: this.options.passageChars } : {}),
      signal,
      citations: ledger,
      sourceText: verifier.sourceText,
      verify: verifier.options,
      ...earlierFor(first),
      // The case's own tools are checked against its documents (tool-check.ts); tools given in their place are not.
      ...(this.options.toolsFor ? {} : { facts: caseFactsFor(caseTools) }),
      onStep: (step, phase) => events.emit('agent.step', { ...ref, phase, step }),
      onToken: (step, channel, text) => events.emit('agent.token', { ...ref, step, channel, text }),
    });
    // The passages the draft showed stay when the question did not change (a follow-up is searched again, condensed).
    const shown = turn.standalone === input.question ? first : undefined;
    if (run.cancelled) return this.finishCancelled(turn, run, ledger, first);
    const unusable =
      run.stopped ??
      degenerateReason(run.answer, turn.standalone, { answerChars: bounds.answerChars }) ??
      (run.supportedSentences > 0 ? null : UNSUPPORTED_ANSWER);
    if (unusable) {
      return this.extractive(turn, {
        why: 'fallback',
        caseTools,
        ledger,
        verifier,
        files,
        steps: run.steps,
        run,
        fallback: { reason: unusable, model_answer: run.answer },
        ...(shown ? { shown } : {}),
      });
    }
    // What the model's answer cites and verification found green is remembered for the chat's follow-ups.
    if (turn.recall)
      turn.recall.passages = [
        ...(await citedPassages(run.citations, ledger, verifier.sourceText)),
        ...turn.recall.passages,
      ];
    return this.finish(turn, {
      answer: run.answer,
      kind: 'agent',
      steps: run.steps,
      coverage: run.coverage,
      ledger,
      seen: run.seen,
      verification: run,
    });
  }

  /** A follow-up condensed into a standalone question (set on the turn), and the event that says so. */
  private async condense(
    turn: TurnState,
    resolved: ResolvedModel,
    history: ReturnType<typeof replayHistory>,
    maxOutputTokens: number,
  ): Promise<void> {
    const { input, ref, signal } = turn;
    turn.standalone = await condenseQuestion({
      model: resolved.model,
      format: resolved.format,
      history,
      question: input.question,
      signal,
      maxOutputTokens: Math.min(160, maxOutputTokens),
    });
    this.ports.events.emit('agent.turn', {
      ...ref,
      phase: 'condensed',
      question: input.question,
      standalone_question: turn.standalone,
      model: turn.label,
    });
  }

  /** A turn the user stopped: it keeps the passages the user already has. */
  private finishCancelled(
    turn: TurnState,
    run: Awaited<ReturnType<typeof runAgent>>,
    ledger: CitationLedger,
    first: Passages,
  ): Promise<ChatAnswer> {
    return this.finish(turn, {
      answer: first.found.answer,
      kind: 'extractive',
      steps: run.steps,
      coverage: run.coverage,
      ledger,
      seen: first.found.seen,
      verification: first,
      cancelled: true,
      ...(run.answer
        ? { fallback: { reason: 'you stopped the model before it finished', model_answer: run.answer } }
        : {}),
    });
  }

  /**
   * How much a step may write and read: the options' bounds, an observation budget that fits the
   * context, and for a model too small to answer a short thought, answer and observations (what it
   * reads and writes is most of its turn's time).
   */
  private stepBounds(
    resolved: ResolvedModel,
    maxSteps: number | undefined,
    maxOutputTokens: number,
  ): { thoughtChars?: number; answerChars: number; observationChars: number } {
    const o = this.options;
    const small = resolved.small ? SMALL_MODEL_BOUNDS : null;
    const thoughtChars = o.thoughtChars ?? small?.thoughtChars;
    const answerChars = Math.min(o.answerChars ?? 1500, small?.answerChars ?? Infinity);
    const budget =
      o.observationChars ??
      observationBudget(
        resolved.kind === 'llama' ? this.runtime().options.contextSize : 32_768,
        clampMaxSteps(maxSteps),
        maxOutputTokens,
      );
    return {
      ...(thoughtChars ? { thoughtChars } : {}),
      answerChars,
      observationChars: Math.min(budget, small?.observationChars ?? Infinity),
    };
  }

  /** The case's tools for the turn: limited to the documents the user chose when it names some (unknown ids refused). */
  private async toolsOf(turn: TurnState, ledger: CitationLedger): Promise<CaseTools> {
    const all = await openCaseTools(this.ports, turn.ref.case_id, { ledger });
    // The whole case's documents, whatever the question is limited to: what the chat's memory is checked against.
    turn.documents = documentsKey(await all.inventory());
    if (!turn.input.file_ids) return all;
    const { tools, files } = await all.limitedTo(turn.input.file_ids);
    turn.limited = { files: files.map((f) => ({ file_id: f.id, file_name: f.name })), line: limitLine(files) };
    return tools;
  }

  /** The turn has started (with the documents it is limited to). */
  private announce(turn: TurnState): void {
    const { ref, input, label, limited } = turn;
    this.ports.events.emit('agent.turn', {
      ...ref,
      phase: 'started',
      question: input.question,
      model: label,
      ...(limited ? { limited_to: limited } : {}),
    });
  }

  /** The model of a turn: the one named, else the default (NoChatModelError when none is installed). */
  async resolve(model: string | undefined): Promise<ResolvedModel> {
    return resolveModel(model, {
      runtime: () => this.runtime(),
      registry: await this.ports.catalog(),
      endpoint: this.options.endpoint,
      defaultModel: this.options.defaultModel,
    });
  }

  /** The best passages for `question`, quoted, verified and graded (the first cited answer of the turn when it is the first). */
  private async passages(
    turn: TurnState,
    o: { caseTools: CaseTools; ledger: CitationLedger; verifier: CaseVerifier; why: ExtractiveWhy; question: string },
  ): Promise<Passages> {
    const t0 = performance.now();
    const { verifier } = o;
    const base: ExtractiveOptions = {
      tools: o.caseTools,
      ledger: o.ledger,
      sourceText: verifier.sourceText,
      ...(verifier.options.similarity ? { similarity: verifier.options.similarity } : {}),
      question: o.question,
      why: o.why,
      signal: turn.signal,
    };
    // The turn's first passages are the chat's memory's to decide; any later ones (a fallback) are searched.
    const first = !turn.recall;
    const found = first ? await this.recalled(turn, base) : await extractiveAnswer(base);
    turn.searches += found.searches;
    const checked = await verifyCitations(found.answer, o.ledger, verifier.sourceText, verifier.options);
    const citations = checked.citations.map((c) =>
      found.relevance.has(c.id) ? { ...c, relevance: found.relevance.get(c.id)! } : c,
    );
    turn.firstAnswerMs ??= performance.now() - turn.started;
    return {
      found,
      citations,
      grounded: checked.grounded,
      ms: performance.now() - t0,
      question: o.question,
      ...(first && turn.recall?.earlier ? { recall: turn.recall } : {}),
    };
  }

  /**
   * The turn's first passages as the chat's memory decides (recall.ts): the passages found earlier
   * when they answer the follow-up, else a search within the earlier question's documents, or the
   * usual search.
   */
  private async recalled(turn: TurnState, base: ExtractiveOptions): Promise<ExtractiveAnswer> {
    const plan = await this.planFor(turn, base.tools);
    if (plan.kind === 'reuse') {
      const reused = await extractiveAnswer({
        ...base,
        earlier: plan.passages,
        within: plan.focus,
        searchQuery: plan.searchQuery,
      });
      if (reused.found) {
        turn.recall = reusedRecall(plan, reused);
        return reused;
      }
    }
    if (plan.kind === 'search') {
      const found = await extractiveAnswer(base);
      turn.recall = { followUp: false, focus: focusOf(found, turn.limited), passages: found.results };
      return found;
    }
    const found = await extractiveAnswer({ ...base, within: plan.focus, searchQuery: plan.searchQuery });
    turn.recall = keptRecall(plan, found);
    return found;
  }

  /** What the chat's memory would do with the turn's question (a search as usual when it remembers nothing). */
  private async planFor(turn: TurnState, tools: CaseTools): Promise<RecallPlan> {
    const { ref, input, documents } = turn;
    const earlier = this.memory && documents ? this.memory.turns(ref.case_id, ref.session_id, documents) : [];
    if (!earlier.length) return { kind: 'search' };
    const named = await tools.named(input.question);
    return planRecall({ question: input.question, earlier, named, chosen: input.file_ids });
  }

  /** The finished turn, remembered for the chat's follow-ups: its question, families, documents and what it found there. */
  private remember(turn: TurnState): void {
    const { recall, documents, ref, input } = turn;
    if (!this.memory || !recall || !documents) return;
    const inFocus = new Set(recall.focus.map((f) => f.file_id));
    this.memory.remember(ref.case_id, ref.session_id, documents, {
      question: input.question,
      families: [...new Set([...familiesOf(input.question), ...familiesOf(turn.standalone)])],
      elliptical: recall.followUp && isElliptical(input.question),
      focus: recall.focus,
      passages: recall.passages.filter((p) => inFocus.has(p.file_id)),
    });
  }

  /** End the turn with the extractive answer (`shown`: the passages already sent first); its search is one more step of the timeline. */
  private async extractive(
    turn: TurnState,
    o: {
      why: ExtractiveWhy;
      caseTools: CaseTools;
      ledger: CitationLedger;
      verifier: CaseVerifier;
      files: DocumentInfo[];
      steps: AgentStep[];
      run?: AgentRunResult;
      fallback?: AnswerFallback;
      shown?: Passages;
    },
  ): Promise<ChatAnswer> {
    const { ref } = turn;
    const index = o.steps.length + 1;
    const policy =
      EXTRACTIVE_POLICY[o.why] ?? `the model's answer was replaced by the best passages: ${o.fallback!.reason}`;
    const query = turn.standalone;
    const step: AgentStep = {
      index,
      kind: 'action',
      thought: '',
      action: FIND_PASSAGES,
      input: { query },
      observation: '',
      policy,
      timing: { model_ms: 0, tool_ms: 0 },
      tokens: { input: 0, output: 0 },
    };
    this.ports.events.emit('agent.step', { ...ref, phase: 'action', step });
    const p =
      o.shown ??
      (await this.passages(turn, {
        caseTools: o.caseTools,
        ledger: o.ledger,
        verifier: o.verifier,
        why: o.why,
        question: query,
      }));
    const { found } = p;
    step.timing.tool_ms = p.ms;
    step.observation = !found.seen.length
      ? 'No passage matches the question.'
      : `${found.found ? '' : "The documents don't appear to say. "}Quoted ${found.seen.length} passage${found.seen.length === 1 ? '' : 's'}.`;
    step.summary = { tool: FIND_PASSAGES, count: found.seen.length };
    // Passages found earlier are one line of the timeline: the model's turn already shows them as its first step.
    if (p.recall && !o.steps.some((x) => x.action === EARLIER_PASSAGES)) recallStep(step, p.recall);
    this.ports.events.emit('agent.step', { ...ref, phase: 'observation', step });
    // The same passages and citations; only the first line says why they are the answer.
    const answer = found.because(o.why);
    const earlier = p.recall?.earlier;
    const only = earlier && (earlier.kind === 'reused' ? [] : earlier.files.map((f) => f.file_name));
    const coverage = o.run?.coverage ?? plainCoverage(o.files, extractiveNote(o.files, earlier), only);
    return this.finish(turn, {
      answer,
      kind: 'extractive',
      steps: [...o.steps, step],
      coverage,
      ledger: o.ledger,
      seen: [...found.seen, ...(o.run?.seen ?? [])],
      verification: p,
      ...(o.fallback ? { fallback: o.fallback } : {}),
    });
  }

  /** Build, persist and announce the turn's answer. */
  private async finish(
    turn: TurnState,
    o: {
      answer: string;
      kind: AnswerKind;
      steps: AgentStep[];
      coverage: Coverage;
      ledger: CitationLedger;
      seen: PassageItem[];
      verification: { citations: CheckedCitation[]; grounded: boolean };
      cancelled?: boolean;
      fallback?: AnswerFallback;
    },
  ): Promise<ChatAnswer> {
    const { input, ref, limited } = turn;
    const reused = turn.recall?.earlier?.kind === 'reused' ? turn.recall.earlier : undefined;
    // The model's turn counts what it searched itself; the passages it was given from earlier are said too.
    const noted =
      reused && o.kind === 'agent'
        ? { ...o.coverage, note: `${o.coverage.note} ${reused.line} in this chat, in ${namesOf(reused.files)}.` }
        : o.coverage;
    const coverage = limited ? { ...noted, note: `${limited.line}. ${noted.note}`.trim() } : noted;
    const result: ChatAnswer = {
      ...ref,
      question: input.question,
      standalone_question: turn.standalone,
      answer: o.answer,
      citations: o.verification.citations,
      steps: o.steps,
      coverage,
      grounded: o.verification.grounded,
      status: o.cancelled ? 'cancelled' : 'done',
      model: turn.label,
      timing: {
        total_ms: performance.now() - turn.started,
        first_answer_ms: turn.firstAnswerMs ?? performance.now() - turn.started,
      },
      answer_kind: o.kind,
      ...(o.fallback ? { fallback: o.fallback } : {}),
      ...(limited ? { limited_to: limited } : {}),
      searches: turn.searches + o.steps.filter(ranSearch).length,
      ...(turn.recall?.earlier ? { earlier: turn.recall.earlier } : {}),
    };
    if (!o.cancelled) this.remember(turn);
    await this.persist(turn.chats, ref.session_id, input.question, result, o.seen, o.ledger);
    this.ports.events.emit('agent.done', { ...ref, result });
    return result;
  }

  /** The answer of a turn that was cancelled or failed (kept in the session like any answer). */
  private failedAnswer(turn: TurnState, err: unknown): ChatAnswer {
    const cancelled = turn.signal.aborted;
    const message = err instanceof Error ? err.message : String(err);
    return {
      ...turn.ref,
      question: turn.input.question,
      standalone_question: turn.standalone,
      answer: '',
      citations: [],
      steps: [],
      coverage: {
        files_total: null,
        files_listed: 0,
        files_searched: 0,
        files_read: 0,
        searched: [],
        read: [],
        unsearchable: [],
        exhaustive: false,
        whole_case_searched: false,
        budget_exhausted: false,
        note: cancelled ? 'The turn was cancelled.' : `The turn failed: ${message}`,
      },
      grounded: false,
      status: cancelled ? 'cancelled' : 'failed',
      ...(cancelled ? {} : { error: message }),
      model: turn.label,
      timing: { total_ms: performance.now() - turn.started },
    };
  }

  private async persist(
    chats: ChatStore,
    sessionId: string,
    question: string,
    result: ChatAnswer,
    seen: PassageItem[],
    ledger: CitationLedger | null,
  ): Promise<void> {
    const now = new Date().toISOString();
    const cited = new Set(findCites(result.answer).map((c) => c.id));
    const refs: ChunkRef[] = [];
    const ordered = [...seen.filter((s) => cited.has(s.cite)), ...seen.filter((s) => !cited.has(s.cite))];
    for (const s of ordered.slice(0, 12)) {
      refs.push({
        cite: s.cite,
        ...(s.chunk_id ? { chunk_id: s.chunk_id } : {}),
        file_name: s.file_name,
        pages: s.pages,
        summary: trimText(s.text, 100),
      });
    }
    const user: ChatMessage = {
      id: newId('m', 12),
      role: 'user',
      content: question,
      turn_id: result.turn_id,
      created: now,
    };
    const assistant = answerMessage(result, newId('m', 12), now, refs);
    await chats.update(sessionId, (s) => {
      s.messages.push(user, assistant);
      if (ledger) s.ledger = ledger.records();
    });
  }
}

/** The agent for an engine (loaded on first use, see `Engine.agentService`); its owner closes it and calls `cancelCase`. */
export function createAgent(ports: AgentPorts, options: AgentOptions = {}): AgentService {
  return new AgentService(ports, options);
}

/** The `chat.*` operations. */
export function agentHandlers(ports: Pick<AgentPorts, 'cases'>, service: AgentService): HandlerMap {
  return {
    'chat.ask': async (input, ctx) => service.ask(input, ctx.signal),
    'chat.cancel': async ({ turn_id: turnId }) => ({ turn_id: turnId, cancelled: service.cancel(turnId) }),
    'chat.sessions': async ({ case_id: caseId }) => {
      await ports.cases.readMeta(caseId);
      return { sessions: await service.store(caseId).list() };
    },
    'chat.session': async ({ case_id: caseId, session_id: sessionId }) =>
      toSession(await service.store(caseId).read(sessionId)),
    'chat.rename': async ({ case_id: caseId, session_id: sessionId, title }) =>
      service.store(caseId).rename(sessionId, title),
    'chat.delete': async ({ case_id: caseId, session_id: sessionId }) => {
      await service.store(caseId).delete(sessionId);
      service.forgetChat(caseId, sessionId);
      return { id: sessionId, deleted: true as const };
    },
    'chat.export': async ({ case_id: caseId, session_id: sessionId, format, turn_id: turnId }) => {
      const meta = await ports.cases.readMeta(caseId);
      const s = await service.store(caseId).read(sessionId);
      return exportChat(s, { caseName: meta.name, ...(format ? { format } : {}), ...(turnId ? { turnId } : {}) });
    },
  };
}
