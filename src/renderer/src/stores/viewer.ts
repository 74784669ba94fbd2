import { create, type StoreApi } from 'zustand';
import type { FileContent } from '../../../shared/contract/ingest';
import type { PageImage, PageWords, Passage } from '../../../shared/contract/viewer';
import type { SourceRange, SourceRef } from '../lib/source-ref';
import { findHits, phrasePattern, queryTerms, termPattern, type Hit } from '../lib/viewer-find';
import { api, errorMessage } from '../api/index';
import { useDocuments } from './documents';
import { remember, remembered } from '../lib/window-storage';

export type { SourceRef } from '../lib/source-ref';

/** Words found in the document: the search's terms or a phrase typed in the find box. */
export interface FindState {
  open: boolean;
  query: string;
  /** `terms`: the words of a search query; `phrase`: the find box's text as typed. */
  mode: 'terms' | 'phrase';
  hits: Hit[];
  /** Index of the current hit, -1 before the first. */
  current: number;
}

/** The document's text and page ranges (files.read), for find and for quoting. */
export type DocText = Pick<FileContent, 'text' | 'pages'>;

/** What the viewer marks: the supporting words the source opened on, or the whole cited passage. */
export type ViewerScope = 'support' | 'whole';

interface ViewerState {
  caseId: string | null;
  source: SourceRef | null;
  page: number;
  zoom: number;
  image: PageImage | null;
  passage: Passage | null;
  /** For a DOCX passage: the document's HTML (as mammoth rendered it at ingest) and its text, to show the span in place. */
  docx: DocxSource | null;
  loading: boolean;
  error: string | null;
  /** `whole` after "Show the whole passage" (only for a source with `whole`). */
  scope: ViewerScope;
  /** The page's words and boxes (PDF pages), for the text layer and found words; null until read. */
  words: PageWords | null;
  /** The document's text, read once it is needed (find, search terms, quoting). */
  doc: DocText | null;
  find: FindState;
  /** Bumped to put the focus in the find box. */
  findFocus: number;
  /** What the view scrolls to once the page is drawn: the cited words, or the current found word. */
  scrollTo: 'cite' | 'hit';
  /** Bumped when the view should scroll to its target again. */
  scrollTick: number;
  /** Page thumbnails shown (remembered). */
  thumbs: boolean;
  open(source: SourceRef): void;
  /** Mark the whole cited passage or only the supporting words (a source with `whole`). */
  setScope(scope: ViewerScope): void;
  close(): void;
  goto(page: number): void;
  setZoom(zoom: number): void;
  /** The document's text (read once per open document). */
  loadDoc(): Promise<DocText | null>;
  /** A small image of a page of a document, for the thumbnails. */
  thumbnail(caseId: string, fileId: string, version: number, page: number): Promise<PageImage>;
  openFind(): void;
  closeFind(): void;
  /** Find a phrase as typed in the find box. */
  setFindQuery(query: string): void;
  /** Go to the next (1) or previous (-1) hit, across pages. */
  stepHit(dir: 1 | -1): void;
  setThumbs(on: boolean): void;
}

const THUMBS_KEY = 'casefile.viewer.thumbs';

const closedFind: FindState = { open: false, query: '', mode: 'phrase', hits: [], current: -1 };

/** Where the focus was when the viewer opened, and where that element sat, to keep its pane still. */
export const opener: { el: HTMLElement | null; top: number } = { el: null, top: 0 };

/** What the DOCX view needs: the HTML and the ingest text the span's offsets refer to. */
export interface DocxSource {
  html: string;
  text: string;
}

let request = 0;

/** The DOCX's HTML and text (files.read); null when there is none or it cannot be read (the passage is shown as text then). */
async function fetchDocx(caseId: string, fileId: string, version: number): Promise<DocxSource | null> {
  try {
    const content = await api.call('files.read', { case_id: caseId, file_id: fileId, version });
    return content.kind === 'docx' && content.html ? { html: content.html, text: content.text } : null;
  } catch {
    return null;
  }
}

function kindOf(source: SourceRef): string | undefined {
  if (source.kind) return source.kind;
  const file = useDocuments.getState().files.find((f) => f.id === source.file_id);
  return file?.versions.find((v) => v.version === source.version)?.kind;
}

/** Shown as page images (a PDF, or an image read as one); other documents are shown as text, where a found word needs no page change. */
function paged(source: SourceRef): boolean {
  const kind = kindOf(source);
  return kind === 'pdf' || kind === 'image';
}

/** The range the viewer marks now: the source's own, or its whole passage in scope `whole`. */
export function shownRange(source: SourceRef, scope: ViewerScope): SourceRange {
  return scope === 'whole' && source.whole
    ? source.whole
    : { start: source.start, end: source.end, pages: source.pages };
}

