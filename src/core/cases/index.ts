/** The cases: the registry of cases and their `case.json` (registry.ts), their digests and the case a question means (digest.ts, detect.ts), and the `cases.*` ops (handlers.ts). */
export { caseHandlers } from './handlers';
export { type CaseDigest, DIGEST_FORMAT, readDigest, writeDigest } from './digest';
export { CaseMeta, CaseRegistry, dateSettingsOf, ocrSettingsOf } from './registry';
