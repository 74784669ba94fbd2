import { LOW_OCR_CONFIDENCE } from '../../shared/citation-text';
import { courtCaption, findDocDate, guessDocType, exhibitLabel, markBates, detectTranscript } from '../text/index';
import {
  detectKind,
  type Detection,
  DEFAULT_LIMITS,
  resolveLimits,
  type IngestLimits,
  type BatesRange,
  type ChildFile,
  type DocAnnotations,
  type EmailMeta,
  type TranscriptInfo,
  type DetectedKind,
  type DocType,
  type FileStatus,
} from '../domain/index';
import type { OcrOptions } from './ocr-page';
import { ImageError, imageToPdf } from './images';
import { LoadError, loadDocx, loadPdf, loadText, type ParsedDoc } from './loaders';
import { checkPdfStreams } from './pdf-guard';
import { checkZip, openArchive } from './zip-guard';
import { loadEml, loadMsg } from './formats/email';
import { loadSpreadsheet } from './formats/spreadsheet';
import { loadHtml, loadRtf, loadWord97 } from './formats/text-formats';
import { unitsDocument } from './formats/units';
import { ANNOTATIONS_HEADING } from './formats/docx-annotations';

export interface ParseRequest {
  bytes: Uint8Array;
  name: string;
  /** Size limit in bytes; larger files fail with "too large". */
  maxBytes: number;
  /** Limits on what the file may expand to (pages, decoded streams, images, DOCX parts); defaults and environment otherwise. */
  limits?: Partial<IngestLimits>;
  signal?: AbortSignal;
  onPage?: (done: number, total: number) => void;
  standardFontDataUrl?: string;
  /** Read PDF pages without a text layer by OCR. */
  ocr?: OcrOptions;
  /** The password of a protected PDF, given by the user. */
  password?: string;
  /** The Bates prefix the user gave for this document; null: it is not Bates-stamped; absent: detect. */
  batesPrefix?: string | null;
  /** Store a file taken out of this one as it comes (an archive's entry), so its bytes need not stay in memory. */
  keepChild?: (child: ChildFile) => Promise<ChildFile>;
}

export interface ParseOutcome {
  kind: DetectedKind;
  status: Extract<FileStatus, 'indexed' | 'needs_ocr' | 'unsupported' | 'failed'>;
  reason: string;
  doc?: ParsedDoc;
  pages: number;
  emptyPages: number[];
  /** Pages read by OCR, with their mean word confidence (0–100). */
  ocrPages?: { page: number; confidence: number }[];
  /** A password-protected PDF: opened with the password given, or not opened without it. */
  locked?: true;
  /** An email's headers. */
  email?: EmailMeta;
  /** A Word file's tracked changes and comments ("12 tracked changes by Opposing Counsel, 3 comments"). */
  annotations?: DocAnnotations;
  /** The document's Bates range, where its pages are stamped. */
  bates?: BatesRange;
  /** A deposition or hearing transcript: its deponent and printed pages. */
  transcript?: TranscriptInfo;
  /** Files inside this one, to be read as files of their own (the reader stores their bytes). */
  children?: ChildFile[];
  docType: DocType;
  docDate: string;
}

/** The default file-size limit (the limits table holds every limit). */
export const DEFAULT_MAX_BYTES = DEFAULT_LIMITS.maxFileBytes;

