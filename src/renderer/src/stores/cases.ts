import { create } from 'zustand';
import type { CaseSummary } from '../../../shared/contract/index';
import { api, errorMessage } from '../api/index';

interface CasesState {
  cases: CaseSummary[];
  loaded: boolean;
  error: string | null;
  /** Filter typed in the sidebar search box. */
  query: string;
  selectedId: string | null;
  load(): Promise<void>;
  setQuery(query: string): void;
  select(id: string | null): void;
  create(name: string): Promise<CaseSummary>;
  rename(id: string, name: string): Promise<void>;
  remove(id: string): Promise<void>;
  /** Whether (and in which language) a case's scanned pages are read; the list reloads after. */
  setOcr(caseId: string, input: { enabled?: boolean; language?: string }): Promise<void>;
  /** Whether a case's dates like 03/04/2020 are day first; the list reloads after. */
  setDateOrder(caseId: string, dayFirst: boolean): Promise<void>;
  /** The folders a case follows, and whether it follows them; the list reloads after. */
  setWatch(caseId: string, input: { enabled?: boolean; folders?: string[] }): Promise<void>;
}

export const useCases = create<CasesState>((set, get) => ({
  cases: [],
  loaded: false,
  error: null,
  query: '',
  selectedId: null,
  async load() {
    try {
      const { cases } = await api.call('cases.list', {});
      const selected = get().selectedId;
      set({
        cases,
        loaded: true,
        error: null,
        selectedId: selected && cases.some((c) => c.id === selected) ? selected : null,
      });
    } catch (err) {
      set({ loaded: true, error: errorMessage(err) });
    }
  },
  setQuery(query) {
    set({ query });
  },
  select(id) {
    set({ selectedId: id });
  },
  async create(name) {
    const created = await api.call('cases.create', { name });
    set((s) => ({ cases: [created, ...s.cases.filter((c) => c.id !== created.id)], selectedId: created.id }));
    return created;
  },
  async rename(id, name) {
    const renamed = await api.call('cases.rename', { case_id: id, name });
    set((s) => ({ cases: s.cases.map((c) => (c.id === id ? renamed : c)) }));
  },
  async remove(id) {
    await api.call('cases.delete', { case_id: id });
    set((s) => ({ cases: s.cases.filter((c) => c.id !== id), selectedId: s.selectedId === id ? null : s.selectedId }));
  },
  async setOcr(caseId, input) {
    await api.call('cases.setOcr', { case_id: caseId, ...input });
    await get().load();
  },
  async setDateOrder(caseId, dayFirst) {
    await api.call('cases.setDateOrder', { case_id: caseId, day_first: dayFirst });
    await get().load();
  },
  async setWatch(caseId, input) {
    await api.call('cases.setWatch', { case_id: caseId, ...input });
    await get().load();
  },
}));

/** Cases matching the sidebar search (case-insensitive substring of the name). */
export function filterCases(cases: CaseSummary[], query: string): CaseSummary[] {
  const q = query.trim().toLocaleLowerCase();
  return q ? cases.filter((c) => c.name.toLocaleLowerCase().includes(q)) : cases;
}

let subscribed = false;
/** Keep the list current when any window or shell changes cases. */
export function watchCases(): () => void {
  if (subscribed) return () => {};
  subscribed = true;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const off = api.on('cases.changed', () => {
    clearTimeout(timer);
    timer = setTimeout(() => void useCases.getState().load(), 100);
  });
  return () => {
    subscribed = false;
    clearTimeout(timer);
    off();
  };
}
