/**
 * How the chat shows a checked citation: its chip's words, where it opens the viewer (the
 * supporting words, the whole passage one click away), and copying its quote for a brief.
 */
import type { CheckedCitation, SupportLevel } from '../../../shared/contract/chat';
import { checkWords, citationPlace, isGreen, quoteWithCitation, supportOf } from '../../../shared/citation-text';
import type { OpOutput } from '../../../shared/contract/index';
import type { SourceRef } from './source-ref';

export { checkWords, citationPlace, isGreen, supportOf };

/** `[cite:id]` markers in an answer. */
export const CITE = /\[cite:([A-Za-z0-9_-]+)\]/g;

/** Cite ids in order of first appearance (chip n is order[n-1]). */
export function citeOrder(text: string): string[] {
  const order: string[] = [];
  for (const m of text.matchAll(CITE)) if (!order.includes(m[1]!)) order.push(m[1]!);
  return order;
}

/** The text of a draft with its cite markers taken out (the timeline shows it as it is written). */
export function withoutCites(text: string): string {
  return text.replace(/\s*\[cite:[A-Za-z0-9_-]*\]?/g, '');
}

/** What a verdict means, in plain words (a chip's tooltip; the reason for one not supported). */
export function verdictText(c: CheckedCitation): string {
  const s = supportOf(c);
  // A passage of "Find passages": its words are the document's; how far it answers is its relevance.
  if (c.relevance && isGreen(c)) return `${checkWords(c)}: these are the document's own words`;
  switch (s) {
    case 'quoted':
      return 'Quoted: these words are in the cited passage';
    case 'supported':
      return 'Supported: the passage states these facts';
    case 'not_supported':
      return `Not supported: ${c.reason || 'the passage does not state this'}`;
    case 'invented':
      return 'Invented: no search in this conversation returned this citation';
  }
}

/**
 * The chip's look: a passage of the extractive answer is a plain numbered chip (an exact quote is a
 * fact, not a success); green stays for a sentence of an answer that its passage supports.
 */
export function chipLook(c: CheckedCitation | undefined): { className: string; mark: string } {
  const support = c ? supportOf(c) : 'pending';
  if (c?.relevance && isGreen(c)) return { className: `chip chip-passage chip-rel-${c.relevance}`, mark: '' };
  return { className: `chip chip-${support}`, mark: chipMark(support) };
}

/** The chip's mark: ✓ green, ? amber, ! red. */
export function chipMark(s: SupportLevel | 'pending'): string {
  return s === 'quoted' || s === 'supported' ? '✓' : s === 'invented' ? '!' : s === 'pending' ? '…' : '?';
}

/**
 * Where a citation opens the viewer: on its supporting words (`span`) when the check found them
 * inside the passage, with the whole cited passage one click away; on the passage itself
 * otherwise. Null when there is nothing to open (an invented id).
 */
export function sourceOf(c: CheckedCitation, label: string): SourceRef | null {
  if (!c.file_id || c.start === undefined || c.end === undefined) return null;
  const passage = { start: c.start, end: c.end, pages: c.pages?.length ? c.pages : [1] };
  const base = {
    file_id: c.file_id,
    file_name: c.file_name ?? '',
    version: c.version ?? 1,
    label,
    ...(c.title ? { title: c.title } : {}),
    ...(c.place ? { place: c.place } : {}),
  };
  const span = c.span;
  // Only words inside the passage narrow it (a span reaching past a short passage, e.g. a grep match, is not narrower).
  const narrower =
    span &&
    span.end > span.start &&
    span.start >= passage.start &&
    span.end <= passage.end &&
    span.end - span.start < passage.end - passage.start;
  if (!narrower) return { ...base, ...passage };
  return {
    ...base,
    start: span.start,
    end: span.end,
    pages: span.pages.length ? span.pages : passage.pages,
    whole: passage,
  };
}

/** Put text on the clipboard; false when neither the Clipboard API nor the old copy command could. Never throws. */
export async function writeClipboard(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // No permission or no secure context (serve mode on another host): try the old way.
  }
  try {
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.appendChild(area);
    area.select();
    const ok = document.execCommand('copy');
    area.remove();
    return ok;
  } catch {
    return false;
  }
}

/** Copy a citation's quote with its place ("“…” Title, p. 12"), and say so. */
export async function copyQuote(c: CheckedCitation, toast: (kind: 'info', text: string) => void): Promise<void> {
  const text = quoteWithCitation(c);
  const ok = await writeClipboard(text);
  if (ok) toast('info', 'Copied the quote with its citation.');
  else toast('info', `The clipboard is not available here; select and copy this: ${text}`);
}

/** Save bytes or text as a file: a download in the browser, a save dialog in the app. */
export function download(data: BlobPart, type: string, filename: string): void {
  const url = URL.createObjectURL(new Blob([data], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function fromBase64(b64: string): Uint8Array<ArrayBuffer> {
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

export type ExportFormat = 'md' | 'docx';

/** Save an exported conversation (or answer) as its file; false when a Word file was asked for and none was made. */
export function saveChatExport(out: OpOutput<'chat.export'>): boolean {
  if (out.format === 'docx') {
    if (!out.docx_base64) return false;
    download(
      fromBase64(out.docx_base64),
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      out.filename,
    );
  } else {
    download(out.markdown, 'text/markdown;charset=utf-8', out.filename);
  }
  return true;
}

export { quoteWithCitation };
