import { create } from 'zustand';
import { useShallow } from 'zustand/react/shallow';
import type { AppInfo } from '../../../shared/contract/index';
import { api } from '../api/index';
import type { RetrievalDefaults } from '../../../shared/contract/chat';
import { AGENT_MAX_STEPS, AGENT_TOP_K_MAX } from '../../../shared/retrieval';

/** Retrieval and agent parameters the user sets in Settings; sent with each search and turn (see `agentRetrieval`). */
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
export const DEFAULTS: RetrievalSettings = {
  topK: 10,
  threshold: null,
  rerankTopN: null,
  maxSteps: AGENT_MAX_STEPS,
  mode: 'hybrid',
  model: '',
};

/**
 * The retrieval defaults a chat turn carries: only the values the user changed from their defaults,
 * so an untouched Settings screen leaves the agent its own (8 passages a search, no threshold, no
 * reranking). The threshold is measured in the search mode's scores, so it applies to the agent's
 * searches of that mode only.
 */
export function agentRetrieval(s: RetrievalSettings): RetrievalDefaults | undefined {
  const out: RetrievalDefaults = {};
  if (Number.isInteger(s.topK) && s.topK !== DEFAULTS.topK) out.top_k = Math.max(1, Math.min(AGENT_TOP_K_MAX, s.topK));
  if (s.threshold !== null && Number.isFinite(s.threshold)) {
    out.score_threshold = s.threshold;
    out.score_threshold_mode = s.mode;
  }
  if (s.rerankTopN !== null && Number.isFinite(s.rerankTopN))
    out.rerank_top_n = Math.max(1, Math.min(200, Math.round(s.rerankTopN)));
  return Object.keys(out).length ? out : undefined;
}

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
  /** What Settings shows of the app: its version, data folder and OCR languages (not a setting: never saved). */
  appInfo(): Promise<AppInfo>;
}

export const useSettings = create<SettingsState>((set, get) => ({
  ...loadSettings(),
  update(patch) {
    set(patch);
    const { update: _u, reset: _r, appInfo: _i, ...values } = get();
    try {
      globalThis.localStorage?.setItem(KEY, JSON.stringify(values));
    } catch {
      // storage full or disabled: settings last for this session only
    }
  },
  reset() {
    get().update(DEFAULTS);
  },
  appInfo() {
    return api.call('app.info', {});
  },
}));

/** The retrieval settings alone (no actions), as one object that changes only when a setting does. */
export function useRetrievalSettings(): RetrievalSettings {
  return useSettings(
    useShallow(
      (s): RetrievalSettings => ({
        topK: s.topK,
        threshold: s.threshold,
        rerankTopN: s.rerankTopN,
        maxSteps: s.maxSteps,
        mode: s.mode,
        model: s.model,
      }),
    ),
  );
}
