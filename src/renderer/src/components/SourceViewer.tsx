import {
  createElement,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type KeyboardEvent,
  type ReactNode,
  type Ref,
  type RefObject,
} from 'react';
import { PasswordPrompt } from './PasswordForm';
import { useDocuments } from '../stores/documents';
import { opener, useViewer, type SourceRef } from '../stores/viewer';
import { FindBar } from './viewer/FindBar';
import { followWindow, markText, marksIn, viewMarks, type MarkRange, type TextWindow } from '../lib/viewer-marks';
import { PdfPage, scrollBoxIntoView } from './viewer/PdfPage';
import { Thumbnails } from './viewer/Thumbnails';
import { Toolbar } from './viewer/Toolbar';
import '../styles/viewer.css';
import { alignDocx, markDocx, sanitizeDocxHtml, type SafeElement, type SafeNode } from '../lib/docx-html';
import { plural } from '../lib/display-format';
import { sheetTables } from '../lib/sheet-rows';

/** Where the view scrolls: the first cited mark and the current found word. */
interface MarkRefs {
  cite: Ref<HTMLElement>;
  current: Ref<HTMLElement>;
  seenCite: boolean;
}

/** A <mark>'s props: the cited words, a found word, or the current found word (told apart by look, not colour alone: the current one is outlined). */
function markProps(n: SafeElement, props: Record<string, unknown>, refs: MarkRefs): void {
  if (n.mark === 'hit' || n.mark === 'current') {
    props.className = n.mark === 'current' ? 'find-mark find-current' : 'find-mark';
    props['data-testid'] = 'hit-mark';
    if (n.mark === 'current') {
      props['data-current'] = 'true';
      props.ref = refs.current;
    }
    return;
  }
  props.className = 'cite-mark';
  if (!refs.seenCite) props.ref = refs.cite;
  refs.seenCite = true;
}

/** React elements from the sanitised tree: only allow-listed tags, no attributes from the document. */
function renderSafe(nodes: SafeNode[], refs: MarkRefs): ReactNode[] {
  return nodes.map((n, i) => {
    if (n.kind === 'text') return n.text;
    const props: Record<string, unknown> = { key: i };
    if (n.colSpan) props.colSpan = n.colSpan;
    if (n.rowSpan) props.rowSpan = n.rowSpan;
    if (n.placeholder) props.className = 'docx-image';
    else if (n.note) props.className = 'docx-note';
    if (n.tag === 'mark') markProps(n, props, refs);
    if (n.tag === 'br') return createElement('br', props);
    return createElement(n.tag, props, ...renderSafe(n.children, refs));
  });
}

/** Text with its marks (the cited words, found words) as React elements. */
function Marked({ text, marks, refs }: { text: string; marks: MarkRange[]; refs: MarkRefs }) {
  return <>{renderSafe(markText(text, marks), refs)}</>;
}

/**
 * Scroll the view of a document shown as text to the current found word when stepping through
 * them (or typing in the find box), else to the cited words, as the page view does.
 */
function useScrollToMark(frame: RefObject<HTMLElement | null>, view: unknown): void {
  const scrollTo = useViewer((s) => s.scrollTo);
  const tick = useViewer((s) => s.scrollTick);
  const current = useViewer((s) => s.find.current);
  useLayoutEffect(() => {
    const el = frame.current;
    const scroller = el?.closest<HTMLElement>('.viewer-body');
    if (!el || !scroller) return;
    const target = el.querySelector<HTMLElement>(
      scrollTo === 'hit' ? '[data-current="true"]' : '.cite-mark, .cite-row',
    );
    if (target) scrollBoxIntoView(target, scroller);
  }, [frame, view, scrollTo, tick, current]);
}

/** The marks of the open document: its cited words and the found words (the search's, or the find box's). */
function useMarks(): MarkRange[] {
  const passage = useViewer((s) => s.passage)!;
  const find = useViewer((s) => s.find);
  return useMemo(() => viewMarks(passage, find.hits, find.current), [passage, find]);
}

