import { createContext, useContext, useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent as ReactKeyboardEvent, type FocusEvent as ReactFocusEvent } from 'react';
import type { FileInfo, FileVersionInfo, IngestCurrentFile, IngestFileStatus, IngestProgress, IngestStage } from '../../../shared/contract/ingest';
import { api, errorMessage } from '../api/index';
import {
  buildTree,
  compareFiles,
  filterFiles,
  itemsFromInput,
  needsAttention,
  NO_FILTER,
  readableName,
  useDocuments,
  type DocFilter,
  type DocSort,
  type DroppedItems,
  type SortKey,
  type TreeNode,
} from '../stores/documents';
import { useUi } from '../stores/ui';
import { useViewer } from '../stores/viewer';
import { fileSemanticText, formatBytes, formatDuration, ocrProgressText, plural, semanticText, sourceRemovedText, TYPE_LABEL } from '../lib/display-format';
import { PasswordPrompt } from './PasswordForm';
import { VectorsCatchUp } from './VectorsCatchUp';
import { SelectBox, SelectionBar } from './AskAbout';
import { visibleName } from '../lib/visible-name';
import { useChat } from '../stores/chat';
import { LOW_OCR_CONFIDENCE } from '../../../shared/citation-text';

const STATUS_LABEL: Record<IngestFileStatus, string> = {
  queued: 'Queued',
  parsing: 'Parsing',
  embedding: 'Embedding',
  indexing: 'Indexing',
  indexed: 'Indexed',
  unchanged: 'Indexed',
  needs_ocr: 'Needs OCR',
  unsupported: 'Unsupported',
  failed: 'Failed',
  cancelled: 'Cancelled',
  skipped: 'Not added',
};


const STAGE_LABEL: Record<IngestStage, string> = {
  hashing: 'Copying',
  parsing: 'Parsing',
  chunking: 'Chunking',
  embedding: 'Embedding',
  indexing: 'Indexing',
};

const STAGE_STATUS: Record<IngestStage, IngestFileStatus> = { hashing: 'parsing', parsing: 'parsing', chunking: 'parsing', embedding: 'embedding', indexing: 'indexing' };

/** "Parsing · 12 / 40 pages · about 20 s left" for a file in flight. */
function stageText(c: IngestCurrentFile): string {
  const unit = c.stage === 'parsing' ? 'pages' : 'chunks';
  const count = c.done !== null && c.total !== null ? ` · ${c.done} / ${c.total} ${unit}` : '';
  const eta = c.etaSeconds !== null && c.etaSeconds > 0 ? ` · about ${formatDuration(c.etaSeconds * 1000)} left` : '';
  const ocr = ocrProgressText(c);
  return ocr ? `${ocr}${eta}` : `${STAGE_LABEL[c.stage]}${count}${eta}`;
}

/** A file's own bar: determinate while its stage has a count, indeterminate for the short stages without one. */
function FileProgress({ c }: { c: IngestCurrentFile }) {
  return c.fraction !== null ? (
    <progress className="file-progress" max={1} value={c.fraction} aria-label={`${c.name} progress`} data-stage={c.stage} />
  ) : (
    <progress className="file-progress" aria-label={`${c.name} progress`} data-stage={c.stage} />
  );
}

function statusClass(status: IngestFileStatus): string {
  if (status === 'indexed' || status === 'unchanged') return 'ok';
  if (status === 'failed') return 'bad';
  if (status === 'needs_ocr' || status === 'unsupported' || status === 'cancelled') return 'warn';
  return 'busy';
}

export function StatusPill({ status, reason }: { status: IngestFileStatus; reason?: string | undefined }) {
  return (
    <span className={`pill pill-${statusClass(status)}`} title={reason || undefined} data-status={status}>
      {STATUS_LABEL[status]}
    </span>
  );
}

