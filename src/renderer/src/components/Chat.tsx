import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { ChatAnswer, ChatMessage, CheckedCitation } from '../../../shared/contract/chat';
import { answerMessage, ocrCitationNote } from '../../../shared/citation-text';
import { errorMessage } from '../api/errors';
import { useChat, type AskMode, type LiveTurn } from '../stores/chat';
import { useRetrievalSettings, useSettings } from '../stores/settings';
import { useUi } from '../stores/ui';
import { useViewer } from '../stores/viewer';
import {
  chipLook,
  citationPlace,
  CITE,
  saveChatExport,
  sourceOf,
  supportOf,
  verdictText,
  withoutCites,
  type ExportFormat,
} from '../lib/citations';
import { Sources } from './Sources';
import { Timeline } from './Timeline';
import { LimitChip } from './AskAbout';
import { defaultChatChoice } from '../lib/model-labels';
import { useModelsList } from './Models';

/** Answer text with `[cite:id]` turned into numbered chips (numbered by first appearance). */
function AnswerText({ text, citations }: { text: string; citations: CheckedCitation[] }) {
  const open = useViewer((s) => s.open);
  const order: string[] = [];
  const parts: ReactNode[] = [];
  let last = 0;
  let key = 0;
  for (const m of text.matchAll(CITE)) {
    const id = m[1]!;
    if (m.index > last) parts.push(text.slice(last, m.index));
    if (!order.includes(id)) order.push(id);
    const n = order.indexOf(id) + 1;
    const c = citations.find((x) => x.id === id);
    const support = c ? supportOf(c) : 'pending';
    const src = c ? sourceOf(c, String(n)) : null;
    const ocr = c ? ocrCitationNote(c) : '';
    const words = c ? `${verdictText(c)}${ocr ? `; ${ocr}` : ''}` : 'Checking…';
    const place = c && support !== 'invented' ? `${citationPlace(c)} — ` : '';
    const look = chipLook(c);
    parts.push(
      <button
        key={key++}
        type="button"
        className={look.className}
        data-cite={id}
        data-status={c?.status ?? 'pending'}
        data-support={support}
        aria-label={`Citation ${n}: ${place}${words}`}
        title={words}
        disabled={!src}
        onClick={() => src && open(src)}
      >
        {look.mark}
        {n}
      </button>,
    );
    last = m.index + m[0].length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return <div className="answer-text">{parts}</div>;
}

/** "the model repeated itself" → "The model repeated itself." */
function sentence(text: string): string {
  const t = text.trim();
  if (!t) return t;
  return `${t.charAt(0).toUpperCase()}${t.slice(1)}${/[.!?]$/.test(t) ? '' : '.'}`;
}

/** The answer itself: a notice for a case with nothing to search, the badge of an extractive answer, the text with its chips. */
function AnswerBody({ message }: { message: ChatMessage }) {
  const citations = message.citations ?? [];
  if (message.answer_kind === 'no_documents') {
    return (
      <p className="notice answer-notice" role="note" data-kind="no_documents">
        {message.content}
      </p>
    );
  }
  return (
    <>
      {message.answer_kind === 'extractive' && (
        <div className="answer-kind" data-kind="extractive">
          <span className="pill pill-info">Passages found — no model answer</span>
          {message.fallback && (
            <details className="fallback">
              <summary className="small">Why?</summary>
              <p className="small">{sentence(message.fallback.reason)}</p>
              {message.fallback.model_answer && (
                <>
                  <p className="small muted">What the model wrote, set aside:</p>
                  <blockquote className="fallback-text small">{withoutCites(message.fallback.model_answer)}</blockquote>
                </>
              )}
            </details>
          )}
        </div>
      )}
      <AnswerText text={message.content} citations={citations} />
    </>
  );
}

function AssistantMessage({
  message,
  sessionId,
  busy,
}: {
  message: ChatMessage;
  sessionId: string | null;
  busy: boolean;
}) {
  const caseId = useChat((s) => s.caseId);
  const exportChat = useExportChat();
  const kind = message.answer_kind ?? 'agent';
  // A follow-up searched in the earlier question's documents: said once, unless a step of the timeline names them.
  const kept =
    message.earlier?.kind === 'kept_focus' && !message.steps?.some((st) => Array.isArray(st.input?.documents))
      ? message.earlier.line
      : undefined;
  return (
    <article className="message message-assistant" aria-label="Answer" data-turn={message.turn_id}>
      {message.steps && message.steps.length > 0 && (
        <Timeline
          steps={message.steps}
          limitedTo={message.limited_to?.line}
          keptFocus={kept}
          turnId={message.turn_id}
        />
      )}
      <div className="answer-slot" data-testid="answer-slot" data-state="final">
        <AnswerBody message={message} />
      </div>
      {message.status === 'cancelled' && (
        <p className="small notice">This turn was cancelled; the partial trace is kept above.</p>
      )}
      {message.status !== 'cancelled' && kind === 'agent' && message.grounded === false && (
        <p className="small notice warn" role="note">
          Ungrounded: no citation in this answer could be verified against the documents.
        </p>
      )}
      <Sources text={message.content} citations={message.citations ?? []} refs={message.refs} />
      {message.coverage?.note && <p className="small muted coverage">{message.coverage.note}</p>}
      <div className="answer-foot">
        {message.model && (
          <p className="small muted turn-model" data-model={message.model}>
            {message.model === 'none' ? 'Found without a model' : `Answered by ${message.model}`}
          </p>
        )}
        {caseId && sessionId && message.status !== 'failed' && (
          <button
            type="button"
            className="btn btn-small answer-export"
            disabled={busy}
            title="Save this question and answer as a Word document, with its citations as footnotes"
            onClick={() => void exportChat(caseId, sessionId, 'docx', message.turn_id)}
          >
            Export answer
          </button>
        )}
      </div>
    </article>
  );
}

/** An answer that has just arrived, shown as its session will keep it. */
function messageOf(result: ChatAnswer): ChatMessage {
  return answerMessage(result, `live-${result.turn_id}`, new Date().toISOString());
}

/** The chat model a question uses; its "Default" choice names the default model (or says there is none). */
function ModelPicker() {
  const model = useSettings((s) => s.model);
  const update = useSettings((s) => s.update);
  // Reloaded after an import or a new default anywhere (Settings), so "Default — …" stays true.
  const { list } = useModelsList();
  const models = list?.models.filter((m) => m.kind === 'chat') ?? [];
  const defaultChoice = defaultChatChoice(list);
  const chosen = models.find((m) => m.id === model);
  return (
    <label className="model-picker small">
      <span className="muted">Model</span>
      <select
        value={model}
        onChange={(e) => update({ model: e.target.value })}
        aria-label="Chat model"
        title={chosen ? chosen.id : defaultChoice}
      >
        <option value="">{defaultChoice}</option>
        {models.map((m) => (
          <option key={m.id} value={m.id}>
            {m.id}
            {m.quantization ? ` (${m.quantization})` : ''}
          </option>
        ))}
      </select>
    </label>
  );
}

/** "Export chat": the conversation as Markdown or as a Word document (a small menu). */
function ExportMenu({ caseId, sessionId, disabled }: { caseId: string; sessionId: string | null; disabled: boolean }) {
  const [open, setOpen] = useState(false);
  const exportChat = useExportChat();
  const ref = useRef<HTMLSpanElement>(null);
  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => {
      if (!ref.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('mousedown', onDown);
    return () => document.removeEventListener('mousedown', onDown);
  }, [open]);
  const pick = (format: ExportFormat) => {
    setOpen(false);
    if (sessionId) void exportChat(caseId, sessionId, format);
  };
  return (
    <span
      className="menu-anchor"
      ref={ref}
      onKeyDown={(e) => {
        if (!open) return;
        if (e.key === 'Escape') {
          e.stopPropagation();
          setOpen(false);
          ref.current?.querySelector<HTMLButtonElement>('button')?.focus();
        } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
          // Arrow keys move between the menu's items, round the ends.
          e.preventDefault();
          const items = [...(ref.current?.querySelectorAll<HTMLButtonElement>('[role="menuitem"]') ?? [])];
          const at = items.indexOf(document.activeElement as HTMLButtonElement);
          const next = (at + (e.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length;
          items[at === -1 ? 0 : next]?.focus();
        }
      }}
    >
      <button
        type="button"
        className="btn btn-small"
        aria-haspopup="menu"
        aria-expanded={open}
        disabled={disabled || !sessionId}
        title="Save this conversation, with its citations"
        onClick={() => setOpen((o) => !o)}
      >
        Export chat ▾
      </button>
      {open && (
        <span className="popover menu" role="menu" aria-label="Export chat as">
          <button
            type="button"
            role="menuitem"
            className="btn btn-ghost menu-item"
            autoFocus
            onClick={() => pick('docx')}
          >
            Word document (.docx)
          </button>
          <button type="button" role="menuitem" className="btn btn-ghost menu-item" onClick={() => pick('md')}>
            Markdown (.md)
          </button>
        </span>
      )}
    </span>
  );
}

/** Save a conversation (or one answer, with `turnId`) as Markdown or Word; what went wrong is a toast. */
function useExportChat(): (caseId: string, sessionId: string, format: ExportFormat, turnId?: string) => Promise<void> {
  const exportChat = useChat((s) => s.exportChat);
  const toast = useUi((s) => s.toast);
  return async (caseId, sessionId, format, turnId) => {
    try {
      if (!saveChatExport(await exportChat(caseId, sessionId, format, turnId)))
        toast('error', 'The Word file could not be made; try Markdown.');
    } catch (err) {
      toast('error', errorMessage(err));
    }
  };
}

/** The pane's title: the conversation picker, "New chat", the export menu and "Delete chat". */
function ChatTitle({ caseId }: { caseId: string }) {
  const sessions = useChat((s) => s.sessions);
  const sessionId = useChat((s) => s.sessionId);
  const busy = useChat((s) => Boolean(s.live));
  const openSession = useChat((s) => s.openSession);
  const openDialog = useUi((s) => s.openDialog);
  return (
    <div className="pane-title">
      <span className="chat-sessions">
        <h2>Chat</h2>
        <select
          aria-label="Chat session"
          value={sessionId ?? ''}
          onChange={(e) => void openSession(e.target.value || null)}
          disabled={busy}
        >
          <option value="">New conversation</option>
          {sessions.map((s) => (
            <option key={s.id} value={s.id}>
              {s.title}
            </option>
          ))}
        </select>
      </span>
      <span className="pane-actions">
        <button
          type="button"
          className="btn btn-small"
          disabled={busy || !sessionId}
          onClick={() => void openSession(null)}
        >
          New chat
        </button>
        <ExportMenu caseId={caseId} sessionId={sessionId} disabled={busy} />
        <button
          type="button"
          className="btn btn-small btn-danger-ghost"
          disabled={busy || !sessionId}
          title="Delete this conversation"
          onClick={() => {
            const s = sessions.find((x) => x.id === sessionId);
            if (s) openDialog({ kind: 'deleteSession', caseId, sessionId: s.id, title: s.title });
          }}
        >
          Delete chat
        </button>
      </span>
    </div>
  );
}

/** The turn in progress: its timeline, then the passages found while the answer is written (or a line saying it is working). */
function LiveAnswer({ live }: { live: LiveTurn }) {
  return (
    <article className="message message-assistant live" aria-label="Answer in progress" aria-busy="true">
      <Timeline
        steps={live.steps}
        live={{ step: live.step, thought: live.thought, draft: live.draft }}
        limitedTo={live.limitedTo}
        defaultOpen
      />
      {/* The passages first, then the final answer; what the model writes meanwhile is on the timeline. */}
      {live.passages ? (
        <>
          <div className="answer-slot" data-testid="answer-slot" data-state="passages">
            <div className="answer-kind" data-kind="passages">
              <span className="pill pill-info">Passages found</span>
              <span className="small muted writing" role="status">
                {live.cancelling
                  ? 'Stopping the model…'
                  : `Writing an answer with ${live.passages.model ?? 'the model'}… it replaces these passages only if the documents support it.`}
              </span>
            </div>
            <AnswerText text={live.passages.content} citations={live.passages.citations ?? []} />
          </div>
          <Sources text={live.passages.content} citations={live.passages.citations ?? []} />
        </>
      ) : (
        <div className="answer-slot" data-testid="answer-slot" data-state="working">
          <p className="muted small">
            {live.mode === 'extractive'
              ? 'Finding the passages…'
              : 'Working… the answer appears here when it is ready.'}
          </p>
        </div>
      )}
    </article>
  );
}

/** The conversation: its questions and answers, the turn in progress, and what went wrong; it keeps its end in view. */
function Messages() {
  const sessionId = useChat((s) => s.sessionId);
  const messages = useChat((s) => s.messages);
  const live = useChat((s) => s.live);
  const error = useChat((s) => s.error);
  const endRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    endRef.current?.scrollIntoView({ block: 'end' });
  }, [messages.length, live?.steps.length, live?.step, Boolean(live?.result)]);
  return (
    <div className="pane-scroll messages" aria-live="polite">
      {messages.length === 0 && !live && (
        <div className="chat-empty muted">
          <p>Ask about this case, e.g. “What notice is needed to terminate the agreement?”</p>
          <p className="small">Answers cite the exact passages; click a citation to see it on the page.</p>
        </div>
      )}
      {messages.map((m) =>
        m.role === 'user' ? (
          <article key={m.id} className="message message-user" aria-label="Question">
            {m.content}
          </article>
        ) : (
          <AssistantMessage key={m.id} message={m} sessionId={sessionId} busy={Boolean(live)} />
        ),
      )}
      {live &&
        (live.result ? (
          <AssistantMessage message={messageOf(live.result)} sessionId={live.result.session_id} busy />
        ) : (
          <LiveAnswer live={live} />
        ))}
      {error && (
        <p className="error pad" role="alert">
          {error}
        </p>
      )}
      <div ref={endRef} />
    </div>
  );
}

