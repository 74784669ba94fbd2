import { useLayoutEffect, useRef, useState, type KeyboardEvent as ReactKeyboardEvent } from 'react';
import { treeRows, type DocSort, type SortKey, type TreeNode } from '../../lib/document-tree';
import { moveTarget } from '../../lib/tree-grid-keys';
import { FileRow } from './FileRow';
import { FolderRow } from './FolderRow';
import { COLUMNS, NavContext } from './grid';

/**
 * The header row: a click on a column sorts by it, a second click reverses; the name's column also
 * sorts by title. Its buttons are not Tab stops (the table is one): the keyboard sorts with the sort
 * menu above the table, which sets the same order.
 */
function HeaderRow({ sort, onSort }: { sort: DocSort; onSort: (sort: DocSort) => void }) {
  const button = (key: SortKey, label: string) => (
    <button
      type="button"
      className="doc-sort"
      tabIndex={-1}
      aria-pressed={sort.key === key}
      onClick={() => onSort({ key, dir: sort.key === key && sort.dir === 'ascending' ? 'descending' : 'ascending' })}
    >
      {label}
      <span aria-hidden="true">{sort.key === key ? (sort.dir === 'ascending' ? ' ▲' : ' ▼') : ''}</span>
    </button>
  );
  return (
    <div role="rowgroup" className="doc-head">
      <div role="row" className="doc-row">
        {COLUMNS.map((c) => {
          const sorted = sort.key === c.key || (c.key === 'name' && sort.key === 'title');
          return (
            <div key={c.key} role="columnheader" className={`col-${c.key}`} aria-sort={sorted ? sort.dir : 'none'}>
              {button(c.key, c.label)}
              {c.key === 'name' && (
                <>
                  <span className="muted" aria-hidden="true">
                    {' / '}
                  </span>
                  {button('title', 'Title')}
                </>
              )}
            </div>
          );
        })}
      </div>
    </div>
  );
}

/** The case's documents as one table of nested rows (role treegrid): one Tab stop, arrow keys inside. */
export function DocGrid({
  caseId,
  tree,
  sort,
  onSort,
}: {
  caseId: string;
  tree: TreeNode;
  sort: DocSort;
  onSort: (sort: DocSort) => void;
}) {
  const [active, setActive] = useState<string | null>(null);
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(() => new Set());
  const ref = useRef<HTMLDivElement>(null);
  const items = () => [...(ref.current?.querySelectorAll<HTMLElement>('[role="row"][data-key]') ?? [])];
  // Exactly one row is in the Tab order: the active one, or the first when it has gone.
  useLayoutEffect(() => {
    const all = items();
    if (!all.some((el) => el.dataset.key === active)) setActive(all[0]?.dataset.key ?? null);
  });
  const setOpen = (key: string, open: boolean) =>
    setCollapsed((prev) => {
      const next = new Set(prev);
      if (open) next.delete(key);
      else next.add(key);
      return next;
    });
  const onKeyDown = (e: ReactKeyboardEvent<HTMLDivElement>) => {
    const from = e.target as HTMLElement;
    if (from.getAttribute('role') !== 'row' || !from.dataset.key) return;
    const to = moveTarget(items(), from, e.key, setOpen);
    if (to === undefined) return;
    e.preventDefault();
    if (to) {
      setActive(to.dataset.key!);
      to.focus();
    }
  };
  const rows = treeRows(tree, collapsed);
  return (
    <NavContext.Provider value={{ active, setActive, setOpen }}>
      <div
        className="doc-grid"
        role="treegrid"
        aria-label="Documents of this case"
        aria-multiselectable="true"
        ref={ref}
        onKeyDown={onKeyDown}
      >
        <HeaderRow sort={sort} onSort={onSort} />
        {rows.map((row) =>
          row.kind === 'folder' ? (
            <FolderRow key={row.key} row={row} />
          ) : (
            <FileRow key={row.key} caseId={caseId} row={row} />
          ),
        )}
      </div>
    </NavContext.Provider>
  );
}