/** Detect, check and load one file. Expected problems come back as a status and reason, never as a throw (except cancellation). */
export async function parseFile(req: ParseRequest): Promise<ParseOutcome> {
  const base = { pages: 0, emptyPages: [] as number[], docDate: '', docType: guessDocType(req.name, '') };
  if (req.bytes.length === 0) return { ...base, kind: 'unknown', status: 'failed', reason: 'empty file' };
  if (req.bytes.length > req.maxBytes) {
    const mb = (n: number) => `${Math.round(n / 1024 / 1024)} MB`;
    return {
      ...base,
      kind: 'unknown',
      status: 'failed',
      reason: `too large (${mb(req.bytes.length)}; the limit is ${mb(req.maxBytes)})`,
    };
  }
  const detected = detectKind(req.bytes, req.name);
  if (detected.kind === 'unknown') return { ...base, kind: 'unknown', status: 'unsupported', reason: detected.reason };
  const limits = resolveLimits(req.limits);
  let doc: ParsedDoc;
  try {
    if (detected.kind === 'image') {
      // An image is read by OCR as a PDF made of it (one page per image); without OCR it has no text.
      if (!req.ocr)
        return {
          ...base,
          kind: 'image',
          status: 'needs_ocr',
          reason: 'an image (a photo or scan): turn on OCR in the case settings to read it',
          pages: 1,
          emptyPages: [1],
        };
      const pdf = await imageToPdf(req.bytes, limits).catch((err: unknown) => {
        throw err instanceof ImageError ? new LoadError('failed', err.message) : err;
      });
      doc = await loadPdf(pdf, {
        signal: req.signal,
        onPage: req.onPage,
        maxPages: limits.maxPages,
        maxImagePixels: limits.maxImagePixels,
        ocr: req.ocr,
      });
    } else if (detected.kind === 'pdf') {
      checkPdfStreams(req.bytes, limits);
      doc = await loadPdf(req.bytes, {
        signal: req.signal,
        onPage: req.onPage,
        standardFontDataUrl: req.standardFontDataUrl,
        maxPages: limits.maxPages,
        maxImagePixels: limits.maxImagePixels,
        ...(req.ocr ? { ocr: req.ocr } : {}),
        ...(req.password !== undefined ? { password: req.password } : {}),
      });
    } else if (detected.kind === 'docx') {
      checkZip(req.bytes, limits);
      doc = await loadDocx(req.bytes);
    } else {
      doc = await loadOther(req, detected, limits);
    }
  } catch (err) {
    if (err instanceof LoadError) {
      const emptyPages = err.status === 'needs_ocr' ? Array.from({ length: err.pages }, (_, i) => i + 1) : [];
      return {
        ...base,
        kind: detected.kind,
        status: err.status,
        reason: err.reason,
        pages: err.pages,
        emptyPages,
        ...(err.locked ? { locked: true as const } : {}),
      };
    }
    if ((err as Error).name === 'AbortError') throw err;
    const msg = err instanceof Error ? err.message : String(err);
    return { ...base, kind: detected.kind, status: 'failed', reason: `could not be read (${msg.slice(0, 200)})` };
  }
  return indexedOutcome(req, detected.kind, doc);
}

/** The outcome of a file read: its pin cites, exhibit label, notes on pages without text, type and date. */
function indexedOutcome(req: ParseRequest, kind: DetectedKind, doc: ParsedDoc): ParseOutcome {
  const pins = markPinCites(doc, req.batesPrefix);
  const exhibit = exhibitLabel(req.name, doc.text);
  if (exhibit) doc.index.exhibit = exhibit;
  const firstPage = doc.index.pages.find((p) => p.end > p.start);
  const firstText = firstPage
    ? doc.text.slice(firstPage.start, Math.max(firstPage.end, firstPage.start + 3000))
    : doc.text.slice(0, 3000);
  const some = `${doc.emptyPages.length} of ${doc.index.pages.length} pages`;
  const partial = !doc.emptyPages.length
    ? ''
    : req.ocr
      ? `${some} have no text, even by OCR (pages ${compactRanges(doc.emptyPages)}): blank, or too faint to read — check the original`
      : `${some} have no text layer (pages ${compactRanges(doc.emptyPages)}); turn on OCR in the case settings to search them`;
  const ocrPages = doc.index.pages
    .filter((p) => p.ocr && p.end > p.start)
    .map((p) => ({ page: p.page, confidence: p.ocr!.confidence }));
  return {
    kind,
    status: 'indexed',
    reason: doc.kind === 'pdf' ? [ocrNote(ocrPages), partial].filter(Boolean).join('; ') : (doc.note ?? ''),
    doc,
    pages: doc.index.pages.length,
    emptyPages: doc.emptyPages,
    ...(ocrPages.length ? { ocrPages } : {}),
    // Read with a password: the original stays protected (its pages need the password to be shown).
    ...(req.password !== undefined ? { locked: true as const } : {}),
    ...(doc.email ? { email: doc.email } : {}),
    ...(doc.children ? { children: doc.children } : {}),
    docType: doc.email ? 'correspondence' : guessDocType(req.name, firstText),
    ...(doc.annotations ? { annotations: doc.annotations } : {}),
    ...pins,
    // A court paper's date is the date decided (or filed) its caption gives, not the first date in
    // it (the argued date, a fact's). A redline's appendix of changes carries the reviewers' dates, not the document's.
    docDate:
      doc.email?.iso_date ||
      (doc.email ? '' : courtCaption(doc.text)?.decided) ||
      findDocDate(
        doc.annotations ? doc.text.slice(0, doc.text.lastIndexOf(`\n\n${ANNOTATIONS_HEADING}\n\n`)) : doc.text,
      ),
  };
}

