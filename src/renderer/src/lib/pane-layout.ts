/**
 * The case workspace's three panes side by side: the documents, the chat (or the search results,
 * or the chronology) and, when a source is open, the viewer. Widths as the reviewer set them with
 * the splitters, held to each pane's minimum; a pane the reviewer folded is a narrow rail with a
 * button that opens it again. When the window cannot hold every open pane at its minimum, one is
 * folded for the time being (the documents unless the reviewer last opened them, then the chat),
 * so the workspace never scrolls sideways.
 */

/** The narrowest each pane may be, in CSS pixels. */
export const PANE_MIN = { docs: 240, chat: 280, viewer: 360 } as const;
/** A folded pane's rail. */
export const RAIL_WIDTH = 40;
/** A splitter between two panes. */
export const SPLITTER_WIDTH = 8;

/** The two panes the reviewer may fold. */
export type FoldablePane = 'docs' | 'chat';

/** What the reviewer chose (remembered): widths dragged to, panes folded, the pane kept when room runs out. */
export interface PanePrefs {
  /** The documents' width without the viewer; null: three fifths of the room (they are what there is to look at). */
  docsWidth: number | null;
  /** The documents' width beside the viewer; null: a quarter of the room. */
  docsBesideViewer: number | null;
  /** The viewer's width; null: a little under half the room. */
  viewerWidth: number | null;
  folded: Record<FoldablePane, boolean>;
  /** Which of the documents and the chat keeps its room when the window is too narrow for both beside the viewer. */
  keep: FoldablePane;
}

/** `open`, `folded` by the reviewer, or `squeezed`: folded for now because the window is too narrow. */
export type PaneState = 'open' | 'folded' | 'squeezed';

/** Where a splitter may go: the width of the pane it sizes, now and at its limits. */
export interface SplitRange {
  value: number;
  min: number;
  max: number;
}

export interface PaneLayout {
  docs: PaneState;
  chat: PaneState;
  viewer: boolean;
  /** The body's grid-template-columns, one track per element in order (pane or rail, splitter). */
  columns: string;
  /** The splitter after the documents (null: none shown). */
  docsSplit: SplitRange | null;
  /** The splitter before the viewer (null: none shown). */
  viewerSplit: SplitRange | null;
}

const clamp = (n: number, lo: number, hi: number) => Math.round(Math.max(lo, Math.min(hi, n)));

/** Which panes are open, after folding for want of room: the one not kept gives way first. */
function openPanes(width: number, viewer: boolean, prefs: PanePrefs): Record<FoldablePane, PaneState> {
  const state: Record<FoldablePane, PaneState> = {
    docs: prefs.folded.docs ? 'folded' : 'open',
    chat: prefs.folded.chat ? 'folded' : 'open',
  };
  // Without the viewer one pane stays open: the chat, unless it is the documents that are open.
  if (!viewer && state.docs !== 'open' && state.chat !== 'open') state.chat = 'open';
  const order: FoldablePane[] = prefs.keep === 'docs' ? ['chat', 'docs'] : ['docs', 'chat'];
  for (const pane of order) {
    if (need(state, viewer) <= width) break;
    const others = viewer || state[pane === 'docs' ? 'chat' : 'docs'] === 'open';
    if (state[pane] === 'open' && others) state[pane] = 'squeezed';
  }
  return state;
}

/** The width the panes need at their minimums, rails and splitters included. */
function need(state: Record<FoldablePane, PaneState>, viewer: boolean): number {
  const docs = state.docs === 'open';
  const chat = state.chat === 'open';
  return (
    (docs ? PANE_MIN.docs : RAIL_WIDTH) +
    (chat ? PANE_MIN.chat : RAIL_WIDTH) +
    (viewer ? PANE_MIN.viewer : 0) +
    (docs && (chat || viewer) ? SPLITTER_WIDTH : 0) +
    (viewer && chat ? SPLITTER_WIDTH : 0)
  );
}

const fill = 'minmax(0, 1fr)';

/** The layout of the workspace body `width` pixels wide. */
export function paneLayout(width: number, viewer: boolean, prefs: PanePrefs): PaneLayout {
  const state = openPanes(width, viewer, prefs);
  const docs = state.docs === 'open';
  const chat = state.chat === 'open';
  const docsSplitShown = docs && (chat || viewer);
  const viewerSplitShown = viewer && chat;
  const room =
    width -
    (docs ? 0 : RAIL_WIDTH) -
    (chat ? 0 : RAIL_WIDTH) -
    (docsSplitShown ? SPLITTER_WIDTH : 0) -
    (viewerSplitShown ? SPLITTER_WIDTH : 0);
  let docsSplit: SplitRange | null = null;
  let viewerSplit: SplitRange | null = null;
  if (docsSplitShown) {
    const max = room - (chat ? PANE_MIN.chat : 0) - (viewer ? PANE_MIN.viewer : 0);
    const want = viewer ? (prefs.docsBesideViewer ?? room * 0.25) : (prefs.docsWidth ?? room * 0.6);
    docsSplit = { value: clamp(want, PANE_MIN.docs, max), min: PANE_MIN.docs, max: Math.max(PANE_MIN.docs, max) };
  }
  if (viewerSplitShown) {
    const max = room - PANE_MIN.chat - (docsSplit?.value ?? 0);
    const want = prefs.viewerWidth ?? room * 0.45;
    viewerSplit = {
      value: clamp(want, PANE_MIN.viewer, max),
      min: PANE_MIN.viewer,
      max: Math.max(PANE_MIN.viewer, max),
    };
  }
  const tracks = [
    docs ? (docsSplit ? `${docsSplit.value}px` : fill) : `${RAIL_WIDTH}px`,
    docsSplitShown ? `${SPLITTER_WIDTH}px` : null,
    chat ? fill : `${RAIL_WIDTH}px`,
    viewerSplitShown ? `${SPLITTER_WIDTH}px` : null,
    viewer ? (viewerSplit ? `${viewerSplit.value}px` : fill) : null,
  ];
  // Without an open chat, the pane after the documents' splitter fills the rest: the viewer.
  if (viewer && !chat && docsSplit) tracks[4] = fill;
  return {
    docs: state.docs,
    chat: state.chat,
    viewer,
    columns: tracks.filter((t) => t !== null).join(' '),
    docsSplit,
    viewerSplit,
  };
}

/** Whether folding `pane` leaves a pane open (the viewer, or the other one). */
export function canFold(pane: FoldablePane, viewer: boolean, layout: Pick<PaneLayout, 'docs' | 'chat'>): boolean {
  return viewer || layout[pane === 'docs' ? 'chat' : 'docs'] === 'open';
}
