import { create } from 'zustand';
import type { FoldablePane, PanePrefs } from '../lib/pane-layout';
import { remember, remembered } from '../lib/window-storage';

/**
 * The workspace's pane layout as the reviewer set it: the widths the splitters were moved to, the
 * panes folded, the pane kept when the window is narrow. Remembered in this window's storage, as
 * the viewer's thumbnails are.
 */
interface LayoutState extends PanePrefs {
  /** The workspace body's width in pixels now (not remembered: the window's). */
  bodyWidth: number;
  setBodyWidth(px: number): void;
  /** The documents' width, without the viewer or beside it; `remember` once the move is done. */
  setDocsWidth(px: number, besideViewer: boolean, remember: boolean): void;
  setViewerWidth(px: number, remember: boolean): void;
  /** Fold a pane to a rail, or open it again (then it is the one kept when room runs out). */
  setFolded(pane: FoldablePane, folded: boolean): void;
}

// The viewer's key is the one its width was kept under before the layout had splitters of its own.
const KEYS = {
  docsWidth: 'casefile.layout.docs-width',
  docsBesideViewer: 'casefile.layout.docs-beside-viewer',
  viewerWidth: 'casefile.viewer.width',
  folded: 'casefile.layout.folded',
  keep: 'casefile.layout.keep',
} as const;

function rememberedWidth(key: string): number | null {
  const text = remembered(key);
  const n = Number(text);
  return text !== null && Number.isFinite(n) && n >= 100 && n <= 10_000 ? Math.round(n) : null;
}

function rememberedFolded(): Record<FoldablePane, boolean> {
  const list = (remembered(KEYS.folded) ?? '').split(',');
  return { docs: list.includes('docs'), chat: list.includes('chat') };
}

export const useLayout = create<LayoutState>((set, get) => ({
  docsWidth: rememberedWidth(KEYS.docsWidth),
  docsBesideViewer: rememberedWidth(KEYS.docsBesideViewer),
  viewerWidth: rememberedWidth(KEYS.viewerWidth),
  folded: rememberedFolded(),
  keep: remembered(KEYS.keep) === 'docs' ? 'docs' : 'chat',
  bodyWidth: 0,
  setBodyWidth(px) {
    if (px !== get().bodyWidth) set({ bodyWidth: px });
  },
  setDocsWidth(px, besideViewer, keep) {
    const key = besideViewer ? 'docsBesideViewer' : 'docsWidth';
    set({ [key]: Math.round(px) });
    if (keep) remember(KEYS[key], String(Math.round(px)));
  },
  setViewerWidth(px, keep) {
    set({ viewerWidth: Math.round(px) });
    if (keep) remember(KEYS.viewerWidth, String(Math.round(px)));
  },
  setFolded(pane, folded) {
    const next = { ...get().folded, [pane]: folded };
    set({ folded: next, ...(folded ? {} : { keep: pane }) });
    remember(KEYS.folded, (Object.keys(next) as FoldablePane[]).filter((p) => next[p]).join(','));
    if (!folded) remember(KEYS.keep, pane);
  },
}));
