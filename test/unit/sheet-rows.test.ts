import { describe, expect, it } from 'vitest';
import { sheetTables } from '../../src/renderer/src/lib/sheet-rows';

describe('a spreadsheet passage as a table', () => {
  const text =
    'Columns: Date · Hours · Description\n\nRow 2 — Date: 2023-03-02 · Hours: 1.5\n\nRow 3 — Date: 2023-03-04 · Hours: 3.25 · Description: Drafted the demand: final\n\nRow 4 — Date: 2023-03-09 · F: see receipt';
  const offset = 1000;
  const row3 = offset + text.indexOf('Row 3');

  it('columns in sheet order (a column without a name by its letter), each row its cells, the cited rows marked', () => {
    const [t] = sheetTables(text, offset, row3 + 10, row3 + 20) as [ReturnType<typeof sheetTables>[number]];
    expect(t.columns).toEqual(['Date', 'Hours', 'Description', 'F']);
    expect(t.rows.map((r) => [r.row, r.cited])).toEqual([
      [2, false],
      [3, true],
      [4, false],
    ]);
    expect(Object.fromEntries(t.rows[1]!.cells)).toEqual({
      Date: '2023-03-04',
      Hours: '3.25',
      Description: 'Drafted the demand: final',
    });
    expect(t.rows[2]!.cells.get('F')).toBe('see receipt');
  });

  it('sheetTables – each cell knows where its text is in the document (to mark found words in it)', () => {
    const [t] = sheetTables(text, offset, 0, 0) as [ReturnType<typeof sheetTables>[number]];
    for (const r of t.rows)
      for (const [name, value] of r.cells)
        expect(text.slice(r.at.get(name)! - offset).startsWith(value), `${r.row} ${name}`).toBe(true);
  });

  it('each sheet its own table: where column names start, or row numbers start again', () => {
    const two = `${text}\n\nColumns: Item · Amount\n\nRow 2 — Item: Repairs · Amount: 12500\n\nRow 1 — A: untitled`;
    const tables = sheetTables(two, 0, 0, 0);
    expect(tables.map((t) => [t.columns, t.rows.map((r) => r.row)])).toEqual([
      [
        ['Date', 'Hours', 'Description', 'F'],
        [2, 3, 4],
      ],
      [['Item', 'Amount'], [2]],
      [['A'], [1]],
    ]);
  });

  it('a span over several rows marks each; text without rows is no table', () => {
    expect(
      sheetTables(text, offset, row3 - 1, offset + text.length)[0]!
        .rows.filter((r) => r.cited)
        .map((r) => r.row),
    ).toEqual([3, 4]);
    expect(sheetTables('From: a\nSubject: b', 0, 0, 5)).toEqual([]);
  });
});
