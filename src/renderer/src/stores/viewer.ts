import { create } from 'zustand';
import type { CitationRecord } from '../../../shared/contract/search';
import type { PageImage, Passage } from '../../../shared/contract/viewer';
import { api, errorMessage } from '../api/index';
import { useDocuments } from './documents';

/** What a citation chip or search result points at: a citation record's place (its id aside). */
export interface SourceRef extends Omit<CitationRecord, 'id'> {
  /** Citation id or label shown in the viewer's title. */
  label?: string;
  kind?: 'pdf' | 'docx' | 'text' | 'unknown' | undefined;
}

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
  open(source: SourceRef): void;
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

async function fetchView(caseId: string, source: SourceRef, page: number, zoom: number) {
  const id = ++request;
  useViewer.setState({ loading: true, error: null });
  try {
    const hasSpan = source.end > source.start;
    if (kindOf(source) === 'pdf') {
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
  open(source) {
    const caseId = useDocuments.getState().caseId;
    if (!caseId) return;
    const page = source.pages[0] ?? 1;
    set({ caseId, source, page, image: null, passage: null, docx: null });
    void fetchView(caseId, source, page, get().zoom);
  },
  close() {
    request++;
    set({ source: null, image: null, passage: null, docx: null, error: null, loading: false });
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
