/**
 * A document's structure and the chunks that follow it. Ingest and the upgrade of older cases
 * (`reindex.ts`) both come through here, so a case indexed either way holds the same chunks. Every
 * chunk carries its context (title and section path, "Agreement › 7 Liability › 7.2 Cap"), which
 * search indexes and embeds; the chunk's text and offsets stay exactly the document's words.
 */
import { createHash } from 'node:crypto';
import { pageAt, splitStructured, type Boundary, type Span } from './chunker';
import { sectionsOf, type Section } from './outline';
import { profileOf, type DocumentProfile } from './profile';
import type { ChunkingOptions, ChunkRecord, DocType, PageIndex } from '../domain/index';

export interface DocumentStructure {
  sections: Section[];
  profile: DocumentProfile;
}

/**
 * Outline and profile of a document's text (DOCX: its HTML gives the heading styles, its core
 * properties' title is in `index.properties`; an email: `about.subject`). A court paper's outline
 * title (the court's header lines) is named by its case name, as the profile is.
 */
export function structureOf(
  text: string,
  index: PageIndex,
  fileName: string,
  html?: string,
  about: { subject?: string | undefined } = {},
): DocumentStructure {
  const starts = index.pages.length ? index.pages.map((p) => p.start) : [0];
  const sections = sectionsOf(text, starts, html);
  const profile = profileOf(text, sections, fileName, {
    subject: about.subject,
    propertiesTitle: index.properties?.title,
  });
  if (profile.court) {
    const title = sections.find((s) => s.kind === 'title');
    if (title && profile.short_name) title.title = profile.short_name;
  }
  return { sections, profile };
}

const CONTEXT_CHARS = 300;
const label = (s: Section) => [s.number, s.title].filter(Boolean).join(' ');

function contextOf(title: string, path: readonly Section[], inside: readonly Section[]): string {
  const names = path
    .filter((s) => s.kind !== 'title')
    .map(label)
    .filter(Boolean);
  const also = inside
    .filter((s) => s.kind !== 'title')
    .map(label)
    .filter(Boolean);
  let context = [title, ...names].join(' › ');
  if (also.length) context += ` (also: ${also.join('; ')})`;
  return context.length > CONTEXT_CHARS ? `${context.slice(0, CONTEXT_CHARS - 1).trimEnd()}…` : context;
}

/**
 * Each span's context — "Title › 7 Limitation of Liability › 7.2 Cap on Damages (also: 7.3
 * Exclusions)": the section path at its start, and the headings that start inside it. One sweep
 * over spans and sections in document order (sections nest: each ends before its parent does).
 */
export function chunkContexts(title: string, sections: readonly Section[], spans: readonly Span[]): string[] {
  const open: Section[] = [];
  let next = 0;
  return spans.map((span) => {
    while (next < sections.length && sections[next]!.start <= span.start) {
      const s = sections[next++]!;
      while (open.length && open[open.length - 1]!.end <= s.start) open.pop();
      open.push(s);
    }
    const path = open.filter((s) => s.end > span.start);
    const inside: Section[] = [];
    for (let k = next; k < sections.length && sections[k]!.start < span.end && inside.length < 8; k++)
      inside.push(sections[k]!);
    return contextOf(title, path, inside);
  });
}

/** Where chunks may not straddle: the start of every heading of level 1 or 2 but the title. */
export function topLevelBoundaries(sections: readonly Section[]): Boundary[] {
  return sections.filter((s) => s.level <= 2 && s.kind !== 'title').map((s) => ({ offset: s.start, level: s.level }));
}

/** Where a document of named units (a spreadsheet's sheets, an email's parts) goes from one unit to the next. */
function unitBoundaries(index: PageIndex): Boundary[] {
  return index.pages
    .filter((p, i) => i > 0 && p.label && p.label !== index.pages[i - 1]!.label)
    .map((p) => ({ offset: p.start, level: 1 }));
}

export interface ChunkMeta {
  fileId: string;
  name: string;
  version: number;
  isLatest: boolean;
  docType: DocType;
  docDate: string;
}

/** Chunk a document along its structure into records whose `text` is exactly `doc.text.slice(start, end)`, each with its context. */
export function chunkDocument(
  doc: { text: string; index: PageIndex; html?: string | undefined },
  meta: ChunkMeta,
  options?: Partial<ChunkingOptions>,
  structure: DocumentStructure = structureOf(doc.text, doc.index, meta.name, doc.html),
): ChunkRecord[] {
  const spans = splitStructured(
    doc.text,
    [...topLevelBoundaries(structure.sections), ...unitBoundaries(doc.index)],
    options,
  );
  // The short name: a contract's title without its parties (their names are in its text already).
  const contexts = chunkContexts(structure.profile.short_name || structure.profile.title, structure.sections, spans);
  const starts = doc.index.pages.map((p) => p.start);
  return spans.map((span, i) => {
    const text = doc.text.slice(span.start, span.end);
    return {
      chunk_id: `${meta.name}@v${meta.version}#${i}`,
      file_id: meta.fileId,
      file_name: meta.name,
      version: meta.version,
      is_latest: meta.isLatest,
      chunk_index: i,
      start: span.start,
      end: span.end,
      page_start: pageAt(starts, span.start),
      page_end: pageAt(starts, span.end - 1),
      text,
      context: contexts[i]!,
      hash: createHash('sha256').update(text).digest('hex'),
      doc_type: meta.docType,
      doc_date: meta.docDate,
    };
  });
}
