import { create, type StoreApi } from 'zustand';
import type { AgentStep, ChatAnswer, ChatMessage, ChatSessionSummary } from '../../../shared/contract/chat';
import { api, ApiError, errorMessage } from '../api/index';
import type { OpInput, OpOutput } from '../../../shared/contract/index';
import { agentRetrieval, type RetrievalSettings } from './settings';

/** How a question is answered: by the agent (a model), or "Find passages" (no model). */
export type AskMode = 'agent' | 'extractive';

/**
 * The turn being answered right now, built from agent.* events as they arrive. What the model
 * writes while it works (its thought, and the answer it drafts) belongs to the timeline's current
 * step; the answer slot shows the best passages first (`passages`), then the turn's final answer
 * (`result`): the model's when it verifies, else the same passages.
 */
export interface LiveTurn {
  turnId: string;
  question: string;
  mode: AskMode;
  steps: AgentStep[];
  /** Step being generated, and what the model has streamed for it so far. */
  step: number;
  thought: string;
  /** The answer the model is drafting in step `step` (shown in the timeline, never in the answer slot). */
  draft: string;
  /** The best passages, sent first (agent.passages) while the model writes; they stay unless its answer verifies. */
  passages: ChatMessage | null;
  /** The final answer (agent.done or the ask's reply); until then the answer slot shows the passages, or says the turn is working. */
  result: ChatAnswer | null;
  cancelling: boolean;
  model: string;
  /** "Limited to N documents you chose: …" when the question was limited to chosen documents. */
  limitedTo?: string;
}

interface ChatState {
  caseId: string | null;
  sessions: ChatSessionSummary[];
  sessionId: string | null;
  messages: ChatMessage[];
  live: LiveTurn | null;
  error: string | null;
  /** Documents ticked in the documents list (their ids). */
  selected: string[];
  /** "Ask about these": the documents the next questions are limited to (the chip above the input), or null for the whole case. */
  limit: ChosenDoc[] | null;
  toggleSelected(fileId: string): void;
  clearSelected(): void;
  /** Forget ticked and chosen documents that are no longer in the case (`ids`: the case's files now). */
  keepOnly(caseId: string, ids: ReadonlySet<string>): void;
  /** Limit the next questions to these documents (and clear the ticks). */
  askAbout(docs: ChosenDoc[]): void;
  clearLimit(): void;
  loadSessions(caseId: string): Promise<void>;
  openSession(sessionId: string | null): Promise<void>;
  /** Ask a question with these search and answer settings (the user's, from Settings). */
  ask(question: string, settings: RetrievalSettings, mode?: AskMode): Promise<void>;
  cancel(): Promise<void>;
  deleteSession(sessionId: string): Promise<void>;
  /** A conversation (or one answer, with `turnId`) as Markdown or Word, with its citations. */
  exportChat(
    caseId: string,
    sessionId: string,
    format: 'md' | 'docx',
    turnId?: string,
  ): Promise<OpOutput<'chat.export'>>;
}

/** A document chosen to ask about. */
export interface ChosenDoc {
  file_id: string;
  file_name: string;
}

/** The line the live timeline shows until the engine's own arrives (same words). */
function limitText(docs: ChosenDoc[]): string {
  const names = docs
    .slice(0, 10)
    .map((d) => d.file_name)
    .join(', ');
  const more = docs.length > 10 ? ` and ${docs.length - 10} more` : '';
  return `Limited to ${docs.length === 1 ? 'the 1 document' : `${docs.length} documents`} you chose: ${names}${more}`;
}

/** The ticks and the chosen documents of a case, kept across reloads (per case, in this browser profile). */
interface KeptChoice {
  selected: string[];
  limit: ChosenDoc[] | null;
}

const choiceKey = (caseId: string) => `casefile.ask-about.${caseId}`;

function loadChoice(caseId: string): KeptChoice {
  try {
    const raw: unknown = JSON.parse(globalThis.localStorage?.getItem(choiceKey(caseId)) ?? 'null');
    if (!raw || typeof raw !== 'object') return { selected: [], limit: null };
    const { selected, limit } = raw as Partial<KeptChoice>;
    const docs = Array.isArray(limit)
      ? limit.filter((d): d is ChosenDoc => typeof d?.file_id === 'string' && typeof d?.file_name === 'string')
      : [];
    return {
      selected: Array.isArray(selected) ? selected.filter((x): x is string => typeof x === 'string') : [],
      limit: docs.length ? docs : null,
    };
  } catch {
    return { selected: [], limit: null }; // unreadable: start without a choice
  }
}

