/**
 * Models as a lawyer meets them: what is installed and what each is for, the default chat model
 * (set here), the recommended models with the memory they need, and importing one with a file
 * chooser (the system dialog in the desktop app; an upload in serve mode).
 */
import { useEffect, useRef, useState } from 'react';
import type { ModelInfo, ModelsList, RecommendedModel } from '../../../shared/contract/models';
import type { ModelsProgressEvent } from '../../../shared/events';
import { api, ApiError, errorMessage } from '../api/index';
import { useModels } from '../stores/models';
import { useUi } from '../stores/ui';
import { formatBytes } from '../lib/display-format';
import { defaultChatHelp } from '../lib/model-labels';
import '../styles/settings.css';

/** The installed models, loaded now and again after each change (an import anywhere, a new default). */
export function useModelsList(): { list: ModelsList | null; error: string | null; reload: () => Promise<void> } {
  const list = useModels((s) => s.list);
  const error = useModels((s) => s.error);
  const reload = useModels((s) => s.load);
  useEffect(() => {
    void reload();
    return api.on('models.changed', () => void reload());
  }, [reload]);
  return { list, error, reload };
}

const KIND_PURPOSE: Record<ModelInfo['kind'], string> = {
  chat: 'Answers questions',
  embedding: 'Finds passages by meaning',
  reranker: 'Re-checks the order of results',
};

function sizeText(r: RecommendedModel): string {
  if (!r.approx_size_mb) return '';
  return r.approx_size_mb >= 1000 ? `about ${(r.approx_size_mb / 1000).toFixed(1)} GB` : `about ${r.approx_size_mb} MB`;
}

