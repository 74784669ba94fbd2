import type { CitationRecord } from '../../shared/contract/search';
import { CasefileError } from '../../shared/errors';
import { CaseDocuments } from '../documents/index';
import { spanToRects, type PageRects } from './geometry';

export interface ResolvedCitation {
  citation: CitationRecord;
  /** The cited words, exactly as in the document text. */
  text: string;
  /** First page of the span (where a viewer should open). */
  page: number;
  /** Rectangles per page in PDF user space, merged per line; empty for DOCX/text files. */
  pages: PageRects[];
}

/**
 * Resolve a citation record of this case to (page, rectangles) from the geometry stored at
 * ingest — no PDF parsing. Works for DOCX/text too (no rectangles, pages from the record).
 */
export async function resolveCitation(docs: CaseDocuments, citation: CitationRecord): Promise<ResolvedCitation> {
  const text = await docs.getText(citation.file_id, citation.version);
  if (citation.start < 0 || citation.end > text.length || citation.end < citation.start) {
    throw new CasefileError(
      'not_found',
      `Citation ${citation.id} points outside ${citation.file_name} v${citation.version}.`,
    );
  }
  const index = await docs.getPages(citation.file_id, citation.version);
  const pages = spanToRects(index, citation.start, citation.end, text);
  return {
    citation,
    text: text.slice(citation.start, citation.end),
    page: pages[0]?.page ?? citation.pages[0] ?? 1,
    pages,
  };
}
