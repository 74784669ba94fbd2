/**
 * The reader: turns a file's bytes into text, a page index and the files inside it
 * (parse.ts), behind guards against hostile PDFs and archives; formats/ holds each format's
 * loader and how a place in it is cited (formats/place.ts). The process that runs it is
 * ingest/worker.ts.
 */
export { detectKind, imageFormat, type ImageFormat } from './detect';
export { imageToPdf } from './images';
export { inlineModel, inlineOffset, type Stop } from './inline';
export { parseFile, type ParseOutcome } from './parse';
export { placeFacts, placeOf } from './formats/place';
