import { describe, expect, it } from 'vitest';
import { CitationLedger, pageRange } from '../../src/core/domain/citation-ledger';

const span = (start: number, end: number) => ({
  file_id: 'f1',
  file_name: 'a.pdf',
  version: 1,
  pages: [1],
  start,
  end,
});

describe('CitationLedger', () => {
  it('issue – short ids, unique within a conversation; the same span keeps its id', () => {
    const ledger = new CitationLedger();
    const ids = new Set<string>();
    for (let i = 0; i < 2000; i++) ids.add(ledger.issue(span(i, i + 10)).id);
    expect(ids.size).toBe(2000);
    for (const id of ids) expect(id).toMatch(/^c[0-9a-z]{5}$/);
    const again = ledger.issue(span(5, 15));
    expect(ledger.issue(span(5, 15))).toBe(again);
    expect(ledger.size).toBe(2000);
    expect(ledger.issue({ ...span(5, 15), version: 2 }).id).not.toBe(again.id);
  });

  it('toJSON / constructor – a persisted ledger resolves the same ids and never reissues them', () => {
    const a = new CitationLedger();
    const r = a.issue(span(0, 4));
    const b = new CitationLedger(JSON.parse(JSON.stringify(a)) as ReturnType<CitationLedger['toJSON']>);
    expect(b.get(r.id)).toEqual(r);
    expect(b.issue(span(0, 4)).id).toBe(r.id);
    expect(b.issue(span(4, 8)).id).not.toBe(r.id);
  });

  it('pageRange – inclusive and ascending', () => {
    expect(pageRange(3, 5)).toEqual([3, 4, 5]);
    expect(pageRange(2, 2)).toEqual([2]);
  });
});