function saveChoice(caseId: string | null, choice: KeptChoice): void {
  if (!caseId) return;
  try {
    if (!choice.selected.length && !choice.limit) globalThis.localStorage?.removeItem(choiceKey(caseId));
    else globalThis.localStorage?.setItem(choiceKey(caseId), JSON.stringify(choice));
  } catch {
    // Storage full or disabled: the choice lasts until the window is reloaded.
  }
}

function newTurnId(): string {
  const bytes = new Uint8Array(9);
  crypto.getRandomValues(bytes);
  return `t${[...bytes]
    .map((b) => b.toString(36).padStart(2, '0'))
    .join('')
    .slice(0, 16)}`;
}

function upsertStep(steps: AgentStep[], step: AgentStep): AgentStep[] {
  const i = steps.findIndex((s) => s.index === step.index);
  if (i === -1) return [...steps, step].sort((a, b) => a.index - b.index);
  const next = steps.slice();
  next[i] = step;
  return next;
}

type SetChat = StoreApi<ChatState>['setState'];
type GetChat = StoreApi<ChatState>['getState'];

/** The ticked documents and the documents chosen to ask about, kept per case (see KeptChoice). */
function choiceActions(
  set: SetChat,
  get: GetChat,
): Pick<ChatState, 'toggleSelected' | 'clearSelected' | 'askAbout' | 'clearLimit' | 'keepOnly'> {
  return {
    toggleSelected(fileId) {
      set((s) => ({
        selected: s.selected.includes(fileId) ? s.selected.filter((x) => x !== fileId) : [...s.selected, fileId],
      }));
      saveChoice(get().caseId, get());
    },
    clearSelected() {
      set({ selected: [] });
      saveChoice(get().caseId, get());
    },
    askAbout(docs) {
      set({ limit: docs.length ? docs : null, selected: [] });
      saveChoice(get().caseId, get());
    },
    clearLimit() {
      set({ limit: null });
      saveChoice(get().caseId, get());
    },
    keepOnly(caseId, ids) {
      const { selected, limit } = get();
      if (get().caseId !== caseId) return;
      const kept = selected.filter((id) => ids.has(id));
      const docs = limit?.filter((d) => ids.has(d.file_id)) ?? null;
      if (kept.length === selected.length && (docs?.length ?? 0) === (limit?.length ?? 0)) return;
      set({ selected: kept, limit: docs?.length ? docs : null });
      saveChoice(caseId, get());
    },
  };
}

/** The case's conversations: listing, opening, deleting and exporting one. */
function sessionActions(
  set: SetChat,
  get: GetChat,
): Pick<ChatState, 'loadSessions' | 'openSession' | 'deleteSession' | 'exportChat'> {
  return {
    async loadSessions(caseId) {
      if (get().caseId !== caseId)
        set({ caseId, sessions: [], sessionId: null, messages: [], live: null, error: null, ...loadChoice(caseId) });
      try {
        const { sessions } = await api.call('chat.sessions', { case_id: caseId });
        if (get().caseId !== caseId) return;
        set({ sessions });
        if (!get().sessionId && sessions[0]) await get().openSession(sessions[0].id);
      } catch (err) {
        if (err instanceof ApiError && err.code === 'unavailable') return; // chat not in this build
        set({ error: errorMessage(err) });
      }
    },
    async openSession(sessionId) {
      const caseId = get().caseId;
      if (!caseId) return;
      if (!sessionId) {
        set({ sessionId: null, messages: [], error: null });
        return;
      }
      try {
        const session = await api.call('chat.session', { case_id: caseId, session_id: sessionId });
        if (get().caseId === caseId) set({ sessionId, messages: session.messages_list, error: null });
      } catch (err) {
        set({ error: errorMessage(err) });
      }
    },
    async deleteSession(sessionId) {
      const caseId = get().caseId;
      if (!caseId) return;
      await api.call('chat.delete', { case_id: caseId, session_id: sessionId });
      if (get().sessionId === sessionId) set({ sessionId: null, messages: [] });
      await get().loadSessions(caseId);
    },
    exportChat(caseId, sessionId, format, turnId) {
      return api.call('chat.export', {
        case_id: caseId,
        session_id: sessionId,
        format,
        ...(turnId ? { turn_id: turnId } : {}),
      });
    },
  };
}

/** What chat.ask is sent for a question: the retrieval settings, the session, the model, the mode, the chosen documents. */
function askInput(
  caseId: string,
  question: string,
  turnId: string,
  mode: AskMode,
  settings: RetrievalSettings,
  sessionId: string | null,
  limit: ChosenDoc[] | null,
): OpInput<'chat.ask'> {
  const retrieval = agentRetrieval(settings);
  return {
    case_id: caseId,
    question,
    turn_id: turnId,
    max_steps: settings.maxSteps,
    ...(retrieval ? { retrieval } : {}),
    ...(sessionId ? { session_id: sessionId } : {}),
    ...(settings.model && mode === 'agent' ? { model: settings.model } : {}),
    ...(mode === 'extractive' ? { mode } : {}),
    ...(limit ? { file_ids: limit.map((d) => d.file_id) } : {}),
  };
}

