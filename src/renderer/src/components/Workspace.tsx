import { useCases } from '../stores/cases';
import { useUi } from '../stores/ui';
import { plural, formatBytes, shortcut } from './format';

export function Workspace() {
  const selected = useCases((s) => s.cases.find((c) => c.id === s.selectedId));
  const hasCases = useCases((s) => s.cases.length > 0);
  const openDialog = useUi((s) => s.openDialog);

  if (!selected) {
    return (
      <section className="empty-state">
        <h1>{hasCases ? 'Choose a case' : 'Welcome to Casefile'}</h1>
        <p>
          {hasCases
            ? 'Pick a case on the left, or create a new one.'
            : 'Create a case, add its folder of documents, and ask questions answered with citations to the exact words on the page.'}
        </p>
        <button type="button" className="btn btn-primary" onClick={() => openDialog({ kind: 'create' })}>
          New case <kbd>{shortcut('N')}</kbd>
        </button>
      </section>
    );
  }

  return (
    <section className="workspace" aria-label={`Case ${selected.name}`}>
      <header className="workspace-head">
        <div className="workspace-title">
          <h1>{selected.name}</h1>
          <span className="muted">
            {plural(selected.files, 'file')}
            {selected.bytes > 0 ? ` · ${formatBytes(selected.bytes)}` : ''} · created{' '}
            {new Date(selected.created).toLocaleDateString()}
          </span>
        </div>
        <div className="workspace-actions">
          <button type="button" className="btn" onClick={() => openDialog({ kind: 'rename', caseId: selected.id })}>
            Rename
          </button>
          <button type="button" className="btn btn-danger-ghost" onClick={() => openDialog({ kind: 'delete', caseId: selected.id })}>
            Delete
          </button>
        </div>
      </header>
      <div className="workspace-body">
        <section className="pane pane-docs" aria-label="Documents">
          <h2 className="pane-title">Documents</h2>
          <p className="muted pad">Document ingestion arrives with the ingest engine.</p>
        </section>
        <section className="pane pane-chat" aria-label="Chat">
          <h2 className="pane-title">Chat</h2>
          <p className="muted pad">Ask questions about this case once its documents are added.</p>
        </section>
      </div>
    </section>
  );
}
