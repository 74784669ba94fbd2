/** The cases: the registry of cases and their `case.json` (registry.ts), their digests and the case a question means (digest.ts, detect.ts), where a case's index lives (object-store.ts: its folder or the firm's object storage), and the `cases.*` ops (handlers.ts). */
export { caseHandlers } from './handlers';
export { type CaseDigest, DIGEST_FORMAT, readDigest, writeDigest } from './digest';
export { bucketOriginals, CaseMeta, CaseRegistry, dateSettingsOf, ocrSettingsOf } from './registry';
export {
  caseIndexLocation,
  type IndexLocation,
  newCaseStorage,
  type RemoteOriginals,
  readObjectStore,
} from './object-store';