/** The question box: Enter asks, Shift+Enter is a new line; "Find passages" asks without a model; Esc (or the button) cancels a turn. */
function QuestionForm() {
  const live = useChat((s) => s.live);
  const ask = useChat((s) => s.ask);
  const cancel = useChat((s) => s.cancel);
  const settings = useRetrievalSettings();
  const [draft, setDraft] = useState('');
  useEffect(() => {
    if (!live) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && !document.querySelector('dialog[open]')) {
        e.preventDefault();
        void cancel();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [live, cancel]);
  const send = (mode: AskMode = 'agent') => {
    const q = draft.trim();
    if (!q || live) return;
    setDraft('');
    void ask(q, settings, mode);
  };
  return (
    <form
      className="chat-input"
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
    >
      <LimitChip />
      <textarea
        aria-label="Question"
        placeholder="Ask a question about this case…  (Enter to send, Shift+Enter for a new line)"
        value={draft}
        rows={2}
        onChange={(e) => setDraft(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            send();
          }
        }}
      />
      <div className="chat-input-row">
        <ModelPicker />
        {live ? (
          <button
            type="button"
            className="btn btn-danger-ghost"
            onClick={() => void cancel()}
            disabled={live.cancelling}
          >
            {live.cancelling ? 'Cancelling…' : 'Cancel (Esc)'}
          </button>
        ) : (
          <AskButtons disabled={!draft.trim()} onFind={() => send('extractive')} />
        )}
      </div>
    </form>
  );
}

/** "Find passages" (quotes the best passages, no model) and "Ask" (submits the form). */
function AskButtons({ disabled, onFind }: { disabled: boolean; onFind: () => void }) {
  return (
    <span className="ask-buttons">
      <button
        type="button"
        className="btn"
        disabled={disabled}
        aria-describedby="find-passages-hint"
        title="Quote the passages that best match the question, without a model"
        onClick={onFind}
      >
        Find passages
      </button>
      <span id="find-passages-hint" hidden>
        Quote the passages that best match the question, without a model.
      </span>
      <button type="submit" className="btn btn-primary" disabled={disabled}>
        Ask
      </button>
    </span>
  );
}

export function Chat({ caseId }: { caseId: string }) {
  const loadSessions = useChat((s) => s.loadSessions);
  useEffect(() => {
    void loadSessions(caseId);
  }, [caseId, loadSessions]);
  return (
    <section className="pane pane-chat" aria-label="Chat">
      <ChatTitle caseId={caseId} />
      <Messages />
      <QuestionForm />
    </section>
  );
}
