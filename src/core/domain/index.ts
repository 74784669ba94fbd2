/**
 * The domain: the records every feature shares — a file, its versions, pages and chunks
 * (types.ts), the per-file limits of a read (limits.ts) and the ledger of the citations an
 * answer may use (citation-ledger.ts). Plain data and rules over it; no I/O of a case.
 */
export * from './types';
export * from './limits';
export * from './citation-ledger';
