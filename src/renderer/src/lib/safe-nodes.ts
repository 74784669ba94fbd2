/**
 * The sanitised document tree the DOCX and text views render (docx-html builds it from mammoth's
 * HTML; viewer/marks splits text into marked parts of it): allow-listed tags only, plain data.
 */
/** What a mark is: the cited words, a found word, or the found word that is current. */
export type MarkKind = 'cite' | 'hit' | 'current';

export const SAFE_TAGS = [
  'p',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'ul',
  'ol',
  'li',
  'table',
  'thead',
  'tbody',
  'tr',
  'td',
  'th',
  'strong',
  'em',
  'b',
  'i',
  'u',
  'sup',
  'sub',
  'br',
  'a',
  'span',
  'del',
  'ins',
] as const;
export type SafeTag = (typeof SAFE_TAGS)[number] | 'mark';

export interface SafeText {
  kind: 'text';
  text: string;
}
export interface SafeElement {
  kind: 'el';
  tag: SafeTag;
  colSpan?: number;
  rowSpan?: number;
  /** Not part of the ingest text (footnote references and bodies, image placeholders). */
  note?: boolean;
  /** Stands in for a dropped image. */
  placeholder?: 'image';
  /** For a <mark>: the cited words or a found word (see viewer/marks). */
  mark?: MarkKind;
  children: SafeNode[];
}
export type SafeNode = SafeText | SafeElement;
