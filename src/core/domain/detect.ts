import { readFileTypesText } from '../../shared/file-types';
import type { DetectedKind } from './types';

/** The file formats a kind is read from where it has several. */
export type DetectedFormat = 'eml' | 'msg' | 'xlsx' | 'xls' | 'ods' | 'csv' | 'doc' | 'rtf' | 'html' | 'zip';

export interface Detection {
  kind: DetectedKind;
  /** Which reader: absent for a kind with one format (PDF, DOCX, plain text, images). */
  format?: DetectedFormat;
  /** For `unknown`: why the file is not read, in plain words. */
  reason: string;
}

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
  if (
    ascii(bytes, 0, 2) === 'BM' &&
    bytes.length > 26 &&
    [12, 40, 52, 56, 64, 108, 124].includes(bytes[14]! | (bytes[15]! << 8))
  )
    return 'bmp';
  return null;
}

function extensionOf(name: string): string {
  const base = name.split('/').pop() ?? name;
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
}

/**
 * Detect a file's kind from its bytes (magic numbers, and the parts inside a ZIP or an OLE
 * compound file), using the name only where content cannot tell (CSV) and to word the reason for
 * files that are not read. Text is recognised by content: a UTF-16 BOM, or bytes without NULs and
 * with few control characters; an email and a web page by how their text begins.
 */
export function detectKind(bytes: Uint8Array, name: string): Detection {
  const ext = extensionOf(name);
  if (asciiIndexOf(bytes, '%PDF-', 1024) >= 0) return { kind: 'pdf', reason: '' };
  if (startsWith(bytes, [0x50, 0x4b, 0x03, 0x04])) return zipKind(bytes, ext);
  if (startsWith(bytes, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])) return compoundKind(bytes, ext);
  if (imageFormat(bytes)) return { kind: 'image', reason: '' };
  if (startsWith(bytes, [0xff, 0x57, 0x50, 0x43]))
    return { kind: 'unknown', reason: 'WordPerfect document: not supported yet — save it as .docx or PDF' };
  if (startsWith(bytes, [0x7b, 0x5c, 0x72, 0x74, 0x66])) return { kind: 'text', format: 'rtf', reason: '' };
  const bom =
    startsWith(bytes, [0xff, 0xfe]) || startsWith(bytes, [0xfe, 0xff]) || startsWith(bytes, [0xef, 0xbb, 0xbf]);
  if (bom || looksLikeText(bytes)) return textKind(bytes, ext);
  // A name that promises a type the bytes do not have: say so, rather than "PDF files are not read".
  const promised: Record<string, string> = {
    pdf: 'not a PDF',
    docx: 'not a Word file',
    doc: 'not a Word file',
    txt: 'not a text file',
    md: 'not a text file',
    eml: 'not an email file',
    msg: 'not an Outlook message',
    xlsx: 'not an Excel file',
    xls: 'not an Excel file',
    zip: 'not a ZIP archive',
  };
  if (promised[ext])
    return {
      kind: 'unknown',
      reason: `${promised[ext]}: the file's content is not a recognised type (damaged, or named with the wrong extension)`,
    };
  const named = KNOWN_UNSUPPORTED[ext];
  if (named) return { kind: 'unknown', reason: `${named}: not supported yet — save or export it as PDF` };
  const what = ext ? `.${ext} files are not a supported type` : 'unknown file type';
  return {
    kind: 'unknown',
    reason: `${what}; Casefile reads ${readFileTypesText()}`,
  };
}

/** File types people keep in case folders that are not read yet, named as their owners know them. */
const KNOWN_UNSUPPORTED: Record<string, string> = {
  numbers: 'Apple Numbers file',
  pages: 'Apple Pages file',
  key: 'Apple Keynote file',
  pptx: 'PowerPoint presentation',
  ppt: 'PowerPoint presentation',
  odt: 'OpenDocument text',
  odp: 'OpenDocument presentation',
  mp3: 'audio recording',
  m4a: 'audio recording',
  wav: 'audio recording',
  mp4: 'video',
  mov: 'video',
  pst: 'Outlook data file (.pst)',
  mbox: 'mailbox file',
  vcf: 'contact card',
  ics: 'calendar file',
};

