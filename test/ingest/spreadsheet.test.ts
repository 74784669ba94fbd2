import * as XLSX from '@e965/xlsx';
import { describe, expect, it } from 'vitest';
import { CSV_LABEL, loadSpreadsheet, ROW_MARKER, spreadsheetRowLabel } from '../../src/core/reader/formats/spreadsheet';
import type { ParsedDoc } from '../../src/core/reader/loaders';

const MONEY = '"$"#,##0.00';

/** A cell with its number format and the text a spreadsheet app would show for it. */
function money(v: number): XLSX.CellObject {
  return { t: 'n', v, z: MONEY, w: XLSX.SSF.format(MONEY, v) };
}

/**
 * Billing: a title line, the header in row 2, billed rows from row 3 (an empty row 5, a note in
 * column F without a header); Damages; a hidden Notes sheet. Dates are local midnights, as a user's
 * spreadsheet app stores them.
 */
function caseWorkbook(): XLSX.WorkBook {
  const billing = XLSX.utils.aoa_to_sheet([
    ['Smith LLP — statement for matter 2023-114'],
    ['Date', 'Hours', 'Amount', 'Description'],
    [new Date(2023, 2, 4), 3.5, money(1200), 'Draft complaint'],
    [new Date(2023, 2, 5), 1, money(400), 'Call with client'],
    [],
    [new Date(2023, 2, 9), null, money(80), 'Filing fee', null, 'see receipt'],
  ]);
  const damages = XLSX.utils.aoa_to_sheet([
    ['Item', 'Claimed'],
    ['Lost wages', 15000],
    ['Medical', 3250.5],
  ]);
  const notes = XLSX.utils.aoa_to_sheet([['Settlement floor', 'internal only']]);
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(wb, billing, 'Billing');
  XLSX.utils.book_append_sheet(wb, damages, 'Damages');
  XLSX.utils.book_append_sheet(wb, notes, 'Notes');
  wb.Workbook = { Sheets: [{}, {}, { Hidden: 1 }] };
  return wb;
}

const written = (wb: XLSX.WorkBook, bookType: XLSX.BookType) =>
  new Uint8Array(XLSX.write(wb, { type: 'buffer', bookType }) as Buffer);

/** The document's paragraphs, in order. */
const paragraphsOf = (doc: ParsedDoc) => doc.index.paragraphs!.map(([s, e]) => doc.text.slice(s, e));

/** Each page's label and text. */
const pagesOf = (doc: ParsedDoc) =>
  doc.index.pages.map((p) => ({ label: p.label, text: doc.text.slice(p.start, p.end) }));

async function failure(bytes: Uint8Array, opts?: { maxCells?: number }): Promise<{ status: string; reason: string }> {
  try {
    await loadSpreadsheet(bytes, opts);
  } catch (err) {
    return { status: (err as { status: string }).status, reason: (err as Error).message };
  }
  throw new Error('expected the spreadsheet to fail');
}

const BILLING_ROWS = [
  'Row 1 — A: Smith LLP — statement for matter 2023-114',
  'Columns: Date · Hours · Amount · Description',
  'Row 3 — Date: 2023-03-04 · Hours: 3.5 · Amount: $1,200.00 · Description: Draft complaint',
  'Row 4 — Date: 2023-03-05 · Hours: 1 · Amount: $400.00 · Description: Call with client',
  'Row 6 — Date: 2023-03-09 · Amount: $80.00 · Description: Filing fee · F: see receipt',
];
const DAMAGES_ROWS = [
  'Columns: Item · Claimed',
  'Row 2 — Item: Lost wages · Claimed: 15000',
  'Row 3 — Item: Medical · Claimed: 3250.5',
];

