/**
 * A document's sections from its outline (ingest/outline.ts): each heading's section runs to the
 * next heading of the same or a higher level (or the end of the text). Computed from the stored
 * text, pages and (DOCX) HTML, so cases ingested before outlines existed have them too.
 */
import { detectOutline, type Heading } from '../ingest/outline';
import type { DocumentText } from './document-source';

export interface Section extends Heading {
  id: string;
  /** Where the heading line ends (the section itself ends at `end`). */
  headingEnd: number;
}

export function sectionsOf(doc: DocumentText): Section[] {
  const headings = detectOutline(doc.text, doc.pageStarts, doc.html);
  return headings.map((h, i) => {
    const next = headings.slice(i + 1).find((n) => n.level <= h.level);
    return { ...h, id: `s${i + 1}`, headingEnd: h.end, end: next ? next.start : doc.text.length };
  });
}

/** A section by id ("s4"), number ("7.2", "IV", "(a)") or words of its title; null when none. */
export function findSection(sections: Section[], ref: string): Section | null {
  const r = ref.trim();
  const byId = sections.find((s) => s.id === r.toLowerCase());
  if (byId) return byId;
  const num = r.replace(/^(section|article|§)\s*/i, '').replace(/\.$/, '');
  const byNumber = sections.find((s) => s.number !== '' && s.number.replace(/\.$/, '').toLowerCase() === num.toLowerCase());
  if (byNumber) return byNumber;
  const words = r.toLowerCase().split(/\s+/).filter(Boolean);
  return sections.find((s) => s.title && words.every((w) => s.title.toLowerCase().includes(w))) ?? null;
}
