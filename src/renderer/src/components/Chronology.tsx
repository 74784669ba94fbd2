import { useEffect, useState } from 'react';
import type { TimelineEvent } from '../../../shared/contract/search';
import { errorMessage } from '../api/errors';
import { useChronology, type EventMark } from '../stores/chronology';
import { useDocuments } from '../stores/documents';
import { useUi } from '../stores/ui';
import { useViewer } from '../stores/viewer';
import { download, fromBase64 } from '../lib/citations';
import { plural, TYPE_LABEL } from '../lib/display-format';
import { eventCite, eventDate, eventDateSource } from '../../../shared/chronology-text';

const MARKS: { value: EventMark | ''; label: string }[] = [
  { value: '', label: 'No mark' },
  { value: 'key', label: 'Key' },
  { value: 'disputed', label: 'Disputed' },
  { value: 'irrelevant', label: 'Irrelevant' },
];

const dateText = (e: TimelineEvent) => eventDate(e, { ambiguity: false });

/** The events as dots along the time they span, one per event, each named by its date and words. */
function TimelineStrip({ events }: { events: TimelineEvent[] }) {
  if (events.length < 2) return null;
  const t = (d: string) => Date.parse(`${d}T00:00:00Z`);
  const lo = t(events[0]!.date);
  const hi = Math.max(...events.map((e) => t(e.date_end ?? e.date)));
  const span = Math.max(1, hi - lo);
  return (
    <div
      className="timeline-strip"
      role="img"
      aria-label={`${plural(events.length, 'event')} from ${events[0]!.date} to ${new Date(hi).toISOString().slice(0, 10)}`}
    >
      <span className="timeline-axis" />
      {events.map((e) => (
        <span
          key={e.key}
          className={`timeline-dot${e.mark ? ` mark-${e.mark}` : ''}`}
          style={{ left: `${((t(e.date) - lo) / span) * 100}%` }}
          title={`${dateText(e)}: ${e.text}`}
        />
      ))}
      <span className="timeline-label timeline-from small muted">{events[0]!.date.slice(0, 7)}</span>
      <span className="timeline-label timeline-to small muted">{new Date(hi).toISOString().slice(0, 7)}</span>
    </div>
  );
}

function NoteField({ event }: { event: TimelineEvent }) {
  const mark = useChronology((s) => s.mark);
  const [note, setNote] = useState(event.note ?? '');
  useEffect(() => setNote(event.note ?? ''), [event.note]);
  const save = () => {
    if (note.trim() !== (event.note ?? '')) void mark(event.key, { note });
  };
  return (
    <input
      type="text"
      className="chronology-note"
      aria-label={`Note on the event of ${dateText(event)}`}
      placeholder="Note…"
      value={note}
      onChange={(e) => setNote(e.target.value)}
      onBlur={save}
      onKeyDown={(e) => {
        if (e.key === 'Enter') save();
      }}
    />
  );
}

function EventRow({ event }: { event: TimelineEvent }) {
  const mark = useChronology((s) => s.mark);
  const openSource = useViewer((s) => s.open);
  const kind = useDocuments((s) => s.files.find((f) => f.id === event.file_id)?.kind);
  return (
    <tr role="row" className={event.mark ? `mark-${event.mark}` : undefined} data-event={event.key}>
      <th role="rowheader" scope="row" className="col-date" title={event.relative ? eventDateSource(event) : undefined}>
        {dateText(event)}
        {event.ambiguous && (
          <span className="muted small" title="The day and month could be read either way round">
            {' '}
            (?)
          </span>
        )}
      </th>
      <td role="cell" className="col-event">
        <button
          type="button"
          className="link chronology-event"
          onClick={() =>
            openSource({
              file_id: event.file_id,
              file_name: event.file_name,
              version: event.version,
              pages: event.pages,
              start: event.start,
              end: event.end,
              kind,
              label: dateText(event),
            })
          }
        >
          {event.line || event.text}
        </button>
        {event.line && event.line !== event.text.replace(/\s+/g, ' ').trim() && (
          <details className="chronology-sentence small">
            <summary>Whole sentence</summary>
            {event.text}
          </details>
        )}
      </td>
      <td role="cell" className="small col-people">
        {event.people.join('; ')}
      </td>
      <td role="cell" className="small col-doc">
        <span className="ellipsis" title={event.file_name}>
          {event.title ?? event.file_name.split('/').pop()}
        </span>
        <span className="muted"> · {eventCite(event)}</span>
      </td>
      <td role="cell" className="col-mark">
        <select
          aria-label={`Mark the event of ${dateText(event)}`}
          value={event.mark ?? ''}
          onChange={(e) => void mark(event.key, { mark: (e.target.value || null) as EventMark | null })}
        >
          {MARKS.map((m) => (
            <option key={m.value} value={m.value}>
              {m.label}
            </option>
          ))}
        </select>
        <NoteField event={event} />
      </td>
    </tr>
  );
}