function OverallProgress({ caseId, progress }: { caseId: string; progress: IngestProgress }) {
  const cancel = useDocuments((s) => s.cancel);
  const toast = useUi((s) => s.toast);
  // Bytes move when a file finishes, pages as each is parsed: show the further of the two, and
  // never let the bar move backwards within one job (an estimated page total can still change).
  const fraction = Math.max(
    progress.bytesTotal > 0 ? progress.bytesDone / progress.bytesTotal : 0,
    progress.filesTotal > 0 ? progress.filesDone / progress.filesTotal : 0,
    progress.pagesTotal > 0 && (!progress.pagesEstimated || progress.filesTotal === 1) ? progress.pagesDone / progress.pagesTotal : 0,
  );
  const best = useRef({ jobId: '', pct: 0 });
  if (best.current.jobId !== progress.jobId) best.current = { jobId: progress.jobId, pct: 0 };
  best.current.pct = Math.max(best.current.pct, Math.round(Math.min(1, fraction) * 100));
  const pct = best.current.pct;
  return (
    <div className="ingest-progress" role="status" aria-label="Ingest progress">
      <div className="ingest-progress-line">
        <strong>
          Adding documents: {progress.filesDone} of {plural(progress.filesTotal, 'file')}
        </strong>
        <button
          type="button"
          className="btn btn-small"
          onClick={() => cancel(caseId).catch((err) => toast('error', errorMessage(err)))}
        >
          Cancel
        </button>
      </div>
      <progress max={100} value={pct} aria-label="Overall progress" />
      {progress.blockedBy && (
        <div className="small" data-testid="ingest-blocked">
          {progress.blockedBy.message}
        </div>
      )}
      <div className="muted small">
        {progress.pagesTotal > 0 ? `${progress.pagesDone} / ${progress.pagesEstimated ? 'about ' : ''}${progress.pagesTotal} pages · ` : ''}
        {progress.etaSeconds !== null ? `about ${formatDuration(progress.etaSeconds * 1000)} left` : 'estimating time left…'}
        {progress.errors > 0 ? ` · ${plural(progress.errors, 'problem')}` : ''}
      </div>
      {semanticText(progress) && (
        <div className="muted small" data-testid="ingest-semantic">
          Found by their words already · {semanticText(progress)}
        </div>
      )}
      {progress.waiting.length > 0 && (
        <div className="muted small ellipsis" data-testid="ingest-waiting" title={progress.waiting.map(visibleName).join(', ')}>
          Waiting to be added next: <bdi>{progress.waiting.map(visibleName).join(', ')}</bdi>
        </div>
      )}
      {progress.current.length > 0 && (
        <ul className="ingest-current">
          {progress.current.map((c) => (
            <li key={c.name} data-current={c.name}>
              <bdi className="ellipsis" title={visibleName(c.name)}>
                {visibleName(c.name)}
              </bdi>
              <span className="muted small stage">{stageText(c)}</span>
              <FileProgress c={c} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function VersionMenu({ caseId, file, tab }: { caseId: string; file: FileInfo; tab: number }) {
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
                  openSource({ file_id: file.id, file_name: file.name, version: v.version, pages: [1], start: 0, end: 0, kind: v.kind });
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

/** What a document's pages are called in its row: a spreadsheet's are sheets; an email's and an archive's are not counted ('') — its attachments and files are. */
const UNIT_WORD: Partial<Record<FileInfo['kind'], string>> = { spreadsheet: 'sheet', email: '', archive: '' };

/** What a file is beside its type: an email's sender and subject, what it was taken out of, what it holds. */
function relationText(file: FileInfo): string {
  const parts: string[] = [];
  if (file.email) parts.push([file.email.from && `from ${file.email.from}`, file.email.subject && `“${file.email.subject}”`].filter(Boolean).join(' '));
  if (file.parent) {
    const where = file.parent.subject !== undefined ? [file.parent.subject || '(no subject)', file.parent.date].filter(Boolean).join(', ') : (file.parent.name.split('/').pop() ?? file.parent.name);
    parts.push(`${file.parent.subject !== undefined ? 'attached to' : 'in'}: ${where}`);
  }
  if (file.children) parts.push(file.kind === 'email' ? plural(file.children, 'attachment') : plural(file.children, 'file'));
  const latest = file.versions[file.versions.length - 1];
  if (latest?.annotations) parts.push(latest.annotations.summary);
  if (latest?.bates) parts.push(`Bates ${latest.bates.first}–${latest.bates.last}`);
  if (latest?.transcript) parts.push(`transcript${latest.transcript.deponent ? ` (${latest.transcript.deponent} Dep.)` : ''}, pp. ${latest.transcript.first_page}–${latest.transcript.last_page}`);
  return parts.filter(Boolean).join(' · ');
}

/**
 * Keyboard navigation of the document table (the WAI-ARIA treegrid pattern, moving by rows): the
 * table is one Tab stop (the active row, a roving tabindex); Up/Down move, Home/End jump,
 * Right/Left expand/collapse a folder (or an email's attachments) or move to its first child/its
 * parent, Enter opens, Space ticks a document. The active row's own controls (versions, "Why?",
 * remove) follow it in the Tab order; other rows' controls are reached by moving to their row.
 */
interface TreeNav {
  active: string | null;
  setActive(key: string): void;
  setOpen(key: string, open: boolean): void;
}

const NavContext = createContext<TreeNav>({ active: null, setActive: () => {}, setOpen: () => {} });

/** One row of the table: a folder, or a file (the files taken out of it follow it, a level deeper). */
type Row = { key: string; depth: number; parent: string | null; open: boolean; posinset: number; setsize: number } & (
  | { kind: 'folder'; node: TreeNode; count: number }
  | { kind: 'file'; file: FileInfo; children: number }
);

/** What every row shares: its place in the tree, its tab index, and Enter (and Space) on the row itself. */
function useRowProps(row: Row, label: string, keys: { enter: () => void; space?: () => void }) {
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

/** The document's title under its name, unless it only repeats the name ("Notice" for notice.pdf). */
function titleShown(file: FileInfo, base: string): boolean {
  const words = (t: string) => t.toLocaleLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
  return Boolean(file.title) && words(file.title!) !== words(readableName(base));
}

/** A file's type as its row says it: not guessed ("Other") before the file has been read. */
function typeText(file: FileInfo, status: IngestFileStatus): string {
  if (status === 'queued') return 'queued';
  if (statusClass(status) === 'busy' && file.pages === 0 && file.type === 'other') return 'being read';
  return TYPE_LABEL[file.type] ?? file.type;
}

/** The pages column: a number (a spreadsheet's sheets say so); none for an email or an archive. */
function pagesText(file: FileInfo): string {
  if (file.pages <= 0 || UNIT_WORD[file.kind] === '') return '';
  return UNIT_WORD[file.kind] ? plural(file.pages, UNIT_WORD[file.kind]!) : String(file.pages);
}

function FileRow({ caseId, row }: { caseId: string; row: Row & { kind: 'file' } }) {
  const { file, depth } = row;
  const live = useDocuments((s) => s.live[file.id]);
  // The running ingest's view of this file (latest version in flight), else what files.list overlaid.
  const current = useDocuments((s) => s.progress[caseId]?.current.find((c) => c.fileId === file.id && c.version === file.version));
  const toast = useUi((s) => s.toast);
  const openSource = useViewer((s) => s.open);
  const openDialog = useUi((s) => s.openDialog);
  const [showReason, setShowReason] = useState(false);
  const picked = useChat((s) => s.selected.includes(file.id));
  const toggle = useChat((s) => s.toggleSelected);
  const status = current
    ? STAGE_STATUS[current.stage]
    : live && live.version >= file.version && statusClass(live.status) === 'busy'
      ? live.status
      : file.status;
  const reason = file.reason;
  // A file inside another is named by its path inside it ("vol1/0001.pdf"), not the container's.
  const base = file.parent && file.name.startsWith(`${file.parent.name}/`) ? file.name.slice(file.parent.name.length + 1) : (file.name.split('/').pop() ?? file.name);
  const latest = file.versions[file.versions.length - 1];
  const relation = relationText(file);
  const readable = file.status === 'indexed' || file.status === 'unchanged';
  const openIt = () => {
    if (readable) openSource({ file_id: file.id, file_name: file.name, version: file.version, pages: [1], start: 0, end: 0, kind: latest?.kind });
  };
  // Space ticks the document (for "Ask about these"), as in a multi-select treegrid.
  const { props, tab, nav } = useRowProps(row, `${base}, ${STATUS_LABEL[status]}`, { enter: openIt, space: () => toggle(file.id) });
  const type = typeText(file, status);
  const pages = pagesText(file);
  const live_ = current ? stageText(current) : file.live ? `${STAGE_LABEL[file.live.stage]}…` : '';
  const semantic = fileSemanticText(file);
  const retry = showReason && (file.status === 'failed' || file.status === 'needs_ocr') && file.locked !== 'needs_password' && latest?.sha256 !== '';
  const password = file.locked === 'needs_password' && file.status === 'failed';
  return (
    <div {...props} className="doc-row file-row" aria-selected={picked} data-file={file.name}>
      <div role="gridcell" className="col-name" style={{ paddingLeft: `${depth * 1}rem` }}>
        <div className="file-main">
          <SelectBox file={file} label={base} />
          {row.children > 0 && (
            <span className="chev" aria-hidden="true" onClick={() => nav.setOpen(row.key, !row.open)}>
              {row.open ? '▾' : '▸'}
            </span>
          )}
          {/* Named by the whole name: the two halves of a middle-cut name are blocks, read apart otherwise. */}
          <button type="button" className="file-name link" title={visibleName(file.name)} aria-label={base} tabIndex={-1} disabled={!readable} onClick={openIt}>
            <MiddleEllipsis text={visibleName(base)} />
          </button>
        </div>
        {titleShown(file, base) && (
          <div className="file-title small ellipsis" title={visibleName(file.title!)} data-testid="file-title">
            {visibleName(file.title!)}
          </div>
        )}
        {/* The columns the pane has no room for move here (see the container queries in app.css), and the file's progress. */}
        <div className="file-meta muted small">
          <span className="meta-col meta-type">{type}</span>
          {file.date && <span className="meta-col meta-date">{file.date}</span>}
          {pages && <span className="meta-col meta-pages">{UNIT_WORD[file.kind] ? pages : plural(file.pages, 'page')}</span>}
          {(live_ || semantic) && (
            <span className="meta-live">
              {live_}
              {semantic && <span data-testid="file-semantic">{`${live_ ? ' · ' : ''}${semantic}`}</span>}
            </span>
          )}
        </div>
        {relation && <div className="file-relation muted small">{visibleName(relation)}</div>}
        {file.source_removed && (
          <div className="file-removed muted small" data-testid="file-removed">
            {sourceRemovedText(file)}
          </div>
        )}
        {(file.kind === 'pdf' || file.kind === 'image') && file.status === 'indexed' && <BatesControl caseId={caseId} file={file} tab={tab} />}
      </div>
      <div role="gridcell" className="col-type small">
        {type}
      </div>
      <div role="gridcell" className="col-date small">
        {file.date}
      </div>
      <div role="gridcell" className="col-pages small">
        {pages}
      </div>
      <div role="gridcell" className="col-status">
        <StatusPill status={status} reason={reason} />
        {reason && (
          <button type="button" className="btn-why" tabIndex={tab} aria-expanded={showReason} onClick={() => setShowReason(!showReason)}>
            Why?
          </button>
        )}
        <OcrBadge version={latest} reason={reason} />
        <VersionMenu caseId={caseId} file={file} tab={tab} />
        <button
          type="button"
          className="btn-icon file-remove"
          tabIndex={tab}
          title={`Remove ${visibleName(file.name)}`}
          aria-label={`Remove ${file.name}`}
          onClick={() => openDialog({ kind: 'removeFile', caseId, fileId: file.id, name: file.name, versions: file.versions.length })}
        >
          ×
        </button>
      </div>
      {((showReason && reason) || password || retry) && (
        // What went wrong (and what to do) spans the row under its columns.
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
                  api
                    .call('files.retry', { caseId, fileId: file.id, wait: false })
                    .then(() => setShowReason(false))
                    .catch((err) => toast('error', errorMessage(err)))
                }
              >
                Retry
              </button>
            </div>
          )}
        </div>
      )}
    </div>
  );
}


/** The Bates prefix of a stamped PDF: the detected one confirmed or corrected, or "not Bates-stamped". */
function BatesControl({ caseId, file, tab }: { caseId: string; file: FileInfo; tab: number }) {
  const bates = file.versions[file.versions.length - 1]?.bates;
  const [open, setOpen] = useState(false);
  const [prefix, setPrefix] = useState(bates ? bates.first.replace(/\d+$/, '').trim() : '');
  const [error, setError] = useState<string | null>(null);
  const save = (value: string | null) =>
    api.call('files.setBates', { caseId, fileId: file.id, prefix: value }).then(
      () => {
        setOpen(false);
        setError(null);
        void useDocuments.getState().load(caseId);
      },
      (err) => setError(errorMessage(err)),
    );
  if (!open) {
    return (
      <button type="button" className="btn btn-ghost btn-small bates-open" tabIndex={tab} onClick={() => setOpen(true)}>
        {bates ? 'Change Bates prefix…' : 'Set Bates prefix…'}
      </button>
    );
  }
  return (
    <form
      className="file-actions bates-form"
      onSubmit={(e) => {
        e.preventDefault();
        void save(prefix);
      }}
    >
      <label className="small">
        Bates prefix of <bdi>{visibleName(file.name.split('/').pop() ?? file.name)}</bdi>{' '}
        <input type="text" value={prefix} autoFocus onChange={(e) => setPrefix(e.target.value)} placeholder="ACME" />
      </label>
      <button type="submit" className="btn btn-small">
        Save
      </button>
      <button type="button" className="btn btn-small" onClick={() => void save(null)}>
        Not Bates-stamped
      </button>
      <button type="button" className="btn btn-ghost btn-small" onClick={() => setOpen(false)}>
        Cancel
      </button>
      {error && (
        <p className="error small" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

/** "OCR" on a file read by OCR; amber, saying "check the original", where a page was read with under 80% confidence. */
function OcrBadge({ version, reason }: { version: FileInfo['versions'][number] | undefined; reason: string }) {
  const pages = version?.ocr_pages;
  if (!pages?.length) return null;
  const low = pages.some((p) => p.confidence < LOW_OCR_CONFIDENCE);
  const note = reason.split('; ').filter((r) => r.startsWith('read by OCR') || r.includes('check the original')).join('; ') || `read by OCR: ${plural(pages.length, 'page')}`;
  return (
    // role img: a short badge with a name of its own (the reason's own note stays the row's only note).
    <span
      role="img"
      className={`badge ${low ? 'badge-warn' : ''}`}
      title={note}
      aria-label={low ? `OCR, check the original: ${note}` : `OCR: ${note}`}
      data-ocr={low ? 'low' : 'ok'}
    >
      OCR{low ? ' · check the original' : ''}
    </span>
  );
}

function FolderRow({ row }: { row: Row & { kind: 'folder' } }) {
  const { props, nav } = useRowProps(row, `${row.node.name} (${row.count})`, { enter: () => nav.setOpen(row.key, !row.open) });
  return (
    <div {...props} className="doc-row folder">
      <div role="gridcell" className="col-name folder-name" aria-colspan={COLUMNS.length} style={{ paddingLeft: `${row.depth * 1}rem` }} onClick={() => nav.setOpen(row.key, !row.open)}>
        <span className="chev" aria-hidden="true">
          {row.open ? '▾' : '▸'}
        </span>{' '}
        <bdi>{visibleName(row.node.name)}</bdi> <span className="muted small">({row.count})</span>
      </div>
    </div>
  );
}

function countFiles(node: TreeNode): number {
  return node.files.length + node.folders.reduce((n, f) => n + countFiles(f), 0);
}

/** The tree as the rows shown, in order: an open folder's rows (and an open email's attachments) follow it, a level deeper. */
function treeRows(tree: TreeNode, collapsed: ReadonlySet<string>): Row[] {
  const out: Row[] = [];
  const inside = tree.inside ?? new Map<string, FileInfo[]>();
  const add = (folders: TreeNode[], files: FileInfo[], depth: number, parent: string | null) => {
    const setsize = folders.length + files.length;
    let pos = 0;
    for (const node of folders) {
      const key = `d:${node.path}`;
      const open = !collapsed.has(key);
      out.push({ kind: 'folder', key, depth, parent, open, posinset: ++pos, setsize, node, count: countFiles(node) });
      if (open) add(node.folders, node.files, depth + 1, key);
    }
    for (const file of files) {
      const key = `f:${file.id}`;
      const held = inside.get(file.id) ?? [];
      const open = !collapsed.has(key);
      out.push({ kind: 'file', key, depth, parent, open, posinset: ++pos, setsize, file, children: held.length });
      if (held.length && open) add([], held, depth + 1, key);
    }
  };
  add(tree.folders, tree.files, 0, null);
  return out;
}

/** The row a key press moves to from `from`, or null (see TreeNav for the keys). */
function moveTarget(items: HTMLElement[], from: HTMLElement, key: string, setOpen: (key: string, open: boolean) => void): HTMLElement | null | undefined {
  const i = items.indexOf(from);
  const expanded = from.getAttribute('aria-expanded');
  switch (key) {
    case 'ArrowDown':
      return items[i + 1] ?? null;
    case 'ArrowUp':
      return items[i - 1] ?? null;
    case 'Home':
      return items[0] ?? null;
    case 'End':
      return items[items.length - 1] ?? null;
    case 'ArrowRight':
      if (expanded === 'false') setOpen(from.dataset.key!, true);
      return expanded === 'true' ? (items[i + 1] ?? null) : null;
    case 'ArrowLeft':
      if (expanded === 'true') {
        setOpen(from.dataset.key!, false);
        return null;
      }
      return items.find((el) => el.dataset.key === from.dataset.parent) ?? null;
    default:
      return undefined;
  }
}

/** The table's columns; the narrower the pane, the fewer shown (pages, then date, then type move under the name). */
const COLUMNS: { key: SortKey; label: string }[] = [
  { key: 'name', label: 'Name' },
  { key: 'type', label: 'Type' },
  { key: 'date', label: 'Date' },
  { key: 'pages', label: 'Pages' },
  { key: 'status', label: 'Status' },
];

/** The header row: a click on a column sorts by it, a second click reverses; the name's column also sorts by title. */
function HeaderRow({ sort, onSort }: { sort: DocSort; onSort: (sort: DocSort) => void }) {
  const button = (key: SortKey, label: string) => (
    <button type="button" className="doc-sort" aria-pressed={sort.key === key} onClick={() => onSort({ key, dir: sort.key === key && sort.dir === 'ascending' ? 'descending' : 'ascending' })}>
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
function DocGrid({ caseId, tree, sort, onSort }: { caseId: string; tree: TreeNode; sort: DocSort; onSort: (sort: DocSort) => void }) {
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
      <div className="doc-grid" role="treegrid" aria-label="Documents of this case" aria-multiselectable="true" ref={ref} onKeyDown={onKeyDown}>
        <HeaderRow sort={sort} onSort={onSort} />
        {rows.map((row) => (row.kind === 'folder' ? <FolderRow key={row.key} row={row} /> : <FileRow key={row.key} caseId={caseId} row={row} />))}
      </div>
    </NavContext.Provider>
  );
}

/** Filters of the list: words of the name, a type, a date range, a status group. */
function DocFilters({ files, filter, onFilter }: { files: FileInfo[]; filter: DocFilter; onFilter: (f: DocFilter) => void }) {
  const types = [...new Set(files.map((f) => f.type))].sort();
  const set = (patch: Partial<DocFilter>) => onFilter({ ...filter, ...patch });
  return (
    <div className="doc-filters" role="group" aria-label="Filter documents">
      <input type="search" aria-label="Filter by name" placeholder="Filter by name…" value={filter.text} onChange={(e) => set({ text: e.target.value })} />
      <select aria-label="Type" value={filter.type} onChange={(e) => set({ type: e.target.value })}>
        <option value="">All types</option>
        {types.map((t) => (
          <option key={t} value={t}>
            {TYPE_LABEL[t] ?? t}
          </option>
        ))}
      </select>
      <select aria-label="Status" value={filter.status} onChange={(e) => set({ status: e.target.value as DocFilter['status'] })}>
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

const NONE: { name: string; reason: string }[] = [];

export function Documents({ caseId, onAdd }: { caseId: string; onAdd: (items: DroppedItems) => void }) {
  const files = useDocuments((s) => (s.caseId === caseId ? s.files : []));
  const loading = useDocuments((s) => s.loading);
  const error = useDocuments((s) => s.error);
  const progress = useDocuments((s) => s.progress[caseId] ?? null);
  const upload = useDocuments((s) => s.upload);
  const pending = useDocuments((s) => s.pending[caseId] ?? 0);
  const resume = useDocuments((s) => s.resume);
  const skipped = useDocuments((s) => s.skipped[caseId] ?? NONE);
  const toast = useUi((s) => s.toast);
  const load = useDocuments((s) => s.load);
  const fileInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);
  const [sort, setSort] = useState<DocSort>({ key: 'name', dir: 'ascending' });
  const [filter, setFilter] = useState<DocFilter>(NO_FILTER);

  useEffect(() => {
    void load(caseId);
    setFilter(NO_FILTER);
  }, [caseId, load]);

  // Ticks and chosen documents kept from before a reload lose the files removed since.
  const listed = useDocuments((s) => s.caseId === caseId && !s.loading && !s.error);
  const chatCase = useChat((s) => s.caseId);
  useEffect(() => {
    if (listed && chatCase === caseId) useChat.getState().keepOnly(caseId, new Set(files.map((f) => f.id)));
  }, [caseId, chatCase, listed, files]);

  useEffect(() => {
    // React has no typed prop for these non-standard attributes.
    folderInput.current?.setAttribute('webkitdirectory', '');
    folderInput.current?.setAttribute('directory', '');
  }, []);

  const shown = filterFiles(files, filter);
  const filtered = (Object.keys(NO_FILTER) as (keyof DocFilter)[]).some((k) => filter[k] !== NO_FILTER[k]);
  const tree = buildTree(shown, compareFiles(sort));
  const problems = files.filter(needsAttention).length;
  const pick = (list: FileList | null) => {
    const items = list ? itemsFromInput(list) : null;
    if (items) onAdd(items);
  };
  return (
    <section className="pane pane-docs" aria-label="Documents">
      <div className="pane-title">
        <h2>
          Documents <span className="muted small">{files.length > 0 ? `${files.length}` : ''}</span>
        </h2>
        <span className="pane-actions">
          <button type="button" className="btn btn-small" onClick={() => fileInput.current?.click()}>
            Add files…
          </button>
          <button type="button" className="btn btn-small" onClick={() => folderInput.current?.click()}>
            Add folder…
          </button>
        </span>
      </div>
      <input
        ref={fileInput}
        type="file"
        multiple
        hidden
        aria-label="Choose files to add"
        onChange={(e) => {
          pick(e.target.files);
          e.target.value = '';
        }}
      />
      <input
        ref={folderInput}
        type="file"
        hidden
        aria-label="Choose a folder to add"
        onChange={(e) => {
          pick(e.target.files);
          e.target.value = '';
        }}
      />
      {upload && (
        <div className="ingest-progress" role="status">
          Uploading {upload.done} of {plural(upload.total, 'file')}…
          <progress max={upload.total} value={upload.done} />
        </div>
      )}
      {progress && <OverallProgress caseId={caseId} progress={progress} />}
      <VectorsCatchUp caseId={caseId} />
      {skipped.length > 0 && (
        <details className="ingest-progress ingest-skipped" role="status" aria-label="Not added">
          <summary>Not added: {plural(skipped.length, 'item')} (links out of the folder, pipes, devices)</summary>
          <ul className="small">
            {skipped.map((k) => (
              <li key={k.name}>
                <bdi>{visibleName(k.name)}</bdi> — {k.reason}
              </li>
            ))}
          </ul>
        </details>
      )}
      {!progress && pending > 0 && (
        <div className="ingest-progress ingest-pending" role="status" aria-label="Unfinished documents">
          <div className="ingest-progress-line">
            <span>{plural(pending, 'document')} were not finished (the app was closed or the run was cancelled).</span>
            <button type="button" className="btn btn-small" onClick={() => resume(caseId).catch((err) => toast('error', errorMessage(err)))}>
              Resume
            </button>
          </div>
        </div>
      )}
      {files.length > 0 && <DocFilters files={files} filter={filter} onFilter={setFilter} />}
      <div className="pane-scroll">
        {error && (
          <p className="pad error" role="alert">
            {error}
          </p>
        )}
        {!loading && files.length === 0 && !progress && !error && (
          <div className="dropzone-hint">
            <p>
              <strong>Drop a case folder here</strong>
            </p>
            <p className="muted">PDF, Word (DOCX) and text files, in folders of any depth. Or use “Add folder…”.</p>
          </div>
        )}
        {files.length > 0 && shown.length === 0 && (
          <p className="pad muted" role="status">
            No document matches these filters.{' '}
            <button type="button" className="link link-inline" onClick={() => setFilter(NO_FILTER)}>
              Show all documents
            </button>
          </p>
        )}
        {shown.length > 0 && <DocGrid caseId={caseId} tree={tree} sort={sort} onSort={setSort} />}
      </div>
      <SelectionBar files={files} />
      {files.length > 0 && (
        <div className="pane-foot muted small">
          {filtered ? `${shown.length} of ${plural(files.length, 'file')}` : plural(files.length, 'file')}
          {problems > 0 && (
            <>
              {' · '}
              <button type="button" className="link link-inline" onClick={() => setFilter({ ...NO_FILTER, status: 'attention' })}>
                {plural(problems, 'file')} {problems === 1 ? 'needs' : 'need'} attention
              </button>
            </>
          )}
          {filtered && (
            <>
              {' · '}
              <button type="button" className="link link-inline" onClick={() => setFilter(NO_FILTER)}>
                Show all
              </button>
            </>
          )}
        </div>
      )}
    </section>
  );
}
