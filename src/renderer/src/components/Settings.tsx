import { useEffect, useState } from 'react';
import { AGENT_MAX_STEPS, AGENT_TOP_K_DEFAULT, AGENT_TOP_K_MAX } from '../../../shared/retrieval';
import type { AppInfo } from '../../../shared/contract/index';
import { api, errorMessage } from '../api/index';
import { useSettings } from '../stores/settings';
import { useCases } from '../stores/cases';
import { useUi } from '../stores/ui';
import { Models } from './Models';
import { MoveMatter } from './MoveMatter';
import { People } from './People';
import { folderPathProblem } from '../lib/folder-path';

/** One setting: its label, its control, and a sentence on what it does. */
function Setting({
  id,
  label,
  help,
  children,
}: {
  id: string;
  label: string;
  help: string;
  children: React.ReactNode;
}) {
  return (
    <div>
      <label htmlFor={id}>{label}</label>
      <div>
        {children}
        <p id={`${id}-help`} className="setting-help">
          {help}
        </p>
      </div>
    </div>
  );
}

/** The search box's own settings: how it searches, and how many passages it shows (the assistant reads as many). */
function SearchFields() {
  const mode = useSettings((s) => s.mode);
  const topK = useSettings((s) => s.topK);
  const update = useSettings((s) => s.update);
  return (
    <>
      <Setting
        id="set-mode"
        label="How the search box searches"
        help="Words and meaning finds passages that use your words or say the same thing in other words. Exact words only is best for names, numbers and Bates numbers. Meaning only finds passages that say it differently, even without your words."
      >
        <select
          id="set-mode"
          aria-describedby="set-mode-help"
          value={mode}
          onChange={(e) => update({ mode: e.target.value as 'hybrid' | 'keyword' | 'vector' })}
        >
          <option value="hybrid">Words and meaning (recommended)</option>
          <option value="keyword">Exact words only</option>
          <option value="vector">Meaning only</option>
        </select>
      </Setting>
      <Setting
        id="set-topk"
        label="Passages per search"
        help={`How many passages a search shows, best first, and how many the assistant reads each time it searches (otherwise ${AGENT_TOP_K_DEFAULT}, at most ${AGENT_TOP_K_MAX}). More passages: fuller answers that take longer; fewer: quicker, but something relevant may be missed.`}
      >
        <input
          id="set-topk"
          aria-describedby="set-topk-help"
          type="number"
          min={1}
          max={200}
          value={topK}
          onChange={(e) => update({ topK: Math.max(1, Math.min(200, Number(e.target.value) || 10)) })}
        />
      </Setting>
    </>
  );
}

/** What narrows or checks the passages found, for the search box and the assistant, and how often the assistant searches. */
function AnswerFields() {
  const threshold = useSettings((s) => s.threshold);
  const rerankTopN = useSettings((s) => s.rerankTopN);
  const maxSteps = useSettings((s) => s.maxSteps);
  const update = useSettings((s) => s.update);
  const num = (v: string) => (v.trim() === '' ? null : Number(v));
  return (
    <>
      <Setting
        id="set-threshold"
        label="Minimum match"
        help="Leave empty to see every passage found. A number hides passages that match less well than it. Scores differ by how the search searches (words: from 0 up, often 1 to 20; meaning: 0 to 1), so set it after looking at a few searches; it applies to the assistant’s searches of the same kind only."
      >
        <input
          id="set-threshold"
          aria-describedby="set-threshold-help"
          type="number"
          step="0.01"
          value={threshold ?? ''}
          placeholder="none"
          onChange={(e) => update({ threshold: num(e.target.value) })}
        />
      </Setting>
      <Setting
        id="set-rerank"
        label="Second check of the best passages"
        help="Leave empty for off. A number N has a reranker model read the best N passages again and put the most relevant first: better order, a little slower. Needs a reranker model installed (see Models)."
      >
        <input
          id="set-rerank"
          aria-describedby="set-rerank-help"
          type="number"
          min={1}
          max={200}
          value={rerankTopN ?? ''}
          placeholder="off"
          onChange={(e) => update({ rerankTopN: num(e.target.value) })}
        />
      </Setting>
      <Setting
        id="set-steps"
        label={`Searches per question (1–${AGENT_MAX_STEPS})`}
        help={`How many times the assistant may search and read before it answers. More: it can check more documents, but answers take longer. ${AGENT_MAX_STEPS} is the most.`}
      >
        <input
          id="set-steps"
          aria-describedby="set-steps-help"
          type="number"
          min={1}
          max={AGENT_MAX_STEPS}
          value={maxSteps}
          onChange={(e) =>
            update({ maxSteps: Math.max(1, Math.min(AGENT_MAX_STEPS, Number(e.target.value) || AGENT_MAX_STEPS)) })
          }
        />
      </Setting>
    </>
  );
}

