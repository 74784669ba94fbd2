/**
 * One entry of the audit trail and its hash. An entry is one JSON line; its `hash` is the SHA-256 of
 * the previous entry's hash followed by the entry's canonical JSON (every field but `hash`, keys
 * sorted), so changing, removing or moving a line breaks the chain from there on.
 */
import { createHash } from 'node:crypto';

/** Who did it: the serve layer's `Actor` (src/server/actor.ts) has this shape. */
export interface AuditActor {
  user: string;
  role: string;
  address: string;
}

/** What an entry can record. The sign-in, account and membership kinds are written by the firm server's own code. */
export const AUDIT_KINDS = [
  'sign_in',
  'sign_out',
  'sign_in_refused',
  'account',
  'membership',
  'list_cases',
  'open_case',
  'change_case',
  'add_files',
  'list_files',
  'change_files',
  'open_document',
  'open_page',
  'open_chronology',
  'search',
  'ask',
  'open_chat',
  'change_chat',
  'export',
  'change_settings',
  'check_audit',
] as const;
export type AuditKind = (typeof AUDIT_KINDS)[number];

/** The details of an access: the document and page opened, the words searched, the question asked, the export's format. */
export type AuditWhat = Record<string, string | number | boolean | null | string[]>;

export interface AuditRecord {
  actor: AuditActor;
  /** The matter (case) it concerns; null when none (a sign-in, the list of cases). */
  case_id: string | null;
  kind: AuditKind;
  /** The details; undefined and empty fields are left out, anything not a string, number, boolean or list is written as JSON. */
  what: Record<string, unknown>;
}

export interface AuditEntry extends Omit<AuditRecord, 'what'> {
  what: AuditWhat;
  /** 1 for the first entry, then one more for each. */
  seq: number;
  /** ISO 8601, UTC. */
  time: string;
  /** The previous entry's hash (`GENESIS` for the first). */
  prev: string;
  hash: string;
}

/** The `prev` of the first entry. */
export const GENESIS = '0'.repeat(64);

/** JSON with every object's keys sorted, so the same entry always hashes the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj)
      .filter((k) => obj[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The hash an entry must carry: over `prev` and the entry's canonical JSON without its own hash. */
export function entryHash(entry: Omit<AuditEntry, 'hash'> & { hash?: string }): string {
  const { hash: _hash, ...rest } = entry;
  return createHash('sha256').update(entry.prev).update(canonicalJson(rest)).digest('hex');
}

/** `what` without undefined fields, empty strings or empty lists: only what was given is recorded. */
export function cleanWhat(what: Record<string, unknown>): AuditWhat {
  const out: AuditWhat = {};
  for (const [k, v] of Object.entries(what)) {
    if (v === undefined || v === '' || (Array.isArray(v) && v.length === 0)) continue;
    if (Array.isArray(v)) out[k] = v.map(String);
    else if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || v === null) out[k] = v;
    else out[k] = JSON.stringify(v);
  }
  return out;
}

/** The line's entry when it has every field of the right type, else null (an unreadable line). */
export function parseEntry(line: string): AuditEntry | null {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof v !== 'object' || v === null) return null;
  const e = v as Partial<AuditEntry>;
  const actor = e.actor as Partial<AuditActor> | undefined;
  const ok =
    Number.isInteger(e.seq) &&
    typeof e.time === 'string' &&
    typeof e.prev === 'string' &&
    typeof e.hash === 'string' &&
    typeof e.kind === 'string' &&
    (e.case_id === null || typeof e.case_id === 'string') &&
    typeof e.what === 'object' &&
    e.what !== null &&
    typeof actor?.user === 'string' &&
    typeof actor.role === 'string' &&
    typeof actor.address === 'string';
  return ok ? (e as AuditEntry) : null;
}
