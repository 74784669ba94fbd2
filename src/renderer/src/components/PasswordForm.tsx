import { useEffect, useRef, useState } from 'react';
import type { FileInfo } from '../../../shared/contract/ingest';
import { errorMessage } from '../api/errors';
import { useDocuments } from '../stores/documents';

/** The password field with Open and Cancel; a wrong password is said under it, and it keeps its focus. */
function PasswordFields({
  caseId,
  file,
  name,
  onOpened,
  onCancel,
}: {
  caseId: string;
  file: Pick<FileInfo, 'id' | 'name'>;
  name: string;
  onOpened: () => void;
  onCancel: () => void;
}) {
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const load = useDocuments((s) => s.load);
  const unlock = useDocuments((s) => s.unlock);
  const field = useRef<HTMLInputElement>(null);
  const submit = async () => {
    setBusy(true);
    setError(null);
    try {
      await unlock(caseId, file.id, password);
      setPassword('');
      await load(caseId);
      onOpened();
    } catch (err) {
      // The engine's own sentence ("That password does not open …") says what happened.
      setError(errorMessage(err));
      field.current?.focus();
      field.current?.select();
    } finally {
      setBusy(false);
    }
  };
  const id = `pw-${file.id}`;
  return (
    <form
      className="password-form"
      aria-label={`Open ${name} with its password`}
      onSubmit={(e) => {
        e.preventDefault();
        if (password && !busy) void submit();
      }}
    >
      <label htmlFor={id}>Password for {name}</label>
      <input
        ref={field}
        id={id}
        type="password"
        autoComplete="off"
        autoFocus
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
      />
      <button type="submit" className="btn btn-small btn-primary" disabled={!password || busy}>
        {busy ? 'Opening…' : 'Open'}
      </button>
      <button type="button" className="btn btn-small" onClick={onCancel}>
        Cancel
      </button>
      {error && (
        <p id={`${id}-error`} className="form-error" role="alert">
          {error}
        </p>
      )}
      <p className="muted small">
        Used to open this file in Casefile only; never saved in plain text. The file you added is kept exactly as it
        was.
      </p>
    </form>
  );
}

/**
 * A password-protected PDF: "Enter password…", then a labelled password field with Open and
 * Cancel. A wrong password is said under the field, which keeps its focus; the right one closes
 * the form, reloads the documents list and calls `onUnlocked`. `startOpen` shows the field at once
 * (the source viewer, where the page is waiting for it).
 */
export function PasswordPrompt({
  caseId,
  file,
  onUnlocked,
  startOpen = false,
}: {
  caseId: string;
  file: Pick<FileInfo, 'id' | 'name'>;
  onUnlocked?: () => void;
  startOpen?: boolean;
}) {
  const [open, setOpen] = useState(startOpen);
  const opener = useRef<HTMLButtonElement>(null);
  // Focus goes back to "Enter password…" when the form is cancelled.
  const cancelled = useRef(false);
  useEffect(() => {
    if (!open && cancelled.current) opener.current?.focus();
    cancelled.current = false;
  }, [open]);
  const name = file.name.split('/').pop() ?? file.name;
  if (!open) {
    return (
      <div className="file-actions">
        <button ref={opener} type="button" className="btn btn-small" onClick={() => setOpen(true)}>
          Enter password…
        </button>
      </div>
    );
  }
  const opened = () => {
    setOpen(false);
    onUnlocked?.();
  };
  const cancel = () => {
    cancelled.current = true;
    setOpen(false);
  };
  return <PasswordFields caseId={caseId} file={file} name={name} onOpened={opened} onCancel={cancel} />;
}
