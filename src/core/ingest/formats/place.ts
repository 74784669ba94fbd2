/**
 * Where a span is, said in its document's own units where they are not pages: "Sheet Billing,
 * row 14" in a spreadsheet, "Email body" in an email, "Archive contents" for an archive's list.
 * Documents made of pages (PDF, DOCX, text) have no labels: their citations say "p. N".
 */
import { spreadsheetRowLabel } from './spreadsheet';

/**
 * The unit place of the span [start, end) of `text`: each run of pages of one label it touches,
 * said with its rows where the unit has them ("Sheet Damages, row 2; Sheet Billing, rows 2–4").
 * Undefined where the span's pages carry no labels (a paged document).
 */
export function unitPlace(labels: ReadonlyMap<number, string> | undefined, pages: readonly number[], text: string, start: number, end: number, pageStarts?: readonly number[]): string | undefined {
  if (!labels?.size || !pages.length) return undefined;
  const first = labels.get(pages[0]!);
  if (!first) return undefined;
  const runs: { label: string; from: number; to: number }[] = [];
  for (const page of pages.length > 1 && pageStarts ? pages : [pages[0]!]) {
    const label = labels.get(page) ?? '';
    const from = Math.max(start, pageStarts?.[page - 1] ?? start);
    const to = Math.min(end, pageStarts?.[page] ?? end);
    const last = runs[runs.length - 1];
    if (last && last.label === label) last.to = to;
    else runs.push({ label, from, to });
  }
  return runs
    .filter((r) => r.label && r.to > r.from)
    .map((r) => {
      // The row the span starts in counts even when the span starts inside it.
      const lineStart = text.lastIndexOf('\n', r.from - 1) + 1;
      return spreadsheetRowLabel(r.label, text.slice(r.from, r.to), text.slice(lineStart, r.from)) ?? r.label;
    })
    .join('; ') || first;
}

/** Page number → label, for the pages that carry one (none: undefined). */
export function pageLabels(pages: readonly { page: number; label?: string }[]): Map<number, string> | undefined {
  const labelled = pages.filter((p) => p.label);
  return labelled.length ? new Map(labelled.map((p) => [p.page, p.label!])) : undefined;
}
