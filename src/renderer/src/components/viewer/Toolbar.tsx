import { useEffect, useState } from 'react';
import { api, errorMessage } from '../../api/index';
import { quoteWithCitation } from '../../../../shared/citation-text';
import { useUi } from '../../stores/ui';
import { shownRange, useViewer } from '../../stores/viewer';
import { writeClipboard } from '../../lib/citations';

/** The page-number box: type a page and press Enter to go there; "of N" beside it. */
function PageBox({ page, count, disabled }: { page: number; count: number; disabled: boolean }) {
  const [text, setText] = useState(String(page));
  useEffect(() => setText(String(page)), [page]);
  const go = () => {
    const n = Number(text.trim());
    if (Number.isInteger(n) && n >= 1 && n <= count) useViewer.getState().goto(n);
    else setText(String(page));
  };
  return (
    <span className="page-box">
      <input
        type="text"
        inputMode="numeric"
        aria-label={`Page number, 1 to ${count}`}
        aria-invalid={
          text.trim() !== '' && !(Number.isInteger(Number(text)) && Number(text) >= 1 && Number(text) <= count)
            ? true
            : undefined
        }
        size={Math.max(2, String(count).length)}
        value={text}
        disabled={disabled}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            go();
          }
        }}
        onBlur={() => setText(String(page))}
      />
      <span className="small" aria-hidden="true">
        of {count}
      </span>
    </span>
  );
}

/** Copy the highlighted words with their place: “…words…” File name, p. 4 (as the chat's sources copy them). */
export async function copyShownQuote(): Promise<void> {
  const { source, scope, loadDoc } = useViewer.getState();
  const toast = useUi.getState().toast;
  if (!source) return;
  const doc = await loadDoc();
  const range = shownRange(source, scope);
  const words = doc?.text.slice(range.start, range.end).replace(/\s+/g, ' ').trim() ?? '';
  if (!words) {
    toast('info', 'Nothing is highlighted to quote.');
    return;
  }
  const text = quoteWithCitation({
    span: { start: range.start, end: range.end, pages: range.pages, text: words },
    file_name: source.file_name,
    pages: range.pages,
    ...(source.title ? { title: source.title } : {}),
    ...(source.place ? { place: source.place } : {}),
  });
  if (await writeClipboard(text)) toast('info', 'Copied the quote with its citation.');
  else toast('info', `The clipboard is not available here; select and copy this: ${text}`);
}

/** The page image's controls: thumbnails, pages, zoom and fit. */
function PageControls({ onFitPage }: { onFitPage(): void }) {
  const image = useViewer((s) => s.image)!;
  const page = useViewer((s) => s.page);
  const zoom = useViewer((s) => s.zoom);
  const loading = useViewer((s) => s.loading);
  const thumbs = useViewer((s) => s.thumbs);
  const { goto, setZoom, setThumbs } = useViewer.getState();
  return (
    <>
      <button type="button" className="btn btn-small" aria-pressed={thumbs} onClick={() => setThumbs(!thumbs)}>
        Thumbnails
      </button>
      <button
        type="button"
        className="btn btn-small"
        aria-label="Previous page"
        disabled={page <= 1 || loading}
        onClick={() => goto(page - 1)}
      >
        ‹
      </button>
      <PageBox page={image.page} count={image.page_count} disabled={loading && !image} />
      <span className="sr-only" aria-live="polite">
        Page {image.page} of {image.page_count}
      </span>
      <button
        type="button"
        className="btn btn-small"
        aria-label="Next page"
        disabled={page >= image.page_count || loading}
        onClick={() => goto(page + 1)}
      >
        ›
      </button>
      <span className="toolbar-gap" />
      <button type="button" className="btn btn-small" aria-label="Zoom out" onClick={() => setZoom(zoom / 1.25)}>
        −
      </button>
      <span className="small zoom-level">{Math.round(zoom * 100)}%</span>
      <button type="button" className="btn btn-small" aria-label="Zoom in" onClick={() => setZoom(zoom * 1.25)}>
        +
      </button>
      <button type="button" className="btn btn-small" aria-pressed={zoom === 1} onClick={() => setZoom(1)}>
        Fit width
      </button>
      <button type="button" className="btn btn-small" onClick={onFitPage}>
        Fit page
      </button>
      <span className="toolbar-gap" />
    </>
  );
}

/** The viewer's controls: for page images their pages and zoom; for every document find, quote, the system viewer. */
export function Toolbar({ onFitPage }: { onFitPage(): void }) {
  const image = useViewer((s) => s.image);
  const findOpen = useViewer((s) => s.find.open);
  const source = useViewer((s) => s.source)!;
  const caseId = useViewer((s) => s.caseId);
  const { openFind, closeFind } = useViewer.getState();
  const hasSpan = source.end > source.start;
  return (
    <div className="viewer-toolbar" role="toolbar" aria-label={image ? 'Page controls' : 'Document controls'}>
      {image && <PageControls onFitPage={onFitPage} />}
      <button
        type="button"
        className="btn btn-small"
        aria-pressed={findOpen}
        aria-keyshortcuts="Control+F Meta+F"
        onClick={() => (findOpen ? closeFind() : openFind())}
      >
        Find
      </button>
      {hasSpan && (
        <button type="button" className="btn btn-small" onClick={() => void copyShownQuote()}>
          Copy quote with citation
        </button>
      )}
      {api.openOriginal && caseId && (
        <button
          type="button"
          className="btn btn-small"
          title="Open the original file in your system's viewer"
          onClick={() => {
            api
              .openOriginal?.({ case_id: caseId, file_id: source.file_id, version: source.version })
              .catch((err: unknown) => {
                useViewer.setState({ error: errorMessage(err) });
              });
          }}
        >
          Open in system viewer
        </button>
      )}
    </div>
  );
}
