/**
 * What a document's row says about it: its status and stage in words, what it is beside its type
 * (an email's sender, what it was taken out of, what it holds), its type and pages columns.
 */
import type { FileInfo, IngestCurrentFile, IngestFileStatus, IngestStage } from '../../../shared/contract/ingest';
import { readableName } from './document-tree';
import { formatDuration, ocrProgressText, plural, TYPE_LABEL } from './display-format';

export const STATUS_LABEL: Record<IngestFileStatus, string> = {
  queued: 'Queued',
  parsing: 'Parsing',
  embedding: 'Embedding',
  indexing: 'Indexing',
  indexed: 'Indexed',
  unchanged: 'Indexed',
  needs_ocr: 'Needs OCR',
  unsupported: 'Unsupported',
  failed: 'Failed',
  cancelled: 'Cancelled',
  skipped: 'Not added',
};

export const STAGE_LABEL: Record<IngestStage, string> = {
  hashing: 'Copying',
  parsing: 'Parsing',
  chunking: 'Chunking',
  embedding: 'Embedding',
  indexing: 'Indexing',
};

export const STAGE_STATUS: Record<IngestStage, IngestFileStatus> = {
  hashing: 'parsing',
  parsing: 'parsing',
  chunking: 'parsing',
  embedding: 'embedding',
  indexing: 'indexing',
};

/** "Parsing · 12 / 40 pages · about 20 s left" for a file in flight. */
export function stageText(c: IngestCurrentFile): string {
  const unit = c.stage === 'parsing' ? 'pages' : 'chunks';
  const count = c.done !== null && c.total !== null ? ` · ${c.done} / ${c.total} ${unit}` : '';
  const eta =
    c.eta_seconds !== null && c.eta_seconds > 0 ? ` · about ${formatDuration(c.eta_seconds * 1000)} left` : '';
  const ocr = ocrProgressText(c);
  return ocr ? `${ocr}${eta}` : `${STAGE_LABEL[c.stage]}${count}${eta}`;
}

export function statusClass(status: IngestFileStatus): string {
  if (status === 'indexed' || status === 'unchanged') return 'ok';
  if (status === 'failed') return 'bad';
  if (status === 'needs_ocr' || status === 'unsupported' || status === 'cancelled') return 'warn';
  return 'busy';
}

/** What a document's pages are called in its row: a spreadsheet's are sheets; an email's and an archive's are not counted ('') — its attachments and files are. */
export const UNIT_WORD: Partial<Record<FileInfo['kind'], string>> = { spreadsheet: 'sheet', email: '', archive: '' };

/** What a file is beside its type: an email's sender and subject, what it was taken out of, what it holds. */
export function relationText(file: FileInfo): string {
  const parts: string[] = [];
  if (file.email)
    parts.push(
      [file.email.from && `from ${file.email.from}`, file.email.subject && `“${file.email.subject}”`]
        .filter(Boolean)
        .join(' '),
    );
  if (file.parent) {
    const where =
      file.parent.subject !== undefined
        ? [file.parent.subject || '(no subject)', file.parent.date].filter(Boolean).join(', ')
        : (file.parent.name.split('/').pop() ?? file.parent.name);
    parts.push(`${file.parent.subject !== undefined ? 'attached to' : 'in'}: ${where}`);
  }
  if (file.children)
    parts.push(file.kind === 'email' ? plural(file.children, 'attachment') : plural(file.children, 'file'));
  const latest = file.versions[file.versions.length - 1];
  if (latest?.annotations) parts.push(latest.annotations.summary);
  if (latest?.bates) parts.push(`Bates ${latest.bates.first}–${latest.bates.last}`);
  if (latest?.transcript)
    parts.push(
      `transcript${latest.transcript.deponent ? ` (${latest.transcript.deponent} Dep.)` : ''}, pp. ${latest.transcript.first_page}–${latest.transcript.last_page}`,
    );
  return parts.filter(Boolean).join(' · ');
}

/** The document's title under its name, unless it only repeats the name ("Notice" for notice.pdf). */
export function titleShown(file: FileInfo, base: string): boolean {
  const words = (t: string) => t.toLocaleLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
  return Boolean(file.title) && words(file.title!) !== words(readableName(base));
}

/** A file's type as its row says it: not guessed ("Other") before the file has been read. */
export function typeText(file: FileInfo, status: IngestFileStatus): string {
  if (status === 'queued') return 'queued';
  if (statusClass(status) === 'busy' && file.pages === 0 && file.type === 'other') return 'being read';
  return TYPE_LABEL[file.type] ?? file.type;
}

/** The pages column: a number (a spreadsheet's sheets say so); none for an email or an archive. */
export function pagesText(file: FileInfo): string {
  if (file.pages <= 0 || UNIT_WORD[file.kind] === '') return '';
  return UNIT_WORD[file.kind] ? plural(file.pages, UNIT_WORD[file.kind]!) : String(file.pages);
}