/** The page's words for the text layer; none (no layer) when they cannot be read. */
async function fetchWords(caseId: string, source: SourceRef, page: number, id: number) {
  const have = useViewer.getState().words;
  if (have && have.file_id === source.file_id && have.version === source.version && have.page === page) return;
  try {
    const words = await api.call('citations.words', {
      case_id: caseId,
      file_id: source.file_id,
      version: source.version,
      page,
    });
    if (id === request || useViewer.getState().page === page) useViewer.setState({ words });
  } catch {
    if (id === request) useViewer.setState({ words: null });
  }
}

/** Hits of the query in the document; the current one the first at or after character `from`, else on or after `page`. */
function hitsOf(
  doc: DocText,
  query: string,
  mode: FindState['mode'],
  terms: string[] | null,
  page: number,
  from = -1,
): Pick<FindState, 'hits' | 'current'> {
  const hits = findHits(doc.text, doc.pages, mode === 'terms' ? termPattern(terms ?? []) : phrasePattern(query));
  const inside = from >= 0 ? hits.findIndex((h) => h.start >= from && h.page >= page) : -1;
  const here = inside >= 0 ? inside : hits.findIndex((h) => h.page >= page);
  return { hits, current: hits.length ? Math.max(0, here) : -1 };
}

/** Where a document shown as text finds from: its cited words (a paged document finds from its page). */
function textFrom(source: SourceRef | null): number {
  return source && !paged(source) ? source.start : -1;
}

async function fetchView(caseId: string, ref: SourceRef, page: number, zoom: number) {
  const source = { ...ref, ...shownRange(ref, useViewer.getState().scope) };
  const id = ++request;
  useViewer.setState({ loading: true, error: null });
  try {
    const hasSpan = source.end > source.start;
    // An image is shown as pages too (the engine draws it as the PDF it reads it as).
    if (paged(source)) {
      void fetchWords(caseId, source, page, id);
      const image = await api.call('citations.page', {
        case_id: caseId,
        file_id: source.file_id,
        version: source.version,
        page,
        // Sharp at the pane's width on ordinary and HiDPI screens, capped by the op's limit.
        scale: Math.min(4, Math.max(0.5, zoom * (globalThis.devicePixelRatio > 1 ? 2.5 : 1.5))),
        ...(hasSpan ? { start: source.start, end: source.end } : {}),
      });
      if (id === request) useViewer.setState({ image, passage: null, docx: null, loading: false, page: image.page });
    } else {
      const passage = await api.call('citations.passage', {
        case_id: caseId,
        file_id: source.file_id,
        version: source.version,
        start: source.start,
        end: source.end,
        context: hasSpan ? 4000 : 20000,
      });
      const docx = passage.kind === 'docx' ? await fetchDocx(caseId, passage.file_id, passage.version) : null;
      if (id === request) useViewer.setState({ passage, docx, image: null, loading: false });
    }
  } catch (err) {
    if (id === request) useViewer.setState({ loading: false, error: errorMessage(err) });
  }
}

type SetViewer = StoreApi<ViewerState>['setState'];
type GetViewer = StoreApi<ViewerState>['getState'];

/** Opening a source, showing its passage or the whole, and closing it. */
function openActions(set: SetViewer, get: GetViewer): Pick<ViewerState, 'open' | 'setScope' | 'close'> {
  return {
    open(source) {
      const caseId = useDocuments.getState().caseId;
      if (!caseId) return;
      const page = source.pages[0] ?? 1;
      const active = globalThis.document?.activeElement;
      const el =
        active instanceof HTMLElement && active.closest('.pane-scroll') && !active.closest('.pane-viewer')
          ? active
          : null;
      opener.el = el;
      opener.top = el?.getBoundingClientRect().top ?? 0;
      const prev = get().source;
      const sameDoc = prev?.file_id === source.file_id && prev.version === source.version;
      const terms = source.query ? queryTerms(source.query) : [];
      const find: FindState = terms.length
        ? { open: true, query: source.query!, mode: 'terms', hits: [], current: -1 }
        : closedFind;
      set({
        caseId,
        source,
        page,
        image: null,
        passage: null,
        docx: null,
        scope: 'support',
        words: null,
        doc: sameDoc ? get().doc : null,
        find,
        scrollTo: 'cite',
      });
      void fetchView(caseId, source, page, get().zoom);
      if (terms.length)
        void get()
          .loadDoc()
          .then((doc) => {
            if (doc && get().source === source)
              set({ find: { ...get().find, ...hitsOf(doc, source.query!, 'terms', terms, page, source.start) } });
          });
    },
    setScope(scope) {
      const { caseId, source, zoom } = get();
      if (!caseId || !source?.whole || scope === get().scope) return;
      set({ scope });
      const page = shownRange(source, scope).pages[0] ?? get().page;
      set({ page });
      void fetchView(caseId, source, page, zoom);
    },
    close() {
      request++;
      set({
        source: null,
        image: null,
        passage: null,
        docx: null,
        error: null,
        loading: false,
        scope: 'support',
        words: null,
        doc: null,
        find: closedFind,
      });
    },
  };
}

