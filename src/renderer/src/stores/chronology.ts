import { create } from 'zustand';
import type { OpOutput } from '../../../shared/contract/index';
import type { TimelineEvent, TimelineResult } from '../../../shared/contract/search';
import { api, errorMessage } from '../api/index';

export type EventMark = NonNullable<TimelineEvent['mark']>;

export interface ChronologyFilters {
  from: string;
  to: string;
  query: string;
  person: string;
  mark: EventMark | '';
  /** A document's name; a document type. */
  file_name: string;
  doc_type: string;
}

const NO_FILTERS: ChronologyFilters = {
  from: '',
  to: '',
  query: '',
  person: '',
  mark: '',
  file_name: '',
  doc_type: '',
};

interface ChronologyState {
  caseId: string | null;
  open: boolean;
  filters: ChronologyFilters;
  result: TimelineResult | null;
  loading: boolean;
  error: string | null;
  show(caseId: string): void;
  close(): void;
  setFilters(change: Partial<ChronologyFilters>): void;
  load(): Promise<void>;
  /** Mark an event (null clears the mark) and/or set its note; the list shows it at once. */
  mark(key: string, change: { mark?: EventMark | null; note?: string }): Promise<void>;
  /** The case's chronology as the filters show it, as CSV or a Word document. */
  exportAs(caseId: string, format: 'csv' | 'docx'): Promise<OpOutput<'tools.timelineExport'>>;
}

/** The filters as the operation takes them (empty ones left out). */
export function filterInput(f: ChronologyFilters): Record<string, string> {
  return Object.fromEntries(Object.entries(f).filter(([, v]) => v !== ''));
}

let request = 0;
/** The marks and notes being saved, in order: a list read while one is on its way would lose it. */
let saving: Promise<unknown> = Promise.resolve();

export const useChronology = create<ChronologyState>((set, get) => ({
  caseId: null,
  open: false,
  filters: NO_FILTERS,
  result: null,
  loading: false,
  error: null,
  show(caseId) {
    const same = get().caseId === caseId;
    set({ caseId, open: true, ...(same ? {} : { filters: NO_FILTERS, result: null }) });
    void get().load();
  },
  close() {
    set({ open: false });
  },
  setFilters(change) {
    set({ filters: { ...get().filters, ...change } });
    void get().load();
  },
  async load() {
    const { caseId, filters } = get();
    if (!caseId) return;
    const id = ++request;
    set({ loading: true, error: null });
    try {
      await saving;
      const result = await api.call('tools.timeline', { case_id: caseId, ...filterInput(filters), limit: 5000 });
      if (id === request) set({ result, loading: false });
    } catch (err) {
      if (id === request) set({ loading: false, error: errorMessage(err) });
    }
  },
  exportAs(caseId, format) {
    return api.call('tools.timelineExport', { case_id: caseId, format, ...filterInput(get().filters) });
  },
  async mark(key, change) {
    const { caseId } = get();
    if (!caseId) return;
    const call = saving.then(() => api.call('tools.timelineMark', { case_id: caseId, key, ...change }));
    saving = call.catch(() => undefined);
    try {
      const saved = await call;
      // The list as it is now: a filter changed while the mark was saved must not be undone.
      const { result } = get();
      if (!result || get().caseId !== caseId) return;
      const events = result.events.map((e) => {
        if (e.key !== key) return e;
        const { mark: _m, note: _n, ...rest } = e;
        return { ...rest, ...(saved.mark ? { mark: saved.mark } : {}), ...(saved.note ? { note: saved.note } : {}) };
      });
      set({ result: { ...result, events } });
    } catch (err) {
      set({ error: errorMessage(err) });
    }
  },
}));
