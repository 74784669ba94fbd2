import { create } from 'zustand';
import type { FileInfo, IndexVectorsStatus, IngestProgress, IngestFileEvent } from '../../../shared/contract/ingest';
import { api, errorMessage } from '../api/index';
import type { DroppedItems } from '../lib/dropped-items';
import { useCases } from './cases';

interface DocsState {
  caseId: string | null;
  files: FileInfo[];
  loading: boolean;
  error: string | null;
  /** Running ingest of each case (null when idle). */
  progress: Record<string, IngestProgress | null>;
  /** Latest status event per file id (live, between list reloads). */
  live: Record<string, IngestFileEvent>;
  /** File versions left unfinished by an interrupted or cancelled run, per case. */
  pending: Record<string, number>;
  /** Items of the last drop that were not added (links out, pipes…), per case, with why. */
  skipped: Record<string, { name: string; reason: string }[]>;
  /** Serve mode: files uploaded so far / total while staging. */
  upload: { done: number; total: number } | null;
  load(caseId: string): Promise<void>;
  /** Add items to a case; `say` tells the user when they wait behind the documents being added now. */
  add(caseId: string, items: DroppedItems, say: (text: string) => void): Promise<void>;
  cancel(caseId: string): Promise<void>;
  resume(caseId: string): Promise<void>;
  remove(caseId: string, fileId: string, version?: number): Promise<void>;
  /** Read a failed file (or one that needs OCR) again; progress arrives as events. */
  retry(caseId: string, fileId: string): Promise<void>;
  /** Open a password-protected file with its password (a wrong one throws, saying so). */
  unlock(caseId: string, fileId: string, password: string): Promise<void>;
  /** Confirm, correct (a prefix) or clear (null) a stamped PDF's Bates prefix, then reload the list. */
  setBates(caseId: string, fileId: string, prefix: string | null): Promise<void>;
  /** How far the case's passages are searchable by meaning (vectors made in the background). */
  vectorsStatus(caseId: string): Promise<IndexVectorsStatus>;
  /** Start making the case's waiting passages searchable by meaning. */
  catchUpVectors(caseId: string): Promise<IndexVectorsStatus>;
}

export const useDocuments = create<DocsState>((set, get) => ({
  caseId: null,
  files: [],
  loading: false,
  error: null,
  progress: {},
  live: {},
  pending: {},
  skipped: {},
  upload: null,
  async load(caseId) {
    if (get().caseId !== caseId) set({ caseId, files: [], live: {}, loading: true, error: null });
    try {
      const [{ files }, status] = await Promise.all([
        api.call('files.list', { case_id: caseId }),
        api.call('ingest.status', { case_id: caseId }).catch(() => null),
      ]);
      if (get().caseId !== caseId) return;
      set((s) => ({
        files,
        loading: false,
        error: null,
        progress: status ? { ...s.progress, [caseId]: status.progress } : s.progress,
        pending: status ? { ...s.pending, [caseId]: status.pending } : s.pending,
      }));
    } catch (err) {
      if (get().caseId === caseId) set({ loading: false, error: errorMessage(err) });
    }
  },
  async add(caseId, items, say) {
    set((s) => ({ upload: null, skipped: { ...s.skipped, [caseId]: [] } }));
    const paths = await api.stage(items, (done, total) => set({ upload: { done, total } }));
    set({ upload: null });
    // The engine runs one ingest per case at a time: items added meanwhile wait behind it.
    const run = await api.call('ingest.start', { case_id: caseId, paths, wait: false });
    if ('queued' in run && run.queued)
      say(`Queued “${items.label}”: it is added when the documents being added now are done.`);
    await get().load(caseId);
  },
  async cancel(caseId) {
    await api.call('ingest.cancel', { case_id: caseId });
  },
  async resume(caseId) {
    set((s) => ({ pending: { ...s.pending, [caseId]: 0 } }));
    // Resolves when the resumed run ends; progress arrives as events meanwhile.
    await api.call('ingest.resume', { case_id: caseId });
    await get().load(caseId);
  },
  async remove(caseId, fileId, version) {
    await api.call('files.remove', { case_id: caseId, file_id: fileId, ...(version !== undefined ? { version } : {}) });
    await get().load(caseId);
  },
  async retry(caseId, fileId) {
    await api.call('files.retry', { case_id: caseId, file_id: fileId, wait: false });
  },
  async unlock(caseId, fileId, password) {
    await api.call('files.unlock', { case_id: caseId, file_id: fileId, password, wait: false });
  },
  vectorsStatus(caseId) {
    return api.call('index.vectors', { case_id: caseId });
  },
  catchUpVectors(caseId) {
    return api.call('index.catchUp', { case_id: caseId });
  },
  async setBates(caseId, fileId, prefix) {
    await api.call('files.setBates', { case_id: caseId, file_id: fileId, prefix });
    void get().load(caseId);
  },
}));