/** A ZIP: an Office or OpenDocument file by the parts inside, else an archive of files. */
function zipKind(bytes: Uint8Array, ext: string): Detection {
  if (asciiIndexOf(bytes, 'word/document.xml') >= 0 || asciiIndexOf(bytes, 'word/') >= 0)
    return { kind: 'docx', reason: '' };
  if (asciiIndexOf(bytes, 'xl/workbook') >= 0 || asciiIndexOf(bytes, 'xl/') >= 0)
    return { kind: 'spreadsheet', format: 'xlsx', reason: '' };
  if (asciiIndexOf(bytes, 'application/vnd.oasis.opendocument.spreadsheet', 65_536) >= 0)
    return { kind: 'spreadsheet', format: 'ods', reason: '' };
  if (asciiIndexOf(bytes, 'ppt/') >= 0)
    return { kind: 'unknown', reason: 'PowerPoint presentation: not supported yet — save it as PDF' };
  if (asciiIndexOf(bytes, 'application/vnd.oasis.opendocument.text', 65_536) >= 0)
    return { kind: 'unknown', reason: 'OpenDocument text: not supported yet — save it as .docx or PDF' };
  if (KNOWN_UNSUPPORTED[ext] && asciiIndexOf(bytes, 'Index/') >= 0)
    return { kind: 'unknown', reason: `${KNOWN_UNSUPPORTED[ext]}: not supported yet — export it as PDF` };
  if (ext === 'docx')
    return {
      kind: 'unknown',
      reason: 'not a readable Word file: it is damaged or incomplete (no document inside) — ask for a new copy',
    };
  if (ext === 'xlsx')
    return {
      kind: 'unknown',
      reason: 'not a readable Excel file: it is damaged or incomplete (no workbook inside) — ask for a new copy',
    };
  return { kind: 'archive', format: 'zip', reason: '' };
}

function hasUtf16(bytes: Uint8Array, text: string): boolean {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(Buffer.from(text, 'utf16le')) >= 0;
}

/** An OLE compound file (old Office formats, Outlook messages) by the streams it names. */
function compoundKind(bytes: Uint8Array, ext: string): Detection {
  if (hasUtf16(bytes, '__substg1.0_')) return { kind: 'email', format: 'msg', reason: '' };
  if (hasUtf16(bytes, 'EncryptedPackage'))
    return { kind: 'unknown', reason: 'password protected Office file — save an unlocked copy and add it again' };
  if (hasUtf16(bytes, 'WordDocument')) return { kind: 'text', format: 'doc', reason: '' };
  if (hasUtf16(bytes, 'Workbook') || hasUtf16(bytes, 'Book')) return { kind: 'spreadsheet', format: 'xls', reason: '' };
  if (hasUtf16(bytes, 'PowerPoint Document'))
    return { kind: 'unknown', reason: 'PowerPoint presentation: not supported yet — save it as PDF' };
  return {
    kind: 'unknown',
    reason: `old Office format${ext ? ` (.${ext})` : ''} that Casefile does not read; save it as PDF`,
  };
}

/** Text: an email, a web page, a CSV, RTF-less plain text. */
function textKind(bytes: Uint8Array, ext: string): Detection {
  if (ext === 'csv' || ext === 'tsv') return { kind: 'spreadsheet', format: 'csv', reason: '' };
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 16_384)).replace(/^\ufeff|^\u00ef\u00bb\u00bf/, '');
  if (looksLikeEmail(head)) return { kind: 'email', format: 'eml', reason: '' };
  if (looksLikeHtml(head, ext)) return { kind: 'text', format: 'html', reason: '' };
  return { kind: 'text', reason: '' };
}

/** RFC 5322 headers from the first line (an mbox "From " line may come first), with From and two other fields. */
export function looksLikeEmail(head: string): boolean {
  const block = head.replace(/^From [^\n]*\n/, '').split(/\r?\n\r?\n/)[0] ?? '';
  const lines = block.split(/\r?\n/);
  if (lines.length < 3 || lines.length > 2000) return false;
  const fields = new Set<string>();
  for (const line of lines) {
    if (/^[ \t]/.test(line)) continue; // a folded header goes on
    const m = /^([!-9;-~]+):/.exec(line);
    if (!m) return false;
    fields.add(m[1]!.toLowerCase());
  }
  const others = ['to', 'date', 'subject', 'message-id', 'mime-version', 'received', 'cc'].filter((f) =>
    fields.has(f),
  ).length;
  return fields.has('from') && others >= 2;
}

function looksLikeHtml(head: string, ext: string): boolean {
  const start = head
    .replace(/^(\s|<!--[\s\S]*?-->|<\?xml[^>]*>)*/, '')
    .slice(0, 200)
    .toLowerCase();
  if (/^<(!doctype html|html|head|body)\b/.test(start)) return true;
  return (ext === 'html' || ext === 'htm' || ext === 'xhtml') && /<[a-z!]/i.test(head);
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

/** Decode text bytes: UTF-8 / UTF-16 by BOM, strict UTF-8, else Latin-1 (Windows-1252). */
export function decodeText(bytes: Uint8Array): { text: string; encoding: string } {
  if (startsWith(bytes, [0xef, 0xbb, 0xbf]))
    return { text: new TextDecoder('utf-8').decode(bytes.subarray(3)), encoding: 'utf-8' };
  if (startsWith(bytes, [0xff, 0xfe]))
    return { text: new TextDecoder('utf-16le').decode(bytes.subarray(2)), encoding: 'utf-16le' };
  if (startsWith(bytes, [0xfe, 0xff]))
    return { text: new TextDecoder('utf-16be').decode(bytes.subarray(2)), encoding: 'utf-16be' };
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), encoding: 'utf-8' };
  } catch {
    return { text: new TextDecoder('windows-1252').decode(bytes), encoding: 'windows-1252' };
  }
}