/** Save the chronology as the filters show it, as CSV or a Word document; what went wrong is a toast. */
function useExportChronology(): (caseId: string, format: 'csv' | 'docx') => Promise<void> {
  const exportAs = useChronology((s) => s.exportAs);
  const toast = useUi((s) => s.toast);
  return async (caseId, format) => {
    try {
      const out = await exportAs(caseId, format);
      if (format === 'csv') download(out.csv ?? '', 'text/csv;charset=utf-8', out.filename);
      else
        download(
          fromBase64(out.docx_base64 ?? ''),
          'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
          out.filename,
        );
    } catch (err) {
      toast('error', errorMessage(err));
    }
  };
}

function Filters() {
  const files = useDocuments((s) => s.files);
  const filters = useChronology((s) => s.filters);
  const setFilters = useChronology((s) => s.setFilters);
  const [text, setText] = useState({ query: filters.query, person: filters.person });
  return (
    <form
      className="chronology-filters"
      aria-label="Filter the chronology"
      onSubmit={(e) => {
        e.preventDefault();
        setFilters(text);
      }}
    >
      <label>
        From <input type="date" value={filters.from} onChange={(e) => setFilters({ from: e.target.value })} />
      </label>
      <label>
        To <input type="date" value={filters.to} onChange={(e) => setFilters({ to: e.target.value })} />
      </label>
      <input
        type="search"
        aria-label="Words in the event"
        placeholder="Words…"
        value={text.query}
        onChange={(e) => setText({ ...text, query: e.target.value })}
      />
      <input
        type="search"
        aria-label="Person named"
        placeholder="Person…"
        value={text.person}
        onChange={(e) => setText({ ...text, person: e.target.value })}
      />
      <select
        aria-label="Only the document"
        value={filters.file_name}
        onChange={(e) => setFilters({ file_name: e.target.value })}
      >
        <option value="">Every document</option>
        {files
          .filter((f) => f.status === 'indexed')
          .map((f) => (
            <option key={f.id} value={f.name}>
              {f.name}
            </option>
          ))}
      </select>
      <select
        aria-label="Only documents of the type"
        value={filters.doc_type}
        onChange={(e) => setFilters({ doc_type: e.target.value })}
      >
        <option value="">Every type</option>
        {[...new Set(files.map((f) => f.type))].sort().map((t) => (
          <option key={t} value={t}>
            {TYPE_LABEL[t] ?? t}
          </option>
        ))}
      </select>
      <select
        aria-label="Only events marked"
        value={filters.mark}
        onChange={(e) => setFilters({ mark: e.target.value as EventMark | '' })}
      >
        <option value="">Any mark</option>
        {MARKS.slice(1).map((m) => (
          <option key={m.value} value={m.value}>
            {m.label}
          </option>
        ))}
      </select>
      <button type="submit" className="btn btn-small">
        Filter
      </button>
    </form>
  );
}

/** The table's columns: heading and the class a narrow pane lays out by. */
const COLUMNS = [
  ['Date', 'col-date'],
  ['Event', 'col-event'],
  ['People', 'col-people'],
  ['Document', 'col-doc'],
  ['Mark and note', 'col-mark'],
] as const;

/** The events as a table; explicit roles, since a narrow pane lays its rows out as grids (people,
 * document and mark under the event) and it must stay a table to a screen reader. */
function EventTable({ events }: { events: TimelineEvent[] }) {
  return (
    <div className="chronology-scroll">
      <table role="table" className="chronology-table">
        <thead role="rowgroup">
          <tr role="row">
            {COLUMNS.map(([name, className]) => (
              <th key={className} role="columnheader" scope="col" className={className}>
                {name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody role="rowgroup">
          {events.map((e) => (
            <EventRow key={e.key} event={e} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The case's chronology: its dated events in order, each opening its sentence on the page; marks, notes, exports. */
export function Chronology({ caseId }: { caseId: string }) {
  const result = useChronology((s) => s.result);
  const loading = useChronology((s) => s.loading);
  const error = useChronology((s) => s.error);
  const close = useChronology((s) => s.close);
  const exportChronology = useExportChronology();
  const events = result?.events ?? [];
  return (
    <section className="pane pane-chronology" aria-label="Chronology">
      <div className="pane-title">
        <h2>Chronology</h2>
        <span className="pane-title-actions">
          <button
            type="button"
            className="btn btn-small"
            disabled={!events.length}
            onClick={() => void exportChronology(caseId, 'docx')}
          >
            Export Word
          </button>
          <button
            type="button"
            className="btn btn-small"
            disabled={!events.length}
            onClick={() => void exportChronology(caseId, 'csv')}
          >
            Export CSV
          </button>
          <button type="button" className="btn btn-small" onClick={close}>
            Back to chat
          </button>
        </span>
      </div>
      <Filters />
      <div className="pane-scroll">
        {error && (
          <p className="pad error" role="alert">
            {error}
          </p>
        )}
        {loading && !result && <p className="pad muted">Reading the dates in the documents…</p>}
        {result && (
          <p className="pad small muted" role="status">
            {result.total === events.length
              ? plural(result.total, 'dated event')
              : `${events.length} of ${result.total} dated events`}{' '}
            · {result.coverage.line}
          </p>
        )}
        <TimelineStrip events={events} />
        {events.length > 0 && <EventTable events={events} />}
        {result && !events.length && (
          <p className="pad muted">
            No dated events{result.coverage.documents ? ' match these filters' : ' yet: add documents to the case'}.
          </p>
        )}
      </div>
    </section>
  );
}
