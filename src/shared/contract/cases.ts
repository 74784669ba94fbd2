import { z } from 'zod';
import { CaseId, CaseName, Empty } from './common';
import { op } from './op';

export interface CaseSummary {
  id: string;
  name: string;
  /** ISO timestamp. */
  created: string;
  updated: string;
  /** Number of file records (latest versions) in the case. */
  files: number;
  /** Bytes of original documents stored in the case. */
  bytes: number;
}

export interface AppInfo {
  name: 'casefile';
  version: string;
  home: string;
}

export const casesContract = {
  'app.info': op<AppInfo>()(Empty, 'Version and data folder of the running engine.'),
  'cases.list': op<{ cases: CaseSummary[] }>()(
    z.object({ query: z.string().max(200).optional() }).strict(),
    'List cases, newest first; `query` filters by name (case-insensitive substring).',
  ),
  'cases.get': op<CaseSummary>()(z.object({ caseId: CaseId }).strict(), 'One case by id.'),
  'cases.create': op<CaseSummary>()(z.object({ name: CaseName }).strict(), 'Create an empty case.'),
  'cases.rename': op<CaseSummary>()(z.object({ caseId: CaseId, name: CaseName }).strict(), 'Rename a case.'),
  'cases.delete': op<{ id: string; deleted: true }>()(
    z.object({ caseId: CaseId }).strict(),
    'Delete a case and everything in its directory.',
  ),
};
