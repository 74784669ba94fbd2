import { describe, expect, it } from 'vitest';
import { ObservationBook } from '../../src/core/agent/observations';
import type { PassageItem, ToolOutcome } from '../../src/core/agent/types';

/** What the model is shown of a tool's passages, and what the turn remembers it was shown. */
const p = (cite: string, text: string, over: Partial<PassageItem> = {}): PassageItem => ({
  cite,
  file_name: 'contracts/msa.txt',
  pages: [1],
  text,
  hash: `h-${cite}`,
  ...over,
});
const outcome = (items: PassageItem[], text = `${items.length} passages.`): ToolOutcome => ({
  text,
  items,
  count: items.length,
  citations: [],
});
const book = (observationChars = 3000) => new ObservationBook({ passageChars: 500, observationChars });

describe('ObservationBook', () => {
  it('a passage returned twice is shown once, with its best-scored copy', () => {
    const b = book();
    const obs = b.observe(
      1,
      outcome([p('a1', 'low copy', { hash: 'same', score: 0.2 }), p('a2', 'high copy', { hash: 'same', score: 0.9 })]),
    );
    expect(obs).toContain('[cite:a2]');
    expect(obs).not.toContain('[cite:a1]');
    expect(b.seen.map((s) => s.cite)).toEqual(['a2']);
  });

  it('a passage shown in an earlier step is referenced by cite id and step, not repeated', () => {
    const b = book();
    b.observe(2, outcome([p('a1', 'Either party may terminate upon sixty days notice.')]));
    const again = b.observe(
      3,
      outcome([p('a1', 'Either party may terminate upon sixty days notice.'), p('b1', 'Fees are due in 45 days.')]),
    );
    expect(again).toContain('Seen before: [cite:a1] (already shown in step 2)');
    expect(again).not.toContain('sixty days');
    expect(again).toContain('[cite:b1]');
    expect(b.seen.map((s) => s.cite)).toEqual(['a1', 'b1']);
  });

  it('a passage labelled none or noise joins the rejection set and is left out later, with a count', () => {
    const b = book();
    const first = b.observe(
      1,
      outcome([p('n1', 'Case notes', { label: 'none' }), p('g1', 'The clause.', { label: 'good' })]),
    );
    expect(first).toContain('[cite:n1]');
    expect([...b.rejected]).toEqual(['h-n1']);
    const second = b.observe(2, outcome([p('n1', 'Case notes', { label: 'none' })]));
    expect(second).not.toContain('[cite:n1]');
    expect(second).toContain('1 passage(s) judged useless in earlier steps were left out.');
    expect(second).toContain('No new passages. Try a different query or another tool.');
  });

  it('passages beyond the observation budget are counted, not shown (the first one always is)', () => {
    const b = book(100);
    const long = 'x'.repeat(200);
    const obs = b.observe(1, outcome([p('a1', long), p('b1', long), p('c1', long)]));
    expect(obs).toContain('[cite:a1]');
    expect(obs).not.toContain('[cite:b1]');
    expect(obs).toContain('2 more passage(s) not shown (observation length limit).');
    // Not shown means not seen: a later step may show them.
    expect(b.seen.map((s) => s.cite)).toEqual(['a1']);
    expect(book().observe(2, outcome([p('b1', long)]))).toContain('[cite:b1]');
  });

  it('passage text is trimmed to passageChars', () => {
    const b = new ObservationBook({ passageChars: 20, observationChars: 3000 });
    const obs = b.observe(1, outcome([p('a1', 'Either party may terminate this Agreement for convenience.')]));
    expect(obs).toContain('"Either party may te…"');
  });

  it('an outcome without passages is its text, or "No results."', () => {
    expect(book().observe(1, { text: '4 files in the case:', count: 4, citations: [] })).toBe('4 files in the case:');
    expect(book().observe(1, { text: '', count: 0, citations: [] })).toBe('No results.');
  });
});
