/**
 * A spreadsheet passage as a table: its rows ("Row 14 — Date: 2023-03-04 · Hours: 3.5", as ingest
 * writes them, see core/reader/formats/spreadsheet.ts) with their column names, and which rows the
 * cited span touches. Pure, for the source viewer.
 */

export interface SheetRow {
  /** The spreadsheet's row number. */
  row: number;
  /** Column name → cell text. */
  cells: Map<string, string>;
  /** Column name → where the cell's text starts in the document text (to mark found words in it). */
  at: Map<string, number>;
  /** The row overlaps the cited span. */
  cited: boolean;
}

export interface SheetTable {
  columns: string[];
  rows: SheetRow[];
}

const ROW = /^Row (\d+) — (.*)$/;
const CELL_SEPARATOR = ' · ';

/**
 * The tables of `text` (a window of the document starting at `offset`) — a new one where a sheet's
 * column names start or its row numbers start again (the next sheet) — marking the rows that
 * overlap [start, end); [] when it holds no rows.
 */
export function sheetTables(text: string, offset: number, start: number, end: number): SheetTable[] {
  const tables: SheetTable[] = [];
  let table: SheetTable = { columns: [], rows: [] };
  const next = () => {
    if (table.rows.length) tables.push(table);
    table = { columns: [], rows: [] };
  };
  let at = offset;
  for (const line of text.split('\n')) {
    const lineStart = at;
    at += line.length + 1;
    if (line.startsWith('Columns: ')) {
      next();
      for (const name of line.slice(9).split(CELL_SEPARATOR))
        if (name && !table.columns.includes(name)) table.columns.push(name);
      continue;
    }
    const m = ROW.exec(line);
    if (!m) continue;
    const row = Number(m[1]);
    if (table.rows.length && row <= table.rows[table.rows.length - 1]!.row) next();
    const cells = new Map<string, string>();
    const cellAt = new Map<string, number>();
    let cellStart = lineStart + line.length - m[2]!.length;
    for (const cell of m[2]!.split(CELL_SEPARATOR)) {
      const colon = cell.indexOf(': ');
      if (colon > 0) {
        const name = cell.slice(0, colon);
        cells.set(name, cell.slice(colon + 2));
        cellAt.set(name, cellStart + colon + 2);
        if (!table.columns.includes(name)) table.columns.push(name);
      }
      cellStart += cell.length + CELL_SEPARATOR.length;
    }
    table.rows.push({ row, cells, at: cellAt, cited: lineStart < end && lineStart + line.length > start });
  }
  next();
  return tables;
}
