import { create } from 'zustand';
import type { FileInfo, IngestProgress, IngestFileEvent } from '../../../shared/contract/ingest';
import { api, errorMessage, type PickedFile } from '../api/index';
import { useCases } from './cases';
import { useUi } from './ui';

/** What the user dropped or chose, captured synchronously from the event. */
export interface DroppedItems {
  top: File[];
  files: () => Promise<PickedFile[]>;
  /** Name of the first dropped folder or file (to name a new case after it). */
  label: string;
}

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
  add(caseId: string, items: DroppedItems): Promise<void>;
  cancel(caseId: string): Promise<void>;
  resume(caseId: string): Promise<void>;
  remove(caseId: string, fileId: string, version?: number): Promise<void>;
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
        api.call('files.list', { caseId }),
        api.call('ingest.status', { caseId }).catch(() => null),
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
  async add(caseId, items) {
    set((s) => ({ upload: null, skipped: { ...s.skipped, [caseId]: [] } }));
    const paths = await api.stage(items, (done, total) => set({ upload: { done, total } }));
    set({ upload: null });
    // The engine runs one ingest per case at a time: items added meanwhile wait behind it.
    const busy = Boolean(get().progress[caseId]);
    await api.call('ingest.start', { caseId, paths, wait: false });
    if (busy) useUi.getState().toast('info', `Queued “${items.label}”: it is added when the documents being added now are done.`);
    await get().load(caseId);
  },
  async cancel(caseId) {
    await api.call('ingest.cancel', { caseId });
  },
  async resume(caseId) {
    set((s) => ({ pending: { ...s.pending, [caseId]: 0 } }));
    // Resolves when the resumed run ends; progress arrives as events meanwhile.
    await api.call('ingest.resume', { caseId });
    await get().load(caseId);
  },
  async remove(caseId, fileId, version) {
    await api.call('files.remove', { caseId, fileId, ...(version !== undefined ? { version } : {}) });
    await get().load(caseId);
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
  const offProgress = api.on('ingest.progress', (p) => {
    useDocuments.setState((s) => ({ progress: { ...s.progress, [p.caseId]: p.state === 'running' ? p : null } }));
    if (p.state !== 'running') reloadCases();
    if (p.state !== 'running' && p.caseId === useDocuments.getState().caseId) reload();
  });
  const offFile = api.on('ingest.file', (e) => {
    if (e.status === 'skipped') {
      useDocuments.setState((s) => {
        const list = (s.skipped[e.caseId] ?? []).filter((k) => k.name !== e.name);
        return { skipped: { ...s.skipped, [e.caseId]: [...list, { name: e.name, reason: e.reason }] } };
      });
      return;
    }
    reloadCases();
    if (e.caseId !== useDocuments.getState().caseId) return;
    useDocuments.setState((s) => ({ live: { ...s.live, [e.fileId]: e } }));
    reload();
  });
  return () => {
    watching = false;
    clearTimeout(timer);
    clearTimeout(casesTimer);
    offProgress();
    offFile();
  };
}

/**
 * A folder tree of file records by their names ("a/b/c.pdf"). A file taken out of another (an
 * email's attachment, an archive's file) is not placed by its name but under its container, in
 * `inside` (container id → its files, in their order).
 */
export interface TreeNode {
  name: string;
  path: string;
  folders: TreeNode[];
  files: FileInfo[];
  inside?: Map<string, FileInfo[]>;
}

export function buildTree(files: FileInfo[]): TreeNode {
  const root: TreeNode = { name: '', path: '', folders: [], files: [], inside: new Map() };
  const ids = new Set(files.map((f) => f.id));
  for (const f of files) {
    if (f.parent && ids.has(f.parent.id)) {
      const list = root.inside!.get(f.parent.id) ?? [];
      list.push(f);
      root.inside!.set(f.parent.id, list);
      continue;
    }
    const parts = f.name.split('/');
    let node = root;
    for (const part of parts.slice(0, -1)) {
      let next = node.folders.find((n) => n.name === part);
      if (!next) {
        next = { name: part, path: node.path ? `${node.path}/${part}` : part, folders: [], files: [] };
        node.folders.push(next);
      }
      node = next;
    }
    node.files.push(f);
  }
  const sort = (n: TreeNode) => {
    n.folders.sort((a, b) => a.name.localeCompare(b.name));
    n.files.sort((a, b) => a.name.localeCompare(b.name));
    n.folders.forEach(sort);
  };
  sort(root);
  return root;
}

/** Read every file under dropped entries (browser drag-drop), with paths relative to the drop. */
export async function filesFromEntries(entries: FileSystemEntry[]): Promise<PickedFile[]> {
  const out: PickedFile[] = [];
  const visit = async (entry: FileSystemEntry, prefix: string): Promise<void> => {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isFile) {
      const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
      out.push({ file, relPath: rel });
    } else if (entry.isDirectory) {
      const reader = (entry as FileSystemDirectoryEntry).createReader();
      for (;;) {
        const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
        if (batch.length === 0) break;
        for (const child of batch) await visit(child, rel);
      }
    }
  };
  for (const e of entries) await visit(e, '');
  return out;
}

/** Capture a drop synchronously (DataTransfer empties after the event). */
export function itemsFromDataTransfer(dt: DataTransfer): DroppedItems | null {
  const top = [...dt.files];
  const entries = [...dt.items]
    .filter((i) => i.kind === 'file')
    .map((i) => i.webkitGetAsEntry?.())
    .filter((e): e is FileSystemEntry => Boolean(e));
  if (top.length === 0 && entries.length === 0) return null;
  const label = entries[0]?.name ?? top[0]?.name ?? 'New case';
  // Synthetic drops (and some platforms) give files without entries: take them as loose files.
  const files = entries.length ? () => filesFromEntries(entries) : async () => top.map((file) => ({ file, relPath: file.name }));
  return { top, files, label };
}

/** Files chosen with <input type=file> (webkitdirectory keeps the folder in webkitRelativePath). */
export function itemsFromInput(list: FileList): DroppedItems | null {
  const files = [...list];
  if (files.length === 0) return null;
  const picked = files.map((file) => ({ file, relPath: file.webkitRelativePath || file.name }));
  const folder = files[0]!.webkitRelativePath ? files[0]!.webkitRelativePath.split('/')[0]! : null;
  return {
    top: folder ? [] : files,
    files: async () => picked,
    label: folder ?? files[0]!.name,
  };
}
