import { useRef, useState } from 'react';
import type { MatterImport } from '../../../shared/contract/index';
import { formatBytes } from '../../../shared/format';
import { api, errorMessage } from '../api/index';
import { useCases } from '../stores/cases';
import { useMatter } from '../stores/matter';

/** What an import did, in a sentence: the case, and the earlier version it kept. */
function importedText(done: MatterImport): string {
  const kept = done.earlier ? ` It replaces this matter’s copy here, which is kept as “${done.earlier.name}”.` : '';
  return `Imported “${done.case.name}”: ${done.files} files checked.${kept}`;
}

/** The one passphrase field: it locks an export and opens a locked import. */
function PassphraseField({ value, onChange }: { value: string; onChange: (v: string) => void }) {
  return (
    <>
      <label>
        Passphrase (optional)
        <input
          type="password"
          value={value}
          autoComplete="new-password"
          aria-describedby="matter-passphrase-help"
          onChange={(e) => onChange(e.target.value)}
        />
      </label>
      <p id="matter-passphrase-help" className="muted small">
        Locks the exported file, or opens a locked one. Keep it apart from the file: it cannot be recovered.
      </p>
    </>
  );
}

/** How far an export or import is, while one runs. */
function TransferLine() {
  const transfer = useMatter((s) => s.transfer);
  if (!transfer) return null;
  return (
    <p role="status">
      {transfer.direction === 'export' ? 'Exporting' : 'Importing'}…{' '}
      {transfer.total > 0 ? `${formatBytes(transfer.done)} of ${formatBytes(transfer.total)}` : ''}
    </p>
  );
}

/**
 * Settings → Move a matter: the open case as one matter file (Export…), or a matter file back into
 * a case (Import…). The desktop app asks where with the system's dialogs; the served page downloads
 * the file, and uploads the one to import. One optional passphrase locks or opens the file.
 */
export function MoveMatter() {
  const selected = useCases((s) => s.cases.find((c) => c.id === s.selectedId) ?? null);
  const exportCase = useMatter((s) => s.exportCase);
  const importMatter = useMatter((s) => s.importMatter);
  const busy = useMatter((s) => s.transfer !== null);
  const [passphrase, setPassphrase] = useState('');
  const [message, setMessage] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const picker = useRef<HTMLInputElement>(null);
  const run = async (work: () => Promise<string | null>) => {
    setMessage(null);
    setProblem(null);
    try {
      const said = await work();
      if (said) setMessage(said);
    } catch (err) {
      setProblem(errorMessage(err));
    }
  };
  const onExport = (caseId: string, name: string) =>
    run(async () => {
      const where = await exportCase(caseId, name, passphrase || undefined);
      return where && `Exported “${name}” to ${where}${passphrase ? ', locked with the passphrase' : ''}.`;
    });
  const onImport = (file: File | null) =>
    run(async () => {
      const done = await importMatter(file, passphrase || undefined);
      return done && importedText(done);
    });
  return (
    <section className="card" aria-labelledby="matter-heading">
      <h2 id="matter-heading">Move a matter</h2>
      <p className="muted small">
        One file holds everything of a case — its documents, index, chats and chronology marks — to import on another
        computer or the firm’s server. Every file in it is checked on import; a damaged file imports nothing.
      </p>
      <PassphraseField value={passphrase} onChange={setPassphrase} />
      <div className="field-row">
        {selected && (
          <button
            type="button"
            className="btn"
            disabled={busy}
            onClick={() => void onExport(selected.id, selected.name)}
          >
            Export “{selected.name}”…
          </button>
        )}
        <button
          type="button"
          className="btn"
          disabled={busy}
          onClick={() => (api.chooseMatter ? void onImport(null) : picker.current?.click())}
        >
          Import…
        </button>
        <input
          ref={picker}
          type="file"
          accept=".casefile"
          hidden
          aria-label="Matter file to import"
          onChange={(e) => {
            const file = e.target.files?.[0];
            e.target.value = '';
            if (file) void onImport(file);
          }}
        />
      </div>
      <TransferLine />
      {message && <p role="status">{message}</p>}
      {problem && (
        <p className="error" role="alert">
          {problem}
        </p>
      )}
    </section>
  );
}
