/**
 * Spreadsheets (.xlsx/.xlsm/.xlsb, .xls, .ods, .csv/.tsv) read as text with SheetJS CE (`@e965/xlsx`,
 * loaded lazily); nothing is evaluated (formulas give their last values). One unit per sheet, one
 * paragraph per non-empty row ("Row N — Header: value · …", N the 1-based row Excel shows). Number-only
 * dates become ISO dates, because Excel draws them in the reader's locale and the file does not say
 * what the user saw. The header is the first all-label row followed by a non-label row, so a title
 * line above the table is not taken for it.
 */
import type { CellObject, WorkBook, WorkSheet } from '@e965/xlsx';
import { decodeText } from '../../domain/index';
import { LoadError, type ParsedDoc } from '../loaders';
import { unitsDocument, type TextUnit } from './units';
import { CSV_LABEL, ROW_MARKER } from '../../text/index';

export { CSV_LABEL, ROW_MARKER, spreadsheetRowLabel } from '../../text/index';

type Xlsx = typeof import('@e965/xlsx');

/** Non-empty cells read at most, over all sheets; more fails as too large. */
export const DEFAULT_MAX_CELLS = 1_000_000;

/** Separates the cells of a row's paragraph, and the names of the header paragraph. */
export const CELL_SEPARATOR = ' · ';

const HEADER_SCAN_ROWS = 10;
const MAX_HEADER_CHARS = 80;
const PASSWORD_REASON = 'password protected spreadsheet — save an unlocked copy and add it again';
const EMPTY_REASON = 'the spreadsheet has no text in its cells';
/** What SheetJS says about encrypted workbooks (.xlsx in an encrypted container, .xls with FilePass, .ods). */
const PASSWORD_ERROR =
  /password|ECMA-376 Encrypted|EncryptionInfo|Encryption (scheme|Flags)|ODS Encryption|encryption algorithm/i;
/** Text that reads as a number, amount, percentage, date or time, not as a column name. */
const VALUE_LIKE = /^[\s(+\-−]*[$€£¥]?\s*\d[\d\s.,:/-]*%?\)?$/;
/** A displayed date made of numbers only ("3/4/23", "04.03.2023 10:30", "3/4/23 1:05 PM"). */
const NUMERIC_DATE = /^[\d\s/.\-:,]+(\s?[AaPp][Mm])?$/;
const TIME_ONLY = /^\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?(\s?[AaPp][Mm])?$/;
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

interface RowCells {
  /** 1-based row number. */
  row: number;
  cells: { col: number; text: string }[];
  /** Every cell is a text label: the row could be the header. */
  labels: boolean;
}

/** Read a spreadsheet's cells as text: one unit per sheet, one paragraph per row (see above). */
export async function loadSpreadsheet(bytes: Uint8Array, opts: { maxCells?: number } = {}): Promise<ParsedDoc> {
  const maxCells = opts.maxCells ?? DEFAULT_MAX_CELLS;
  const xlsx = await loadXlsx();
  const { wb, plain } = readWorkbook(xlsx, bytes, maxCells);
  const budget: CellBudget = { left: maxCells, max: maxCells };
  const units: TextUnit[] = [];
  wb.SheetNames.forEach((name, i) => {
    const ws = wb.Sheets[name];
    if (!ws) return;
    // A sheet cut at sheetRows holds more rows than the limit allows cells.
    if ((ws['!data']?.length ?? 0) > maxCells) throw tooLarge(maxCells);
    const hidden = !!wb.Workbook?.Sheets?.[i]?.Hidden;
    const label = plain && wb.SheetNames.length === 1 ? CSV_LABEL : `Sheet ${name}${hidden ? ' (hidden)' : ''}`;
    units.push({ label, paragraphs: sheetParagraphs(ws, budget) });
  });
  // One page per sheet, however long: the document's pages are its sheets ("2 sheets"), its rows say where.
  return unitsDocument(units, EMPTY_REASON, Number.POSITIVE_INFINITY);
}