describe('spreadsheets: one unit per sheet, one paragraph per row', () => {
  it('xlsx – each sheet a labelled unit; rows carry their Excel row number and the column names', async () => {
    const doc = await loadSpreadsheet(written(caseWorkbook(), 'xlsx'));
    expect(doc.kind).toBe('text');
    expect(paragraphsOf(doc)).toEqual([
      ...BILLING_ROWS,
      ...DAMAGES_ROWS,
      'Row 1 — A: Settlement floor · B: internal only',
    ]);
    const pages = pagesOf(doc);
    expect(pages.map((p) => p.label)).toEqual(['Sheet Billing', 'Sheet Damages', 'Sheet Notes (hidden)']);
    expect(pages[0]!.text).toContain('Draft complaint');
    expect(pages[0]!.text).not.toContain('Lost wages');
    expect(pages[1]!.text).toContain('Row 3 — Item: Medical');
    // "What was billed on 2023-03-04?": the row that holds the date holds the amount too.
    const billed = paragraphsOf(doc).find((p) => p.includes('2023-03-04'));
    expect(billed).toContain('$1,200.00');
    expect(doc.emptyPages).toEqual([]);
  });

  it('page ranges cover the text without gaps; a long sheet is one page (a sheet is the unit), its rows in order', async () => {
    const wb = caseWorkbook();
    const long = Array.from({ length: 400 }, (_, i) => [
      new Date(2024, 0, 1 + (i % 28)),
      i + 0.25,
      `Entry ${i + 2}: review of production volume ${i}`,
    ]);
    XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet([['Date', 'Hours', 'Task'], ...long]), 'Time log');
    wb.Workbook!.Sheets!.push({});
    const doc = await loadSpreadsheet(written(wb, 'xlsx'));
    const { pages } = doc.index;
    expect(pages[0]!.start).toBe(0);
    for (let i = 0; i + 1 < pages.length; i++) expect(pages[i]!.end).toBe(pages[i + 1]!.start);
    expect(pages.at(-1)!.end).toBe(doc.text.length);
    const log = pagesOf(doc).filter((p) => p.label === 'Sheet Time log');
    expect(log).toHaveLength(1);
    expect(log[0]!.text.trimStart()).toMatch(
      /^Columns: Date · Hours · Task\n\nRow 2 — Date: 2024-01-01 · Hours: 0.25 · /,
    );
    expect(log[0]!.text).toContain(
      'Row 401 — Date: 2024-01-08 · Hours: 399.25 · Task: Entry 401: review of production volume 399',
    );
    expect(pages.map((p) => p.page)).toEqual(pages.map((_, i) => i + 1));
  });

  it('the same workbook saved as .xls (BIFF8) and as .ods reads to the same rows', async () => {
    const xlsx = await loadSpreadsheet(written(caseWorkbook(), 'xlsx'));
    const xls = await loadSpreadsheet(written(caseWorkbook(), 'biff8'));
    expect(paragraphsOf(xls)).toEqual(paragraphsOf(xlsx));
    expect(pagesOf(xls).map((p) => p.label)).toEqual(['Sheet Billing', 'Sheet Damages', 'Sheet Notes (hidden)']);
    const ods = await loadSpreadsheet(written(caseWorkbook(), 'ods'));
    expect(paragraphsOf(ods)).toEqual(paragraphsOf(xlsx));
    expect(
      pagesOf(ods)
        .slice(0, 2)
        .map((p) => p.label),
    ).toEqual(['Sheet Billing', 'Sheet Damages']);
  });

  it('dates: numeric displays as ISO dates (with the time where there is one), worded displays kept with the ISO date; times of day as shown', async () => {
    const ws = XLSX.utils.aoa_to_sheet([['When', 'Event']]);
    XLSX.utils.sheet_add_aoa(ws, [[{ t: 'n', v: 44989.4375, z: 'm/d/yy h:mm' }, 'Hearing']], { origin: 'A2' });
    XLSX.utils.sheet_add_aoa(ws, [[{ t: 'n', v: 44989, z: 'd mmmm yyyy' }, 'Notice served']], { origin: 'A3' });
    XLSX.utils.sheet_add_aoa(ws, [[{ t: 'n', v: 0.75, z: 'h:mm' }, 'Deadline']], { origin: 'A4' });
    const wb = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(wb, ws, 'Calendar');
    const doc = await loadSpreadsheet(written(wb, 'xlsx'));
    expect(paragraphsOf(doc)).toEqual([
      'Columns: When · Event',
      'Row 2 — When: 2023-03-04 10:30 · Event: Hearing',
      'Row 3 — When: 4 March 2023 (2023-03-04) · Event: Notice served',
      'Row 4 — When: 18:00 · Event: Deadline',
    ]);
  });

  it('a header is not taken from a row of numbers: such a sheet names its columns by letter', async () => {
    const wb = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(
      wb,
      XLSX.utils.aoa_to_sheet([
        [1, 2],
        ['2023-03-04', 'x'],
        [3, 'y'],
      ]),
      'Raw',
    );
    const doc = await loadSpreadsheet(written(wb, 'xlsx'));
    expect(paragraphsOf(doc)).toEqual(['Row 1 — A: 1 · B: 2', 'Row 2 — A: 2023-03-04 · B: x', 'Row 3 — A: 3 · B: y']);
  });

  it('CSV and TSV – one unit labelled Rows, cells exactly as written (amounts, leading zeros, accents)', async () => {
    const csv =
      'Date,Amount,Payee,Ref\n2023-03-04,"$1,200.00",Müller & Söhne €,00123\n\n2023-03-05,80,"Line one\nline two",\n';
    const doc = await loadSpreadsheet(new TextEncoder().encode(csv));
    expect(paragraphsOf(doc)).toEqual([
      'Columns: Date · Amount · Payee · Ref',
      'Row 2 — Date: 2023-03-04 · Amount: $1,200.00 · Payee: Müller & Söhne € · Ref: 00123',
      'Row 4 — Date: 2023-03-05 · Amount: 80 · Payee: Line one line two',
    ]);
    expect(doc.index.pages.map((p) => p.label)).toEqual([CSV_LABEL]);
    const tsv = await loadSpreadsheet(new TextEncoder().encode('Date\tAmount\n2023-03-04\t1200\n'));
    expect(paragraphsOf(tsv)).toEqual(['Columns: Date · Amount', 'Row 2 — Date: 2023-03-04 · Amount: 1200']);
    // SheetJS's own CSV of the workbook's first sheet reads to the same Billing rows (its dates as it wrote them).
    const fromWriter = paragraphsOf(await loadSpreadsheet(written(caseWorkbook(), 'csv')));
    expect(fromWriter[2]).toBe('Row 3 — Date: 3/4/23 · Hours: 3.5 · Amount: $1,200.00 · Description: Draft complaint');
    expect(fromWriter).toHaveLength(BILLING_ROWS.length);
  });

  it('a damaged file fails with a plain reason; so do an empty sheet and an encrypted workbook', async () => {
    const whole = written(caseWorkbook(), 'xlsx');
    const truncated = await failure(whole.subarray(0, Math.floor(whole.length / 2)));
    expect(truncated.status).toBe('failed');
    expect(truncated.reason).toMatch(/^damaged spreadsheet, it could not be read \(.+\)$/);
    expect((await failure(new Uint8Array(4096).fill(0))).reason).toMatch(/^damaged spreadsheet, it could not be read/);
    const xls = written(caseWorkbook(), 'biff8');
    expect((await failure(xls.subarray(0, 700))).reason).toMatch(/^damaged spreadsheet, it could not be read/);

    const blank = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(blank, XLSX.utils.aoa_to_sheet([[], ['  ']]), 'Empty');
    expect(await failure(written(blank, 'xlsx'))).toEqual({
      status: 'failed',
      reason: 'the spreadsheet has no text in its cells',
    });

    expect(await failure(encryptedXlsx())).toEqual({
      status: 'failed',
      reason: 'password protected spreadsheet — save an unlocked copy and add it again',
    });
  });

  it('the cell limit: over maxCells non-empty cells fails as too large, at the limit reads', async () => {
    const bytes = written(caseWorkbook(), 'xlsx');
    // Billing 1 + 4 + 4 + 4 + 4 non-empty cells, Damages 6, Notes 2: 25 in all.
    expect(await failure(bytes, { maxCells: 24 })).toEqual({
      status: 'failed',
      reason: 'the spreadsheet is too large to read (over 24 cells) — split it or save the needed sheets as CSV',
    });
    await expect(loadSpreadsheet(bytes, { maxCells: 25 })).resolves.toBeTruthy();
    const tall = new TextEncoder().encode(Array.from({ length: 5000 }, (_, i) => `line ${i}`).join('\n'));
    expect((await failure(tall, { maxCells: 1000 })).reason).toMatch(/too large to read \(over 1,000 cells\)/);
  });
});

