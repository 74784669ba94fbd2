/**
 * One status language for a document wherever it is shown (its pill, its note, its OCR badge):
 * `done` (read and searchable), `needs-you` (amber: a password to enter, pages to check or to OCR,
 * a type to convert), `failed` (red: the file could not be read), `busy` (being read) and `off`
 * (not added, nothing to do). Derived from the engine's own data: the status, the reason, `locked`
 * and the OCR confidence of its pages.
 */
import { LOW_OCR_CONFIDENCE } from '../../../shared/citation-text';
import type { FileVersionInfo, IngestFileStatus } from '../../../shared/contract/ingest';
import { STATUS_LABEL } from './file-labels';

export type StatusTone = 'done' | 'needs-you' | 'failed' | 'busy' | 'off';

/** What a document's status says: its tone and its label ("Password needed", "Indexed"). */
export interface DocumentStatus {
  tone: StatusTone;
  label: string;
}

/** The part of a file or version the status is read from. */
export interface StatusFacts {
  status: IngestFileStatus;
  reason?: string | undefined;
  locked?: FileVersionInfo['locked'];
  ocr_pages?: FileVersionInfo['ocr_pages'];
}

/** A protected file not opened yet: the engine's reason starts so for a PDF and an old Word file alike. */
function needsPassword(f: StatusFacts): boolean {
  return f.locked === 'needs_password' || /^password protected\b/i.test(f.reason ?? '');
}

/** Pages to check against the original: read by OCR with low confidence, or left without text even by OCR. */
export function checkTheOriginal(f: Pick<StatusFacts, 'reason' | 'ocr_pages'>): boolean {
  return (
    Boolean(f.ocr_pages?.some((p) => p.confidence < LOW_OCR_CONFIDENCE)) || /check the original/.test(f.reason ?? '')
  );
}

export function documentStatus(f: StatusFacts): DocumentStatus {
  const label = STATUS_LABEL[f.status];
  switch (f.status) {
    case 'indexed':
    case 'unchanged':
      if (checkTheOriginal(f)) return { tone: 'needs-you', label: 'Check the scan' };
      // Pages without a text layer in a case with OCR off: searchable once OCR reads them.
      if (/turn on OCR/.test(f.reason ?? '')) return { tone: 'needs-you', label: STATUS_LABEL.needs_ocr };
      return { tone: 'done', label };
    case 'failed':
      return needsPassword(f) ? { tone: 'needs-you', label: 'Password needed' } : { tone: 'failed', label };
    case 'needs_ocr':
    case 'unsupported':
    case 'cancelled':
      return { tone: 'needs-you', label };
    case 'skipped':
      return { tone: 'off', label };
    default:
      return { tone: 'busy', label };
  }
}
