/**
 * The chronology as a file: CSV (one row per event, for a spreadsheet) and Word (a table with the
 * pin cite of each event), as a lawyer files it. The Word library is loaded only for Word exports.
 */
import { eventCite, eventDate, eventDateSource } from '../../shared/chronology-text';
import type { TimelineEvent, TimelineResult } from '../../shared/contract/search';
import { csvText } from '../util/csv';

export { eventCite, eventDate };

// New columns go at the end, so a spreadsheet built on an earlier export still finds its columns.
const HEADER = [
  'Date',
  'Precision',
  'Event',
  'People',
  'Document',
  'Cite',
  'Date as written',
  'Mark',
  'Note',
  'Sentence',
];

function row(e: TimelineEvent): string[] {
  return [
    eventDate(e),
    e.precision + (e.ambiguous ? ' (day/month ambiguous)' : ''),
    e.line,
    e.people.join('; '),
    e.title ?? e.file_name,
    eventCite(e),
    eventDateSource(e),
    e.mark ?? '',
    e.note ?? '',
    e.text.replace(/\s+/g, ' '),
  ];
}

/** RFC 4180 CSV, safe to open in a spreadsheet (`util/csv`). */
export function timelineCsv(result: TimelineResult): string {
  return csvText([HEADER, ...result.events.map(row)]);
}

const xmlSafe = (text: string) => text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '');

/** A Word document (base64): the case's name, the filters, and the events as a table. */
export async function timelineDocx(
  result: TimelineResult,
  options: { caseName: string; filters: string; now: Date },
): Promise<string> {
  const d = await import('docx');
  const cell = (text: string, bold = false) =>
    new d.TableCell({ children: [new d.Paragraph({ children: [new d.TextRun({ text: xmlSafe(text), bold })] })] });
  // A cell of a line and, under it in small italics, where it comes from (the whole sentence, how a date was counted).
  const withSource = (line: string, source: string) =>
    new d.TableCell({
      children: [
        new d.Paragraph({ children: [new d.TextRun(xmlSafe(line))] }),
        ...(source && source !== line
          ? [new d.Paragraph({ children: [new d.TextRun({ text: xmlSafe(source), italics: true, size: 18 })] })]
          : []),
      ],
    });
  const columns = ['Date', 'Event', 'People', 'Document', 'Cite', 'Mark / note'];
  const table = new d.Table({
    width: { size: 100, type: d.WidthType.PERCENTAGE },
    rows: [
      new d.TableRow({ tableHeader: true, children: columns.map((c) => cell(c, true)) }),
      ...result.events.map(
        (e) =>
          new d.TableRow({
            children: [
              withSource(eventDate(e), e.relative ? eventDateSource(e) : ''),
              withSource(e.line, e.text.replace(/\s+/g, ' ')),
              ...[
                e.people.join('; '),
                e.title ?? e.file_name,
                eventCite(e),
                [e.mark, e.note].filter(Boolean).join(': '),
              ].map((t) => cell(t)),
            ],
          }),
      ),
    ],
  });
  const doc = new d.Document({
    creator: 'Casefile',
    title: xmlSafe(`Chronology — ${options.caseName}`),
    sections: [
      {
        children: [
          new d.Paragraph({
            heading: d.HeadingLevel.TITLE,
            children: [new d.TextRun(xmlSafe(`Chronology — ${options.caseName}`))],
          }),
          new d.Paragraph({
            children: [
              new d.TextRun(
                xmlSafe(
                  `${result.events.length} of ${result.total} events${options.filters ? ` (${options.filters})` : ''}; exported ${options.now.toISOString().slice(0, 10)}`,
                ),
              ),
            ],
          }),
          new d.Paragraph({
            children: [new d.TextRun({ text: xmlSafe(`Coverage: ${result.coverage.line}`), italics: true })],
          }),
          table,
        ],
      },
    ],
  });
  return d.Packer.toBase64String(doc);
}