/** Search and answers: each setting said in words, with its effect (the keys stay those of the settings store). */
function Retrieval() {
  const reset = useSettings((s) => s.reset);
  return (
    <section className="card" aria-label="Retrieval">
      <h2>Search and answers</h2>
      <p className="muted small" data-testid="retrieval-scope">
        These settings shape the search box at the top of a case. The assistant that answers your questions chooses its
        own way of searching each time, but follows the number of passages, the minimum match and the second check below
        once you change them (each of its steps shows the values it used).
      </p>
      <div className="settings-list">
        <SearchFields />
        <AnswerFields />
      </div>
      <button type="button" className="btn btn-small" onClick={reset}>
        Restore defaults
      </button>
    </section>
  );
}

/** The open case's OCR setting: read scanned pages and images, and in which installed language. */
function CaseOcr({ ocr }: { ocr: AppInfo['ocr'] | undefined }) {
  const selected = useCases((s) => s.cases.find((c) => c.id === s.selectedId) ?? null);
  const setOcr = useCases((s) => s.setOcr);
  const toast = useUi((s) => s.toast);
  if (!ocr) return null;
  if (!selected) {
    return (
      <section className="card" aria-labelledby="ocr-heading">
        <h2 id="ocr-heading">Scanned pages (OCR)</h2>
        <p className="muted">Open a case to choose whether its scanned pages and images are read.</p>
      </section>
    );
  }
  // The case's language is listed even when it is no longer installed, so the choice shown is the one saved.
  const languages = ocr.languages.includes(selected.ocr.language)
    ? ocr.languages
    : [selected.ocr.language, ...ocr.languages];
  const change = (input: { enabled?: boolean; language?: string }) =>
    setOcr(selected.id, input).catch((err) => toast('error', errorMessage(err)));
  return (
    <section className="card" aria-labelledby="ocr-heading">
      <h2 id="ocr-heading">Scanned pages (OCR) in “{selected.name}”</h2>
      {!ocr.available ? (
        <p className="notice warn">
          OCR is turned off for this installation, so scanned pages and images are not read or searched. Whoever set up
          Casefile on this computer can turn it back on (it was turned off with CASEFILE_OCR=0).
        </p>
      ) : (
        <>
          <label className="check">
            <input
              type="checkbox"
              checked={selected.ocr.enabled}
              aria-describedby="ocr-help"
              onChange={(e) => void change({ enabled: e.target.checked })}
            />
            Read scanned pages and images (OCR)
          </label>
          <p id="ocr-help" className="muted small">
            Slower: about 5 seconds a page, on this computer. Applies to files added from now on; use Retry on a file to
            read it again.
          </p>
          <label>
            Language of the scans{' '}
            <select
              value={selected.ocr.language}
              disabled={languages.length < 2 || !selected.ocr.enabled}
              onChange={(e) => void change({ language: e.target.value })}
            >
              {languages.map((l) => (
                <option key={l} value={l}>
                  {LANGUAGE_NAMES[l] ?? l}
                  {ocr.languages.includes(l) ? '' : ' (not installed)'}
                </option>
              ))}
            </select>
          </label>
        </>
      )}
    </section>
  );
}

/** The open case's date order: how its documents write numeric dates, for the chronology. */
function CaseDates() {
  const selected = useCases((s) => s.cases.find((c) => c.id === s.selectedId) ?? null);
  const setDateOrder = useCases((s) => s.setDateOrder);
  const toast = useUi((s) => s.toast);
  if (!selected) return null;
  return (
    <section className="card" aria-labelledby="dates-heading">
      <h2 id="dates-heading">Dates in “{selected.name}”</h2>
      <label>
        Dates like 03/04/2020 in this case’s documents mean{' '}
        <select
          value={selected.dates?.day_first ? 'day' : 'month'}
          aria-describedby="dates-help"
          onChange={(e) =>
            void setDateOrder(selected.id, e.target.value === 'day').catch((err) => toast('error', errorMessage(err)))
          }
        >
          <option value="month">4 March 2020 (month first, as in the US)</option>
          <option value="day">3 April 2020 (day first, as in the UK and Europe)</option>
        </select>
      </label>
      <p id="dates-help" className="muted small">
        The chronology reads the case’s dates this way from now on; dates that could be read either way are marked
        “(?)”.
      </p>
    </section>
  );
}

/**
 * The open case's followed folders: new and changed files there are added by themselves, deleted
 * ones marked. A folder is chosen with the system's folder dialog in the desktop app, or typed
 * (serve mode has no dialog), checked with what is wrong said in a sentence.
 */
