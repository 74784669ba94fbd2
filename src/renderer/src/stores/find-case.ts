import { create } from 'zustand';
import type { CaseDetection } from '../../../shared/contract/index';
import { api, errorMessage } from '../api/index';
import { useCases } from './cases';
import { useChat } from './chat';
import type { RetrievalSettings } from './settings';

interface FindCaseState {
  /** The question asked on the home screen while its case is found, or that waits for the user's choice. */
  question: string;
  finding: boolean;
  /** The cases to choose from, when the question fits several about equally. */
  choice: CaseDetection | null;
  error: string | null;
  /** Find the case the question means (`cases.detect`, from the cases' summaries) and ask it there, or offer the choice. */
  ask(question: string, settings: RetrievalSettings): Promise<void>;
  /** Open the case chosen and ask the question in it. */
  askIn(caseId: string, settings: RetrievalSettings): Promise<void>;
  dismiss(): void;
}

export const useFindCase = create<FindCaseState>((set, get) => ({
  question: '',
  finding: false,
  choice: null,
  error: null,
  async ask(question, settings) {
    set({ question, finding: true, choice: null, error: null });
    try {
      const found = await api.call('cases.detect', { question });
      if (found.chosen) await get().askIn(found.chosen, settings);
      else set({ choice: found, finding: false });
    } catch (err) {
      set({ finding: false, error: errorMessage(err) });
    }
  },
  async askIn(caseId, settings) {
    const { question } = get();
    // The case's conversations first, so the question joins its latest one, then the case opens on it.
    await useChat.getState().loadSessions(caseId);
    void useChat.getState().ask(question, settings);
    set({ finding: false, choice: null, question: '' });
    useCases.getState().select(caseId);
  },
  dismiss() {
    set({ choice: null, error: null });
  },
}));
