/**
 * Text analysis: what a document's text says about itself, from its text and page index
 * alone — the chunks (chunker.ts), outline and structure, title and parties (profile.ts),
 * a court's caption, type and date (meta.ts), Bates numbers, transcripts' lines, a
 * spreadsheet's rows, the dated events (dates.ts) and the pin cite of a span (place.ts).
 * Pure functions: no files, no processes.
 */
export { courtCaption } from './caption';
export { batesRangeQuery, exhibitLabel, markBates } from './bates';
export { chunkingOf, pageAt, pagesOf } from './chunker';
export { EVENTS_FORMAT, extractEvents, type DatedEvent } from './dates';
export { findDocDate, guessDocType } from './meta';
export { findSection, sectionPath, type Section } from './outline';
export { placeFacts, placeOf } from './place';
export { findDefinedTerms, NAMES_FORMAT, profileOf, type DocumentProfile } from './profile';
export { CSV_LABEL, ROW_MARKER, spreadsheetRowLabel } from './rows';
export { passageSentences, sentenceRanges } from './sentences';
export { chunkDocument, structureOf, type DocumentStructure } from './structure';
export { detectTranscript } from './transcript';
