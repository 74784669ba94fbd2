import { z } from 'zod';
import { CaseId } from './common';
import type { CaseSummary } from './cases';
import { op } from './op';

/** A full path on this computer (POSIX `/…`, Windows `C:\…` or `\\server\…`); checked without node:path so the renderer can share it. */
const isAbsolute = (p: string): boolean => p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p) || p.startsWith('\\\\');

const FullPath = (what: string) =>
  z
    .string({ error: `Give ${what} as a full path.` })
    .min(1, `Choose ${what}.`)
    .max(4096, 'That path is too long.')
    .refine(
      (p) => isAbsolute(p) && !p.includes('\0'),
      `Give ${what} as a full path, such as /Users/me/Smith.casefile.`,
    );

/** What `cases.export` wrote. */
export interface MatterExport {
  case_id: string;
  name: string;
  /** The matter file, as a full path. */
  path: string;
  /** Its size on disk. */
  bytes: number;
  /** How many files of the case it holds. */
  files: number;
  /** Whether a passphrase locks it. */
  encrypted: boolean;
}

/** What `cases.import` did. */
export interface MatterImport {
  /** The case as imported (its id is the id it had where it was exported). */
  case: CaseSummary;
  /** The case it replaced, kept as an earlier version under a new id and name; null when the case was new here. */
  earlier: CaseSummary | null;
  files: number;
  encrypted: boolean;
  /** When and by which Casefile version the matter file was written. */
  exported_at: string;
  casefile_version: string;
}

export const matterContract = {
  'cases.export': op<MatterExport>()(
    z
      .object({
        case_id: CaseId,
        out: FullPath('the matter file to write'),
        passphrase: z
          .string()
          .min(8, 'A passphrase needs at least 8 characters.')
          .max(1024, 'That passphrase is too long.')
          .optional(),
      })
      .strict(),
    'Write one case — its originals, index, chats, chronology marks and settings — as one matter file with a manifest of every file’s SHA-256; a passphrase locks it (AES-256-GCM). Waits for the case’s ingest to finish first.',
  ),
  'cases.import': op<MatterImport>()(
    z
      .object({
        path: FullPath('the matter file'),
        passphrase: z.string().min(1).max(1024, 'That passphrase is too long.').optional(),
      })
      .strict(),
    'Restore a case from a matter file after checking every file against its manifest; a damaged, cut-short or foreign file is refused with nothing imported. A case already here with the same id is kept as an earlier version and the imported one takes its place.',
  ),
};
