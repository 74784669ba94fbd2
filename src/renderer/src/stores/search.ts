import { create } from 'zustand';
import type { SearchResponse } from '../../../shared/contract/search';
import { api, errorMessage } from '../api/index';
import { useSettings } from './settings';

interface SearchState {
  caseId: string | null;
  query: string;
  response: SearchResponse | null;
  running: boolean;
  error: string | null;
  open: boolean;
  run(caseId: string, query: string): Promise<void>;
  close(): void;
}

export const useSearch = create<SearchState>((set, get) => ({
  caseId: null,
  query: '',
  response: null,
  running: false,
  error: null,
  open: false,
  async run(caseId, query) {
    const q = query.trim();
    if (!q) return;
    const s = useSettings.getState();
    set({ caseId, query: q, running: true, error: null, open: true });
    try {
      const response = await api.call('search', {
        caseId,
        query: q,
        mode: s.mode,
        k: s.topK,
        ...(s.threshold !== null ? { score_threshold: s.threshold } : {}),
        ...(s.rerankTopN !== null ? { rerank_top_n: s.rerankTopN } : {}),
      });
      if (get().query === q) set({ response, running: false });
    } catch (err) {
      if (get().query === q) set({ running: false, error: errorMessage(err), response: null });
    }
  },
  close() {
    set({ open: false, response: null, query: '', error: null });
  },
}));
