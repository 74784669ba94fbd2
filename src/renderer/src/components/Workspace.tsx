import { useEffect, useState } from 'react';
import { errorMessage } from '../api/index';
import { useCases } from '../stores/cases';
import type { DroppedItems } from '../lib/dropped-items';
import { useDocuments } from '../stores/documents';
import { useSearch } from '../stores/search';
import { useUi } from '../stores/ui';
import { useViewer } from '../stores/viewer';
import { useChronology } from '../stores/chronology';
import { useChat } from '../stores/chat';
import { Chat } from './Chat';
import { Chronology } from './Chronology';
import { Documents } from './documents/Documents';
import { FirstRun } from './FirstRun';
import { formatBytes, plural } from '../lib/display-format';
import { SearchResults } from './SearchResults';
import { SourceViewer } from './SourceViewer';
import { PaneBody, PaneToggles } from './Panes';
import { useLayout } from '../stores/layout';

/** Add dropped or chosen items to a case, reporting failures in words. */
export function addItemsToCase(caseId: string, items: DroppedItems): void {
  const { toast } = useUi.getState();
  useDocuments
    .getState()
    .add(caseId, items, (text) => toast('info', text))
    .catch((err) => toast('error', `Could not add “${items.label}”: ${errorMessage(err)}`));
}

function CaseSearch({ caseId }: { caseId: string }) {
  const run = useSearch((s) => s.run);
  // While questions are limited to chosen documents (the chip above the chat input), so is a search.
  const limit = useChat((s) => (s.caseId === caseId ? s.limit : null));
  const [q, setQ] = useState('');
  return (
    <form
      className="case-search"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        void run(caseId, q, { files: limit });
      }}
    >
      <input
        type="search"
        aria-label="Search this case"
        placeholder="Search this case…"
        value={q}
        onChange={(e) => setQ(e.target.value)}
      />
    </form>
  );
}

export function Workspace() {
  const selected = useCases((s) => s.cases.find((c) => c.id === s.selectedId));
  const hasCases = useCases((s) => s.cases.length > 0);
  const openDialog = useUi((s) => s.openDialog);
  const searchOpen = useSearch((s) => s.open && s.caseId === selected?.id);
  const viewerOpen = useViewer((s) => s.source !== null);
  const chronologyOpen = useChronology((s) => s.open && s.caseId === selected?.id);

  useEffect(() => {
    useSearch.getState().close();
    useViewer.getState().close();
    useChronology.getState().close();
  }, [selected?.id]);
  // A search or the chronology asked for shows in the middle pane: open it if it was folded.
  useEffect(() => {
    if (searchOpen || chronologyOpen) useLayout.getState().setFolded('chat', false);
  }, [searchOpen, chronologyOpen]);

  if (!selected) return <FirstRun hasCases={hasCases} />;

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
        <CaseSearch caseId={selected.id} />
        <div className="workspace-actions">
          <PaneToggles viewer={viewerOpen} />
          <button
            type="button"
            className="btn"
            aria-pressed={chronologyOpen && !searchOpen}
            onClick={() => {
              useSearch.getState().close();
              useChronology.getState().show(selected.id);
            }}
          >
            Chronology
          </button>
          <button type="button" className="btn" onClick={() => openDialog({ kind: 'rename', caseId: selected.id })}>
            Rename
          </button>
          <button
            type="button"
            className="btn btn-danger-ghost"
            onClick={() => openDialog({ kind: 'delete', caseId: selected.id })}
          >
            Delete
          </button>
        </div>
      </header>
      <PaneBody
        docs={<Documents caseId={selected.id} onAdd={(items) => addItemsToCase(selected.id, items)} />}
        middle={
          searchOpen ? (
            <SearchResults />
          ) : chronologyOpen ? (
            <Chronology caseId={selected.id} />
          ) : (
            <Chat caseId={selected.id} />
          )
        }
        middleName={searchOpen ? 'Search results' : chronologyOpen ? 'Chronology' : 'Chat'}
        viewer={viewerOpen ? <SourceViewer /> : null}
      />
    </section>
  );
}
