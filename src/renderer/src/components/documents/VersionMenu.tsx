/** A file's version badge, and its menu of every version: open one, remove one. */
import { useEffect, useRef, useState } from 'react';
import type { FileInfo, FileVersionInfo } from '../../../../shared/contract/ingest';
import { errorMessage } from '../../api/errors';
import { formatBytes } from '../../lib/display-format';
import { useDocuments } from '../../stores/documents';
import { useUi } from '../../stores/ui';
import { useViewer } from '../../stores/viewer';
import { StatusPill } from './StatusPill';

export function VersionMenu({ caseId, file, tab }: { caseId: string; file: FileInfo; tab: number }) {
  const [open, setOpen] = useState(false);
  const openSource = useViewer((s) => s.open);
  const remove = useDocuments((s) => s.remove);
  const toast = useUi((s) => s.toast);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const close = (e: MouseEvent) => {
      if (!ref.current?.contains(e.target as Node)) setOpen(false);
    };
    window.addEventListener('mousedown', close);
    return () => window.removeEventListener('mousedown', close);
  }, [open]);
  const older = [...file.versions].reverse();
  return (
    <div className="version-menu" ref={ref}>
      <button
        type="button"
        className="badge badge-button"
        tabIndex={tab}
        aria-haspopup="true"
        aria-expanded={open}
        title={file.versions.length > 1 ? 'Show all versions' : 'Only version'}
        onClick={() => setOpen(!open)}
      >
        v{file.version}
        {file.versions.length > 1 ? ' ▾' : ''}
      </button>
      {open && (
        <div className="popover" role="menu" aria-label={`Versions of ${file.name}`}>
          {older.map((v: FileVersionInfo) => (
            <div key={v.version} className="popover-row" role="menuitem">
              <button
                type="button"
                className="badge badge-button"
                title={`Open version ${v.version}`}
                aria-label={`Open version ${v.version}`}
                disabled={!(v.status === 'indexed' || v.status === 'unchanged')}
                onClick={() => {
                  setOpen(false);
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
            </div>
          ))}
        </div>
      )}
    </div>
  );
}