/** The app's recommended models, with what each is for, its size and the memory it needs. */
export function RecommendedModels({
  models,
  only,
  compact,
}: {
  models: RecommendedModel[];
  only?: 'recommended';
  compact?: boolean;
}) {
  const shown = only ? models.filter((m) => m.recommended) : models;
  if (shown.length === 0) return null;
  if (compact) {
    return (
      <ul className="recommended-list" aria-label="Recommended models">
        {shown.map((m) => (
          <li key={m.id}>
            <strong>{m.id}</strong> — {KIND_PURPOSE[m.kind].toLowerCase()}
            {m.approx_size_mb ? `, ${sizeText(m)}` : ''}
            {m.min_ram_gb ? `, needs ${m.min_ram_gb} GB of memory` : ''}
            {m.installed ? ' (installed)' : ''}
          </li>
        ))}
      </ul>
    );
  }
  return (
    <table className="grid recommended" aria-label="Recommended models">
      <thead>
        <tr>
          <th>Model</th>
          <th>What it does</th>
          <th>Size</th>
          <th>Needs</th>
          <th>Installed</th>
        </tr>
      </thead>
      <tbody>
        {shown.map((m) => (
          <tr key={m.id}>
            <td>
              {m.id} {m.recommended && <span className="badge">recommended</span>}
            </td>
            <td>{KIND_PURPOSE[m.kind]}</td>
            <td>{sizeText(m)}</td>
            <td>{m.min_ram_gb ? `${m.min_ram_gb} GB of memory` : ''}</td>
            <td>{m.installed ? 'Yes' : 'No'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The two ways to choose a model: a .gguf file, or a model folder. */
const CHOOSERS = [
  { kind: 'file', label: 'Choose a model file (.gguf)…', testId: 'model-file-input', input: { accept: '.gguf' } },
  {
    kind: 'folder',
    label: 'Choose a model folder…',
    testId: 'model-folder-input',
    input: { webkitdirectory: '' } as Record<string, string>,
  },
] as const;

/**
 * One "Choose a model …" button: the system dialog in the desktop app (answers a path), else a
 * hidden file input whose chosen files are uploaded (serve mode).
 */
function ModelChooser({
  chooser,
  disabled,
  onPath,
  onFiles,
  onError,
}: {
  chooser: (typeof CHOOSERS)[number];
  disabled: boolean;
  onPath: (p: string) => Promise<void>;
  onFiles: (files: FileList | null) => Promise<void>;
  onError: (message: string) => void;
}) {
  const input = useRef<HTMLInputElement>(null);
  const choose = async () => {
    if (!api.chooseModel) return input.current?.click();
    try {
      const chosen = await api.chooseModel(chooser.kind);
      if (chosen) await onPath(chosen);
    } catch (err) {
      onError(errorMessage(err));
    }
  };
  return (
    <>
      <button type="button" className="btn" disabled={disabled} onClick={() => void choose()}>
        {chooser.label}
      </button>
      <input
        ref={input}
        type="file"
        hidden
        data-testid={chooser.testId}
        {...chooser.input}
        onChange={(e) => void onFiles(e.target.files)}
      />
    </>
  );
}

/** The "Model path" form: the model's location typed in full, imported on submit. */
function ModelPathForm({
  path,
  setPath,
  busy,
  onImport,
}: {
  path: string;
  setPath: (p: string) => void;
  busy: string | null;
  onImport: (p: string) => Promise<void>;
}) {
  return (
    <form
      className="model-path-form"
      onSubmit={(e) => {
        e.preventDefault();
        void onImport(path.trim());
      }}
    >
      <label htmlFor="model-path">
        Model path <span className="muted small">(or type where the model file or folder is on this computer)</span>
      </label>
      <div className="model-path-row">
        <input
          id="model-path"
          value={path}
          onChange={(e) => setPath(e.target.value)}
          placeholder="/Users/me/Models/qwen2.5-1.5b-instruct-q4_k_m.gguf"
          spellCheck={false}
        />
        <button type="submit" className="btn" disabled={busy !== null || !path.trim()}>
          {busy ? 'Importing…' : 'Import'}
        </button>
      </div>
    </form>
  );
}

/** What the import is doing now (a status line) and why it failed (an alert). */
function ImportStatus({ busy, error }: { busy: string | null; error: string | null }) {
  return (
    <>
      {busy && (
        <p className="small" role="status">
          {busy}
        </p>
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </>
  );
}

/**
 * Import a model: "Choose a model file…" and "Choose a model folder…" (the system dialog in the
 * desktop app, an upload in serve mode), or its location typed in full.
 */
export function ModelImport({ onImported }: { onImported?: () => void }) {
  const [path, setPath] = useState('');
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const toast = useUi((s) => s.toast);
  const importModel = useModels((s) => s.importModel);

  const importPath = async (p: string) => {
    setBusy('Checking and importing the model…');
    setError(null);
    try {
      const r = await importModel(p);
      toast('info', r.already_installed ? `${r.model.id} was already installed.` : `Imported ${r.model.id}.`);
      setPath('');
      onImported?.();
    } catch (err) {
      setError(
        err instanceof ApiError ? (err.field('path') ? `${err.field('path')}` : err.message) : errorMessage(err),
      );
    } finally {
      setBusy(null);
    }
  };
  /** Serve mode: the chosen file (or folder) is uploaded to the server, then imported from there. */
  const upload = async (files: FileList | null) => {
    const list = [...(files ?? [])];
    if (list.length === 0) return;
    setBusy('Uploading the model…');
    setError(null);
    try {
      const picked = list.map((file) => ({ file, relPath: file.webkitRelativePath || file.name }));
      const folder = list.some((f) => f.webkitRelativePath);
      const [top] = await api.stage({ top: folder ? [] : list, files: async () => picked });
      if (top) await importPath(top);
    } catch (err) {
      setError(errorMessage(err));
      setBusy(null);
    }
  };
  return (
    <div className="model-import">
      <div className="field-row">
        {CHOOSERS.map((c) => (
          <ModelChooser
            key={c.kind}
            chooser={c}
            disabled={busy !== null}
            onPath={importPath}
            onFiles={upload}
            onError={setError}
          />
        ))}
      </div>
      <p className="muted small">
        A chat model is one .gguf file; a search-by-meaning (embedding) model is a folder. Casefile checks the model and
        copies it into its own models folder; nothing is sent anywhere.
      </p>
      <ModelPathForm path={path} setPath={setPath} busy={busy} onImport={importPath} />
      <ImportStatus busy={busy} error={error} />
    </div>
  );
}

function InstalledTable({ list }: { list: ModelsList }) {
  const toast = useUi((s) => s.toast);
  const setDefault = useModels((s) => s.setDefault);
  const makeDefault = (m: ModelInfo) =>
    setDefault(m.id).then(
      () => {
        toast(
          'info',
          m.kind === 'chat'
            ? `${m.id} now answers questions unless you pick another.`
            : `${m.id} is now used for new cases.`,
        );
      },
      (err) => toast('error', errorMessage(err)),
    );
  const small = list.models.filter((m) => m.too_small);
  return (
    <>
      {small.length > 0 && (
        <p className="notice small" role="note" data-testid="small-chat-model">
          {small.map((m) => m.id).join(', ')} {small.length === 1 ? 'is' : 'are'} too small to write answers worth
          waiting for, so questions get the best passages (Find passages) unless you pick{' '}
          {small.length === 1 ? 'it' : 'one'} in the chat. A chat model of about 1.5 billion parameters or more writes
          real answers: see the recommended models below.
        </p>
      )}
      <table className="grid" aria-label="Installed models">
        <thead>
          <tr>
            <th>Model</th>
            <th>What it does</th>
            <th>Size</th>
            <th>Quantization</th>
            <th>Context</th>
            <th>Used by</th>
            <th>Default</th>
          </tr>
        </thead>
        <tbody>
          {list.models.map((m) => (
            <tr key={`${m.source}-${m.id}`}>
              <td>
                {m.id}{' '}
                {m.is_default && (
                  <span className="badge">{m.kind === 'chat' ? 'default for questions' : 'default for new cases'}</span>
                )}
                {m.source === 'bundled' && <span className="badge">bundled</span>}
                {m.too_small && <span className="badge">too small to answer</span>}
              </td>
              <td>
                {KIND_PURPOSE[m.kind]} <span className="muted small">({m.kind})</span>
              </td>
              <td>{formatBytes(m.bytes)}</td>
              <td>{m.quantization ?? '—'}</td>
              <td>{m.context_length ?? '—'}</td>
              <td>{m.used_by.length ? m.used_by.map((u) => u.name).join(', ') : '—'}</td>
              <td>
                {m.kind !== 'reranker' && !m.is_default && (
                  <button
                    type="button"
                    className="btn btn-small"
                    aria-label={`Make ${m.id} the default`}
                    onClick={() => void makeDefault(m)}
                  >
                    Make default
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

function Download({ onDone }: { onDone: () => void }) {
  const [source, setSource] = useState('');
  const [downloading, setDownloading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [progress, setProgress] = useState<ModelsProgressEvent | null>(null);
  const toast = useUi((s) => s.toast);
  const downloadModel = useModels((s) => s.download);
  useEffect(() => api.on('models.progress', setProgress), []);
  const download = async () => {
    setDownloading(true);
    setError(null);
    try {
      const r = await downloadModel(source.trim());
      toast('info', `Downloaded ${r.model.id}.`);
      setSource('');
      onDone();
    } catch (err) {
      setError(err instanceof ApiError ? (err.field('source') ?? err.message) : errorMessage(err));
    } finally {
      setDownloading(false);
      setProgress(null);
    }
  };
  return (
    <>
      <form
        className="model-path-form"
        onSubmit={(e) => {
          e.preventDefault();
          void download();
        }}
      >
        <label htmlFor="model-download">
          Download (needs a network; only when you ask): a .gguf web address or a Hugging Face name
        </label>
        <div className="model-path-row">
          <input
            id="model-download"
            aria-label="Model to download"
            value={source}
            onChange={(e) => setSource(e.target.value)}
            placeholder="owner/repo/model.gguf"
            spellCheck={false}
          />
          <button type="submit" className="btn" disabled={downloading || !source.trim()}>
            {downloading ? 'Downloading…' : 'Download'}
          </button>
        </div>
      </form>
      {progress && (
        <div className="small" role="status" aria-label="Download progress">
          {progress.file}: {formatBytes(progress.received_bytes)}
          {progress.total_bytes ? ` of ${formatBytes(progress.total_bytes)}` : ''}
          <progress
            max={progress.total_bytes ?? undefined}
            value={progress.total_bytes ? progress.received_bytes : undefined}
          />
        </div>
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </>
  );
}

/** Settings → Models. */
export function Models() {
  const { list, error, reload } = useModelsList();
  return (
    <section className="card" aria-label="Models">
      <h2>Models</h2>
      {list && (
        <p className={list.semantic.available ? 'muted' : 'notice warn'}>
          {list.semantic.available
            ? 'Semantic search is on.'
            : `Semantic search is off: ${list.semantic.reason ?? 'no embedding model installed'}.`}
        </p>
      )}
      <p className="muted small" data-testid="default-chat-help">
        {list ? `${defaultChatHelp(list)} ` : ''}
        New cases find passages by meaning with the default embedding model
        {list?.default_embedding_model ? ` (${list.default_embedding_model})` : ''}.
      </p>
      {list && list.models.length > 0 && <InstalledTable list={list} />}
      {list && list.models.length === 0 && <p className="muted">No models installed yet.</p>}
      <h3>Import a model</h3>
      <ModelImport onImported={() => void reload()} />
      {list && list.recommended.length > 0 && (
        <>
          <h3>Recommended models</h3>
          <p className="muted small">
            Ask whoever looks after this computer for these files, or download them where a network is allowed, then
            import them above.
          </p>
          <RecommendedModels models={list.recommended} />
        </>
      )}
      <h3>Download</h3>
      <Download onDone={() => void reload()} />
      {list && <p className="muted small">Models are stored in {list.models_dir}.</p>}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
