import { z } from 'zod';
import { CaseId, Empty } from './common';
import { op } from './op';

/** Why the audit trail's chain is broken, at the first line where it is. */
export type AuditBreakReason = 'edited' | 'removed' | 'reordered' | 'truncated' | 'unreadable';

export interface AuditBreak {
  /** Line of the log (1 = first) where the chain breaks; for a truncation, the line that is missing. */
  line: number;
  /** The entry's sequence number there, when it could be read. */
  seq: number | null;
  reason: AuditBreakReason;
  /** The reason in a plain sentence. */
  message: string;
}

export interface AuditCheck {
  /** Every entry is as written, in order, and none is missing. */
  intact: boolean;
  /** Entries read. */
  entries: number;
  /** The last entry as the head record names it (`null` before anything is recorded); an administrator may note the hash elsewhere. */
  head: { seq: number; hash: string } | null;
  /** The first break, or null when intact. */
  broken: AuditBreak | null;
  /** The log file. */
  file: string;
}

export interface AuditExport {
  /** A file name to offer. */
  filename: string;
  /** The entries as CSV with a header row; a cell a spreadsheet would run as a formula starts with an apostrophe. */
  csv: string;
  /** Entries in the CSV. */
  entries: number;
  /** What `audit.check` says of the whole log now. */
  intact: boolean;
}

/** A date (`2026-11-27`, the whole day in UTC) or an ISO time. */
const DateOrTime = z
  .string()
  .trim()
  .refine(
    (s) => /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(s) && !Number.isNaN(Date.parse(s)),
    'Give a date as YYYY-MM-DD (or an ISO time such as 2026-11-27T14:00:00Z).',
  );

export const AuditExportInput = z
  .object({ case_id: CaseId.optional(), from: DateOrTime.optional(), to: DateOrTime.optional() })
  .strict();

export const auditContract = {
  'audit.check': op<AuditCheck>()(
    Empty,
    'Verify the audit trail: every entry chained to the one before by its hash, none edited, removed, reordered or cut off the end.',
  ),
  'audit.export': op<AuditExport>()(
    AuditExportInput,
    'The audit trail as CSV, for one case (or all) and a period (dates inclusive, UTC).',
  ),
};
