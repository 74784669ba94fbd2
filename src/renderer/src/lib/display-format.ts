export {
  fileSemanticText,
  formatBytes,
  ocrProgressText,
  plural,
  semanticText,
  sourceRemovedText,
} from '../../../shared/format';

export const isMac =
  typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);

/** Display of a Cmd/Ctrl shortcut for this platform. */
export function shortcut(key: string): string {
  return isMac ? `⌘${key}` : `Ctrl+${key}`;
}

/** "3 s", "2 min", "1 h 5 min" — for ETAs. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '';
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** A document type as the lists say it. */
export const TYPE_LABEL: Record<string, string> = {
  contract: 'Contract',
  medical_record: 'Medical record',
  police_report: 'Police report',
  correspondence: 'Correspondence',
  pleading: 'Pleading',
  opinion: 'Opinion',
  order: 'Order',
  deposition: 'Deposition',
  invoice: 'Invoice',
  other: 'Other',
};
