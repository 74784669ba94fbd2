/**
 * The ranking of `cases.detect` on digests written by hand: names weigh most, a word most cases
 * share names none, and a case is chosen only when it clearly leads.
 */
import { describe, expect, it } from 'vitest';
import { type DetectableCase, detectCase } from '../../src/core/cases/detect';
import { type CaseDigest, DIGEST_FORMAT } from '../../src/core/cases/digest';

const digest = (over: Partial<CaseDigest>): CaseDigest => ({
  format: DIGEST_FORMAT,
  updated: '2026-11-27T00:00:00Z',
  documents: 2,
  parties: [],
  people: [],
  names: [],
  titles: [],
  types: [{ type: 'contract', count: 2 }],
  dates: { from: '2020-01-01', to: '2021-06-30' },
  subjects: ['agreement', 'termination'],
  ...over,
});
const kase = (id: string, name: string, over: Partial<CaseDigest>): DetectableCase => ({
  id,
  name,
  created: `2026-11-0${id.length}T00:00:00Z`,
  digest: digest(over),
});

const CASES = [
  kase('a', 'Estate of Johnson', { people: ['Mary Johnson'], subjects: ['probate', 'will', 'termination'] }),
  kase('b', 'Johnson Trucking', { parties: ['Johnson Trucking LLC'], subjects: ['freight', 'termination'] }),
  kase('c', 'Lee v. Acme', { parties: ['Acme Corp.'], subjects: ['forklift', 'knee', 'termination'] }),
  kase('d', 'Park lease', { parties: ['Park Holdings'], subjects: ['lease', 'rent', 'termination'] }),
];

describe('detectCase', () => {
  it('chooses the case whose summary names the question’s words, and says which words', () => {
    const found = detectCase('what happened with the forklift?', CASES);
    expect(found).toMatchObject({ chosen: 'c', ambiguous: false });
    expect(found.candidates[0]!.matched).toEqual(['forklift']);
    expect(found.reason).toBe('its summary names forklift');
    expect(detectCase("the Acme client's knee", CASES).chosen).toBe('c');
    expect(detectCase('Mary’s probate file', CASES).chosen).toBe('a');
  });

  it('asks when two cases fit about equally, with each one’s summary line', () => {
    const found = detectCase('the Johnson case', CASES);
    expect(found.chosen).toBeNull();
    expect(found.ambiguous).toBe(true);
    expect(found.candidates.map((c) => c.case_id).sort()).toEqual(['a', 'b']);
    expect(found.candidates[0]!.line).toMatch(/^2 contracts · .+ · 2020–2021 · about /);
  });

  it('a word every case has names none: the user chooses rather than a guess', () => {
    const found = detectCase('What does it say about termination?', CASES);
    expect(found).toMatchObject({ chosen: null, ambiguous: true });
    expect(found.candidates.length).toBeGreaterThan(1);
  });

  it('with one case it is chosen without asking; with none, nothing is chosen', () => {
    expect(detectCase('anything at all', [CASES[0]!])).toMatchObject({ chosen: 'a', ambiguous: false });
    expect(detectCase('anything at all', [])).toMatchObject({ chosen: null, ambiguous: false, candidates: [] });
  });
});
