/** A file's status as a pill, and the "OCR" badge of a file read by OCR. */
import type { FileInfo, FileVersionInfo, IngestFileStatus } from '../../../../shared/contract/ingest';
import { plural } from '../../lib/display-format';
import { checkTheOriginal, documentStatus, type StatusTone } from '../../lib/status-tone';

/** The pill's colours for each tone (app.css): green done, amber needs you, red failed, blue busy. */
const TONE_CLASS: Record<StatusTone, string> = {
  done: 'pill-ok',
  'needs-you': 'pill-warn',
  failed: 'pill-bad',
  busy: 'pill-busy',
  off: '',
};

/** `data-status` is the engine's status; `data-tone` what it asks of the user (see lib/status-tone.ts). */
export function StatusPill({
  status,
  reason,
  locked,
  ocrPages,
}: {
  status: IngestFileStatus;
  reason?: string | undefined;
  locked?: FileVersionInfo['locked'];
  ocrPages?: FileVersionInfo['ocr_pages'];
}) {
  const shown = documentStatus({ status, reason, locked, ocr_pages: ocrPages });
  return (
    <span
      className={`pill ${TONE_CLASS[shown.tone]}`}
      title={reason || undefined}
      data-status={status}
      data-tone={shown.tone}
    >
      {shown.label}
    </span>
  );
}

/** "OCR" on a file read by OCR; amber, saying "check the original", where a page was read with under 80% confidence. */
export function OcrBadge({ version, reason }: { version: FileInfo['versions'][number] | undefined; reason: string }) {
  const pages = version?.ocr_pages;
  if (!pages?.length) return null;
  const low = checkTheOriginal({ ocr_pages: pages });
  const note =
    reason
      .split('; ')
      .filter((r) => r.startsWith('read by OCR') || r.includes('check the original'))
      .join('; ') || `read by OCR: ${plural(pages.length, 'page')}`;
  return (
    // role img: a short badge with a name of its own (the reason's own note stays the row's only note).
    <span
      role="img"
      className={`badge ${low ? 'badge-warn' : ''}`}
      title={note}
      aria-label={low ? `OCR, check the original: ${note}` : `OCR: ${note}`}
      data-ocr={low ? 'low' : 'ok'}
    >
      OCR{low ? ' · check the original' : ''}
    </span>
  );
}
