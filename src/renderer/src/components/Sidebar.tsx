import { useEffect, useRef } from 'react';
import type { CaseSummary } from '../../../shared/contract/index';
import { filterCases, useCases } from '../stores/cases';
import { useSession } from '../stores/session';
import { useUi } from '../stores/ui';
import { formatBytes, plural, shortcut } from '../lib/display-format';
import { SignedInAs } from './Account';

/** The cases' search box (focused by its shortcut): Escape clears it, Enter opens the first case shown. */
function CaseSearch({ first }: { first: CaseSummary | undefined }) {
  const query = useCases((s) => s.query);
  const setQuery = useCases((s) => s.setQuery);
  const select = useCases((s) => s.select);
  const setView = useUi((s) => s.setView);
  const focusSearch = useUi((s) => s.focusSearch);
  const searchRef = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (focusSearch) {
      searchRef.current?.focus();
      searchRef.current?.select();
    }
  }, [focusSearch]);

  return (
    <input
      ref={searchRef}
      className="sidebar-search"
      type="search"
      aria-label="Search cases"
      placeholder={`Search (${shortcut('K')})`}
      title={`Search cases (${shortcut('K')})`}
      value={query}
      onChange={(e) => setQuery(e.target.value)}
      onKeyDown={(e) => {
        if (e.key === 'Escape') setQuery('');
        if (e.key === 'Enter' && first) {
          select(first.id);
          setView('workspace');
        }
      }}
    />
  );
}

/** The cases shown, each opening its workspace; the open one is marked. */
function CaseList({ shown }: { shown: CaseSummary[] }) {
  const selectedId = useCases((s) => s.selectedId);
  const select = useCases((s) => s.select);
  const view = useUi((s) => s.view);
  const setView = useUi((s) => s.setView);
  return (
    <ul className="case-list" role="list">
      {shown.map((c) => (
        <li key={c.id}>
          <button
            type="button"
            className={`case-item${c.id === selectedId && view === 'workspace' ? ' selected' : ''}`}
            aria-current={c.id === selectedId ? 'true' : undefined}
            onClick={() => {
              select(c.id);
              setView('workspace');
            }}
          >
            <span className="case-name">{c.name}</span>
            <span className="case-meta">
              {plural(c.files, 'file')}
              {c.bytes > 0 ? ` · ${formatBytes(c.bytes)}` : ''}
            </span>
          </button>
        </li>
      ))}
    </ul>
  );
}

export function Sidebar() {
  const cases = useCases((s) => s.cases);
  const loaded = useCases((s) => s.loaded);
  const error = useCases((s) => s.error);
  const query = useCases((s) => s.query);
  const openDialog = useUi((s) => s.openDialog);
  const view = useUi((s) => s.view);
  const setView = useUi((s) => s.setView);
  // On a firm server only administrators create cases.
  const reviewer = useSession((s) => s.info?.user?.role === 'reviewer');

  const shown = filterCases(cases, query);
  return (
    <nav className="sidebar" aria-label="Cases">
      <div className="sidebar-head">
        <span className="brand">Casefile</span>
        {!reviewer && (
          <button
            type="button"
            className="btn btn-primary btn-small"
            onClick={() => openDialog({ kind: 'create' })}
            title={`New case (${shortcut('N')})`}
          >
            New case
          </button>
        )}
      </div>
      <CaseSearch first={shown[0]} />
      {/* Said first, where the eye starts, not under an empty list. */}
      {loaded && cases.length === 0 && !error && <p className="sidebar-empty">No cases yet. Create one to start.</p>}
      {loaded && cases.length > 0 && shown.length === 0 && <p className="sidebar-empty">No case matches “{query}”.</p>}
      {error && (
        <p className="sidebar-empty error" role="alert">
          {error}
        </p>
      )}
      <CaseList shown={shown} />
      <div className="sidebar-foot">
        <SignedInAs />
        <button
          type="button"
          className={`btn btn-ghost${view === 'settings' ? ' active' : ''}`}
          onClick={() => setView(view === 'settings' ? 'workspace' : 'settings')}
        >
          Settings
        </button>
      </div>
    </nav>
  );
}
