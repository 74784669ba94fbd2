import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { AgentStep, ChatMessage, CheckedCitation } from '../../../shared/contract/chat';
import type { ModelInfo } from '../../../shared/contract/models';
import { api, errorMessage } from '../api/index';
import { useChat } from '../stores/chat';
import { useSettings } from '../stores/settings';
import { useUi } from '../stores/ui';
import { useViewer } from '../stores/viewer';

const CITE = /\[cite:([A-Za-z0-9_-]+)\]/g;

const CHIP_TITLE: Record<string, string> = {
  verified: 'Verified: the cited passage was checked against the source',
  not_verified: 'Not verified',
  invented: 'Invented: this citation id was never returned by a tool',
};

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
    const status = c?.status ?? 'pending';
    const clickable = Boolean(c?.file_id && c.start !== undefined && c.end !== undefined);
    parts.push(
      <button
        key={key++}
        type="button"
        className={`chip chip-${status}`}
        data-cite={id}
        data-status={status}
        aria-label={`Citation ${n}: ${c ? `${c.file_name ?? id}${c.pages?.length ? `, page ${c.pages[0]}` : ''} — ${status.replace('_', ' ')}` : 'checking'}`}
        title={c ? `${CHIP_TITLE[status] ?? status}${c.reason ? ` — ${c.reason}` : ''}` : 'Checking…'}
        disabled={!clickable}
        onClick={() =>
          clickable &&
          open({
            file_id: c!.file_id!,
            file_name: c!.file_name ?? '',
            version: c!.version ?? 1,
            pages: c!.pages ?? [1],
            start: c!.start!,
            end: c!.end!,
            label: String(n),
          })
        }
      >
        {status === 'verified' ? '✓' : status === 'invented' ? '!' : '?'}
        {n}
      </button>,
    );
    last = m.index + m[0].length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return <div className="answer-text">{parts}</div>;
}

function StepItem({ step }: { step: AgentStep }) {
  const input = Object.keys(step.input ?? {}).length ? JSON.stringify(step.input) : '';
  return (
    <li className={`step${step.error ? ' step-error' : ''}`} data-step={step.index}>
      <div className="step-head">
        <span className="step-n">{step.index}</span>
        <span className="step-action">{step.kind === 'final' ? 'Final answer' : step.action}</span>
        {step.summary && (
          <span className="muted small">
            {step.summary.count} result{step.summary.count === 1 ? '' : 's'}
            {step.summary.best_label ? ` · best: ${step.summary.best_label}` : ''}
          </span>
        )}
        <span className="muted small step-time" title={`model ${Math.round(step.timing.model_ms)} ms · tool ${Math.round(step.timing.tool_ms)} ms · ${step.tokens.input} tokens in, ${step.tokens.output} out`}>
          {Math.round(step.timing.model_ms + step.timing.tool_ms)} ms
        </span>
      </div>
      {step.thought && (
        <div className="step-thought">
          <span className="step-label">Thought</span> {step.thought}
        </div>
      )}
      {input && step.kind !== 'final' && (
        <div className="step-input mono small">
          <span className="step-label">Input</span> {input}
          {step.defaults?.length ? (
            <span className="muted step-defaults" title="The agent did not set these itself; they come from Settings → Search and answers.">
              {' '}
              (from Settings: {step.defaults.join(', ')})
            </span>
          ) : null}
        </div>
      )}
      {step.policy && <div className="small notice">{step.policy}</div>}
      {step.observation && (
        <details className="step-observation">
          <summary className="small">Observation</summary>
          <pre className="small">{step.observation.length > 2000 ? `${step.observation.slice(0, 2000)}…` : step.observation}</pre>
        </details>
      )}
    </li>
  );
}

function Timeline({ steps, live, defaultOpen, thought }: { steps: AgentStep[]; live?: boolean; defaultOpen?: boolean; thought?: string }) {
  return (
    <details className="timeline" open={defaultOpen}>
      <summary>
        Timeline · {steps.length} step{steps.length === 1 ? '' : 's'}
        {live ? ' · working…' : ''}
      </summary>
      <ol className="steps" aria-label="Agent steps">
        {steps.map((s) => (
          <StepItem key={s.index} step={s} />
        ))}
        {live && thought && (
          <li className="step step-live">
            <div className="step-thought">
              <span className="step-label">Thinking</span> {thought}
            </div>
          </li>
        )}
      </ol>
    </details>
  );
}