/** A DOCX in its own formatting with the cited span and the found words marked; the plain-text passage when the span cannot be placed. */
function DocxView() {
  const passage = useViewer((s) => s.passage)!;
  const docx = useViewer((s) => s.docx)!;
  const marks = useMarks();
  const frame = useRef<HTMLDivElement>(null);
  const refs = { cite: useRef<HTMLElement>(null), current: useRef<HTMLElement>(null) };
  // DOMParser builds an inert document (no scripts run, nothing loads); only data leaves it.
  const aligned = useMemo(
    () => alignDocx(sanitizeDocxHtml(new DOMParser().parseFromString(docx.html, 'text/html').body), docx.text),
    [docx],
  );
  const view = useMemo(() => markDocx(aligned, marks), [aligned, marks]);
  useScrollToMark(frame, view);
  const citeLost = passage.end > passage.start && view.marked[0] === null;
  if (citeLost)
    return <PassageView note="Shown as plain text: the cited words could not be placed in the formatted document." />;
  return (
    <div
      ref={frame}
      className="passage docx-view"
      data-testid="passage"
      data-view="docx"
      data-start={passage.start}
      data-end={passage.end}
    >
      {renderSafe(view.nodes, { ...refs, seenCite: false })}
    </div>
  );
}

/** How much text a view shows either side of a found word it moves to. */
const HIT_CONTEXT = 4000;
const sameWindow = (a: TextWindow, b: TextWindow) => a.start === b.start && a.end === b.end;

/**
 * The stretch of the document a text view shows: the passage around the cited words, moved to the
 * current found word when stepping to one outside it (a long text is never drawn whole).
 */
function useShownText(): { text: string; win: TextWindow; total: number } {
  const passage = useViewer((s) => s.passage)!;
  const doc = useViewer((s) => s.doc);
  const hit = useViewer((s) => (s.scrollTo === 'hit' ? s.find.hits[s.find.current] : undefined));
  const first = { start: passage.offset, end: passage.offset + passage.text.length };
  const [held, setHeld] = useState({ passage, win: first });
  if (!doc) return { text: passage.text, win: first, total: passage.total_length };
  const win = followWindow(doc.text, held.passage === passage ? held.win : first, hit ?? null, HIT_CONTEXT);
  if (held.passage !== passage || !sameWindow(held.win, win)) setHeld({ passage, win });
  return { text: doc.text.slice(win.start, win.end), win, total: doc.text.length };
}

function PassageView({ note }: { note?: string }) {
  const { text, win, total } = useShownText();
  const marks = useMarks();
  const frame = useRef<HTMLDivElement>(null);
  const refs = { cite: useRef<HTMLElement>(null), current: useRef<HTMLElement>(null), seenCite: false };
  const shown = useMemo(() => marksIn(marks, win), [marks, win]);
  useScrollToMark(frame, shown);
  return (
    <div ref={frame} className="passage" data-testid="passage" data-view="text">
      {note && <p className="muted small">{note}</p>}
      {win.start > 0 && <p className="muted small">…</p>}
      <div className="passage-text">
        <Marked text={text} marks={shown} refs={refs} />
      </div>
      {win.end < total && <p className="muted small">…</p>}
    </div>
  );
}

