/**
 * The domain: the records every feature shares — a file, its versions, pages and chunks
 * (types.ts), what kind of file some bytes are (detect.ts), the per-file limits of a read
 * (limits.ts) and the ledger of the citations an answer may use (citation-ledger.ts). Plain
 * data and rules over it; no I/O.
 */
export * from './types';
export * from './detect';
export * from './limits';
export * from './citation-ledger';