/** Moving in the open source (page, zoom) and reading its whole text. */
function moveActions(set: SetViewer, get: GetViewer): Pick<ViewerState, 'goto' | 'setZoom' | 'loadDoc'> {
  return {
    goto(page) {
      const { caseId, source, zoom, image } = get();
      if (!caseId || !source) return;
      const max = image?.page_count ?? page;
      const target = Math.max(1, Math.min(max, page));
      set({ page: target, scrollTo: 'cite', scrollTick: get().scrollTick + 1 });
      void fetchView(caseId, source, target, zoom);
    },
    setZoom(zoom) {
      const { caseId, source, page } = get();
      const z = Math.max(0.5, Math.min(3, zoom));
      set({ zoom: z });
      if (caseId && source) void fetchView(caseId, source, page, z);
    },
    async loadDoc() {
      const { caseId, source, doc } = get();
      if (doc) return doc;
      if (!caseId || !source) return null;
      try {
        const content = await api.call('files.read', {
          case_id: caseId,
          file_id: source.file_id,
          version: source.version,
        });
        if (get().source?.file_id !== source.file_id || get().source?.version !== source.version) return null;
        const read = {
          text: content.text,
          pages: content.pages.length ? content.pages : [{ page: 1, start: 0, end: content.text.length }],
        };
        set({ doc: read });
        return read;
      } catch (err) {
        set({ error: errorMessage(err) });
        return null;
      }
    },
  };
}

/** Find in the document: the bar, its query's hits, and stepping through them (turning the page when a hit is on another). */
function findActions(
  set: SetViewer,
  get: GetViewer,
): Pick<ViewerState, 'openFind' | 'closeFind' | 'setFindQuery' | 'stepHit'> {
  return {
    openFind() {
      set({ find: { ...get().find, open: true }, findFocus: get().findFocus + 1 });
      void get().loadDoc();
    },
    closeFind() {
      set({ find: closedFind });
    },
    setFindQuery(query) {
      set({ find: { ...get().find, open: true, query, mode: 'phrase', hits: [], current: -1 }, scrollTo: 'hit' });
      void get()
        .loadDoc()
        .then((doc) => {
          if (doc && get().find.query === query)
            set({ find: { ...get().find, ...hitsOf(doc, query, 'phrase', null, get().page, textFrom(get().source)) } });
        });
    },
    stepHit(dir) {
      const { find, page } = get();
      if (!find.hits.length) return;
      const n = find.hits.length;
      const current = find.current < 0 ? (dir === 1 ? 0 : n - 1) : (find.current + dir + n) % n;
      const hit = find.hits[current]!;
      set({ find: { ...find, current }, scrollTo: 'hit', scrollTick: get().scrollTick + 1 });
      const { caseId, source, zoom } = get();
      if (source && paged(source) && hit.page !== page) {
        set({ page: hit.page });
        if (caseId) void fetchView(caseId, source, hit.page, zoom);
      }
    },
  };
}

/** The pane's own choice, remembered (the thumbnails shown or not), and the thumbnails' images. */
function paneActions(set: SetViewer): Pick<ViewerState, 'setThumbs' | 'thumbnail'> {
  return {
    thumbnail(caseId, fileId, version, page) {
      return api.call('citations.page', { case_id: caseId, file_id: fileId, version, page, scale: 0.25 });
    },
    setThumbs(on) {
      set({ thumbs: on });
      remember(THUMBS_KEY, on ? '1' : '0');
    },
  };
}

export const useViewer = create<ViewerState>((set, get) => ({
  caseId: null,
  source: null,
  page: 1,
  zoom: 1,
  image: null,
  passage: null,
  docx: null,
  loading: false,
  error: null,
  scope: 'support',
  words: null,
  doc: null,
  find: closedFind,
  findFocus: 0,
  scrollTo: 'cite',
  scrollTick: 0,
  thumbs: remembered(THUMBS_KEY) === '1',
  ...openActions(set, get),
  ...moveActions(set, get),
  ...findActions(set, get),
  ...paneActions(set),
}));
