/** Folders of real corpus documents (plus deliberately broken files) for the e2e specs. */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { corpusDir } from './fixtures';

export const CORPUS = {
  steelVault:
    'cuad/full_contract_pdf/Part_I/Affiliate_Agreements/SteelVaultCorp_20081224_10-K_EX-10.16_3074935_EX-10.16_Affiliate Agreement.pdf',
  mphase:
    'cuad/full_contract_pdf/Part_I/Co_Branding/MphaseTechnologiesInc_20030911_10-K_EX-10.15_1560667_EX-10.15_Co-Branding Agreement.pdf',
  docx: 'freelaw-doctor/word-docx.docx',
  txt: 'cuad/full_contract_txt/ADAMSGOLFINC_03_21_2005-EX-10.17-ENDORSEMENT AGREEMENT.txt',
};

/**
 * A case folder: two real contracts (PDF), a real DOCX and TXT, a truncated PDF (cut from a real
 * one) and an empty file. Returns the folder path and the names ingest will give each file.
 */
export function makeCaseFolder(): { dir: string; names: Record<string, string> } {
  const root = mkdtempSync(path.join(os.tmpdir(), 'casefile-e2e-docs-'));
  const dir = path.join(root, 'Steel Vault matter');
  const put = (rel: string, from: string) => {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    copyFileSync(path.join(corpusDir, from), path.join(dir, rel));
  };
  put('contracts/affiliate-agreement.pdf', CORPUS.steelVault);
  put('contracts/co-branding.pdf', CORPUS.mphase);
  put('letters/report.docx', CORPUS.docx);
  put('notes/endorsement.txt', CORPUS.txt);
  const whole = readFileSync(path.join(corpusDir, CORPUS.mphase));
  mkdirSync(path.join(dir, 'broken'), { recursive: true });
  writeFileSync(path.join(dir, 'broken', 'truncated.pdf'), whole.subarray(0, Math.floor(whole.length * 0.3)));
  writeFileSync(path.join(dir, 'broken', 'empty.txt'), '');
  return {
    dir,
    names: {
      steelVault: 'contracts/affiliate-agreement.pdf',
      mphase: 'contracts/co-branding.pdf',
      docx: 'letters/report.docx',
      txt: 'notes/endorsement.txt',
      truncated: 'broken/truncated.pdf',
      empty: 'broken/empty.txt',
    },
  };
}
