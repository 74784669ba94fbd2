/**
 * A document made of named units (a spreadsheet's sheets, an email's parts, a web page's text):
 * its text is the units' paragraphs joined by blank lines, and each unit becomes one or more
 * pseudo-pages that carry the unit's label ("Sheet Billing"), so a citation can say where it is.
 * A unit longer than `charsPerPage` is split between paragraphs, each part keeping the label.
 */
import { LoadError, type ParsedDoc } from '../loaders';
import type { PageGeometry } from '../../domain/index';

export interface TextUnit {
  /** What the unit is called where it is cited ("Sheet Billing"); '' for none (the page number is used). */
  label: string;
  /** The unit's paragraphs (a paragraph may hold single line breaks; blank lines split it). */
  paragraphs: string[];
}

export const UNIT_CHARS_PER_PAGE = 3000;

/** Build a text document of units. Throws LoadError('failed', emptyReason) when no unit has any text. */
export function unitsDocument(units: TextUnit[], emptyReason: string, charsPerPage = UNIT_CHARS_PER_PAGE): ParsedDoc {
  let text = '';
  const pages: PageGeometry[] = [];
  const paragraphs: [number, number][] = [];
  for (const unit of units) {
    const paras = unit.paragraphs
      .flatMap((p) => p.replace(/\r\n?/g, '\n').split(/\n[ \t]*\n/))
      .map((p) => p.replace(/\s+$/, ''))
      .filter((p) => /\S/.test(p));
    if (!paras.length) continue;
    let pageStart = -1;
    let pageEnd = -1;
    for (const para of paras) {
      if (text.length) text += '\n\n';
      const start = text.length;
      text += para;
      paragraphs.push([start, text.length]);
      if (pageStart >= 0 && text.length - pageStart > charsPerPage && pageEnd > pageStart) {
        pages.push(unitPage(pages.length + 1, pageStart, pageEnd, unit.label));
        pageStart = start;
      }
      if (pageStart < 0) pageStart = start;
      pageEnd = text.length;
    }
    pages.push(unitPage(pages.length + 1, pageStart, pageEnd, unit.label));
  }
  if (!pages.length) throw new LoadError('failed', emptyReason);
  // Page ranges cover the text without gaps: the blank line before a page belongs to the page before.
  for (let i = 0; i + 1 < pages.length; i++) pages[i]!.end = pages[i + 1]!.start;
  pages[pages.length - 1]!.end = text.length;
  return { kind: 'text', text, index: { kind: 'text', pages, paragraphs }, emptyPages: [] };
}

function unitPage(page: number, start: number, end: number, label: string): PageGeometry {
  return { page, start, end, view: [0, 0, 0, 0], rotate: 0, fonts: [], items: [], ...(label ? { label } : {}) };
}
