import { describe, expect, it } from 'vitest';
import { ChatAskInput } from '../../src/shared/contract/chat';
import { agentRetrieval, DEFAULTS } from '../../src/renderer/src/stores/settings';

/** What a chat turn carries from Settings → Search and answers (the renderer's chat store sends it with chat.ask). */
describe('agentRetrieval', () => {
  it('untouched Settings – nothing is sent, so the agent keeps its own defaults', () => {
    expect(agentRetrieval(DEFAULTS)).toBeUndefined();
  });

  it('changed values – top k (at most what the agent takes), the threshold with the mode its scores are in, rerank top N', () => {
    expect(agentRetrieval({ ...DEFAULTS, topK: 3 })).toEqual({ top_k: 3 });
    expect(agentRetrieval({ ...DEFAULTS, topK: 150 })).toEqual({ top_k: 100 });
    expect(agentRetrieval({ ...DEFAULTS, threshold: 0.4, mode: 'vector' })).toEqual({
      score_threshold: 0.4,
      score_threshold_mode: 'vector',
    });
    expect(agentRetrieval({ ...DEFAULTS, rerankTopN: 20 })).toEqual({ rerank_top_n: 20 });
    // Whatever the Settings screen can hold is a valid chat.ask input.
    for (const s of [
      { ...DEFAULTS, topK: 200, threshold: -1, rerankTopN: 200, mode: 'keyword' as const },
      { ...DEFAULTS, topK: 1 },
    ]) {
      expect(ChatAskInput.safeParse({ case_id: 'c1', question: 'q', retrieval: agentRetrieval(s) }).success).toBe(true);
    }
  });
});