function AssistantMessage({ message }: { message: ChatMessage }) {
  const citations = message.citations ?? [];
  return (
    <article className="message message-assistant" aria-label="Answer">
      {message.steps && message.steps.length > 0 && <Timeline steps={message.steps} />}
      <AnswerText text={message.content} citations={citations} />
      {message.status === 'cancelled' && <p className="small notice">This turn was cancelled; the partial trace is kept above.</p>}
      {message.status !== 'cancelled' && message.grounded === false && (
        <p className="small notice warn" role="note">
          Ungrounded: no citation in this answer could be verified against the documents.
        </p>
      )}
      {message.coverage?.note && <p className="small muted coverage">{message.coverage.note}</p>}
      {message.model && (
        <p className="small muted turn-model" data-model={message.model}>
          Answered by {message.model}
        </p>
      )}
    </article>
  );
}

function ModelPicker() {
  const model = useSettings((s) => s.model);
  const update = useSettings((s) => s.update);
  const [models, setModels] = useState<ModelInfo[]>([]);
  useEffect(() => {
    api.call('models.list', { kind: 'chat' }).then(
      (r) => setModels(r.models),
      () => setModels([]),
    );
  }, []);
  return (
    <label className="model-picker small">
      <span className="muted">Model</span>
      <select value={model} onChange={(e) => update({ model: e.target.value })} aria-label="Chat model">
        <option value="">Default</option>
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

/** Save a conversation as a Markdown file (a download in the browser, a save dialog in the app). */
async function exportSession(caseId: string, sessionId: string): Promise<void> {
  try {
    const { markdown, filename } = await api.call('chat.export', { caseId, sessionId });
    const url = URL.createObjectURL(new Blob([markdown], { type: 'text/markdown;charset=utf-8' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = filename;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  } catch (err) {
    useUi.getState().toast('error', errorMessage(err));
  }
}

export function Chat({ caseId }: { caseId: string }) {
  const { sessions, sessionId, messages, live, error } = useChat();
  const { loadSessions, openSession, ask, cancel } = useChat.getState();
  const openDialog = useUi((s) => s.openDialog);
  const [draft, setDraft] = useState('');
  const endRef = useRef<HTMLDivElement>(null);
  const inputRef = useRef<HTMLTextAreaElement>(null);

  useEffect(() => {
    void loadSessions(caseId);
  }, [caseId, loadSessions]);

  useEffect(() => {
    endRef.current?.scrollIntoView({ block: 'end' });
  }, [messages.length, live?.steps.length, live?.answer]);

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

  const send = () => {
    const q = draft.trim();
    if (!q || live) return;
    setDraft('');
    void ask(q);
  };

  return (
    <section className="pane pane-chat" aria-label="Chat">
      <h2 className="pane-title">
        <span className="chat-sessions">
          <span>Chat</span>
          <select
            aria-label="Chat session"
            value={sessionId ?? ''}
            onChange={(e) => void openSession(e.target.value || null)}
            disabled={Boolean(live)}
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
          <button type="button" className="btn btn-small" disabled={Boolean(live) || !sessionId} onClick={() => void openSession(null)}>
            New chat
          </button>
          <button
            type="button"
            className="btn btn-small"
            disabled={Boolean(live) || !sessionId}
            title="Save this conversation as Markdown, with its citations"
            onClick={() => sessionId && void exportSession(caseId, sessionId)}
          >
            Export
          </button>
          <button
            type="button"
            className="btn btn-small btn-danger-ghost"
            disabled={Boolean(live) || !sessionId}
            title="Delete this conversation"
            onClick={() => {
              const s = sessions.find((x) => x.id === sessionId);
              if (s) openDialog({ kind: 'deleteSession', caseId, sessionId: s.id, title: s.title });
            }}
          >
            Delete chat
          </button>
        </span>
      </h2>
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
            <AssistantMessage key={m.id} message={m} />
          ),
        )}
        {live && (
          <article className="message message-assistant live" aria-label="Answer in progress" aria-busy="true">
            <Timeline steps={live.steps} live defaultOpen thought={live.thought} />
            {live.answer ? <AnswerText text={live.answer} citations={[]} /> : <p className="muted small">Working…</p>}
          </article>
        )}
        {error && (
          <p className="error pad" role="alert">
            {error}
          </p>
        )}
        <div ref={endRef} />
      </div>
      <form
        className="chat-input"
        onSubmit={(e) => {
          e.preventDefault();
          send();
        }}
      >
        <textarea
          ref={inputRef}
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
            <button type="button" className="btn btn-danger-ghost" onClick={() => void cancel()} disabled={live.cancelling}>
              {live.cancelling ? 'Cancelling…' : 'Cancel (Esc)'}
            </button>
          ) : (
            <button type="submit" className="btn btn-primary" disabled={!draft.trim()}>
              Ask
            </button>
          )}
        </div>
      </form>
    </section>
  );
}