function tooLarge(maxCells: number): LoadError {
  return new LoadError(
    'failed',
    `the spreadsheet is too large to read (over ${maxCells.toLocaleString('en-US')} cells) — split it or save the needed sheets as CSV`,
  );
}

async function loadXlsx(): Promise<Xlsx> {
  const xlsx = await import('@e965/xlsx');
  // Legacy .xls text in a code page (BIFF5 and older, some BIFF8 names) needs the code page tables.
  xlsx.set_cptable(await import('@e965/xlsx/dist/cpexcel.full.mjs'));
  return xlsx;
}

function startsWith(bytes: Uint8Array, sig: number[]): boolean {
  return sig.every((b, i) => bytes[i] === b);
}

/** A zip (.xlsx, .xlsb, .ods), a compound file (.xls, encrypted .xlsx) or a bare BIFF stream. */
function isBinarySpreadsheet(bytes: Uint8Array): boolean {
  return (
    startsWith(bytes, [0x50, 0x4b, 0x03, 0x04]) ||
    startsWith(bytes, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]) ||
    (bytes[0] === 0x09 && (bytes[1] ?? 0xff) <= 0x08)
  );
}

/** Text (CSV, TSV, an HTML or XML spreadsheet): a byte-order mark, or no NUL byte near the start. */
function isPlainText(bytes: Uint8Array): boolean {
  if (startsWith(bytes, [0xef, 0xbb, 0xbf]) || startsWith(bytes, [0xff, 0xfe]) || startsWith(bytes, [0xfe, 0xff]))
    return true;
  return !isBinarySpreadsheet(bytes) && !bytes.subarray(0, 65536).includes(0);
}

function readWorkbook(xlsx: Xlsx, bytes: Uint8Array, maxCells: number): { wb: WorkBook; plain: boolean } {
  const plain = isPlainText(bytes);
  if (!plain && !isBinarySpreadsheet(bytes))
    throw new LoadError(
      'failed',
      'damaged spreadsheet, it could not be read (not a spreadsheet format this app reads)',
    );
  // sheetRows: a sheet is never read past the row that would make it too large anyway.
  const options = {
    cellDates: true,
    cellFormula: false,
    cellHTML: false,
    cellStyles: false,
    bookVBA: false,
    dense: true,
    sheetRows: maxCells + 1,
  };
  try {
    const wb = plain
      ? xlsx.read(decodeText(bytes).text, { ...options, type: 'string', raw: true })
      : xlsx.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), { ...options, type: 'buffer' });
    return { wb, plain };
  } catch (err) {
    const message = (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ').trim();
    if (PASSWORD_ERROR.test(message)) throw new LoadError('failed', PASSWORD_REASON);
    throw new LoadError(
      'failed',
      `damaged spreadsheet, it could not be read (${message.slice(0, 160) || 'unknown error'})`,
    );
  }
}

/** The non-empty cells still allowed (over all sheets), and the limit. */
interface CellBudget {
  left: number;
  max: number;
}

/**
 * The sheet's non-empty rows, their cells as text, top to bottom. Each row's cell objects are let go
 * once its text is made (a big sheet's cells and its text are not held twice); each cell read is
 * taken from the budget, and past it the sheet fails as too large.
 */
function* nonEmptyRows(ws: WorkSheet, budget: CellBudget): Generator<RowCells> {
  const data: (CellObject[] | undefined)[] = ws['!data'] ?? [];
  for (let r = 0; r < data.length; r++) {
    const line = data[r];
    if (!line) continue;
    data[r] = undefined;
    const cells: RowCells['cells'] = [];
    let labels = true;
    line.forEach((cell, col) => {
      const text = cellText(cell);
      if (!text) return;
      cells.push({ col, text });
      labels &&= cell.t === 's' && text.length <= MAX_HEADER_CHARS && !VALUE_LIKE.test(text);
    });
    if (!cells.length) continue;
    budget.left -= cells.length;
    if (budget.left < 0) throw tooLarge(budget.max);
    yield { row: r + 1, cells, labels };
  }
}

