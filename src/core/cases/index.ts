/** The cases: the registry of cases and their `case.json` (registry.ts), and the `cases.*` ops (handlers.ts). */
export { caseHandlers } from './handlers';
export { CaseRegistry, dateSettingsOf, ocrSettingsOf, type CaseMeta } from './registry';
