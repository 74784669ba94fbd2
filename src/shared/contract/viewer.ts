import { z } from 'zod';
import { CaseId } from './common';
import { op } from './op';

/** A rectangle in image pixels (origin top-left), ready to draw over the page image. */
export interface PixelRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** One PDF page rendered for the source viewer, with the boxes of the cited span on it. */
export interface PageImage {
  file_id: string;
  file_name: string;
  version: number;
  /** 1-based page shown. */
  page: number;
  page_count: number;
  /** PNG bytes, base64. */
  png: string;
  /** Image size in pixels. */
  width: number;
  height: number;
  scale: number;
  /** Boxes of the span's words on this page, in image pixels (one per line fragment). */
  rects: PixelRect[];
  /** Pages the span [start, end) touches (empty without a span). */
  span_pages: number[];
}

/** A passage of a DOCX or text document, for showing the cited span in its surrounding text. */
export interface Passage {
  file_id: string;
  file_name: string;
  version: number;
  kind: 'pdf' | 'docx' | 'text';
  /** A window of the document text; `offset` is where it starts in the whole text. */
  text: string;
  offset: number;
  total_length: number;
  /** The cited span, in whole-document offsets. */
  start: number;
  end: number;
  /** Pages (or pseudo-pages) the span covers. */
  pages: number[];
}

/** A box as fractions (0–1) of the page image's width and height, origin top-left: the same at every zoom. */
export interface PageBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** One word of a PDF page (whitespace-separated, as in the document text) and where it is drawn. */
export interface PageWord extends PageBox {
  /** The word's characters, [start, end) in the whole document text. */
  text: string;
  start: number;
  end: number;
}

/**
 * The words of one PDF page with their boxes, from the geometry stored at ingest (OCR'd pages
 * included), for the viewer's selectable text layer and for boxes around found words.
 */
export interface PageWords {
  file_id: string;
  version: number;
  /** 1-based page. */
  page: number;
  page_count: number;
  /** In reading order (document text order). */
  words: PageWord[];
}

const FileId = z.string({ error: 'file_id is required' }).min(1).max(200);
const Version = z.number().int().positive().optional();
const Offset = z.number().int().min(0);

export const CitationPageInput = z
  .object({
    case_id: CaseId,
    file_id: FileId,
    /** Default: the latest version. */
    version: Version,
    page: z.number({ error: 'page is required' }).int().min(1, 'page must be 1 or more'),
    /** Pixels per PDF point. */
    scale: z
      .number()
      .min(0.25, 'The page scale is from 0.25 to 4.')
      .max(4, 'The page scale is from 0.25 to 4.')
      .default(1.5),
    start: Offset.optional(),
    end: Offset.optional(),
  })
  .strict()
  .refine((v) => (v.start === undefined) === (v.end === undefined), {
    message: 'give both start and end, or neither',
    path: ['end'],
  })
  .refine((v) => v.start === undefined || v.end === undefined || v.end >= v.start, {
    message: 'The end must not come before the start.',
    path: ['end'],
  });

export const CitationPassageInput = z
  .object({
    case_id: CaseId,
    file_id: FileId,
    version: Version,
    start: Offset,
    end: Offset,
    /** Characters of context on each side of the span. */
    context: z.number().int().min(0).max(50_000).default(3000),
  })
  .strict()
  .refine((v) => v.end >= v.start, { message: 'The end must not come before the start.', path: ['end'] });

export const CitationWordsInput = z
  .object({
    case_id: CaseId,
    file_id: FileId,
    /** Default: the latest version. */
    version: Version,
    page: z.number({ error: 'page is required' }).int('page must be a whole number').min(1, 'page must be 1 or more'),
  })
  .strict();

export const viewerContract = {
  'citations.page': op<PageImage>()(
    CitationPageInput,
    'Render one PDF page as a PNG with the rectangles of a cited character span, for the source viewer.',
  ),
  'citations.passage': op<Passage>()(
    CitationPassageInput,
    'The text around a cited span of a document (DOCX and text files are shown this way).',
  ),
  'citations.words': op<PageWords>()(
    CitationWordsInput,
    "The words of one PDF page with their boxes (fractions of the page), for the viewer's selectable text layer and find boxes.",
  ),
};
