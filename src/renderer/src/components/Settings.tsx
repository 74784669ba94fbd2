import { useEffect, useState } from 'react';
import { AGENT_MAX_STEPS, AGENT_TOP_K_DEFAULT, AGENT_TOP_K_MAX } from '../../../shared/retrieval';
import type { AppInfo } from '../../../shared/contract/index';
import type { ModelsList } from '../../../shared/contract/models';
import type { ModelsProgressEvent } from '../../../shared/events';
import { api, ApiError, errorMessage } from '../api/index';
import { useSettings } from '../stores/settings';
import { useCases } from '../stores/cases';
import { useUi } from '../stores/ui';
import { formatBytes } from './format';

function Models() {
  const [list, setList] = useState<ModelsList | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [path, setPath] = useState('');
  const [busy, setBusy] = useState(false);
  const [source, setSource] = useState('');
  const [downloading, setDownloading] = useState(false);
  const [progress, setProgress] = useState<ModelsProgressEvent | null>(null);
  const toast = useUi((s) => s.toast);
  useEffect(() => api.on('models.progress', setProgress), []);
  const downloadModel = async () => {
    setDownloading(true);
    setError(null);
    try {
      const r = await api.call('models.download', { source: source.trim() });
      toast('info', `Downloaded ${r.model.id}.`);
      setSource('');
      await load();
    } catch (err) {
      setError(err instanceof ApiError ? (err.field('source') ?? err.message) : errorMessage(err));
    } finally {
      setDownloading(false);
      setProgress(null);
    }
  };
  const load = () => api.call('models.list', {}).then(setList, (err) => setError(errorMessage(err)));
  useEffect(() => {
    void load();
  }, []);
  const importModel = async () => {
    setBusy(true);
    setError(null);
    try {
      const r = await api.call('models.import', { path: path.trim() });
      toast('info', r.alreadyInstalled ? `${r.model.id} was already installed.` : `Imported ${r.model.id}.`);
      setPath('');
      await load();
    } catch (err) {
      setError(err instanceof ApiError ? (err.field('path') ? `${err.field('path')}` : err.message) : errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="card" aria-label="Models">
      <h2>Models</h2>
      {list && (
        <p className={list.semantic.available ? 'muted' : 'notice warn'}>
          {list.semantic.available ? 'Semantic search is on.' : `Semantic search is off: ${list.semantic.reason ?? 'no embedding model installed'}.`}
        </p>
      )}
      {list && list.models.length > 0 && (
        <table className="grid">
          <thead>
            <tr>
              <th>Model</th>
              <th>Kind</th>
              <th>Size</th>
              <th>Quantization</th>
              <th>Context</th>
              <th>Used by</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {list.models.map((m) => (
              <tr key={`${m.source}-${m.id}`}>
                <td>
                  {m.id} {m.isDefault && <span className="badge">default</span>}
                  {m.source === 'bundled' && <span className="badge">bundled</span>}
                </td>
                <td>{m.kind}</td>
                <td>{formatBytes(m.bytes)}</td>
                <td>{m.quantization ?? '—'}</td>
                <td>{m.contextLength ?? '—'}</td>
                <td>{m.usedBy.length ? m.usedBy.map((u) => u.name).join(', ') : '—'}</td>
                <td>
                  {m.kind === 'embedding' && !m.isDefault && (
                    <button
                      type="button"
                      className="btn btn-small"
                      onClick={() => api.call('models.setDefault', { modelId: m.id }).then(setList, (err) => toast('error', errorMessage(err)))}
                    >
                      Make default
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {list && list.models.length === 0 && <p className="muted">No models installed yet.</p>}
      <form
        className="field-row"
        onSubmit={(e) => {
          e.preventDefault();
          void importModel();
        }}
      >
        <label className="grow">
          <span className="muted small">Import from disk (a .gguf file or a model folder)</span>
          <input value={path} onChange={(e) => setPath(e.target.value)} placeholder="/path/to/model.gguf" aria-label="Model path" />
        </label>
        <button type="submit" className="btn" disabled={busy || !path.trim()}>
          {busy ? 'Importing…' : 'Import'}
        </button>
      </form>
      <form
        className="field-row"
        onSubmit={(e) => {
          e.preventDefault();
          void downloadModel();
        }}
      >
        <label className="grow">
          <span className="muted small">Download (needs a network; only when you ask): a .gguf URL or a Hugging Face name</span>
          <input value={source} onChange={(e) => setSource(e.target.value)} placeholder="owner/repo/model.gguf" aria-label="Model to download" />
        </label>
        <button type="submit" className="btn" disabled={downloading || !source.trim()}>
          {downloading ? 'Downloading…' : 'Download'}
        </button>
      </form>
      {progress && (
        <div className="small" role="status" aria-label="Download progress">
          {progress.file}: {formatBytes(progress.receivedBytes)}
          {progress.totalBytes ? ` of ${formatBytes(progress.totalBytes)}` : ''}
          <progress max={progress.totalBytes ?? undefined} value={progress.totalBytes ? progress.receivedBytes : undefined} />
        </div>
      )}
      {list && <p className="muted small">Models are stored in {list.modelsDir}.</p>}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}

function Retrieval() {
  const s = useSettings();
  const num = (v: string) => (v.trim() === '' ? null : Number(v));
  return (
    <section className="card" aria-label="Retrieval">
      <h2>Search and answers</h2>
      <p className="muted small" data-testid="retrieval-scope">
        Search mode applies to the search box; the agent picks its own kind of search each time. Top k, threshold and
        reranking apply to the search box and, once changed from their defaults, to the agent’s searches too, wherever the
        agent does not set them itself (its steps show the values used): top k is the number of passages per search (the
        agent otherwise takes {AGENT_TOP_K_DEFAULT}, and at most {AGENT_TOP_K_MAX}); the threshold is measured in the chosen
        mode’s scores, so it applies to the agent’s searches of that mode only; reranking applies to its hybrid searches.
        Agent steps bound each question you ask.
      </p>
      <div className="settings-grid">
        <label>
          <span>Search mode</span>
          <select value={s.mode} onChange={(e) => s.update({ mode: e.target.value as 'hybrid' | 'keyword' | 'vector' })}>
            <option value="hybrid">Hybrid (keywords + meaning)</option>
            <option value="keyword">Keywords only</option>
            <option value="vector">Meaning only</option>
          </select>
        </label>
        <label>
          <span>Results per search (top k)</span>
          <input type="number" min={1} max={200} value={s.topK} onChange={(e) => s.update({ topK: Math.max(1, Math.min(200, Number(e.target.value) || 10)) })} />
        </label>
        <label>
          <span>Score threshold</span>
          <input type="number" step="0.01" value={s.threshold ?? ''} placeholder="none" onChange={(e) => s.update({ threshold: num(e.target.value) })} />
        </label>
        <label>
          <span>Rerank top N</span>
          <input
            type="number"
            min={1}
            max={200}
            value={s.rerankTopN ?? ''}
            placeholder="off"
            onChange={(e) => s.update({ rerankTopN: num(e.target.value) })}
          />
        </label>
        <label>
          <span>{`Agent steps per question (1–${AGENT_MAX_STEPS})`}</span>
          <input type="number" min={1} max={AGENT_MAX_STEPS} value={s.maxSteps} onChange={(e) => s.update({ maxSteps: Math.max(1, Math.min(AGENT_MAX_STEPS, Number(e.target.value) || AGENT_MAX_STEPS)) })} />
        </label>
      </div>
      <button type="button" className="btn btn-small" onClick={s.reset}>
        Restore defaults
      </button>
    </section>
  );
}

/** The open case's OCR setting: read scanned pages and images, and in which installed language. */
function CaseOcr({ ocr }: { ocr: AppInfo['ocr'] | undefined }) {
  const selected = useCases((s) => s.cases.find((c) => c.id === s.selectedId) ?? null);
  const reload = useCases((s) => s.load);
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
  const languages = ocr.languages.includes(selected.ocr.language) ? ocr.languages : [selected.ocr.language, ...ocr.languages];
  const change = (input: { enabled?: boolean; language?: string }) =>
    api.call('cases.setOcr', { caseId: selected.id, ...input }).then(() => reload(), (err) => toast('error', errorMessage(err)));
  return (
    <section className="card" aria-labelledby="ocr-heading">
      <h2 id="ocr-heading">Scanned pages (OCR) in “{selected.name}”</h2>
      {!ocr.available ? (
        <p className="notice warn">
          OCR is turned off for this installation, so scanned pages and images are not read or searched. Whoever set up Casefile on this
          computer can turn it back on (it was turned off with CASEFILE_OCR=0).
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
            Slower: about 5 seconds a page, on this computer. Applies to files added from now on; use Retry on a file to read it again.
          </p>
          <label>
            Language of the scans{' '}
            <select value={selected.ocr.language} disabled={languages.length < 2 || !selected.ocr.enabled} onChange={(e) => void change({ language: e.target.value })}>
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
  const reload = useCases((s) => s.load);
  const toast = useUi((s) => s.toast);
  if (!selected) return null;
  return (
    <section className="card" aria-labelledby="dates-heading">
      <h2 id="dates-heading">Dates in “{selected.name}”</h2>
      <label>
        Dates like 03/04/2020 in this case’s documents mean{' '}
        <select
          value={selected.dates?.dayFirst ? 'day' : 'month'}
          aria-describedby="dates-help"
          onChange={(e) => void api.call('cases.setDateOrder', { caseId: selected.id, dayFirst: e.target.value === 'day' }).then(() => reload(), (err) => toast('error', errorMessage(err)))}
        >
          <option value="month">4 March 2020 (month first, as in the US)</option>
          <option value="day">3 April 2020 (day first, as in the UK and Europe)</option>
        </select>
      </label>
      <p id="dates-help" className="muted small">
        The chronology reads the case’s dates this way from now on; dates that could be read either way are marked “(?)”.
      </p>
    </section>
  );
}

/** Names of the common OCR languages (tesseract's codes). */
const LANGUAGE_NAMES: Record<string, string> = { eng: 'English', fra: 'French', deu: 'German', spa: 'Spanish', ita: 'Italian', por: 'Portuguese', nld: 'Dutch' };

export function Settings() {
  const [info, setInfo] = useState<AppInfo | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api.call('app.info', {}).then(setInfo, (err) => setError(errorMessage(err)));
  }, []);
  return (
    <section className="settings" aria-label="Settings">
      <h1>Settings</h1>
      <Models />
      <CaseOcr ocr={info?.ocr} />
      <CaseDates />
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
          Casefile {info ? <span data-testid="app-version">{info.version}</span> : '…'} — offline case files with cited answers.
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
