/**
 * A file's version badge (where it has more than one), and the list of every version it opens —
 * also from the row's "More actions" menu: open one, remove one. Escape closes it and gives the
 * focus back to what opened it.
 */
import { useEffect, useRef } from 'react';
import type { FileInfo, FileVersionInfo } from '../../../../shared/contract/ingest';
import { errorMessage } from '../../api/errors';
import { formatBytes } from '../../lib/display-format';
import { useDocuments } from '../../stores/documents';
import { useUi } from '../../stores/ui';
import { useViewer } from '../../stores/viewer';
import { StatusPill } from './StatusPill';

/** One version in the list: its badge (opens it), when it was added, its status, its size, its remove button. */
function VersionLine({
  caseId,
  file,
  v,
  close,
}: {
  caseId: string;
  file: FileInfo;
  v: FileVersionInfo;
  close: () => void;
}) {
  const openSource = useViewer((s) => s.open);
  const remove = useDocuments((s) => s.remove);
  const toast = useUi((s) => s.toast);
  return (
    <li className="popover-row">
      <button
        type="button"
        className="badge badge-button"
        title={`Open version ${v.version}`}
        aria-label={`Open version ${v.version}`}
        disabled={!(v.status === 'indexed' || v.status === 'unchanged')}
        onClick={() => {
          close();
          openSource({
            file_id: file.id,
            file_name: file.name,
            version: v.version,
            pages: [1],
            start: 0,
            end: 0,
            kind: v.kind,
          });
        }}
      >
        v{v.version}
      </button>
      <span className="small">{new Date(v.ingested_at).toLocaleString()}</span>
      <StatusPill status={v.status} reason={v.reason} />
      <span className="muted small">{formatBytes(v.size)}</span>
      {file.versions.length > 1 && (
        <button
          type="button"
          className="btn-icon small"
          title={`Remove version ${v.version}`}
          aria-label={`Remove version ${v.version}`}
          onClick={() => remove(caseId, file.id, v.version).catch((err) => toast('error', errorMessage(err)))}
        >
          ×
        </button>
      )}
    </li>
  );
}

export function VersionMenu({
  caseId,
  file,
  tab,
  open,
  setOpen,
}: {
  caseId: string;
  file: FileInfo;
  tab: number;
  open: boolean;
  setOpen: (open: boolean) => void;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const opener = useRef<HTMLElement | null>(null);
  useEffect(() => {
    if (!open) return;
    opener.current = document.activeElement as HTMLElement | null;
    ref.current?.querySelector<HTMLElement>('.popover button:not(:disabled)')?.focus();
    const close = (e: MouseEvent) => {
      if (!ref.current?.contains(e.target as Node)) setOpen(false);
    };
    window.addEventListener('mousedown', close);
    return () => window.removeEventListener('mousedown', close);
  }, [open, setOpen]);
  const older = [...file.versions].reverse();
  return (
    <div className="version-menu" ref={ref}>
      {file.versions.length > 1 && (
        <button
          type="button"
          className="badge badge-button"
          tabIndex={tab}
          aria-expanded={open}
          title="Show all versions"
          onClick={() => setOpen(!open)}
        >
          v{file.version} ▾
        </button>
      )}
      {open && (
        <div
          className="popover"
          role="dialog"
          aria-label={`Versions of ${file.name}`}
          onKeyDown={(e) => {
            if (e.key !== 'Escape') return;
            e.preventDefault();
            e.stopPropagation();
            setOpen(false);
            opener.current?.focus();
          }}
        >
          <ul className="version-list">
            {older.map((v) => (
              <VersionLine key={v.version} caseId={caseId} file={file} v={v} close={() => setOpen(false)} />
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}
