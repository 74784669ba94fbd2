import { useEffect, useId, useState } from 'react';
import type { FileInfo } from '../../../../shared/contract/ingest';
import { SORT_CHOICES, sortText } from '../../lib/doc-sort';
import type { DocFilter, DocSort } from '../../lib/document-tree';
import { TYPE_LABEL } from '../../lib/display-format';
import { MenuButton } from './MenuButton';

/** How many of the filters behind "Filters" are set (the name's words are not: they are always in view). */
function setCount(filter: DocFilter): number {
  return [filter.type, filter.status, filter.from || filter.to].filter(Boolean).length;
}

/** "Sort: Date, newest first": the list's order, at any width (the column headers sort too, where they show). */
function SortMenu({ sort, onSort }: { sort: DocSort; onSort: (sort: DocSort) => void }) {
  return (
    <MenuButton
      className="btn btn-small doc-sort-menu"
      menuLabel="Sort documents by"
      items={SORT_CHOICES.map((s) => ({
        key: `${s.key}-${s.dir}`,
        label: sortText(s),
        checked: s.key === sort.key && s.dir === sort.dir,
        onSelect: () => onSort(s),
      }))}
    >
      <span className="doc-sort-menu-label">Sort: {sortText(sort)}</span> <span aria-hidden="true">▾</span>
    </MenuButton>
  );
}

/**
 * Filters of the list: words of the name always in view; a type, a status group and a date range
 * behind "Filters" (open while one is set), so the table is a few Tab stops from the name filter.
 */
export function DocFilters({
  files,
  filter,
  onFilter,
  sort,
  onSort,
}: {
  files: FileInfo[];
  filter: DocFilter;
  onFilter: (f: DocFilter) => void;
  sort: DocSort;
  onSort: (sort: DocSort) => void;
}) {
  const types = [...new Set(files.map((f) => f.type))].sort();
  const set = (patch: Partial<DocFilter>) => onFilter({ ...filter, ...patch });
  const count = setCount(filter);
  const [open, setOpen] = useState(count > 0);
  const panel = useId();
  // A filter set from elsewhere ("2 files need attention" at the foot) shows itself.
  useEffect(() => {
    if (count > 0) setOpen(true);
  }, [count]);
  return (
    <div className="doc-filters" role="group" aria-label="Filter documents">
      <div className="doc-filters-line">
        <input
          type="search"
          aria-label="Filter by name"
          placeholder="Filter by name…"
          value={filter.text}
          onChange={(e) => set({ text: e.target.value })}
        />
        <button
          type="button"
          className="btn btn-small doc-filters-toggle"
          aria-expanded={open}
          aria-controls={panel}
          onClick={() => setOpen(!open)}
        >
          Filters{count > 0 ? ` (${count})` : ''} {open ? '▴' : '▾'}
        </button>
        <SortMenu sort={sort} onSort={onSort} />
      </div>
      {open && (
        <div className="doc-filters-more" id={panel}>
          <select aria-label="Type" value={filter.type} onChange={(e) => set({ type: e.target.value })}>
            <option value="">All types</option>
            {types.map((t) => (
              <option key={t} value={t}>
                {TYPE_LABEL[t] ?? t}
              </option>
            ))}
          </select>
          <select
            aria-label="Status"
            value={filter.status}
            onChange={(e) => set({ status: e.target.value as DocFilter['status'] })}
          >
            <option value="">All statuses</option>
            <option value="indexed">Indexed</option>
            <option value="attention">Needs attention</option>
            <option value="working">Not finished</option>
          </select>
          <label className="small">
            Dated from <input type="date" value={filter.from} onChange={(e) => set({ from: e.target.value })} />
          </label>
          <label className="small">
            to <input type="date" value={filter.to} onChange={(e) => set({ to: e.target.value })} />
          </label>
        </div>
      )}
    </div>
  );
}
