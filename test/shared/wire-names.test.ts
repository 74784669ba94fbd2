import { describe, expect, it } from 'vitest';
import { CURRENT_NAMES, FORMER_NAMES, withCurrentNames, withFormerNames } from '../../src/shared/wire-names';

describe('the wire names and their former names (until 0.2)', () => {
  it('maps each snake_case name to one camelCase former name, and back', () => {
    const entries = Object.entries(FORMER_NAMES);
    for (const [now, former] of entries) {
      expect(now).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)+$/);
      expect(former).toMatch(/^[a-z]+[A-Z][A-Za-z0-9]*$/);
      expect(CURRENT_NAMES[former]).toBe(now);
    }
    expect(new Set(entries.map(([, former]) => former)).size).toBe(entries.length);
    expect(FORMER_NAMES).toMatchObject({
      case_id: 'caseId',
      pages_done: 'pagesDone',
      approx_size_mb: 'approxSizeMB',
      min_ram_gb: 'minRamGB',
    });
  });

  it('adds the former name beside each renamed field, at any depth, with the same value', () => {
    const progress = {
      case_id: 'c1',
      job_id: 'j1',
      pages_done: 3,
      current: [{ name: 'a.pdf', file_id: 'f1', eta_seconds: null }],
      semantic: { embedded: 1, total: 2 },
    };
    const out = withFormerNames(progress);
    expect(out).toEqual({
      case_id: 'c1',
      caseId: 'c1',
      job_id: 'j1',
      jobId: 'j1',
      pages_done: 3,
      pagesDone: 3,
      current: [{ name: 'a.pdf', file_id: 'f1', fileId: 'f1', eta_seconds: null, etaSeconds: null }],
      semantic: { embedded: 1, total: 2 },
    });
    // Each former name right after its name now; the value itself is not changed.
    expect(Object.keys(out)).toEqual([
      'case_id',
      'caseId',
      'job_id',
      'jobId',
      'pages_done',
      'pagesDone',
      'current',
      'semantic',
    ]);
    expect(progress).not.toHaveProperty('caseId');
  });

  it('keeps values that are not plain objects or arrays, and a former name an object already has', () => {
    expect(withFormerNames(null)).toBeNull();
    expect(withFormerNames('case_id')).toBe('case_id');
    expect(withFormerNames([1, 'x'])).toEqual([1, 'x']);
    expect(withFormerNames({ case_id: 'new', caseId: 'kept' })).toEqual({ case_id: 'new', caseId: 'kept' });
    const date = new Date(0);
    expect(withFormerNames({ at: date }).at).toBe(date);
  });

  it('maps former names in an input to the names now, at any depth', () => {
    expect(withCurrentNames({ caseId: 'c1', fileId: 'f1', version: 2 })).toEqual({
      case_id: 'c1',
      file_id: 'f1',
      version: 2,
    });
    expect(withCurrentNames({ case_id: 'c1', sessionId: 's1', retrieval: { top_k: 4 } })).toEqual({
      case_id: 'c1',
      session_id: 's1',
      retrieval: { top_k: 4 },
    });
    expect(withCurrentNames([{ turnId: 't1' }])).toEqual([{ turn_id: 't1' }]);
    expect(withCurrentNames('caseId')).toBe('caseId');
    expect(withCurrentNames(undefined)).toBeUndefined();
  });

  it('lets the name now win when a request gives both, in either order', () => {
    expect(withCurrentNames({ caseId: 'old', case_id: 'new' })).toEqual({ case_id: 'new' });
    expect(withCurrentNames({ case_id: 'new', caseId: 'old' })).toEqual({ case_id: 'new' });
  });

  it('leaves other keys alone, `__proto__` included', () => {
    const body = JSON.parse('{"__proto__": {"polluted": true}, "caseId": "c1"}') as unknown;
    const out = withCurrentNames(body) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(['__proto__', 'case_id']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('round-trips: an output with the former names, read back as input, has the names now only', () => {
    const value = { case_id: 'c1', session_id: 's1', nested: { model_id: 'm', is_default: true } };
    expect(withCurrentNames(withFormerNames(value))).toEqual(value);
  });
});
