/**
 * The documents list as data: the folder tree of a case's files, its sorts and filters, and the
 * rows the table shows (an open folder's rows, and an open email's attachments, follow it).
 * Pure functions.
 */
import type { FileInfo } from '../../../shared/contract/ingest';

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
  return (
    base
      .replace(/\.[A-Za-z0-9]{1,5}$/, '')
      .replace(/[_\s]+/g, ' ')
      .trim() || base
  );
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
  const byName = (a: FileInfo, b: FileInfo) =>
    readableName(a.name).localeCompare(readableName(b.name), undefined, { numeric: true, sensitivity: 'base' });
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
    if (sort.key === 'title')
      return (
        sign * (titleOf(a).localeCompare(titleOf(b), undefined, { numeric: true, sensitivity: 'base' }) || byName(a, b))
      );
    const ka = key(a);
    const kb = key(b);
    if (sort.key === 'date' && (!ka || !kb) && ka !== kb) return ka ? -1 : 1; // undated last either way
    const c = typeof ka === 'number' && typeof kb === 'number' ? ka - kb : String(ka).localeCompare(String(kb));
    return c !== 0 ? sign * c : byName(a, b);
  };
}

export function buildTree(
  files: FileInfo[],
  compare: (a: FileInfo, b: FileInfo) => number = (a, b) => a.name.localeCompare(b.name),
): TreeNode {
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

/** One row of the table: a folder, or a file (the files taken out of it follow it, a level deeper). */
export type Row = {
  key: string;
  depth: number;
  parent: string | null;
  open: boolean;
  posinset: number;
  setsize: number;
} & ({ kind: 'folder'; node: TreeNode; count: number } | { kind: 'file'; file: FileInfo; children: number });

export function countFiles(node: TreeNode): number {
  return node.files.length + node.folders.reduce((n, f) => n + countFiles(f), 0);
}

/** The tree as the rows shown, in order: an open folder's rows (and an open email's attachments) follow it, a level deeper. */
export function treeRows(tree: TreeNode, collapsed: ReadonlySet<string>): Row[] {
  const out: Row[] = [];
  const inside = tree.inside ?? new Map<string, FileInfo[]>();
  const add = (folders: TreeNode[], files: FileInfo[], depth: number, parent: string | null) => {
    const setsize = folders.length + files.length;
    let pos = 0;
    for (const node of folders) {
      const key = `d:${node.path}`;
      const open = !collapsed.has(key);
      out.push({ kind: 'folder', key, depth, parent, open, posinset: ++pos, setsize, node, count: countFiles(node) });
      if (open) add(node.folders, node.files, depth + 1, key);
    }
    for (const file of files) {
      const key = `f:${file.id}`;
      const held = inside.get(file.id) ?? [];
      const open = !collapsed.has(key);
      out.push({ kind: 'file', key, depth, parent, open, posinset: ++pos, setsize, file, children: held.length });
      if (held.length && open) add([], held, depth + 1, key);
    }
  };
  add(tree.folders, tree.files, 0, null);
  return out;
}
