import type { Row } from '../../lib/document-tree';
import { visibleName } from '../../lib/visible-name';
import { COLUMNS, useRowProps } from './grid';

/** A folder's row: its name and count; a click (or Enter) opens or closes it. */
export function FolderRow({ row }: { row: Row & { kind: 'folder' } }) {
  const { props, nav } = useRowProps(row, `${row.node.name} (${row.count})`, {
    enter: () => nav.setOpen(row.key, !row.open),
  });
  return (
    <div {...props} className="doc-row folder">
      <div
        role="gridcell"
        className="col-name folder-name"
        aria-colspan={COLUMNS.length}
        style={{ paddingLeft: `${row.depth * 1}rem` }}
        onClick={() => nav.setOpen(row.key, !row.open)}
      >
        <span className="chev" aria-hidden="true">
          {row.open ? '▾' : '▸'}
        </span>{' '}
        <bdi>{visibleName(row.node.name)}</bdi> <span className="muted small">({row.count})</span>
      </div>
    </div>
  );
}
