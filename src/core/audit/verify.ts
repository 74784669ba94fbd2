/**
 * Checking the audit trail: walk the log line by line, recompute each entry's hash and its link to
 * the one before, and compare the end with the head record. The first break is reported with a
 * plain reason: a line edited, removed, moved (reordered), cut off the end (truncated) or unreadable.
 */
import type { AuditBreak, AuditBreakReason, AuditCheck } from '../../shared/contract/audit';
import { type AuditEntry, entryHash, GENESIS, parseEntry } from './entry';
import type { AuditHead, AuditLog } from './log';

const brk = (line: number, seq: number | null, reason: AuditBreakReason, message: string): AuditBreak => ({
  line,
  seq,
  reason,
  message,
});

/**
 * An entry that does not follow the one before (`prev`): the one before was changed, this one is out
 * of place, or entries are missing here. Whether a missing entry was moved is told by looking for it
 * further on (`rest`).
 */
async function gapBreak(e: AuditEntry, prev: AuditHead, line: number, rest: AsyncIterator<string>) {
  if (e.seq === 1 && line === 1)
    return brk(1, 1, 'edited', 'Line 1 was changed after it was written: it no longer starts the chain.');
  if (e.seq === prev.seq + 1)
    return brk(
      line - 1,
      prev.seq,
      'edited',
      `Line ${line - 1} was changed after it was written: the entry after it no longer follows from it.`,
    );
  if (e.seq <= prev.seq)
    return brk(
      line,
      e.seq,
      'reordered',
      `Line ${line} holds entry ${e.seq}, which belongs before entry ${prev.seq}: lines were moved.`,
    );
  const missing = prev.seq + 1;
  for (let r = await rest.next(); !r.done; r = await rest.next()) {
    if (parseEntry(r.value)?.seq === missing)
      return brk(
        line,
        e.seq,
        'reordered',
        `Line ${line} holds entry ${e.seq} where entry ${missing} belongs: lines were moved.`,
      );
  }
  const which = e.seq - 1 === missing ? `Entry ${missing} was` : `Entries ${missing} to ${e.seq - 1} were`;
  return brk(line, e.seq, 'removed', `${which} removed before line ${line}.`);
}

/** Whether the log ends where the head record says: `last` is the last entry read, `lines` how many lines there are. */
function headBreak(head: AuditHead | null, last: AuditEntry | null, lines: number): AuditBreak | null {
  const lastSeq = last?.seq ?? 0;
  if (head === null)
    return lastSeq === 0
      ? null
      : brk(
          lines,
          lastSeq,
          'truncated',
          'The head record (head.json) was removed, so lines cut off the end cannot be ruled out.',
        );
  if (head.seq < 0) return brk(lines + 1, null, 'unreadable', 'The head record (head.json) cannot be read.');
  if (head.seq === lastSeq && (last === null || head.hash === last.hash)) return null;
  // A crash between writing a line and moving the head on leaves the head one entry behind: the line is whole and chained.
  if (last && head.seq === last.seq - 1 && head.hash === last.prev) return null;
  if (head.seq > lastSeq) {
    const which =
      head.seq - lastSeq === 1
        ? `The last entry (${head.seq}) was`
        : `The last ${head.seq - lastSeq} entries (${lastSeq + 1} to ${head.seq}) were`;
    return brk(lines + 1, lastSeq + 1, 'truncated', `${which} removed from the end of the log.`);
  }
  if (head.seq === lastSeq)
    return brk(
      lines,
      lastSeq,
      'edited',
      `Line ${lines} was changed after it was written: it no longer matches the head record.`,
    );
  return brk(
    lines,
    lastSeq,
    'edited',
    'The head record (head.json) does not match the end of the log: it was changed.',
  );
}

/** Walk the whole chain; `intact` when every entry is as written, in order, and none is missing. */
export async function verifyAudit(log: AuditLog): Promise<AuditCheck> {
  const { head, size } = await log.snapshot();
  const it = log.lines(size)[Symbol.asyncIterator]();
  let prev: AuditHead = { seq: 0, hash: GENESIS };
  let last: AuditEntry | null = null;
  let line = 0;
  let broken: AuditBreak | null = null;
  try {
    for (let r = await it.next(); !r.done; r = await it.next()) {
      line++;
      const e = parseEntry(r.value);
      if (!e) {
        broken = brk(line, null, 'unreadable', `Line ${line} is not an audit entry (it was changed, or cut short).`);
        break;
      }
      if (entryHash(e) !== e.hash) {
        broken = brk(line, e.seq, 'edited', `Line ${line} (entry ${e.seq}) was changed after it was written.`);
        break;
      }
      if (e.prev !== prev.hash) {
        broken = await gapBreak(e, prev, line, it);
        break;
      }
      prev = { seq: e.seq, hash: e.hash };
      last = e;
    }
  } finally {
    await it.return?.(undefined);
  }
  broken ??= headBreak(head, last, line);
  const shownHead = head && head.seq >= 0 ? head : null;
  return { intact: broken === null, entries: line, head: shownHead, broken, file: log.file };
}
