import { describe, expect, it } from 'vitest';
import {
  findHits,
  joinWords,
  pageAt,
  phrasePattern,
  queryTerms,
  rangeBoxes,
  splitMarked,
  termPattern,
} from '../../src/renderer/src/lib/viewer-find';

const pages = [
  { page: 1, start: 0, end: 40 },
  { page: 2, start: 40, end: 90 },
];

describe('viewer find: the words a search or the find box marks', () => {
  it("a query's words to mark leave out stop words and single letters, once each", () => {
    expect(queryTerms('What is the late charge on the unpaid, past-due amount? Late!')).toEqual([
      'late',
      'charge',
      'unpaid',
      'past',
      'due',
      'amount',
    ]);
    expect(queryTerms('§ 7 of the lease')).toEqual(['7', 'lease']);
  });

  it('marks words that start with a term, in any case, not the middle of a word', () => {
    const parts = splitMarked(
      'Termination: the lease terminates; no determination.',
      termPattern(['terminat', 'lease']),
    );
    expect(parts.filter((p) => p.marked).map((p) => p.text)).toEqual(['Termination', 'lease', 'terminates']);
    expect(parts.map((p) => p.text).join('')).toBe('Termination: the lease terminates; no determination.');
    expect(splitMarked('nothing', termPattern([]))).toEqual([{ text: 'nothing', marked: false }]);
  });

  it('finds a phrase across line breaks and extra spaces, with the page of each hit', () => {
    const text = 'The late charge is due.\nA late\ncharge of 2% per month applies to  late   charges.';
    const hits = findHits(text, pages, phrasePattern('late  charge'));
    expect(hits.map((h) => text.slice(h.start, h.end))).toEqual(['late charge', 'late\ncharge', 'late   charge']);
    expect(hits.map((h) => h.page)).toEqual([1, 1, 2]);
    expect(findHits(text, pages, phrasePattern('a.b'))).toEqual([]); // typed text, not a pattern
    expect(findHits(text, pages, phrasePattern('   '))).toEqual([]);
    expect(pageAt(pages, 39)).toBe(1);
    expect(pageAt(pages, 40)).toBe(2);
  });

  it('boxes a hit from the word boxes: the part of a word inside it, one box per line', () => {
    const words = [
      { text: 'late', start: 0, end: 4, x: 0.1, y: 0.5, width: 0.04, height: 0.01 },
      { text: 'charges', start: 5, end: 12, x: 0.15, y: 0.5, width: 0.07, height: 0.01 },
      { text: 'apply', start: 13, end: 18, x: 0.1, y: 0.52, width: 0.05, height: 0.01 },
    ];
    const [one, ...rest] = rangeBoxes(words, 0, 11);
    expect(rest).toEqual([]);
    expect(one!.x).toBeCloseTo(0.1);
    expect(one!.x + one!.width).toBeCloseTo(0.15 + 0.07 * (6 / 7));
    expect(rangeBoxes(words, 5, 18)).toHaveLength(2);
    expect(joinWords(words)).toBe('late charges\napply');
  });
});
