import type { FileInfo } from '../../../../shared/contract/ingest';
import type { DocFilter } from '../../lib/document-tree';
import { TYPE_LABEL } from '../../lib/display-format';

/** Filters of the list: words of the name, a type, a date range, a status group. */
export function DocFilters({
  files,
  filter,
  onFilter,
}: {
  files: FileInfo[];
  filter: DocFilter;
  onFilter: (f: DocFilter) => void;
}) {
  const types = [...new Set(files.map((f) => f.type))].sort();
  const set = (patch: Partial<DocFilter>) => onFilter({ ...filter, ...patch });
  return (
    <div className="doc-filters" role="group" aria-label="Filter documents">
      <input
        type="search"
        aria-label="Filter by name"
        placeholder="Filter by name…"
        value={filter.text}
        onChange={(e) => set({ text: e.target.value })}
      />
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
  );
}
