import { useLayoutEffect, useMemo, useRef, type ReactNode } from 'react';
import { canFold, paneLayout, type FoldablePane, type PaneLayout } from '../lib/pane-layout';
import { useLayout } from '../stores/layout';
import { PaneSplitter } from './PaneSplitter';
import '../styles/panes.css';

/** The panes' layout now: the reviewer's choices at the body's width. */
export function usePaneLayout(viewer: boolean): PaneLayout {
  // Before the body is measured: the window's width less the sidebar, near enough for a first frame.
  const width = useLayout((s) => s.bodyWidth) || Math.max(0, globalThis.innerWidth - 256);
  const docsWidth = useLayout((s) => s.docsWidth);
  const docsBesideViewer = useLayout((s) => s.docsBesideViewer);
  const viewerWidth = useLayout((s) => s.viewerWidth);
  const folded = useLayout((s) => s.folded);
  const keep = useLayout((s) => s.keep);
  return useMemo(
    () => paneLayout(width, viewer, { docsWidth, docsBesideViewer, viewerWidth, folded, keep }),
    [width, viewer, docsWidth, docsBesideViewer, viewerWidth, folded, keep],
  );
}

const PANE_SELECTOR: Record<FoldablePane, string> = {
  docs: '.pane-docs',
  chat: '.pane-chat, .pane-search, .pane-chronology',
};

/** Open a folded pane and put the focus in it (its rail, which had the focus, is gone). */
function openPane(pane: FoldablePane): void {
  useLayout.getState().setFolded(pane, false);
  requestAnimationFrame(() => {
    const el = document.querySelector(PANE_SELECTOR[pane]);
    const first = el?.querySelector<HTMLElement>('button:not([disabled]), select, input, textarea, [tabindex="0"]');
    first?.focus();
  });
}

/** A folded pane: a narrow strip with its name, a button that opens it again. */
function PaneRail({ pane, name, squeezed }: { pane: FoldablePane; name: string; squeezed: boolean }) {
  return (
    <div className={`pane-rail pane-rail-${pane}`}>
      <button
        type="button"
        className="pane-rail-button"
        aria-expanded={false}
        title={
          squeezed
            ? `${name} folded to make room: the window is too narrow for every pane. Show it to fold the other one instead.`
            : `Show the ${name.toLowerCase()} pane`
        }
        onClick={() => openPane(pane)}
      >
        <span aria-hidden="true">›</span>
        <span className="pane-rail-label">Show {name.toLowerCase()}</span>
      </button>
    </div>
  );
}

/** The header's buttons that fold or show the documents and the chat pane (pressed: shown). */
export function PaneToggles({ viewer }: { viewer: boolean }) {
  const layout = usePaneLayout(viewer);
  const setFolded = useLayout((s) => s.setFolded);
  const toggle = (pane: FoldablePane, label: string) => {
    const open = layout[pane] === 'open';
    const lonely = open && !canFold(pane, viewer, layout);
    return (
      <button
        type="button"
        className="btn btn-small pane-toggle"
        aria-pressed={open}
        disabled={lonely}
        title={
          lonely
            ? `The ${label.toLowerCase()} pane is the only one open`
            : open
              ? `Fold the ${label.toLowerCase()} pane to give the others its room`
              : `Show the ${label.toLowerCase()} pane`
        }
        onClick={() => (open ? setFolded(pane, true) : openPane(pane))}
      >
        {label}
      </button>
    );
  };
  return (
    <div className="pane-toggles" role="group" aria-label="Panes shown">
      {toggle('docs', 'Documents')}
      {toggle('chat', 'Chat')}
    </div>
  );
}

interface BodyProps {
  docs: ReactNode;
  /** The chat, the search results or the chronology, and its name on its rail. */
  middle: ReactNode;
  middleName: string;
  /** The source viewer, when a source is open. */
  viewer: ReactNode | null;
}

/** The workspace's panes side by side, with the splitters between them and rails for the folded ones. */
export function PaneBody({ docs, middle, middleName, viewer }: BodyProps) {
  const ref = useRef<HTMLDivElement>(null);
  const layout = usePaneLayout(viewer !== null);
  const setDocsWidth = useLayout((s) => s.setDocsWidth);
  const setViewerWidth = useLayout((s) => s.setViewerWidth);
  const setBodyWidth = useLayout((s) => s.setBodyWidth);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    setBodyWidth(el.clientWidth);
    const observer = new ResizeObserver(() => setBodyWidth(el.clientWidth));
    observer.observe(el);
    return () => observer.disconnect();
  }, [setBodyWidth]);
  // A folded pane stays mounted, hidden: its list loaded, its typed question and place kept.
  const hidden = `${layout.docs === 'open' ? '' : ' docs-hidden'}${layout.chat === 'open' ? '' : ' chat-hidden'}`;
  return (
    <div
      ref={ref}
      className={`workspace-body${viewer ? ' with-viewer' : ''}${hidden}`}
      style={{ gridTemplateColumns: layout.columns }}
    >
      {docs}
      {layout.docs !== 'open' && <PaneRail pane="docs" name="Documents" squeezed={layout.docs === 'squeezed'} />}
      {layout.docsSplit && (
        <PaneSplitter
          label="Resize the documents pane"
          range={layout.docsSplit}
          sizes="before"
          onMove={(px, keep) => setDocsWidth(px, viewer !== null, keep)}
        />
      )}
      {middle}
      {layout.chat !== 'open' && <PaneRail pane="chat" name={middleName} squeezed={layout.chat === 'squeezed'} />}
      {layout.viewerSplit && (
        <PaneSplitter
          label="Resize the source viewer"
          range={layout.viewerSplit}
          sizes="after"
          onMove={setViewerWidth}
        />
      )}
      {viewer}
    </div>
  );
}
