import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

/** A fresh data home per test, removed afterwards. */
export function tempHome(prefix = 'casefile-test-'): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export const repoRoot = path.resolve(import.meta.dirname, '..', '..');
export const sharedDir = path.resolve(repoRoot, '..', 'shared');
export const corpusDir = path.join(sharedDir, 'corpus');
/**
 * The `casefile` command as the app's build has it (vitest's global setup builds it first, and
 * `npm test` before Playwright): it and its worker processes start without a TypeScript loader.
 * `bin/casefile.mjs`, which runs the source through tsx, is what serve-cli.test starts by its first line.
 */
export const cliEntry = path.join(repoRoot, 'out', 'main', 'cli.js');

/** Small CUAD contracts (PDF, text layer) that name their parties: a data room for routing and upgrade tests. */
export const CUAD_SMALL = {
  pcquote: 'Co_Branding/PcquoteComInc_19990721_S-1A_EX-10.11_6377149_EX-10.11_Co-Branding Agreement2.pdf',
  mphase: 'Co_Branding/MphaseTechnologiesInc_20030911_10-K_EX-10.15_1560667_EX-10.15_Co-Branding Agreement.pdf',
  datacall:
    'License_Agreements/DataCallTechnologies_20060918_SB-2A_EX-10.9_944510_EX-10.9_Content License Agreement.pdf',
  watchit: 'License_Agreements/WatchitMediaInc_20061201_8-K_EX-10.1_4148672_EX-10.1_Content License Agreement.pdf',
} as const;

/** The path of a CUAD contract PDF in ../shared/corpus, from its path under full_contract_pdf/Part_I. */
export const cuadPdf = (rel: string): string => path.join(corpusDir, 'cuad/full_contract_pdf/Part_I', rel);
