/** What the rows of the document table share: the keyboard's active row, the columns, each row's props. */
import {
  createContext,
  useContext,
  type FocusEvent as ReactFocusEvent,
  type KeyboardEvent as ReactKeyboardEvent,
} from 'react';
import type { Row, SortKey } from '../../lib/document-tree';

/**
 * Keyboard navigation of the document table (the WAI-ARIA treegrid pattern, moving by rows): the
 * table is one Tab stop (the active row, a roving tabindex); Up/Down move, Home/End jump,
 * Right/Left expand/collapse a folder (or an email's attachments) or move to its first child/its
 * parent, Enter opens, Space ticks a document. The active row's own controls (versions, "Why?",
 * remove) follow it in the Tab order; other rows' controls are reached by moving to their row.
 */
export interface TreeNav {
  active: string | null;
  setActive(key: string): void;
  setOpen(key: string, open: boolean): void;
}

export const NavContext = createContext<TreeNav>({ active: null, setActive: () => {}, setOpen: () => {} });

/** The table's columns; the narrower the pane, the fewer shown (pages, then date, then type move under the name). */
export const COLUMNS: { key: SortKey; label: string }[] = [
  { key: 'name', label: 'Name' },
  { key: 'type', label: 'Type' },
  { key: 'date', label: 'Date' },
  { key: 'pages', label: 'Pages' },
  { key: 'status', label: 'Status' },
];

/** What every row shares: its place in the tree, its tab index, and Enter (and Space) on the row itself. */
export function useRowProps(row: Row, label: string, keys: { enter: () => void; space?: () => void }) {
  const nav = useContext(NavContext);
  const expandable = row.kind === 'folder' || row.children > 0;
  return {
    nav,
    tab: nav.active === row.key ? 0 : -1,
    props: {
      role: 'row',
      'aria-level': row.depth + 1,
      'aria-posinset': row.posinset,
      'aria-setsize': row.setsize,
      'aria-expanded': expandable ? row.open : undefined,
      'aria-label': label,
      'data-key': row.key,
      'data-parent': row.parent ?? undefined,
      tabIndex: nav.active === row.key ? 0 : -1,
      // Focus that lands in this row (on it or one of its controls) makes it the active one.
      onFocus: (e: ReactFocusEvent<HTMLElement>) => {
        if ((e.target as HTMLElement).closest('[role="row"]') === e.currentTarget) nav.setActive(row.key);
      },
      onKeyDown: (e: ReactKeyboardEvent<HTMLElement>) => {
        if (e.target !== e.currentTarget) return;
        const act = e.key === 'Enter' ? keys.enter : e.key === ' ' ? keys.space : undefined;
        if (!act) return;
        e.preventDefault();
        act();
      },
    } as const,
  };
}
