/**
 * The case's chronology: the dated events of its readable documents (text/dates.ts), in date
 * order, filtered by dates, words, document and person, each cited to its sentence so it opens
 * with boxes. Shared by the `tools.timeline` operation, the agent's timeline tool and the CLI.
 */
import { readableFileName } from '../util/names';
import type { TimelineEvent, TimelineResult } from '../../shared/contract/search';
import { parseInput } from '../../shared/validate';
import type { CitationLedger } from '../domain/index';
import { type DatedEvent, placeOf } from '../text/index';
import { isReadable, pagesOf, type DocumentSource } from './document-source';
import { TimelineArgs } from './schemas';
import { eventKey, type EventMarks } from './chronology-marks';

/** The last day a bound names: "2021" → 2021-12-31, "2021-02" → 2021-02-28, a day → itself. */
function lastDay(bound: string): string {
  if (bound.length === 10) return bound;
  if (bound.length === 4) return `${bound}-12-31`;
  const [y, m] = bound.split('-').map(Number) as [number, number];
  return `${bound}-${String(new Date(Date.UTC(y, m, 0)).getUTCDate()).padStart(2, '0')}`;
}

/** The first day a bound names. */
const firstDay = (bound: string) =>
  bound.length === 10 ? bound : bound.length === 7 ? `${bound}-01` : `${bound}-01-01`;

/** The day an event ends on, for its precision ("2019-01-01" of month precision ends 2019-01-31). */
function eventEnd(e: DatedEvent): string {
  if (e.date_end) return e.date_end;
  return e.precision === 'day' ? e.date : lastDay(e.precision === 'month' ? e.date.slice(0, 7) : e.date.slice(0, 4));
}

function matches(e: DatedEvent, a: { from?: string; to?: string; words: string[]; person?: string }): boolean {
  // An event overlaps the period asked about (a month-precision event counts for any day in it).
  if (a.from && eventEnd(e) < firstDay(a.from)) return false;
  if (a.to && e.date > lastDay(a.to)) return false;
  const text = e.text.toLowerCase();
  if (a.words.some((w) => !text.includes(w))) return false;
  if (a.person) {
    const who = a.person.toLowerCase();
    if (!e.people.some((p) => p.toLowerCase().includes(who)) && !text.includes(who)) return false;
  }
  return true;
}

/** Day before month before year for the same start; then document order. */
const ORDER: Record<DatedEvent['precision'], number> = { day: 0, month: 1, year: 2 };

/** The chronology of a case's documents, filtered by `args` (see TimelineInput). */
export async function caseTimeline(
  documents: DocumentSource,
  ledger: CitationLedger,
  args: unknown,
  marks: EventMarks = {},
): Promise<TimelineResult> {
  const a = parseInput(TimelineArgs, args ?? {}, 'timeline arguments');
  const words = (a.query ?? '')
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w.length > 1);
  const needle = a.file_name?.toLowerCase();
  const listed = await documents.listFiles();
  // A document's exact name picks it alone; other words pick every document whose name holds them.
  const exact = needle !== undefined && listed.some((f) => f.name.toLowerCase() === needle);
  const files = listed.filter(
    (f) =>
      (!needle || (exact ? f.name.toLowerCase() === needle : f.name.toLowerCase().includes(needle))) &&
      (!a.doc_type || f.type === a.doc_type),
  );
  const found: Found[] = [];
  const notReadable: TimelineResult['coverage']['not_readable'] = [];
  let documentsRead = 0;
  let withEvents = 0;
  for (const file of files) {
    if (!isReadable(file.status)) {
      notReadable.push({ file_name: file.name, status: file.status, ...(file.reason ? { reason: file.reason } : {}) });
      continue;
    }
    const events = await documents.readEvents(file.id, file.version);
    if (events === null) continue;
    documentsRead++;
    if (events.length) withEvents++;
    events.forEach((event, order) => {
      if (a.mark && marks[eventKey(file.id, file.version, event.start, event.end)]?.mark !== a.mark) return;
      if (matches(event, { ...a, words })) found.push({ event, file, order });
    });
  }
  found.sort(
    (x, y) =>
      x.event.date.localeCompare(y.event.date) ||
      ORDER[x.event.precision] - ORDER[y.event.precision] ||
      x.file.name.localeCompare(y.file.name) ||
      x.order - y.order,
  );
  const events = await citeEvents(documents, ledger, found.slice(0, a.limit), marks);
  const line = `${documentsRead} ${documentsRead === 1 ? 'document' : 'documents'} read, ${withEvents} with dated events${notReadable.length ? `; not readable: ${notReadable.map((n) => `${n.file_name} (${n.status.replace('_', ' ')})`).join(', ')}` : ''}`;
  return {
    events,
    total: found.length,
    coverage: { documents: documentsRead, with_events: withEvents, not_readable: notReadable, line },
  };
}

/** An event found in a document, with its place in that document's list. */
type Found = { event: DatedEvent; file: Awaited<ReturnType<DocumentSource['listFiles']>>[number]; order: number };

/** The events listed, each with its pages, place, citation, the document's own title and its mark. */
async function citeEvents(
  documents: DocumentSource,
  ledger: CitationLedger,
  found: Found[],
  marks: EventMarks,
): Promise<TimelineEvent[]> {
  const events: TimelineEvent[] = [];
  // Each document's text and page facts are read once, however many of its events are listed.
  const texts = new Map<string, ReturnType<DocumentSource['readText']>>();
  const titles = new Map<string, Promise<string | undefined>>();
  for (const { event: e, file } of found) {
    if (!texts.has(file.id)) {
      texts.set(file.id, documents.readText(file.id, file.version));
      // A name of its own ("Gildernew v. Gantner"), not one made from the file name: the file name then says more.
      const own = (name: string | undefined) =>
        name && name.toLowerCase() !== readableFileName(file.name).toLowerCase() ? name : undefined;
      titles.set(
        file.id,
        documents.readProfile(file.id, file.version).then(
          (p) => own(p?.short_name || p?.title),
          () => undefined,
        ),
      );
    }
    const doc = await texts.get(file.id)!;
    const title = await titles.get(file.id)!;
    const pages = doc ? pagesOf(doc.pageStarts, e.start, e.end) : [e.page];
    const place = doc ? placeOf(doc, pages, e.start, e.end) : undefined;
    const citation = ledger.issue({
      file_id: file.id,
      file_name: file.name,
      version: file.version,
      pages,
      start: e.start,
      end: e.end,
    });
    const { start, end, page: _page, ...rest } = e;
    const key = eventKey(file.id, file.version, start, end);
    const said = marks[key];
    events.push({
      ...rest,
      file_id: file.id,
      file_name: file.name,
      ...(title ? { title } : {}),
      version: file.version,
      doc_type: file.type,
      pages,
      start,
      end,
      citation,
      ...(place ? { place } : {}),
      key,
      ...(said?.mark ? { mark: said.mark } : {}),
      ...(said?.note ? { note: said.note } : {}),
    });
  }
  return events;
}
