import { create } from 'zustand';

/** Retrieval and agent parameters the user sets in Settings; sent with each search and turn. */
export interface RetrievalSettings {
  topK: number;
  /** Minimum score to keep a result; null = no threshold. */
  threshold: number | null;
  /** Rerank the top N fused results (when a reranker is installed); null = off. */
  rerankTopN: number | null;
  maxSteps: number;
  mode: 'hybrid' | 'keyword' | 'vector';
  /** Chat model for new turns; '' = the engine's default. */
  model: string;
}

const KEY = 'casefile.settings.v1';
const DEFAULTS: RetrievalSettings = { topK: 10, threshold: null, rerankTopN: null, maxSteps: 5, mode: 'hybrid', model: '' };

function loadSettings(): RetrievalSettings {
  try {
    const raw = globalThis.localStorage?.getItem(KEY);
    return raw ? { ...DEFAULTS, ...(JSON.parse(raw) as Partial<RetrievalSettings>) } : DEFAULTS;
  } catch {
    return DEFAULTS;
  }
}

interface SettingsState extends RetrievalSettings {
  update(patch: Partial<RetrievalSettings>): void;
  reset(): void;
}

export const useSettings = create<SettingsState>((set, get) => ({
  ...loadSettings(),
  update(patch) {
    set(patch);
    const { update: _u, reset: _r, ...values } = get();
    try {
      globalThis.localStorage?.setItem(KEY, JSON.stringify(values));
    } catch {
      // storage full or disabled: settings last for this session only
    }
  },
  reset() {
    get().update(DEFAULTS);
  },
}));
