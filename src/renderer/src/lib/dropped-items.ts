/** What the user dropped or chose, read from the browser's drag-drop and file-input events. */
import type { PickedFile } from '../api/types';

/** What the user dropped or chose, captured synchronously from the event. */
export interface DroppedItems {
  top: File[];
  files: () => Promise<PickedFile[]>;
  /** Name of the first dropped folder or file (to name a new case after it). */
  label: string;
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
  const files = entries.length
    ? () => filesFromEntries(entries)
    : async () => top.map((file) => ({ file, relPath: file.name }));
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
