/**
 * The types of file Casefile reads, as a user names them: one table for the engine's word on a file
 * it does not read and for the app's drop zone, so neither lists less than is read. Detection itself
 * goes by content (src/core/domain/detect.ts); the extensions here are what a user knows the types by.
 */
import type { FileVersionInfo } from './contract/ingest';

export interface ReadFileType {
  /** The kind of document it becomes (FileVersionInfo.kind). */
  kind: Exclude<FileVersionInfo['kind'], 'unknown'>;
  /** Its name in a sentence ("emails"). */
  name: string;
  /** Its usual extensions, without the dot; named after `name` where `show` is set. */
  extensions: readonly string[];
  show?: boolean;
}

export const READ_FILE_TYPES: readonly ReadFileType[] = [
  { kind: 'pdf', name: 'PDF', extensions: ['pdf'] },
  { kind: 'docx', name: 'Word', extensions: ['docx', 'doc'], show: true },
  { kind: 'text', name: 'RTF', extensions: ['rtf'] },
  { kind: 'text', name: 'text', extensions: ['txt', 'md'] },
  { kind: 'text', name: 'web pages', extensions: ['html', 'htm'] },
  { kind: 'email', name: 'emails', extensions: ['eml', 'msg'], show: true },
  { kind: 'spreadsheet', name: 'spreadsheets', extensions: ['xlsx', 'xls', 'ods', 'csv'], show: true },
  { kind: 'archive', name: 'ZIP archives', extensions: ['zip'] },
  { kind: 'image', name: 'images', extensions: ['png', 'jpg', 'jpeg', 'tif', 'tiff', 'webp', 'gif', 'bmp'] },
];

/** "PDF, Word (.docx, .doc), RTF, …, ZIP archives and images" */
export function readFileTypesText(): string {
  const names = READ_FILE_TYPES.map((t) =>
    t.show ? `${t.name} (${t.extensions.map((e) => `.${e}`).join(', ')})` : t.name,
  );
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}
