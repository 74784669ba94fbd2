import { describe, expect, it } from 'vitest';
import { AUDIT_KINDS } from '../../src/core/audit/entry';
import { AUDITED_OPS } from '../../src/server/audit-ops';
import { opNames } from '../../src/shared/contract/index';

/** Every operation of the contract is in the audit table: recorded as an action, or not recorded with a reason. */
describe('audit table', () => {
  it('classifies every operation of the contract, and nothing else', () => {
    const missing = opNames.filter((n) => !Object.hasOwn(AUDITED_OPS, n));
    expect(missing, 'add these operations to AUDITED_OPS in src/server/audit-ops.ts').toEqual([]);
    expect(Object.keys(AUDITED_OPS).filter((n) => !(opNames as string[]).includes(n))).toEqual([]);
  });

  it('each entry is a known action kind or says why it is not recorded', () => {
    for (const [name, rule] of Object.entries(AUDITED_OPS)) {
      if ('notRecorded' in rule) expect(rule.notRecorded.length, name).toBeGreaterThan(10);
      else expect(AUDIT_KINDS, name).toContain(rule.kind);
    }
  });

  it('the accesses a firm asks about are recorded', () => {
    const kind = (n: keyof typeof AUDITED_OPS) => ('kind' in AUDITED_OPS[n] ? AUDITED_OPS[n].kind : null);
    expect(kind('search')).toBe('search');
    expect(kind('chat.ask')).toBe('ask');
    expect(kind('citations.page')).toBe('open_page');
    expect(kind('files.read')).toBe('open_document');
    expect(kind('chat.export')).toBe('export');
    expect(kind('tools.timelineExport')).toBe('export');
    expect(kind('audit.export')).toBe('export');
  });
});