/** A question and its answer: asking (the live turn follows the engine's events, see watchAgent) and cancelling. */
function turnActions(set: SetChat, get: GetChat): Pick<ChatState, 'ask' | 'cancel'> {
  return {
    async ask(question, settings, mode = 'agent') {
      const caseId = get().caseId;
      if (!caseId || get().live) return;
      const turnId = newTurnId();
      const limit = get().limit;
      const now = new Date().toISOString();
      set((s) => ({
        error: null,
        live: {
          turnId,
          question,
          mode,
          steps: [],
          step: 1,
          thought: '',
          draft: '',
          passages: null,
          result: null,
          cancelling: false,
          model: settings.model,
          ...(limit ? { limitedTo: limitText(limit) } : {}),
        },
        messages: [
          ...s.messages,
          { id: `pending-${turnId}`, role: 'user', content: question, turn_id: turnId, created: now },
        ],
      }));
      let result: ChatAnswer | null = null;
      try {
        result = await api.call('chat.ask', askInput(caseId, question, turnId, mode, settings, get().sessionId, limit));
        const live = get().live;
        if (live?.turnId === turnId && !live.result) set({ live: { ...live, result } });
      } catch (err) {
        if (!(err instanceof ApiError && err.code === 'cancelled')) set({ error: errorMessage(err) });
      }
      if (get().caseId !== caseId) return;
      const sessionId = result?.session_id ?? get().sessionId;
      set({ live: null });
      if (result?.status === 'failed' && result.error) set({ error: result.error });
      try {
        const { sessions } = await api.call('chat.sessions', { case_id: caseId });
        set({ sessions });
        if (sessionId) await get().openSession(sessionId);
      } catch {
        // the answer is shown from the session when it can be read; nothing else to do
      }
    },
    async cancel() {
      const live = get().live;
      if (!live || live.cancelling) return;
      set({ live: { ...live, cancelling: true } });
      try {
        await api.call('chat.cancel', { turn_id: live.turnId });
      } catch (err) {
        set({ error: errorMessage(err) });
      }
    },
  };
}

export const useChat = create<ChatState>((set, get) => ({
  caseId: null,
  sessions: [],
  sessionId: null,
  messages: [],
  live: null,
  error: null,
  selected: [],
  limit: null,
  ...choiceActions(set, get),
  ...sessionActions(set, get),
  ...turnActions(set, get),
}));

let watching = false;
/** Follow the live turn's events: steps, the streamed thought and draft of the current step, the final answer. */
export function watchAgent(): () => void {
  if (watching) return () => {};
  watching = true;
  const mine = (turnId: string) => useChat.getState().live?.turnId === turnId;
  const offs = [
    api.on('agent.step', (e) => {
      if (!mine(e.turn_id)) return;
      useChat.setState((s) =>
        s.live
          ? {
              live: {
                ...s.live,
                steps: upsertStep(s.live.steps, e.step),
                ...(e.phase === 'action' && e.step.index !== s.live.step
                  ? { step: e.step.index, thought: '', draft: '' }
                  : {}),
                ...(e.phase === 'observation' ? { step: e.step.index + 1, thought: '', draft: '' } : {}),
              },
            }
          : {},
      );
    }),
    api.on('agent.token', (e) => {
      if (!mine(e.turn_id)) return;
      // Thought and drafted answer both go to the timeline's current step, never to the answer slot.
      useChat.setState((s) => {
        if (!s.live) return {};
        const same = e.step === s.live.step;
        const thought = same ? s.live.thought : '';
        const draft = same ? s.live.draft : '';
        return {
          live: {
            ...s.live,
            step: e.step,
            thought: e.channel === 'thought' ? thought + e.text : thought,
            draft: e.channel === 'answer' ? draft + e.text : draft,
          },
        };
      });
    }),
    api.on('agent.passages', (e) => {
      if (!mine(e.turn_id)) return;
      const passages: ChatMessage = {
        id: `passages-${e.turn_id}`,
        role: 'assistant',
        content: e.answer,
        turn_id: e.turn_id,
        created: new Date().toISOString(),
        citations: e.citations,
        answer_kind: 'extractive',
        model: e.model,
      };
      useChat.setState((s) => (s.live ? { live: { ...s.live, passages } } : {}));
    }),
    api.on('agent.done', (e) => {
      if (!mine(e.turn_id)) return;
      useChat.setState((s) => (s.live ? { live: { ...s.live, result: e.result } } : {}));
    }),
  ];
  return () => {
    watching = false;
    offs.forEach((off) => off());
  };
}
