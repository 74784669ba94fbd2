import type { DetectedKind } from './types';

export interface Detection {
  kind: DetectedKind;
  /** For `unknown`: why the file is not read, in plain words. */
  reason: string;
}

const TEXT_EXTENSIONS = new Set(['txt', 'text', 'md', 'markdown', 'csv', 'tsv', 'log', 'eml', 'rtf0']);

function startsWith(bytes: Uint8Array, sig: number[], at = 0): boolean {
  if (bytes.length < at + sig.length) return false;
  for (let i = 0; i < sig.length; i++) if (bytes[at + i] !== sig[i]) return false;
  return true;
}

function asciiIndexOf(bytes: Uint8Array, needle: string, limit = bytes.length): number {
  const first = needle.charCodeAt(0);
  const end = Math.min(limit, bytes.length) - needle.length;
  outer: for (let i = 0; i <= end; i++) {
    if (bytes[i] !== first) continue;
    for (let j = 1; j < needle.length; j++) if (bytes[i + j] !== needle.charCodeAt(j)) continue outer;
    return i;
  }
  return -1;
}

export type ImageFormat = 'png' | 'jpeg' | 'tiff' | 'webp' | 'gif' | 'bmp';

const ascii = (b: Uint8Array, at: number, n: number) => String.fromCharCode(...b.subarray(at, at + n));

/** The image format of `bytes` by its magic number, or null. */
export function imageFormat(bytes: Uint8Array): ImageFormat | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (startsWith(bytes, [0x49, 0x49, 0x2a, 0x00]) || startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2a])) return 'tiff';
  if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 4) === 'WEBP') return 'webp';
  if (ascii(bytes, 0, 4) === 'GIF8') return 'gif';
  // "BM", then a DIB header of a known size at 14.
  if (ascii(bytes, 0, 2) === 'BM' && bytes.length > 26 && [12, 40, 52, 56, 64, 108, 124].includes(bytes[14]! | (bytes[15]! << 8))) return 'bmp';
  return null;
}

function extensionOf(name: string): string {
  const base = name.split('/').pop() ?? name;
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
}

/**
 * Detect a file's kind from its bytes (magic numbers), using the name only to word the reason
 * for files that are not read. Text is recognised by content: a UTF-16 BOM, or bytes without
 * NULs and with few control characters.
 */
export function detectKind(bytes: Uint8Array, name: string): Detection {
  const ext = extensionOf(name);
  if (asciiIndexOf(bytes, '%PDF-', 1024) >= 0) return { kind: 'pdf', reason: '' };
  if (startsWith(bytes, [0x50, 0x4b, 0x03, 0x04])) {
    if (asciiIndexOf(bytes, 'word/document.xml') >= 0 || asciiIndexOf(bytes, 'word/') >= 0) return { kind: 'docx', reason: '' };
    if (asciiIndexOf(bytes, 'xl/') >= 0) return { kind: 'unknown', reason: 'spreadsheet (Excel) files are not read; save the sheets as PDF or CSV' };
    if (asciiIndexOf(bytes, 'ppt/') >= 0) return { kind: 'unknown', reason: 'presentation files are not read; save it as PDF' };
    if (ext === 'docx') return { kind: 'unknown', reason: 'not a readable Word file: it is damaged or incomplete (no document inside) — ask for a new copy' };
    return { kind: 'unknown', reason: 'ZIP archive; unpack it and add the files inside' };
  }
  if (startsWith(bytes, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])) {
    return { kind: 'unknown', reason: 'old Office format (.doc/.xls); save it as .docx or PDF' };
  }
  if (imageFormat(bytes)) return { kind: 'image', reason: '' };
  if (startsWith(bytes, [0x7b, 0x5c, 0x72, 0x74, 0x66])) return { kind: 'unknown', reason: 'RTF files are not read; save it as .docx or PDF' };
  if (startsWith(bytes, [0xff, 0xfe]) || startsWith(bytes, [0xfe, 0xff]) || startsWith(bytes, [0xef, 0xbb, 0xbf])) return { kind: 'text', reason: '' };
  if (looksLikeText(bytes)) return { kind: 'text', reason: '' };
  // A name that promises a type the bytes do not have: say so, rather than "PDF files are not read".
  const promised: Record<string, string> = { pdf: 'not a PDF', docx: 'not a Word file', doc: 'not a Word file', txt: 'not a text file', md: 'not a text file' };
  if (promised[ext]) return { kind: 'unknown', reason: `${promised[ext]}: the file's content is not a recognised type (damaged, or named with the wrong extension)` };
  const what = ext ? `.${ext} files are not a supported type` : 'unknown file type';
  return { kind: 'unknown', reason: `${what}; only PDF, Word (.docx), text files and images (PNG, JPEG, TIFF, WebP) are read` };
}

function looksLikeText(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 8192);
  if (n === 0) return false;
  let control = 0;
  for (let i = 0; i < n; i++) {
    const b = bytes[i]!;
    if (b === 0) return false;
    if (b < 32 && b !== 9 && b !== 10 && b !== 13 && b !== 12) control++;
  }
  return control / n < 0.02;
}

export function isTextExtension(name: string): boolean {
  return TEXT_EXTENSIONS.has(extensionOf(name));
}

/** Decode text bytes: UTF-8 / UTF-16 by BOM, strict UTF-8, else Latin-1 (Windows-1252). */
export function decodeText(bytes: Uint8Array): { text: string; encoding: string } {
  if (startsWith(bytes, [0xef, 0xbb, 0xbf])) return { text: new TextDecoder('utf-8').decode(bytes.subarray(3)), encoding: 'utf-8' };
  if (startsWith(bytes, [0xff, 0xfe])) return { text: new TextDecoder('utf-16le').decode(bytes.subarray(2)), encoding: 'utf-16le' };
  if (startsWith(bytes, [0xfe, 0xff])) return { text: new TextDecoder('utf-16be').decode(bytes.subarray(2)), encoding: 'utf-16be' };
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), encoding: 'utf-8' };
  } catch {
    return { text: new TextDecoder('windows-1252').decode(bytes), encoding: 'windows-1252' };
  }
}
