/** A file's status as a pill, and the "OCR" badge of a file read by OCR. */
import type { FileInfo, IngestFileStatus } from '../../../../shared/contract/ingest';
import { LOW_OCR_CONFIDENCE } from '../../../../shared/citation-text';
import { plural } from '../../lib/display-format';
import { STATUS_LABEL, statusClass } from '../../lib/file-labels';

export function StatusPill({ status, reason }: { status: IngestFileStatus; reason?: string | undefined }) {
  return (
    <span className={`pill pill-${statusClass(status)}`} title={reason || undefined} data-status={status}>
      {STATUS_LABEL[status]}
    </span>
  );
}

/** "OCR" on a file read by OCR; amber, saying "check the original", where a page was read with under 80% confidence. */
export function OcrBadge({ version, reason }: { version: FileInfo['versions'][number] | undefined; reason: string }) {
  const pages = version?.ocr_pages;
  if (!pages?.length) return null;
  const low = pages.some((p) => p.confidence < LOW_OCR_CONFIDENCE);
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