let watching = false;
/**
 * Follow ingest events: progress per case, file status changes (reloading the list, debounced).
 * The same events reload the cases' counts, so the header and the sidebar say what the list says
 * while an ingest runs (the engine announces the cases' change only at the end of a run).
 */
export function watchIngest(): () => void {
  if (watching) return () => {};
  watching = true;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let casesTimer: ReturnType<typeof setTimeout> | undefined;
  const reloadCases = () => {
    clearTimeout(casesTimer);
    casesTimer = setTimeout(() => void useCases.getState().load(), 250);
  };
  const reload = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      const id = useDocuments.getState().caseId;
      if (id) void useDocuments.getState().load(id);
    }, 250);
  };
  // While vectors are made, each file's "by meaning soon (40%)" follows them: at most one reload a second.
  let semanticTimer: ReturnType<typeof setTimeout> | undefined;
  const followSemantic = () => {
    semanticTimer ??= setTimeout(() => {
      semanticTimer = undefined;
      const id = useDocuments.getState().caseId;
      if (id) void useDocuments.getState().load(id);
    }, 1000);
  };
  const offProgress = api.on('ingest.progress', (p) => {
    const before = useDocuments.getState().progress[p.case_id]?.semantic?.embedded;
    // A run at work finishes what an earlier one left: nothing is "unfinished" while it runs.
    useDocuments.setState((s) => ({
      progress: { ...s.progress, [p.case_id]: p.state === 'running' ? p : null },
      pending: p.state === 'running' ? { ...s.pending, [p.case_id]: 0 } : s.pending,
    }));
    if (
      p.state === 'running' &&
      p.semantic &&
      p.semantic.embedded !== before &&
      p.case_id === useDocuments.getState().caseId
    )
      followSemantic();
    if (p.state !== 'running') reloadCases();
    if (p.state !== 'running' && p.case_id === useDocuments.getState().caseId) reload();
  });
  const offFile = api.on('ingest.file', (e) => {
    if (e.status === 'skipped') {
      useDocuments.setState((s) => {
        const list = (s.skipped[e.case_id] ?? []).filter((k) => k.name !== e.name);
        return { skipped: { ...s.skipped, [e.case_id]: [...list, { name: e.name, reason: e.reason }] } };
      });
      return;
    }
    reloadCases();
    if (e.case_id !== useDocuments.getState().caseId) return;
    useDocuments.setState((s) => ({ live: { ...s.live, [e.file_id]: e } }));
    reload();
  });
  // A file marked deleted from a followed folder (or back in it), a type or Bates prefix set elsewhere; the case replaced by an imported version.
  const offChanged = api.on('cases.changed', (e) => {
    if ((e.kind === 'files' || e.kind === 'imported') && e.case_id === useDocuments.getState().caseId) reload();
  });
  return () => {
    watching = false;
    offChanged();
    clearTimeout(timer);
    clearTimeout(casesTimer);
    clearTimeout(semanticTimer);
    offProgress();
    offFile();
  };
}
