/** "1 file", "3 files": a count with its noun, the same in the CLI and the app. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** Human-readable sizes (1.2 MB), the same in the CLI and the app. Pure TS. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

/** "OCR page 3 of 5" while a file's page is being read by OCR, else ''. */
export function ocrProgressText(c: { ocr_page?: number; pages: number | null }): string {
  return c.ocr_page === undefined ? '' : `OCR page ${c.ocr_page}${c.pages ? ` of ${c.pages}` : ''}`;
}

/** "semantic search 38% (2,880 of 7,560 passages)" while a case's vectors are still being made, else ''. */
export function semanticText(p: { semantic?: { embedded: number; total: number } }): string {
  const s = p.semantic;
  if (!s || s.total === 0 || s.embedded >= s.total) return '';
  return `semantic search ${Math.floor((s.embedded / s.total) * 100)}% (${s.embedded.toLocaleString('en-US')} of ${s.total.toLocaleString('en-US')} passages)`;
}

/** "found by its words; by meaning soon (40%)" for a file whose passages still wait for their vectors, else ''. */
export function fileSemanticText(f: { semantic?: { embedded: number; total: number } | undefined }): string {
  const s = f.semantic;
  if (!s || s.total === 0 || s.embedded >= s.total) return '';
  return `found by its words; by meaning soon (${Math.floor((s.embedded / s.total) * 100)}%)`;
}

/** "deleted from the folder on 24 Nov 2026 — the copy here is kept" for a file gone from the folder the case follows, else ''. */
export function sourceRemovedText(f: { source_removed?: string | undefined }): string {
  if (!f.source_removed) return '';
  const d = new Date(f.source_removed);
  const day = Number.isNaN(d.getTime())
    ? f.source_removed.slice(0, 10)
    : `${d.getDate()} ${MONTHS[d.getMonth()]} ${d.getFullYear()}`;
  return `deleted from the folder on ${day} — the copy here is kept`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