function clean(text: string): string {
  return text.replace(CONTROL, '').replace(/\s+/g, ' ').trim();
}

/** A cell as the file shows it ('' for an empty one). */
function cellText(cell: CellObject | undefined): string {
  if (!cell || cell.t === 'z') return '';
  if (cell.t === 'd') return dateText(cell);
  return clean(cell.w ?? (cell.v === undefined ? '' : String(cell.v)));
}

/** A date cell: its shown text, or the ISO date where the shown text is numbers only (see above). */
function dateText(cell: CellObject): string {
  const shown = clean(cell.w ?? '');
  const d = cell.v;
  if (!(d instanceof Date) || Number.isNaN(d.getTime())) return shown;
  if (TIME_ONLY.test(shown)) return shown;
  // SheetJS gives the date as UTC (no time zone is applied): read it back with UTC fields.
  const at = new Date(Math.round(d.getTime() / 1000) * 1000).toISOString();
  const time = at.slice(11, 19);
  const iso =
    time === '00:00:00' ? at.slice(0, 10) : `${at.slice(0, 10)} ${time.endsWith(':00') ? time.slice(0, 5) : time}`;
  if (!shown || NUMERIC_DATE.test(shown)) return iso;
  return shown.includes(iso.slice(0, 10)) ? shown : `${shown} (${iso})`;
}

/** "A", "B", … "Z", "AA", …: a column's letters (0-based index). */
function columnLetters(col: number): string {
  let s = '';
  for (let n = col + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

/** The index (in `rows`) of the header row, or -1 (see the header rule above). */
function headerIndex(rows: RowCells[]): number {
  const scan = rows.slice(0, HEADER_SCAN_ROWS);
  const firstCol = rows[0]?.cells[0]?.col;
  const oneColumn = rows
    .slice(0, HEADER_SCAN_ROWS * 2)
    .every((r) => r.cells.length === 1 && r.cells[0]!.col === firstCol);
  const candidate = (r: RowCells) => r.labels && (r.cells.length >= 2 || oneColumn);
  // A header names the rows below it: the sheet's last row is never one.
  const beforeData = scan.findIndex((r, i) => candidate(r) && rows[i + 1] !== undefined && !candidate(rows[i + 1]!));
  return beforeData >= 0 ? beforeData : scan.findIndex((r, i) => candidate(r) && rows[i + 1] !== undefined);
}

/** A sheet's paragraphs: the header's column names, and one paragraph per row. */
function sheetParagraphs(ws: WorkSheet, budget: CellBudget): string[] {
  const rows = nonEmptyRows(ws, budget);
  // The header is chosen among the first rows; the rest are written as they are read.
  const head: RowCells[] = [];
  for (let n = rows.next(); !n.done; n = rows.next()) if (head.push(n.value) >= HEADER_SCAN_ROWS * 2) break;
  const h = headerIndex(head);
  const names = new Map<number, string>(h >= 0 ? head[h]!.cells.map((c) => [c.col, c.text]) : []);
  const none = new Map<number, string>();
  const out = head.map((r, i) =>
    i === h ? `Columns: ${r.cells.map((c) => c.text).join(CELL_SEPARATOR)}` : rowParagraph(r, i > h ? names : none),
  );
  for (let n = rows.next(); !n.done; n = rows.next()) out.push(rowParagraph(n.value, names));
  return out;
}

/** "Row 14 — Date: 2023-03-04 · Hours: 3.5 · F: note": cells by column name, or by letter without one. */
function rowParagraph(r: RowCells, names: Map<number, string>): string {
  return (
    ROW_MARKER.of(r.row) +
    r.cells.map((c) => `${names.get(c.col) ?? columnLetters(c.col)}: ${c.text}`).join(CELL_SEPARATOR)
  );
}
