import { useState } from 'react';
import { ApiError, errorMessage } from '../api/index';
import { useCases } from '../stores/cases';
import { useChat } from '../stores/chat';
import { useDocuments } from '../stores/documents';
import { useUi, type DialogRequest } from '../stores/ui';
import { plural } from '../lib/display-format';
import { Modal } from './Modal';

/** A message as a sentence: capitalised, ending in a full stop. */
export function sentence(message: string): string {
  const t = message.trim();
  if (!t) return t;
  return `${t[0]!.toUpperCase()}${t.slice(1)}${/[.!?…]$/.test(t) ? '' : '.'}`;
}

/** Why a case name was refused, in plain words (the contract's field messages are for developers). */
export function nameError(message: string): string {
  if (/must not be empty|is required|^Enter a name/.test(message)) return 'Give the case a name.';
  const long = /at most (\d+)/.exec(message);
  if (long) return `A case name can be at most ${long[1]} characters long.`;
  if (/control characters|line breaks/.test(message)) return 'A case name cannot contain line breaks or tabs.';
  return sentence(message);
}

function NameDialog({
  title,
  initial,
  submitLabel,
  onSubmit,
}: {
  title: string;
  initial: string;
  submitLabel: string;
  onSubmit: (name: string) => Promise<void>;
}) {
  const close = useUi((s) => s.closeDialog);
  const [name, setName] = useState(initial);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async () => {
    if (busy) return;
    // Checked here first so the reason is said at once, in a sentence (the engine checks again).
    if (!name.trim()) {
      setError(nameError('name must not be empty'));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await onSubmit(name);
      close();
    } catch (err) {
      setError(err instanceof ApiError ? nameError(err.field('name') ?? err.message) : errorMessage(err));
      setBusy(false);
    }
  };
  return (
    <Modal
      title={title}
      onClose={close}
      onSubmit={() => void submit()}
      actions={
        <>
          <button type="button" className="btn" onClick={close}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy}>
            {submitLabel}
          </button>
        </>
      }
    >
      <label className="field">
        <span className="field-label">Case name</span>
        <input
          autoFocus
          value={name}
          maxLength={400}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? 'name-error' : undefined}
          onChange={(e) => setName(e.target.value)}
          placeholder="e.g. Smith v. Jones (2024)"
        />
      </label>
      {error && (
        <p id="name-error" className="field-error" role="alert">
          {error}
        </p>
      )}
    </Modal>
  );
}

function DeleteDialog({ caseId }: { caseId: string }) {
  const close = useUi((s) => s.closeDialog);
  const toast = useUi((s) => s.toast);
  const target = useCases((s) => s.cases.find((c) => c.id === caseId));
  const remove = useCases((s) => s.remove);
  const [busy, setBusy] = useState(false);
  if (!target) return null;
  const files = plural(target.files, 'file');
  return (
    <Modal
      title="Delete case"
      onClose={close}
      onSubmit={async () => {
        setBusy(true);
        try {
          await remove(caseId);
          toast('info', `Deleted “${target.name}”.`);
          close();
        } catch (err) {
          toast('error', errorMessage(err));
          setBusy(false);
        }
      }}
      actions={
        <>
          <button type="button" className="btn" onClick={close} autoFocus>
            Keep it
          </button>
          <button type="submit" className="btn btn-danger" disabled={busy}>
            Delete case
          </button>
        </>
      }
    >
      <p>
        Delete <strong>“{target.name}”</strong> and its {files}? Its documents, index and chats are removed from this
        computer for good. The originals you added from elsewhere are not touched.
      </p>
    </Modal>
  );
}

function RemoveFileDialog({
  caseId,
  fileId,
  name,
  versions,
}: {
  caseId: string;
  fileId: string;
  name: string;
  versions: number;
}) {
  const close = useUi((s) => s.closeDialog);
  const toast = useUi((s) => s.toast);
  const [busy, setBusy] = useState(false);
  return (
    <Modal
      title="Remove document"
      onClose={close}
      onSubmit={async () => {
        setBusy(true);
        try {
          await useDocuments.getState().remove(caseId, fileId);
          close();
        } catch (err) {
          toast('error', errorMessage(err));
          setBusy(false);
        }
      }}
      actions={
        <>
          <button type="button" className="btn" onClick={close} autoFocus>
            Keep it
          </button>
          <button type="submit" className="btn btn-danger" disabled={busy}>
            Remove
          </button>
        </>
      }
    >
      <p>
        Remove <strong>“{name}”</strong>
        {versions > 1 ? ` and all ${versions} of its versions` : ''} from this case? Its text and search index entries
        go with it; the original on your disk is not touched.
      </p>
    </Modal>
  );
}

function DeleteSessionDialog({ sessionId, title }: { sessionId: string; title: string }) {
  const close = useUi((s) => s.closeDialog);
  const toast = useUi((s) => s.toast);
  return (
    <Modal
      title="Delete conversation"
      onClose={close}
      onSubmit={async () => {
        try {
          await useChat.getState().deleteSession(sessionId);
          close();
        } catch (err) {
          toast('error', errorMessage(err));
        }
      }}
      actions={
        <>
          <button type="button" className="btn" onClick={close} autoFocus>
            Keep it
          </button>
          <button type="submit" className="btn btn-danger">
            Delete conversation
          </button>
        </>
      }
    >
      <p>
        Delete the conversation <strong>“{title}”</strong> with its questions, answers and traces? The case’s documents
        stay.
      </p>
    </Modal>
  );
}

/** Whichever case dialog is open. */
export function CaseDialogs() {
  const dialog: DialogRequest | null = useUi((s) => s.dialog);
  const create = useCases((s) => s.create);
  const rename = useCases((s) => s.rename);
  const cases = useCases((s) => s.cases);
  if (!dialog) return null;
  switch (dialog.kind) {
    case 'create':
      return (
        <NameDialog
          key="create"
          title="New case"
          initial={dialog.suggestedName ?? ''}
          submitLabel="Create case"
          onSubmit={async (name) => {
            const created = await create(name);
            dialog.then?.(created.id);
          }}
        />
      );
    case 'rename': {
      const target = cases.find((c) => c.id === dialog.caseId);
      if (!target) return null;
      return (
        <NameDialog
          key={`rename-${target.id}`}
          title="Rename case"
          initial={target.name}
          submitLabel="Rename"
          onSubmit={(name) => rename(target.id, name)}
        />
      );
    }
    case 'delete':
      return <DeleteDialog caseId={dialog.caseId} />;
    case 'deleteSession':
      return <DeleteSessionDialog sessionId={dialog.sessionId} title={dialog.title} />;
    case 'removeFile':
      return (
        <RemoveFileDialog caseId={dialog.caseId} fileId={dialog.fileId} name={dialog.name} versions={dialog.versions} />
      );
  }
}
