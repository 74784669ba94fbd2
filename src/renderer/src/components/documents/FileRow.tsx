import { useRef, useState, type RefObject } from 'react';
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
  statusClass,
  titleShown,
  typeText,
  UNIT_WORD,
} from '../../lib/file-labels';
import { documentStatus } from '../../lib/status-tone';
import { visibleName } from '../../lib/visible-name';
import { useChat } from '../../stores/chat';
import { useDocuments } from '../../stores/documents';
import { useUi } from '../../stores/ui';
import { useViewer } from '../../stores/viewer';
import { SelectBox } from '../AskAbout';
import { PasswordPrompt } from '../PasswordForm';
import { BatesForm } from './BatesControl';
import { COLUMNS, useRowProps } from './grid';
import { OcrBadge, StatusPill } from './StatusPill';
import { batesSettable, RowMenu } from './RowMenu';
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
  row: Row & { kind: 'file' };
  base: string;
  current: IngestCurrentFile | undefined;
  type: string;
  pages: string;
  readable: boolean;
  onOpen: () => void;
  onToggle: () => void;
}

/**
 * What opens the document: its title as the main line where it has one that says more than its
 * name, with the file name under it; else the file name alone. Each is cut only where it does not
 * fit (the title at its end, the name in the middle), whole on hover.
 */
function FileOpenButton({
  file,
  base,
  readable,
  onOpen,
}: {
  file: FileInfo;
  base: string;
  readable: boolean;
  onOpen: () => void;
}) {
  const titled = titleShown(file, base);
  return (
    <button
      type="button"
      className={`file-open link${titled ? ' titled' : ''}`}
      aria-label={titled ? `${file.title}, ${base}` : base}
      tabIndex={-1}
      disabled={!readable}
      onClick={onOpen}
    >
      {titled && (
        <span className="file-title" title={visibleName(file.title!)} data-testid="file-title">
          {visibleName(file.title!)}
        </span>
      )}
      {/* Named by the button's label: the two halves of a middle-cut name are blocks, read apart otherwise. */}
      <span className={titled ? 'file-name muted small' : 'file-name'} title={visibleName(file.name)}>
        <MiddleEllipsis text={visibleName(base)} />
      </span>
    </button>
  );
}

/** The name column: tick box, title and name, what it is and where it came from (one line each). */
function FileNameCell({ row, base, current, type, pages, readable, onOpen, onToggle }: NameCellProps) {
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
        <FileOpenButton file={file} base={base} readable={readable} onOpen={onOpen} />
      </div>
      <FileMeta file={file} current={current} type={type} pages={pages} />
      {relation && (
        <div className="file-relation muted small ellipsis" title={visibleName(relation)}>
          {visibleName(relation)}
        </div>
      )}
      {file.source_removed && (
        <div className="file-removed muted small" data-testid="file-removed">
          {sourceRemovedText(file)}
        </div>
      )}
    </div>
  );
}

interface StatusCellProps {
  caseId: string;
  file: FileInfo;
  base: string;
  status: IngestFileStatus;
  tab: number;
  showReason: boolean;
  onWhy: () => void;
  versions: boolean;
  setVersions: (open: boolean) => void;
  onBates: () => void;
  moreRef: RefObject<HTMLButtonElement | null>;
}

/** The status column: the pill, "Why?", the OCR badge, the versions badge and "More actions". */
function FileStatusCell({ caseId, file, base, status, tab, showReason, onWhy, ...more }: StatusCellProps) {
  const reason = file.reason;
  return (
    <div role="gridcell" className="col-status">
      <StatusPill
        status={status}
        reason={reason}
        locked={file.locked}
        ocrPages={file.versions[file.versions.length - 1]?.ocr_pages}
      />
      {reason && (
        <button type="button" className="btn-why" tabIndex={tab} aria-expanded={showReason} onClick={onWhy}>
          Why?
        </button>
      )}
      <OcrBadge version={file.versions[file.versions.length - 1]} reason={reason} />
      <VersionMenu caseId={caseId} file={file} tab={tab} open={more.versions} setOpen={more.setVersions} />
      <RowMenu
        caseId={caseId}
        file={file}
        base={base}
        tab={tab}
        buttonRef={more.moreRef}
        onVersions={() => more.setVersions(true)}
        onBates={more.onBates}
      />
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

/** Opens the latest version of a file that has been read in the viewer, on its first page. */
function useOpenFile(file: FileInfo, readable: boolean): () => void {
  const openSource = useViewer((s) => s.open);
  return () => {
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
}

/** The Bates form under the row, spanning its columns. */
function BatesCell({ caseId, file, onDone }: { caseId: string; file: FileInfo; onDone: () => void }) {
  return (
    <div role="gridcell" className="col-more" aria-colspan={COLUMNS.length}>
      <BatesForm caseId={caseId} file={file} onDone={onDone} />
    </div>
  );
}

/**
 * A file's row: its name cell, the type, date and pages columns, its status cell, and under them
 * what went wrong, or the Bates form opened from its "More actions" menu.
 */
export function FileRow({ caseId, row }: { caseId: string; row: Row & { kind: 'file' } }) {
  const { file } = row;
  const { current, status } = useLiveStatus(caseId, file);
  const [showReason, setShowReason] = useState(false);
  const [versions, setVersions] = useState(false);
  const [bates, setBates] = useState(false);
  const moreRef = useRef<HTMLButtonElement>(null);
  const picked = useChat((s) => s.selected.includes(file.id));
  const toggle = useChat((s) => s.toggleSelected);
  const base = baseName(file);
  const readable = file.status === 'indexed' || file.status === 'unchanged';
  const openIt = useOpenFile(file, readable);
  const named = titleShown(file, base) ? `${file.title}, ${base}` : base;
  // Space ticks the document (for "Ask about these"), as in a multi-select treegrid.
  // The row's name says its status as its pill shows it ("Password needed", not "Failed").
  const shown = documentStatus({
    status,
    reason: file.reason,
    locked: file.locked,
    ocr_pages: file.versions[file.versions.length - 1]?.ocr_pages,
  });
  const { props, tab, nav } = useRowProps(row, `${named}, ${shown.label}`, {
    enter: openIt,
    space: () => toggle(file.id),
  });
  const type = typeText(file, status);
  const pages = pagesText(file);
  return (
    <div {...props} className="doc-row file-row" aria-selected={picked} data-file={file.name}>
      <FileNameCell
        row={row}
        base={base}
        current={current}
        type={type}
        pages={pages}
        readable={readable}
        onOpen={openIt}
        onToggle={() => nav.setOpen(row.key, !row.open)}
      />
      {/* One line: a type that does not fit is cut at its end, whole on hover. */}
      <div role="gridcell" className="col-type small" title={type}>
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
        base={base}
        status={status}
        tab={tab}
        showReason={showReason}
        onWhy={() => setShowReason(!showReason)}
        versions={versions}
        setVersions={setVersions}
        onBates={() => setBates(true)}
        moreRef={moreRef}
      />
      <FileTrouble caseId={caseId} file={file} showReason={showReason} onRetried={() => setShowReason(false)} />
      {bates && batesSettable(file) && (
        <BatesCell
          caseId={caseId}
          file={file}
          onDone={() => {
            setBates(false);
            moreRef.current?.focus();
          }}
        />
      )}
    </div>
  );
}
