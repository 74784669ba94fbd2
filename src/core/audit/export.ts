/** The audit trail as CSV for a spreadsheet: one row per entry, filtered by case and period. */
import { csvText } from '../util/csv';
import { type AuditEntry, parseEntry } from './entry';
import type { AuditLog } from './log';

export interface AuditFilter {
  case_id?: string;
  /** A date (the whole day, UTC) or an ISO time; inclusive. */
  from?: string;
  to?: string;
}

const HEADER = ['Seq', 'Time (UTC)', 'User', 'Role', 'Address', 'Case ID', 'Case', 'Action', 'What', 'Hash'];

const dateOnly = (s: string) => /^\d{4}-\d{2}-\d{2}$/.test(s);

/** The period as milliseconds, `to` exclusive: a date alone covers its whole day. */
function period(filter: AuditFilter): { from: number; to: number } {
  const from = filter.from ? Date.parse(dateOnly(filter.from) ? `${filter.from}T00:00:00Z` : filter.from) : -Infinity;
  let to = Number.POSITIVE_INFINITY;
  if (filter.to)
    to = dateOnly(filter.to) ? Date.parse(`${filter.to}T00:00:00Z`) + 86_400_000 : Date.parse(filter.to) + 1;
  return { from, to };
}

/** `what` in words: `file_id: f1; page: 3`. */
function whatText(what: AuditEntry['what']): string {
  return Object.entries(what)
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : String(v)}`)
    .join('; ');
}

/** Entries of the filter as CSV; unreadable lines are left out (`audit check` reports them). */
export async function auditCsv(
  log: AuditLog,
  filter: AuditFilter,
  caseNames: ReadonlyMap<string, string>,
): Promise<{ csv: string; entries: number }> {
  const { from, to } = period(filter);
  const rows: string[][] = [HEADER];
  for await (const line of log.lines()) {
    const e = parseEntry(line);
    if (!e) continue;
    if (filter.case_id !== undefined && e.case_id !== filter.case_id) continue;
    const t = Date.parse(e.time);
    if (t < from || t >= to) continue;
    rows.push([
      String(e.seq),
      e.time,
      e.actor.user,
      e.actor.role,
      e.actor.address,
      e.case_id ?? '',
      e.case_id ? (caseNames.get(e.case_id) ?? '') : '',
      e.kind,
      whatText(e.what),
      e.hash,
    ]);
  }
  return { csv: csvText(rows), entries: rows.length - 1 };
}
