import { useEffect } from 'react';
import { useCases, watchCases } from '../stores/cases';
import { api } from '../api/index';
import { useChat, watchAgent } from '../stores/chat';
import { useDocuments, watchIngest } from '../stores/documents';
import { useUi } from '../stores/ui';
import { CaseDialogs } from './CaseDialogs';
import { DropTarget } from './DropTarget';
import { ErrorBoundary } from './ErrorBoundary';
import { Settings } from './Settings';
import { Sidebar } from './Sidebar';
import { Toasts } from './Toasts';
import { Workspace } from './Workspace';

/** Cmd/Ctrl+N new case, Cmd/Ctrl+K search cases. Enter/Esc are handled where they apply. */
function useGlobalShortcuts() {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const mod = e.metaKey || e.ctrlKey;
      if (!mod || e.altKey || e.shiftKey) return;
      const key = e.key.toLowerCase();
      if (key === 'n') {
        e.preventDefault();
        if (!useUi.getState().dialog) useUi.getState().openDialog({ kind: 'create' });
      } else if (key === 'k') {
        e.preventDefault();
        useUi.getState().requestSearchFocus();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}

export function App() {
  const view = useUi((s) => s.view);
  const load = useCases((s) => s.load);
  useGlobalShortcuts();
  useEffect(() => {
    void load();
    const offs = [
      watchCases(),
      watchIngest(),
      watchAgent(),
      api.onResync(() => {
        void useCases.getState().load();
        const docCase = useDocuments.getState().caseId;
        if (docCase) void useDocuments.getState().load(docCase);
        const chatCase = useChat.getState().caseId;
        if (chatCase) void useChat.getState().loadSessions(chatCase);
      }),
    ];
    return () => offs.forEach((off) => off());
  }, [load]);
  return (
    <div className="app">
      <Sidebar />
      <main className="main">
        <ErrorBoundary>{view === 'settings' ? <Settings /> : <Workspace />}</ErrorBoundary>
      </main>
      <CaseDialogs />
      <DropTarget />
      <Toasts />
    </div>
  );
}
