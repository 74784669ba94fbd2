import { z } from 'zod';
import { CaseId, CaseName, Empty } from './common';
import { op } from './op';

/** A full path on this computer (POSIX `/…`, Windows `C:\…` or `\\server\…`); checked without node:path so the renderer can share it. */
const isAbsolute = (p: string): boolean => p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p) || p.startsWith('\\\\');

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
  /** Whether scanned pages and images are read by OCR in this case, and in which language (an installed language's code, e.g. `eng`). */
  ocr: { enabled: boolean; language: string };
  /** How the case's documents write numeric dates: "03/04/2020" is 4 March (month first) or 3 April (day first); until set, as this computer's locale writes dates. */
  dates: { day_first: boolean };
  /**
   * The folders the case follows (absolute paths): while `enabled`, new and changed files there are
   * added, deleted ones marked as removed from the folder. `problem`: why Casefile switched following
   * off by itself (a folder too large or too deep to follow, or one the system would not watch);
   * it goes when following is switched on again or the folders change.
   */
  watch: { enabled: boolean; folders: string[]; problem?: string };
}

export interface AppInfo {
  name: 'casefile';
  version: string;
  home: string;
  /** OCR: off when the engine was started with CASEFILE_OCR=0; the installed languages (codes such as `eng`). */
  ocr: { available: boolean; languages: string[] };
}

/** One case a question may mean (`cases.detect`), with what its summary says. */
export interface CaseCandidate {
  case_id: string;
  name: string;
  /** How well the question fits the case's summary (0 when nothing in it matched); comparable within one answer only. */
  score: number;
  /** The case's summary in one line: its documents, parties and people, dates and subjects. */
  line: string;
  /** The question's words that matched the summary, as searched. */
  matched: string[];
}

/**
 * Which case a question asked outside any case means, found from the cases' summaries alone
 * (never their passages). `chosen`: the one case that clearly fits (or the only case); null when
 * the user must choose (`ambiguous`: two or more fit about equally, or nothing in the question
 * names a case) or there is no case.
 */
export interface CaseDetection {
  chosen: string | null;
  ambiguous: boolean;
  /** The cases that fit, best first (when ambiguous: the ones to choose from). */
  candidates: CaseCandidate[];
  /** Why, in plain words ("Only one case.", "Two cases fit about equally."). */
  reason: string;
}

export const casesContract = {
  'app.info': op<AppInfo>()(Empty, 'Version and data folder of the running engine.'),
  'cases.list': op<{ cases: CaseSummary[] }>()(
    z.object({ query: z.string().max(200).optional() }).strict(),
    'List cases, newest first; `query` filters by name (case-insensitive substring).',
  ),
  'cases.get': op<CaseSummary>()(z.object({ case_id: CaseId }).strict(), 'One case by id.'),
  'cases.create': op<CaseSummary>()(z.object({ name: CaseName }).strict(), 'Create an empty case.'),
  'cases.rename': op<CaseSummary>()(z.object({ case_id: CaseId, name: CaseName }).strict(), 'Rename a case.'),
  'cases.setOcr': op<CaseSummary>()(
    z
      .object({
        case_id: CaseId,
        enabled: z.boolean({ error: 'Choose on or off (true or false).' }).optional(),
        language: z
          .string()
          .regex(/^[a-z_]{3,12}$/, 'Give the OCR language as a code such as eng (English).')
          .optional(),
      })
      .strict(),
    'Turn OCR of scanned pages and images on or off for a case, or choose its language; applies to files read from now on (retry a file to read it again).',
  ),
  'cases.setDateOrder': op<CaseSummary>()(
    z
      .object({
        case_id: CaseId,
        day_first: z.boolean({ error: 'Choose whether dates are read day first (true or false).' }),
      })
      .strict(),
    'How the case’s documents write numeric dates (03/04/2020): day first or month first. The chronology reads them so from now on.',
  ),
  'cases.setWatch': op<CaseSummary>()(
    z
      .object({
        case_id: CaseId,
        enabled: z.boolean({ error: 'Choose on or off (true or false).' }).optional(),
        /** Replaces the list; each an absolute path of a folder. */
        folders: z
          .array(
            z
              .string()
              .min(1, 'Choose a folder.')
              .max(4096, 'That folder path is too long.')
              .refine(
                (p) => isAbsolute(p) && !p.includes('\0'),
                'Give each folder as a full path, such as /Users/me/Cases/Smith.',
              ),
            { error: 'Give the folders as a list of full paths.' },
          )
          .max(50, 'A case can follow at most 50 folders.')
          .optional(),
      })
      .strict(),
    'Follow the case’s folders, or stop: while on, new and changed files there are added (a changed file as a new version) and deleted ones marked as removed from the folder (the stored copy is kept).',
  ),
  'cases.detect': op<CaseDetection>()(
    z
      .object({
        question: z
          .string({ error: 'Give the question as text.' })
          .trim()
          .min(1, 'Type a question.')
          .max(2000, 'That question is too long (at most 2,000 characters).'),
      })
      .strict(),
    'Find the case a question asked outside any case means, from each case’s summary (its name, parties and people, document types, dates and subjects), never from its passages; when two or more fit about equally, `ambiguous` lists them to choose from.',
  ),
  'cases.delete': op<{ id: string; deleted: true }>()(
    z.object({ case_id: CaseId }).strict(),
    'Delete a case and everything in its directory.',
  ),
};
