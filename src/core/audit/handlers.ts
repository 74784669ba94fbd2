/** The `audit.*` operations: check the chain, export it as CSV. */
import type { HandlerMap } from '../router/router';
import { auditCsv } from './export';
import type { AuditLog } from './log';
import { verifyAudit } from './verify';

export interface AuditPorts {
  audit(): AuditLog;
  /** Case names by id, for the CSV (a deleted case has none). */
  caseNames(): Promise<ReadonlyMap<string, string>>;
}

export function auditHandlers(ports: AuditPorts): HandlerMap {
  return {
    'audit.check': async () => verifyAudit(ports.audit()),
    'audit.export': async (input) => {
      const log = ports.audit();
      const { csv, entries } = await auditCsv(log, input, await ports.caseNames());
      const { intact } = await verifyAudit(log);
      const parts = ['audit-trail', input.case_id, input.from, input.to].filter(Boolean);
      return { filename: `${parts.join('_')}.csv`, csv, entries, intact };
    },
  };
}
