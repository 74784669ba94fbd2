/** The documents pane of a case: adding documents, what is going in, the filters, the table and its count. */
import { useEffect, useRef, useState, type ChangeEvent } from 'react';
import type { FileInfo } from '../../../../shared/contract/ingest';
import { readFileTypesText } from '../../../../shared/file-types';
import {
  buildTree,
  compareFiles,
  filterFiles,
  needsAttention,
  NO_FILTER,
  type DocFilter,
  type DocSort,
} from '../../lib/document-tree';
import { plural } from '../../lib/display-format';
import { itemsFromInput, type DroppedItems } from '../../lib/dropped-items';
import { useChat } from '../../stores/chat';
import { useDocuments } from '../../stores/documents';
import { SelectionBar } from '../AskAbout';
import { DocFilters } from './DocFilters';
import { DocGrid } from './DocGrid';
import { IngestNotices } from './Notices';

const NO_FILES: FileInfo[] = [];

/** The pane's title with "Add files…" and "Add folder…", and the hidden file inputs they open. */
function DocumentsTitle({ count, onAdd }: { count: number; onAdd: (items: DroppedItems) => void }) {
  const fileInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);
  useEffect(() => {
    // React has no typed prop for these non-standard attributes.
    folderInput.current?.setAttribute('webkitdirectory', '');
    folderInput.current?.setAttribute('directory', '');
  }, []);
  const pick = (e: ChangeEvent<HTMLInputElement>) => {
    const items = e.target.files ? itemsFromInput(e.target.files) : null;
    if (items) onAdd(items);
    e.target.value = '';
  };
  return (
    <>
      <div className="pane-title">
        <h2>
          Documents <span className="muted small">{count > 0 ? `${count}` : ''}</span>
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
      <input ref={fileInput} type="file" multiple hidden aria-label="Choose files to add" onChange={pick} />
      <input ref={folderInput} type="file" hidden aria-label="Choose a folder to add" onChange={pick} />
    </>
  );
}

/** The pane's foot: how many files are shown, how many need attention, and "Show all" while filtered. */
function DocumentsFoot({
  files,
  shown,
  filtered,
  setFilter,
}: {
  files: FileInfo[];
  shown: number;
  filtered: boolean;
  setFilter: (f: DocFilter) => void;
}) {
  const problems = files.filter(needsAttention).length;
  return (
    <div className="pane-foot muted small">
      {filtered ? `${shown} of ${plural(files.length, 'file')}` : plural(files.length, 'file')}
      {problems > 0 && (
        <>
          {' · '}
          <button
            type="button"
            className="link link-inline"
            onClick={() => setFilter({ ...NO_FILTER, status: 'attention' })}
          >
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
  );
}

/** The list itself, or why there is none: an error, the drop hint of an empty case, no match for the filters. */
function DocumentsList({
  caseId,
  files,
  filter,
  setFilter,
  sort,
  setSort,
}: {
  caseId: string;
  files: FileInfo[];
  filter: DocFilter;
  setFilter: (f: DocFilter) => void;
  sort: DocSort;
  setSort: (sort: DocSort) => void;
}) {
  const loading = useDocuments((s) => s.loading);
  const error = useDocuments((s) => s.error);
  const busy = useDocuments((s) => Boolean(s.progress[caseId]));
  const shown = filterFiles(files, filter);
  return (
    <div className="pane-scroll">
      {error && (
        <p className="pad error" role="alert">
          {error}
        </p>
      )}
      {!loading && files.length === 0 && !busy && !error && (
        <div className="dropzone-hint">
          <p>
            <strong>Drop a case folder here</strong>
          </p>
          <p className="muted">{readFileTypesText()}, in folders of any depth. Or use “Add folder…”.</p>
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
      {shown.length > 0 && (
        <DocGrid caseId={caseId} tree={buildTree(shown, compareFiles(sort))} sort={sort} onSort={setSort} />
      )}
    </div>
  );
}

/** Ticks and chosen documents kept from before a reload lose the files removed since. */
function useKeepChosen(caseId: string, files: FileInfo[]): void {
  const listed = useDocuments((s) => s.caseId === caseId && !s.loading && !s.error);
  const chatCase = useChat((s) => s.caseId);
  const keepOnly = useChat((s) => s.keepOnly);
  useEffect(() => {
    if (listed && chatCase === caseId) keepOnly(caseId, new Set(files.map((f) => f.id)));
  }, [caseId, chatCase, listed, files, keepOnly]);
}

export function Documents({ caseId, onAdd }: { caseId: string; onAdd: (items: DroppedItems) => void }) {
  const files = useDocuments((s) => (s.caseId === caseId ? s.files : NO_FILES));
  const load = useDocuments((s) => s.load);
  const [filter, setFilter] = useState<DocFilter>(NO_FILTER);
  // One order for the column headers and the sort menu.
  const [sort, setSort] = useState<DocSort>({ key: 'name', dir: 'ascending' });
  useEffect(() => {
    void load(caseId);
    setFilter(NO_FILTER);
  }, [caseId, load]);
  useKeepChosen(caseId, files);
  const filtered = (Object.keys(NO_FILTER) as (keyof DocFilter)[]).some((k) => filter[k] !== NO_FILTER[k]);
  return (
    <section className="pane pane-docs" aria-label="Documents">
      <DocumentsTitle count={files.length} onAdd={onAdd} />
      <IngestNotices caseId={caseId} />
      {files.length > 0 && (
        <DocFilters files={files} filter={filter} onFilter={setFilter} sort={sort} onSort={setSort} />
      )}
      <DocumentsList
        caseId={caseId}
        files={files}
        filter={filter}
        setFilter={setFilter}
        sort={sort}
        setSort={setSort}
      />
      <SelectionBar files={files} />
      {files.length > 0 && (
        <DocumentsFoot
          files={files}
          shown={filterFiles(files, filter).length}
          filtered={filtered}
          setFilter={setFilter}
        />
      )}
    </section>
  );
}
