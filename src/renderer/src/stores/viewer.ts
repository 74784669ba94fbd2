import { create } from 'zustand';
import type { CitationRecord } from '../../../shared/contract/search';
import type { FileVersionInfo } from '../../../shared/contract/ingest';
import type { PageImage, Passage } from '../../../shared/contract/viewer';
import { api, errorMessage } from '../api/index';
import { useDocuments } from './documents';

/** A range of a document: whole-document character offsets and the pages they touch. */
export interface SourceRange {
  start: number;
  end: number;
  pages: number[];
}

/** What a citation chip or search result points at: a citation record's place (its id aside). */
export interface SourceRef extends Omit<CitationRecord, 'id'> {
  /** Citation id or label shown in the viewer's title. */
  label?: string;
  kind?: FileVersionInfo['kind'] | undefined;
  /**
   * A chip opens on the supporting words (start/end/pages above); `whole` is the whole cited
   * passage, one click away ("Show the whole passage"), and back again.
   */
  whole?: SourceRange;
}

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
  open(source: SourceRef): void;
  /** Mark the whole cited passage or only the supporting words (a source with `whole`). */
  setScope(scope: ViewerScope): void;
  close(): void;
  goto(page: number): void;
  setZoom(zoom: number): void;
}

/** What the DOCX view needs: the HTML and the ingest text the span's offsets refer to. */
export interface DocxSource {
  html: string;
  text: string;
}

let request = 0;

/** The DOCX's HTML and text (files.read); null when there is none or it cannot be read (the passage is shown as text then). */
async function fetchDocx(caseId: string, fileId: string, version: number): Promise<DocxSource | null> {
  try {
    const content = await api.call('files.read', { caseId, fileId, version });
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

/** The range the viewer marks now: the source's own, or its whole passage in scope `whole`. */
export function shownRange(source: SourceRef, scope: ViewerScope): SourceRange {
  return scope === 'whole' && source.whole ? source.whole : { start: source.start, end: source.end, pages: source.pages };
}

async function fetchView(caseId: string, ref: SourceRef, page: number, zoom: number) {
  const source = { ...ref, ...shownRange(ref, useViewer.getState().scope) };
  const id = ++request;
  useViewer.setState({ loading: true, error: null });
  try {
    const hasSpan = source.end > source.start;
    // An image is shown as pages too (the engine draws it as the PDF it reads it as).
    const kind = kindOf(source);
    if (kind === 'pdf' || kind === 'image') {
      const image = await api.call('citations.page', {
        caseId,
        fileId: source.file_id,
        version: source.version,
        page,
        // Sharp at the pane's width on ordinary and HiDPI screens, capped by the op's limit.
        scale: Math.min(4, Math.max(0.5, zoom * (globalThis.devicePixelRatio > 1 ? 2.5 : 1.5))),
        ...(hasSpan ? { start: source.start, end: source.end } : {}),
      });
      if (id === request) useViewer.setState({ image, passage: null, docx: null, loading: false, page: image.page });
    } else {
      const passage = await api.call('citations.passage', {
        caseId,
        fileId: source.file_id,
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
  open(source) {
    const caseId = useDocuments.getState().caseId;
    if (!caseId) return;
    const page = source.pages[0] ?? 1;
    set({ caseId, source, page, image: null, passage: null, docx: null, scope: 'support' });
    void fetchView(caseId, source, page, get().zoom);
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
    set({ source: null, image: null, passage: null, docx: null, error: null, loading: false, scope: 'support' });
  },
  goto(page) {
    const { caseId, source, zoom, image } = get();
    if (!caseId || !source) return;
    const max = image?.page_count ?? page;
    const target = Math.max(1, Math.min(max, page));
    set({ page: target });
    void fetchView(caseId, source, target, zoom);
  },
  setZoom(zoom) {
    const { caseId, source, page } = get();
    const z = Math.max(0.5, Math.min(3, zoom));
    set({ zoom: z });
    if (caseId && source) void fetchView(caseId, source, page, z);
  },
}));
