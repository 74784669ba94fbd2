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
    const before = useDocuments.getState().progress[p.caseId]?.semantic?.embedded;
    useDocuments.setState((s) => ({ progress: { ...s.progress, [p.caseId]: p.state === 'running' ? p : null } }));
    if (p.state === 'running' && p.semantic && p.semantic.embedded !== before && p.caseId === useDocuments.getState().caseId) followSemantic();
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
  // A file marked deleted from a followed folder (or back in it), a type or Bates prefix set elsewhere.
  const offChanged = api.on('cases.changed', (e) => {
    if (e.kind === 'files' && e.caseId === useDocuments.getState().caseId) reload();
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

/** The columns the documents list sorts by. */
export type SortKey = 'name' | 'title' | 'type' | 'date' | 'pages' | 'status';
export interface DocSort {
  key: SortKey;
  dir: 'ascending' | 'descending';
}

/** What the documents list shows: words of the name, a type, a date range (ISO, inclusive), a status group. */
export interface DocFilter {
  text: string;
  type: string;
  from: string;
  to: string;
  status: '' | 'attention' | 'indexed' | 'working';
}
export const NO_FILTER: DocFilter = { text: '', type: '', from: '', to: '', status: '' };

/** A file that did not go in and needs the user (failed, needs OCR, unsupported). */
export function needsAttention(f: FileInfo): boolean {
  return f.status === 'failed' || f.status === 'needs_ocr' || f.status === 'unsupported';
}

const STATUS_GROUP: Record<FileInfo['status'], DocFilter['status']> = {
  indexed: 'indexed',
  unchanged: 'indexed',
  failed: 'attention',
  needs_ocr: 'attention',
  unsupported: 'attention',
  queued: 'working',
  parsing: 'working',
  embedding: 'working',
  indexing: 'working',
  cancelled: 'working',
  skipped: 'attention',
};

/** A file name as words: no folder, no extension, "_" and runs of spaces as one space. */
export function readableName(name: string): string {
  const base = name.split('/').pop() ?? name;
  return base.replace(/\.[A-Za-z0-9]{1,5}$/, '').replace(/[_\s]+/g, ' ').trim() || base;
}

/** A document's title: the engine's (from its outline), else its file name made readable. */
export function titleOf(file: FileInfo): string {
  return file.title || readableName(file.name);
}

/** The files that pass a filter (the words may be anywhere in the name or the title, in any case). */
export function filterFiles(files: FileInfo[], f: DocFilter): FileInfo[] {
  const words = f.text.toLocaleLowerCase().split(/\s+/).filter(Boolean);
  return files.filter((file) => {
    const name = `${file.name} ${readableName(file.name)} ${file.title ?? ''}`.toLocaleLowerCase();
    if (!words.every((w) => name.includes(w))) return false;
    if (f.type && file.type !== f.type) return false;
    if ((f.from || f.to) && !file.date) return false;
    if (f.from && file.date < f.from) return false;
    if (f.to && file.date > f.to) return false;
    return !f.status || STATUS_GROUP[file.status] === f.status;
  });
}

/** Order of files for a sort; ties (and files without a date) fall back to the name. */
export function compareFiles(sort: DocSort): (a: FileInfo, b: FileInfo) => number {
  const sign = sort.dir === 'ascending' ? 1 : -1;
  const byName = (a: FileInfo, b: FileInfo) => readableName(a.name).localeCompare(readableName(b.name), undefined, { numeric: true, sensitivity: 'base' });
  const key = (f: FileInfo): string | number => {
    switch (sort.key) {
      case 'type':
        return f.type;
      case 'date':
        return f.date;
      case 'pages':
        return f.pages;
      case 'status':
        return STATUS_GROUP[f.status] + f.status;
      default:
        return 0;
    }
  };
  return (a, b) => {
    if (sort.key === 'name') return sign * byName(a, b);
    if (sort.key === 'title') return sign * (titleOf(a).localeCompare(titleOf(b), undefined, { numeric: true, sensitivity: 'base' }) || byName(a, b));
    const ka = key(a);
    const kb = key(b);
    if (sort.key === 'date' && (!ka || !kb) && ka !== kb) return ka ? -1 : 1; // undated last either way
    const c = typeof ka === 'number' && typeof kb === 'number' ? ka - kb : String(ka).localeCompare(String(kb));
    return c !== 0 ? sign * c : byName(a, b);
  };
}

export function buildTree(files: FileInfo[], compare: (a: FileInfo, b: FileInfo) => number = (a, b) => a.name.localeCompare(b.name)): TreeNode {
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
    n.files.sort(compare);
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