describe('spreadsheetRowLabel: where a citation is in a sheet', () => {
  it('names the row, or the first and last rows of a span', () => {
    expect(spreadsheetRowLabel('Sheet Billing', 'Row 14 — Date: 2023-03-04 · Amount: $1,200.00')).toBe(
      'Sheet Billing, row 14',
    );
    expect(
      spreadsheetRowLabel(
        'Sheet Billing',
        'Row 14 — Date: 2023-03-04\n\nRow 15 — Date: 2023-03-05\n\nRow 17 — Date: 2023-03-09 · Amount',
      ),
    ).toBe('Sheet Billing, rows 14–17');
    expect(spreadsheetRowLabel('Sheet Billing', 'Columns: Date · Hours · Amount')).toBe('Sheet Billing');
    expect(spreadsheetRowLabel('Sheet Billing', 'Amount: $1,200.00')).toBe('Sheet Billing');
    expect(spreadsheetRowLabel(undefined, 'Row 3 — A: x')).toBeNull();
    expect(spreadsheetRowLabel('', 'Row 3 — A: x')).toBeNull();
    expect(spreadsheetRowLabel(CSV_LABEL, 'Row 2 — Date: 2023-03-04')).toBe('Row 2');
    expect(spreadsheetRowLabel(CSV_LABEL, 'Row 2 — a\n\nRow 9 — b')).toBe('Rows 2–9');
    expect(ROW_MARKER.of(14)).toBe('Row 14 — ');
  });

  it('a span starting inside a row counts that row (given the text before it)', () => {
    const before = 'Columns: Date · Amount\n\nRow 14 — Date: 2023-03-04 · ';
    expect(spreadsheetRowLabel('Sheet Billing', 'Amount: $1,200.00\n\nRow 15 — Date: 2023-03-05', before)).toBe(
      'Sheet Billing, rows 14–15',
    );
    expect(spreadsheetRowLabel('Sheet Billing', 'Amount: $1,200.00', before)).toBe('Sheet Billing, row 14');
    // Without the text before, the rows whose markers are in the span.
    expect(spreadsheetRowLabel('Sheet Billing', 'Amount: $1,200.00\n\nRow 15 — Date: 2023-03-05')).toBe(
      'Sheet Billing, row 15',
    );
    // A span starting inside the marker itself.
    expect(spreadsheetRowLabel('Sheet Billing', 'ow 14 — Date', 'Columns: Date\n\nR')).toBe('Sheet Billing, row 14');
  });

  it('labels a citation into a read workbook', async () => {
    const doc = await loadSpreadsheet(written(caseWorkbook(), 'xlsx'));
    const start = doc.text.indexOf('Draft complaint');
    const end = doc.text.indexOf('Call with client') + 'Call with client'.length;
    const page = doc.index.pages.find((p) => p.start <= start && start < p.end)!;
    expect(spreadsheetRowLabel(page.label, doc.text.slice(start, end), doc.text.slice(0, start))).toBe(
      'Sheet Billing, rows 3–4',
    );
    const damages = doc.text.indexOf('3250.5');
    const page2 = doc.index.pages.find((p) => p.start <= damages && damages < p.end)!;
    expect(spreadsheetRowLabel(page2.label, '3250.5', doc.text.slice(0, damages))).toBe('Sheet Damages, row 3');
  });
});

/** An .xlsx encrypted with a password: a compound file holding EncryptionInfo (agile) and EncryptedPackage. */
function encryptedXlsx(): Uint8Array {
  const xml =
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n<encryption xmlns="http://schemas.microsoft.com/office/2006/encryption"><keyData saltSize="16" blockSize="16" keyBits="256" hashSize="64" cipherAlgorithm="AES" cipherChaining="ChainingModeCBC" hashAlgorithm="SHA512" saltValue="AAAAAAAAAAAAAAAAAAAAAA=="/></encryption>';
  const info = Buffer.concat([Buffer.from([4, 0, 4, 0, 0x40, 0, 0, 0]), Buffer.from(xml)]);
  const cfb = XLSX.CFB.utils.cfb_new();
  XLSX.CFB.utils.cfb_add(cfb, '/EncryptionInfo', info);
  XLSX.CFB.utils.cfb_add(cfb, '/EncryptedPackage', Buffer.alloc(4096, 7));
  return new Uint8Array(XLSX.CFB.write(cfb, { type: 'buffer' }) as Buffer);
}
