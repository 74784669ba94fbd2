import { create } from 'zustand';
import type { SearchResponse } from '../../../shared/contract/search';
import { api, errorMessage } from '../api/index';
import { useSettings } from './settings';

/** A document a search is limited to ("Ask about these": the documents of the chip above the chat input). */
export interface SearchDoc {
  file_id: string;
  file_name: string;
}

interface SearchState {
  caseId: string | null;
  query: string;
  response: SearchResponse | null;
  running: boolean;
  error: string | null;
  open: boolean;
  /** false after "Search all documents": the same query over the whole case, no focus. */
  focus: boolean;
  /** The documents the search was limited to, or null for the whole case. */
  limitedTo: SearchDoc[] | null;
  run(caseId: string, query: string, options?: { focus?: boolean; files?: SearchDoc[] | null }): Promise<void>;
  close(): void;
}

export const useSearch = create<SearchState>((set, get) => ({
  caseId: null,
  query: '',
  response: null,
  running: false,
  error: null,
  open: false,
  focus: true,
  limitedTo: null,
  async run(caseId, query, options = {}) {
    const q = query.trim();
    if (!q) return;
    const s = useSettings.getState();
    const focus = options.focus ?? true;
    const files = options.files?.length ? options.files : null;
    set({ caseId, query: q, running: true, error: null, open: true, focus, limitedTo: files });
    try {
      const response = await api.call('search', {
        case_id: caseId,
        query: q,
        mode: s.mode,
        k: s.topK,
        ...(focus ? {} : { focus: 'off' as const }),
        ...(files ? { file_ids: files.map((f) => f.file_id) } : {}),
        ...(s.threshold !== null ? { score_threshold: s.threshold } : {}),
        ...(s.rerankTopN !== null ? { rerank_top_n: s.rerankTopN } : {}),
      });
      if (get().query === q && get().focus === focus && get().limitedTo === files) set({ response, running: false });
    } catch (err) {
      if (get().query === q) set({ running: false, error: errorMessage(err), response: null });
    }
  },
  close() {
    set({ open: false, response: null, query: '', error: null, limitedTo: null });
  },
}));