/** A spreadsheet's passage as the tables it came from (one per sheet): the cited rows marked, the first in view, found words marked in their cells. */
function RowsView() {
  const passage = useViewer((s) => s.passage)!;
  const { text, win, total } = useShownText();
  const marks = useMarks();
  const frame = useRef<HTMLDivElement>(null);
  const refs = { cite: useRef<HTMLElement>(null), current: useRef<HTMLElement>(null), seenCite: false };
  const tables = useMemo(() => sheetTables(text, win.start, passage.start, passage.end), [text, win, passage]);
  const found = useMemo(() => marks.filter((m) => m.mark !== 'cite'), [marks]);
  useScrollToMark(frame, tables);
  if (!tables.length) return <PassageView />;
  return (
    <div ref={frame} className="passage" data-testid="passage" data-view="rows">
      {win.start > 0 && <p className="muted small">…</p>}
      {tables.map((table, t) => (
        <div key={t} className="sheet-scroll">
          <table className="sheet-rows">
            <thead>
              <tr>
                <th scope="col">Row</th>
                {table.columns.map((c) => (
                  <th key={c} scope="col">
                    {c}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {table.rows.map((r) => (
                <tr
                  key={r.row}
                  className={r.cited ? 'cite-row' : undefined}
                  aria-current={r.cited ? 'true' : undefined}
                >
                  <th scope="row">{r.row}</th>
                  {table.columns.map((c) => {
                    const value = r.cells.get(c) ?? '';
                    const at = r.at.get(c) ?? 0;
                    return (
                      <td key={c}>
                        <Marked
                          text={value}
                          marks={marksIn(found, { start: at, end: at + value.length })}
                          refs={refs}
                        />
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ))}
      {win.end < total && <p className="muted small">…</p>}
    </div>
  );
}

/** The pane the opener sat in stays where it was: the clicked chip or result does not move when the viewer opens. */
function useKeepOpenerInPlace(source: unknown) {
  useLayoutEffect(() => {
    const el = opener.el;
    if (!el?.isConnected) return;
    const scroller = el.closest<HTMLElement>('.pane-scroll');
    const moved = el.getBoundingClientRect().top - opener.top;
    if (scroller && Math.abs(moved) >= 1) scroller.scrollTop += moved;
  }, [source]);
}

const ZOOM_STEP = 1.25;

/**
 * Keys while the viewer has focus: PgUp/PgDn pages, Home/End the first and last page, +/− zoom,
 * Ctrl/Cmd+F find, Esc closes (the find box first, when the focus is in it).
 */
function onViewerKey(e: KeyboardEvent<HTMLElement>, closeViewer: () => void): void {
  const v = useViewer.getState();
  if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 'f') {
    if (!v.image && !v.passage) return;
    e.preventDefault();
    v.openFind();
    return;
  }
  if (e.key === 'Escape') {
    e.preventDefault();
    closeViewer();
    return;
  }
  const target = e.target as HTMLElement;
  if (e.ctrlKey || e.metaKey || e.altKey || target.closest('input, textarea, select, [role="separator"]')) return;
  const count = v.image?.page_count ?? 1;
  const act: Record<string, (() => void) | undefined> = {
    PageDown: () => v.goto(v.page + 1),
    PageUp: () => v.goto(v.page - 1),
    Home: () => v.goto(1),
    End: () => v.goto(count),
    '+': () => v.setZoom(v.zoom * ZOOM_STEP),
    '=': () => v.setZoom(v.zoom * ZOOM_STEP),
    '-': () => v.setZoom(v.zoom / ZOOM_STEP),
    '−': () => v.setZoom(v.zoom / ZOOM_STEP),
  };
  const run = v.image ? act[e.key] : undefined;
  if (!run) return;
  e.preventDefault();
  run();
}

/** What the viewer marks (the supporting words or the whole cited passage, on which pages), and the switch between the two. */
function ScopeNote({ source, isSheet }: { source: SourceRef; isSheet: boolean }) {
  const image = useViewer((s) => s.image);
  const passage = useViewer((s) => s.passage);
  const loading = useViewer((s) => s.loading);
  const scope = useViewer((s) => s.scope);
  const setScope = useViewer((s) => s.setScope);
  const spanPages = image?.span_pages ?? passage?.pages ?? [];
  // A chip opens on the supporting words; the whole cited passage is one click away (and back).
  const narrowed = Boolean(source.whole) && scope === 'support';
  const what = narrowed ? 'Supporting words' : 'Cited passage';
  if (!(spanPages.length > 0 || source.whole)) return null;
  return (
    <div className="viewer-note small muted" data-testid="viewer-scope" data-scope={source.whole ? scope : 'passage'}>
      {spanPages.length > 0 && (
        <span>
          {what} on{' '}
          {spanPages.length === 1
            ? `${isSheet ? 'sheet' : 'page'} ${spanPages[0]}`
            : `${isSheet ? 'sheets' : 'pages'} ${spanPages[0]}–${spanPages[spanPages.length - 1]}`}
          {image && image.rects.length > 0 ? ` · ${plural(image.rects.length, 'line')} highlighted` : ''}
        </span>
      )}
      {source.whole && (
        <button
          type="button"
          className="btn btn-small viewer-scope-toggle"
          disabled={loading}
          onClick={() => setScope(narrowed ? 'whole' : 'support')}
        >
          {narrowed ? 'Show the whole passage' : 'Show only the supporting words'}
        </button>
      )}
    </div>
  );
}

/** The thumbnails and the page (or the text) itself, or what stops it showing: an error, a password. */
function ViewerMain({
  source,
  isSheet,
  bodyRef,
}: {
  source: SourceRef;
  isSheet: boolean;
  bodyRef: RefObject<HTMLDivElement | null>;
}) {
  const image = useViewer((s) => s.image);
  const passage = useViewer((s) => s.passage);
  const docx = useViewer((s) => s.docx);
  const loading = useViewer((s) => s.loading);
  const error = useViewer((s) => s.error);
  const page = useViewer((s) => s.page);
  const caseId = useViewer((s) => s.caseId);
  const thumbs = useViewer((s) => s.thumbs);
  const goto = useViewer((s) => s.goto);
  // A locked PDF's pages cannot be drawn without its password (the list says so, or the page did).
  const locked = useDocuments((s) => s.files.find((f) => f.id === source.file_id)?.locked);
  const needsPassword =
    !image && !loading && (locked === 'needs_password' || (error !== null && /password protected/i.test(error)));
  return (
    <div className="viewer-main">
      {image && thumbs && <Thumbnails count={image.page_count} page={image.page} />}
      {/* Focusable, so the page scrolls from the keyboard too (axe: scrollable-region-focusable). */}
      <div
        ref={bodyRef}
        className="pane-scroll viewer-body"
        aria-busy={loading}
        tabIndex={0}
        role="group"
        aria-label="Document page"
      >
        {error && !needsPassword && (
          <p className="pad error" role="alert">
            {error}
          </p>
        )}
        {needsPassword && caseId && (
          <div className="pad viewer-locked" data-testid="viewer-locked">
            <p role="status">This PDF is password protected. Enter its password to show its pages.</p>
            <PasswordPrompt
              caseId={caseId}
              file={{ id: source.file_id, name: source.file_name }}
              startOpen
              onUnlocked={() => goto(page)}
            />
          </div>
        )}
        {loading && !image && !passage && <p className="pad muted">Opening…</p>}
        {image && <PdfPage />}
        {passage && (docx ? <DocxView /> : isSheet ? <RowsView /> : <PassageView />)}
      </div>
    </div>
  );
}

export function SourceViewer() {
  const source = useViewer((s) => s.source);
  const image = useViewer((s) => s.image);
  const passage = useViewer((s) => s.passage);
  const findOpen = useViewer((s) => s.find.open);
  const close = useViewer((s) => s.close);
  const setZoom = useViewer((s) => s.setZoom);
  const closeFind = useViewer((s) => s.closeFind);
  const section = useRef<HTMLElement>(null);
  const body = useRef<HTMLDivElement>(null);
  useKeepOpenerInPlace(source);
  const isSheet = useDocuments((s) =>
    source ? s.files.find((f) => f.id === source.file_id)?.kind === 'spreadsheet' : false,
  );
  if (!source) return null;
  const closeViewer = () => {
    const back = opener.el;
    close();
    if (back?.isConnected) back.focus({ preventScroll: true });
  };
  const closeFindBox = () => {
    closeFind();
    section.current?.focus({ preventScroll: true });
  };
  const fitPage = () => {
    const el = body.current;
    if (!el || !image) return;
    const style = getComputedStyle(el);
    const padX = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
    const padY = parseFloat(style.paddingTop) + parseFloat(style.paddingBottom);
    const w = el.clientWidth - padX;
    const h = el.clientHeight - padY;
    if (w > 0 && h > 0) setZoom(Math.min(1, ((h / w) * image.width) / image.height));
  };
  return (
    <section
      ref={section}
      className="pane pane-viewer"
      aria-label="Source viewer"
      tabIndex={-1}
      onKeyDown={(e) => onViewerKey(e, closeViewer)}
    >
      <h2 className="pane-title">
        <span className="ellipsis" title={source.file_name}>
          {source.label ? <span className="chip chip-static">{source.label}</span> : null} {source.file_name}{' '}
          <span className="muted small">v{source.version}</span>
        </span>
        <button
          type="button"
          className="btn-icon"
          aria-label="Close source viewer"
          aria-keyshortcuts="Escape"
          onClick={closeViewer}
        >
          ×
        </button>
      </h2>
      {(image || passage) && <Toolbar onFitPage={fitPage} />}
      {(image || passage) && findOpen && <FindBar onClose={closeFindBox} />}
      <ScopeNote source={source} isSheet={isSheet} />
      <ViewerMain source={source} isSheet={isSheet} bodyRef={body} />
    </section>
  );
}
