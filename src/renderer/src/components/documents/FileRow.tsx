import { useState } from 'react';
import type { FileInfo, IngestCurrentFile, IngestFileStatus } from '../../../../shared/contract/ingest';
import { errorMessage } from '../../api/errors';
import type { Row } from '../../lib/document-tree';
import { fileSemanticText, plural, sourceRemovedText } from '../../lib/display-format';
import {
  pagesText,
  relationText,
  STAGE_LABEL,
  STAGE_STATUS,
  stageText,
  STATUS_LABEL,
  statusClass,
  titleShown,
  typeText,
  UNIT_WORD,
} from '../../lib/file-labels';
import { visibleName } from '../../lib/visible-name';
import { useChat } from '../../stores/chat';
import { useDocuments } from '../../stores/documents';
import { useUi } from '../../stores/ui';
import { useViewer } from '../../stores/viewer';
import { SelectBox } from '../AskAbout';
import { PasswordPrompt } from '../PasswordForm';
import { BatesControl } from './BatesControl';
import { COLUMNS, useRowProps } from './grid';
import { OcrBadge, StatusPill } from './StatusPill';
import { VersionMenu } from './VersionMenu';

/**
 * A long name cut in the middle, not at the end, where names of one production differ
 * ("AimmuneTherapeuticsInc_202…Development Agreement.pdf"); the whole name is the row's tooltip.
 */
function MiddleEllipsis({ text }: { text: string }) {
  const keep = Math.min(24, Math.floor(text.length / 2));
  const cut = text.length - keep;
  return (
    <span className="mid-ellipsis">
      <span className="mid-head">{text.slice(0, cut)}</span>
      {/* Too narrow even for the tail: it is cut at its start (rtl), so the end ("….pdf") still shows. */}
      <span className="mid-tail">
        <span>{text.slice(cut)}</span>
      </span>
    </span>
  );
}

/** A file inside another is named by its path inside it ("vol1/0001.pdf"), not the container's. */
function baseName(file: FileInfo): string {
  return file.parent && file.name.startsWith(`${file.parent.name}/`)
    ? file.name.slice(file.parent.name.length + 1)
    : (file.name.split('/').pop() ?? file.name);
}

/** The running ingest's view of a file (latest version in flight), else what files.list overlaid; and the status its row shows. */
function useLiveStatus(
  caseId: string,
  file: FileInfo,
): { current: IngestCurrentFile | undefined; status: IngestFileStatus } {
  const live = useDocuments((s) => s.live[file.id]);
  const current = useDocuments((s) =>
    s.progress[caseId]?.current.find((c) => c.file_id === file.id && c.version === file.version),
  );
  const status = current
    ? STAGE_STATUS[current.stage]
    : live && live.version >= file.version && statusClass(live.status) === 'busy'
      ? live.status
      : file.status;
  return { current, status };
}

/** The type, date and pages the pane has no room for as columns, and the file's progress (see the container queries in app.css). */
function FileMeta({
  file,
  current,
  type,
  pages,
}: {
  file: FileInfo;
  current: IngestCurrentFile | undefined;
  type: string;
  pages: string;
}) {
  const live = current ? stageText(current) : file.live ? `${STAGE_LABEL[file.live.stage]}…` : '';
  const semantic = fileSemanticText(file);
  return (
    <div className="file-meta muted small">
      <span className="meta-col meta-type">{type}</span>
      {file.date && <span className="meta-col meta-date">{file.date}</span>}
      {pages && (
        <span className="meta-col meta-pages">{UNIT_WORD[file.kind] ? pages : plural(file.pages, 'page')}</span>
      )}
      {(live || semantic) && (
        <span className="meta-live">
          {live}
          {semantic && <span data-testid="file-semantic">{`${live ? ' · ' : ''}${semantic}`}</span>}
        </span>
      )}
    </div>
  );
}

interface NameCellProps {
  caseId: string;
  row: Row & { kind: 'file' };
  base: string;
  current: IngestCurrentFile | undefined;
  type: string;
  pages: string;
  tab: number;
  readable: boolean;
  onOpen: () => void;
  onToggle: () => void;
}

/** The name column: tick box, name, title, what it is and where it came from, and the Bates control. */
function FileNameCell({ caseId, row, base, current, type, pages, tab, readable, onOpen, onToggle }: NameCellProps) {
  const { file, depth } = row;
  const relation = relationText(file);
  return (
    <div role="gridcell" className="col-name" style={{ paddingLeft: `${depth * 1}rem` }}>
      <div className="file-main">
        <SelectBox file={file} label={base} />
        {row.children > 0 && (
          <span className="chev" aria-hidden="true" onClick={onToggle}>
            {row.open ? '▾' : '▸'}
          </span>
        )}
        {/* Named by the whole name: the two halves of a middle-cut name are blocks, read apart otherwise. */}
        <button
          type="button"
          className="file-name link"
          title={visibleName(file.name)}
          aria-label={base}
          tabIndex={-1}
          disabled={!readable}
          onClick={onOpen}
        >
          <MiddleEllipsis text={visibleName(base)} />
        </button>
      </div>
      {titleShown(file, base) && (
        <div className="file-title small ellipsis" title={visibleName(file.title!)} data-testid="file-title">
          {visibleName(file.title!)}
        </div>
      )}
      <FileMeta file={file} current={current} type={type} pages={pages} />
      {relation && <div className="file-relation muted small">{visibleName(relation)}</div>}
      {file.source_removed && (
        <div className="file-removed muted small" data-testid="file-removed">
          {sourceRemovedText(file)}
        </div>
      )}
      {(file.kind === 'pdf' || file.kind === 'image') && file.status === 'indexed' && (
        <BatesControl caseId={caseId} file={file} tab={tab} />
      )}
    </div>
  );
}

