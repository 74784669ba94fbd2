/**
 * A spreadsheet's rows as its text says them: the reader writes each row as a paragraph that starts
 * with ROW_MARKER (reader/formats/spreadsheet.ts); a citation names the rows its span touches.
 */

/** The label of a CSV/TSV's only unit (its rows; SheetJS would call it "Sheet1"). */
export const CSV_LABEL = 'Rows';

/** The one place the row marker's format is defined: each row's paragraph starts with it. */
export const ROW_MARKER = {
  /** "Row 14 — ": the marker of the spreadsheet's row `row` (1-based, as Excel numbers it). */
  of: (row: number): string => `Row ${row} — `,
  /** Markers at line starts (global, multiline); group 1 is the row number. */
  pattern: /^Row (\d+) — /gm,
} as const;

/**
 * Where a citation in a spreadsheet is: "Sheet Billing, row 14", "Sheet Billing, rows 14–17" (the
 * first and last rows the span touches), "Sheet Billing" where it touches no row (the column names);
 * for a CSV (label `Rows`): "Row 14", "Rows 14–17". null without a label (not a spreadsheet's page).
 * `citedText` is the span's text; `textBefore` (optional) the document's text before it — at least
 * its line — so that a span starting inside a row counts that row. Without it, a span starting
 * mid-row counts its rows from the first marker at a line start in it.
 */
export function spreadsheetRowLabel(pageLabel: string | undefined, citedText: string, textBefore = ''): string | null {
  if (!pageLabel) return null;
  const nl = citedText.indexOf('\n');
  const firstLine = textBefore.slice(textBefore.lastIndexOf('\n') + 1) + (nl < 0 ? citedText : citedText.slice(0, nl));
  const rows: number[] = [];
  const head = new RegExp(ROW_MARKER.pattern.source).exec(firstLine);
  if (head) rows.push(Number(head[1]));
  if (nl >= 0) for (const m of citedText.slice(nl + 1).matchAll(ROW_MARKER.pattern)) rows.push(Number(m[1]));
  if (!rows.length) return pageLabel;
  const first = rows[0]!;
  const last = rows[rows.length - 1]!;
  const rowText = first === last ? `row ${first}` : `rows ${first}–${last}`;
  return pageLabel === CSV_LABEL ? rowText[0]!.toUpperCase() + rowText.slice(1) : `${pageLabel}, ${rowText}`;
}