function CaseWatch() {
  const selected = useCases((s) => s.cases.find((c) => c.id === s.selectedId) ?? null);
  const setWatch = useCases((s) => s.setWatch);
  const toast = useUi((s) => s.toast);
  if (!selected) return null;
  const watch = selected.watch ?? { enabled: false, folders: [] };
  const change = (input: { enabled?: boolean; folders?: string[] }) =>
    setWatch(selected.id, input).catch((err) => toast('error', errorMessage(err)));
  return (
    <section className="card" aria-labelledby="watch-heading">
      <h2 id="watch-heading">Folders “{selected.name}” follows</h2>
      {watch.folders.length > 0 ? (
        <ul className="watch-folders" aria-label="Followed folders">
          {watch.folders.map((f) => (
            <li key={f}>
              <code>{f}</code>{' '}
              <button
                type="button"
                className="btn btn-small"
                aria-label={`Stop following ${f}`}
                onClick={() => void change({ folders: watch.folders.filter((x) => x !== f) })}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">This case follows no folder yet.</p>
      )}
      <label className="check">
        <input
          type="checkbox"
          checked={watch.enabled}
          disabled={watch.folders.length === 0}
          aria-describedby="watch-help"
          onChange={(e) => void change({ enabled: e.target.checked })}
        />
        Add new and changed files from these folders automatically
      </label>
      {watch.problem && (
        <p className="field-error" role="status">
          Casefile stopped following: {watch.problem}
        </p>
      )}
      <p id="watch-help" className="muted small">
        While Casefile is open, a file added to a followed folder is added to the case, a changed file is read again as
        a new version (the old one is kept), and a deleted file stays in the case, marked as removed from the folder.
        Changes made while Casefile was closed are picked up when it starts. A folder dropped into a case in the desktop
        app is followed from then on.
      </p>
      <FollowFolder caseId={selected.id} folders={watch.folders} />
    </section>
  );
}

/** One more folder to follow (switched on with the first): chosen with the system's dialog, or typed; what is wrong shows under the path box. */
function FollowFolder({ caseId, folders }: { caseId: string; folders: string[] }) {
  const setWatch = useCases((s) => s.setWatch);
  const [folder, setFolder] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const follow = async (typed: string) => {
    const wrong = folderPathProblem(typed, folders);
    setProblem(wrong);
    if (wrong) return;
    setBusy(true);
    try {
      await setWatch(caseId, {
        folders: [...folders, typed.trim()],
        ...(folders.length === 0 ? { enabled: true } : {}),
      });
      setFolder('');
    } catch (err) {
      setProblem(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  const chooseFolder = async () => {
    try {
      const chosen = await api.chooseFolder?.();
      if (chosen) await follow(chosen);
    } catch (err) {
      setProblem(errorMessage(err));
    }
  };
  return (
    <>
      {api.chooseFolder && (
        <div className="field-row">
          <button type="button" className="btn" disabled={busy} onClick={() => void chooseFolder()}>
            Choose a folder to follow…
          </button>
        </div>
      )}
      <form
        className="model-path-form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void follow(folder);
        }}
      >
        <label htmlFor="watch-folder">
          Folder to follow (its full path)
          {api.chooseFolder && <span className="muted small"> — or choose it above</span>}
        </label>
        <div className="model-path-row">
          <input
            id="watch-folder"
            value={folder}
            onChange={(e) => {
              setFolder(e.target.value);
              setProblem(null);
            }}
            placeholder="/Users/me/Cases/Smith v Jones"
            spellCheck={false}
            aria-invalid={problem ? true : undefined}
            aria-describedby={problem ? 'watch-folder-problem' : undefined}
          />
          <button type="submit" className="btn" disabled={busy}>
            Follow folder
          </button>
        </div>
        {problem && (
          <p id="watch-folder-problem" className="error" role="alert">
            {problem}
          </p>
        )}
      </form>
    </>
  );
}

/** Names of the common OCR languages (tesseract's codes). */
const LANGUAGE_NAMES: Record<string, string> = {
  eng: 'English',
  fra: 'French',
  deu: 'German',
  spa: 'Spanish',
  ita: 'Italian',
  por: 'Portuguese',
  nld: 'Dutch',
};

export function Settings() {
  const [info, setInfo] = useState<AppInfo | null>(null);
  const [error, setError] = useState<string | null>(null);
  const appInfo = useSettings((s) => s.appInfo);
  useEffect(() => {
    appInfo().then(setInfo, (err) => setError(errorMessage(err)));
  }, [appInfo]);
  return (
    <section className="settings" aria-label="Settings">
      <h1>Settings</h1>
      <People />
      <Models />
      <CaseOcr ocr={info?.ocr} />
      <CaseDates />
      <CaseWatch />
      <MoveMatter />
      <Retrieval />
      <section className="card">
        <h2>Data folder</h2>
        <p className="muted">Every case, its documents, index and chats live here, on this computer only.</p>
        <code className="path" data-testid="data-folder">
          {info?.home ?? '…'}
        </code>
      </section>
      <section className="card">
        <h2>About</h2>
        <p>
          Casefile {info ? <span data-testid="app-version">{info.version}</span> : '…'} — offline case files with cited
          answers.
        </p>
      </section>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
