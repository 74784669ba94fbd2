import { describe, expect, it } from 'vitest';
import { hybridLabel, queryCoverage } from '../../src/core/retrieval/labels';
import { contentWords } from '../../src/core/util/words';

describe('hybrid result labels', () => {
  it('strong only when both searches put the passage at the top and its meaning is close', () => {
    expect(hybridLabel({ keywordRank: 1, vectorRank: 2, cosine: 0.52, coverage: () => 0.8 })).toBe('strong');
    expect(hybridLabel({ keywordRank: 1, vectorRank: 2, cosine: 0.2, coverage: () => 0.8 })).toBe('good');
    expect(hybridLabel({ keywordRank: 9, vectorRank: 1, cosine: 0.45, coverage: () => 0.2 })).toBe('good');
    expect(hybridLabel({ keywordRank: 12, vectorRank: 14, cosine: 0.3, coverage: () => 0.2 })).toBe('partial');
    expect(hybridLabel({ vectorRank: 20, cosine: 0.21, coverage: () => 0.1 })).toBe('weak');
  });

  it('a keyword-only hit is never strong, however high its BM25 (one rare word repeated)', () => {
    expect(hybridLabel({ keywordRank: 1, coverage: () => 1 })).toBe('good');
    expect(hybridLabel({ keywordRank: 1, coverage: () => 0.2 })).toBe('weak');
  });

  it('coverage counts the question’s content words the passage holds', () => {
    const q = new Set(contentWords('What notice is needed to terminate for convenience?'));
    // notice, need, terminate, convenience
    expect(queryCoverage(q, "Either party may terminate for convenience upon sixty days' notice.")).toBe(0.75);
    expect(queryCoverage(q, 'Notices must be in writing.')).toBe(0.25);
  });
});
