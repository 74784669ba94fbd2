/**
 * The home screen's question box (no case open): the case the question means is found from the
 * cases' summaries, opened, and asked there; when several fit about equally, a short choice shows
 * each one's summary line.
 */
import { useState } from 'react';
import { useFindCase } from '../stores/find-case';
import { useRetrievalSettings } from '../stores/settings';
import '../styles/ask-any-case.css';

export function AskAnyCase() {
  const finding = useFindCase((s) => s.finding);
  const choice = useFindCase((s) => s.choice);
  const error = useFindCase((s) => s.error);
  const ask = useFindCase((s) => s.ask);
  const askIn = useFindCase((s) => s.askIn);
  const dismiss = useFindCase((s) => s.dismiss);
  const settings = useRetrievalSettings();
  const [draft, setDraft] = useState('');
  const send = () => {
    const q = draft.trim();
    if (!q || finding) return;
    void ask(q, settings);
  };
  return (
    <section className="ask-any-case" aria-label="Ask about any case">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          send();
        }}
      >
        <label htmlFor="ask-any-case">Or ask a question — Casefile finds the case it is about</label>
        <div className="ask-any-case-row">
          <input
            id="ask-any-case"
            type="text"
            value={draft}
            placeholder="When did John last see a doctor about his knee?"
            onChange={(e) => {
              setDraft(e.target.value);
              if (choice || error) dismiss();
            }}
          />
          <button type="submit" className="btn btn-primary" disabled={!draft.trim() || finding}>
            {finding ? 'Finding the case…' : 'Ask'}
          </button>
        </div>
      </form>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {choice && (
        <div className="ask-any-case-choice" role="group" aria-label="Which case?">
          <p>Which case do you mean? {choice.reason}</p>
          <ul>
            {choice.candidates.map((c) => (
              <li key={c.case_id}>
                <button type="button" className="btn" onClick={() => void askIn(c.case_id, settings)}>
                  {c.name}
                </button>
                <span className="muted small"> {c.line}</span>
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}