/**
 * Bates stamps and a transcript's numbered lines, marked in the document's pages (pages.json) so
 * citations can say "ACME0001234" or "Smith Dep. 42:10–17"; what was found, for the file's listing.
 * Documents of named units (sheets, an email's parts) have neither.
 */
function markPinCites(
  doc: Pick<ParsedDoc, 'text' | 'index'>,
  batesPrefix?: string | null,
): Pick<ParseOutcome, 'bates' | 'transcript'> {
  if (doc.index.pages.some((p) => p.label)) return {};
  const out: Pick<ParseOutcome, 'bates' | 'transcript'> = {};
  const bates = markBates(doc, batesPrefix);
  if (bates) out.bates = bates;
  const transcript = detectTranscript(doc.text, doc.index);
  if (transcript) {
    doc.index.transcript = transcript;
    out.transcript = {
      deponent: transcript.deponent,
      first_page: transcript.pages[0]!.transcriptPage,
      last_page: transcript.pages[transcript.pages.length - 1]!.transcriptPage,
    };
  }
  return out;
}

/** Emails, spreadsheets, archives, and the text formats other than plain text. */
async function loadOther(req: ParseRequest, detected: Detection, limits: IngestLimits): Promise<ParsedDoc> {
  const { bytes } = req;
  switch (detected.format) {
    case 'eml':
      return loadEml(bytes);
    case 'msg':
      return loadMsg(bytes);
    case 'xlsx':
    case 'ods':
      checkZip(bytes, limits, 'spreadsheet');
      return loadSpreadsheet(bytes);
    case 'xls':
    case 'csv':
      return loadSpreadsheet(bytes);
    case 'zip': {
      const archive = openArchive(bytes, limits);
      const children: ChildFile[] = [];
      for (const c of archive.entries) children.push(req.keepChild && c.bytes ? await req.keepChild(c) : c);
      return { ...archiveDocument(children), ...(archive.note ? { note: archive.note } : {}) };
    }
    case 'doc':
      return loadWord97(bytes);
    case 'rtf':
      return loadRtf(bytes);
    case 'html':
      return loadHtml(bytes);
    default:
      return loadText(bytes);
  }
}

/**
 * An archive is listed as a document of its own (its files, one a line, with the reason of any not
 * read), its files read as children. A reason many files share (left out past a cap) is said once,
 * above their names, not on each of thousands of lines.
 */
function archiveDocument(children: ChildFile[]): ParsedDoc {
  const shared = new Map<string, string[]>();
  for (const c of children) {
    if (!c.reason) continue;
    const names = shared.get(c.reason);
    if (names) names.push(c.name);
    else shared.set(c.reason, [c.name]);
  }
  for (const [reason, names] of shared) if (names.length < 3) shared.delete(reason);
  const lines = children
    .filter((c) => !c.reason || !shared.has(c.reason))
    .map((c) => (c.reason ? `${c.name} — ${c.reason}` : c.name));
  const count = `${children.length} ${children.length === 1 ? 'file' : 'files'} in this archive:`;
  const groups = [...shared].flatMap(([reason, names]) => [
    `${names.length.toLocaleString('en-US')} files — ${reason}:`,
    names.join('\n'),
  ]);
  const doc = unitsDocument(
    [
      {
        label: 'Archive contents',
        paragraphs: children.length ? [count, lines.join('\n'), ...groups].filter(Boolean) : [],
      },
    ],
    'the archive holds no files',
  );
  return { ...doc, children };
}

/** "read by OCR: pages 1-40 (mean confidence 93%); page 4 under 80% — check the original" */
export function ocrNote(pages: { page: number; confidence: number }[]): string {
  if (!pages.length) return '';
  const mean = Math.round(pages.reduce((a, p) => a + p.confidence, 0) / pages.length);
  const low = pages.filter((p) => p.confidence < LOW_OCR_CONFIDENCE).map((p) => p.page);
  const which = (nums: number[]) => `${nums.length === 1 ? 'page' : 'pages'} ${compactRanges(nums)}`;
  return `read by OCR: ${which(pages.map((p) => p.page))} (mean confidence ${mean}%)${low.length ? `; ${which(low)} under ${LOW_OCR_CONFIDENCE}% — check the original` : ''}`;
}

/** "1-3, 7, 9-10" */
export function compactRanges(nums: number[]): string {
  const out: string[] = [];
  for (let i = 0; i < nums.length; ) {
    let j = i;
    while (j + 1 < nums.length && nums[j + 1] === nums[j]! + 1) j++;
    out.push(i === j ? `${nums[i]}` : `${nums[i]}-${nums[j]}`);
    i = j + 1;
  }
  return out.join(', ');
}