/** The status column: the pill, "Why?", the OCR badge, the versions and the remove button. */
function FileStatusCell({
  caseId,
  file,
  status,
  tab,
  showReason,
  onWhy,
}: {
  caseId: string;
  file: FileInfo;
  status: IngestFileStatus;
  tab: number;
  showReason: boolean;
  onWhy: () => void;
}) {
  const openDialog = useUi((s) => s.openDialog);
  const reason = file.reason;
  return (
    <div role="gridcell" className="col-status">
      <StatusPill status={status} reason={reason} />
      {reason && (
        <button type="button" className="btn-why" tabIndex={tab} aria-expanded={showReason} onClick={onWhy}>
          Why?
        </button>
      )}
      <OcrBadge version={file.versions[file.versions.length - 1]} reason={reason} />
      <VersionMenu caseId={caseId} file={file} tab={tab} />
      <button
        type="button"
        className="btn-icon file-remove"
        tabIndex={tab}
        title={`Remove ${visibleName(file.name)}`}
        aria-label={`Remove ${file.name}`}
        onClick={() =>
          openDialog({ kind: 'removeFile', caseId, fileId: file.id, name: file.name, versions: file.versions.length })
        }
      >
        ×
      </button>
    </div>
  );
}

/** What went wrong (and what to do: a password, a retry), spanning the row under its columns; nothing when there is none. */
function FileTrouble({
  caseId,
  file,
  showReason,
  onRetried,
}: {
  caseId: string;
  file: FileInfo;
  showReason: boolean;
  onRetried: () => void;
}) {
  const toast = useUi((s) => s.toast);
  const retryFile = useDocuments((s) => s.retry);
  const reason = file.reason;
  const latest = file.versions[file.versions.length - 1];
  const retry =
    showReason &&
    (file.status === 'failed' || file.status === 'needs_ocr') &&
    file.locked !== 'needs_password' &&
    latest?.sha256 !== '';
  const password = file.locked === 'needs_password' && file.status === 'failed';
  if (!((showReason && reason) || password || retry)) return null;
  return (
    <div role="gridcell" className="col-more" aria-colspan={COLUMNS.length}>
      {showReason && reason && (
        <p className="file-reason" role="note">
          {reason}
        </p>
      )}
      {password && <PasswordPrompt caseId={caseId} file={file} />}
      {retry && (
        <div className="file-actions">
          <button
            type="button"
            className="btn btn-small"
            onClick={() =>
              retryFile(caseId, file.id)
                .then(onRetried)
                .catch((err) => toast('error', errorMessage(err)))
            }
          >
            Retry
          </button>
        </div>
      )}
    </div>
  );
}

/** A file's row: its name cell, the type, date and pages columns, its status cell, and what went wrong under them. */
export function FileRow({ caseId, row }: { caseId: string; row: Row & { kind: 'file' } }) {
  const { file } = row;
  const { current, status } = useLiveStatus(caseId, file);
  const openSource = useViewer((s) => s.open);
  const [showReason, setShowReason] = useState(false);
  const picked = useChat((s) => s.selected.includes(file.id));
  const toggle = useChat((s) => s.toggleSelected);
  const base = baseName(file);
  const readable = file.status === 'indexed' || file.status === 'unchanged';
  const openIt = () => {
    if (readable)
      openSource({
        file_id: file.id,
        file_name: file.name,
        version: file.version,
        pages: [1],
        start: 0,
        end: 0,
        kind: file.versions[file.versions.length - 1]?.kind,
      });
  };
  // Space ticks the document (for "Ask about these"), as in a multi-select treegrid.
  const { props, tab, nav } = useRowProps(row, `${base}, ${STATUS_LABEL[status]}`, {
    enter: openIt,
    space: () => toggle(file.id),
  });
  const type = typeText(file, status);
  const pages = pagesText(file);
  return (
    <div {...props} className="doc-row file-row" aria-selected={picked} data-file={file.name}>
      <FileNameCell
        caseId={caseId}
        row={row}
        base={base}
        current={current}
        type={type}
        pages={pages}
        tab={tab}
        readable={readable}
        onOpen={openIt}
        onToggle={() => nav.setOpen(row.key, !row.open)}
      />
      <div role="gridcell" className="col-type small">
        {type}
      </div>
      <div role="gridcell" className="col-date small">
        {file.date}
      </div>
      <div role="gridcell" className="col-pages small">
        {pages}
      </div>
      <FileStatusCell
        caseId={caseId}
        file={file}
        status={status}
        tab={tab}
        showReason={showReason}
        onWhy={() => setShowReason(!showReason)}
      />
      <FileTrouble caseId={caseId} file={file} showReason={showReason} onRetried={() => setShowReason(false)} />
    </div>
  );
}
