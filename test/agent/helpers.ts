import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { Engine, type EngineOptions } from '../../src/core/engine';

/** A small case folder: a services agreement, a medical summary, and notes — real text, generated here. */
export const MSA_TEXT = `MASTER SERVICES AGREEMENT

This Master Services Agreement is entered into on March 3, 2021 between Acme Logistics LLC ("Client") and Brightline Data Services Inc. ("Provider").

1. Services. Provider shall deliver the data processing services described in each Statement of Work.

2. Fees. Client shall pay all undisputed invoices within forty-five (45) days of receipt.

3. Term and Termination. This Agreement begins on the Effective Date and continues for three years. Either party may terminate this Agreement for convenience upon sixty (60) days' prior written notice to the other party. Either party may terminate for material breach if the breach is not cured within thirty (30) days after written notice describing the breach.

4. Notices. All notices must be in writing and delivered by certified mail or courier to the addresses listed on the signature page.

5. Confidentiality. Each party shall keep the other party's Confidential Information secret for five (5) years after termination.
`;

export const MEDICAL_TEXT = `MEDICAL RECORDS SUMMARY - Claimant: John Rivera

Visit 1: On January 12, 2022 the claimant saw Dr. Helen Park complaining of pain in the left knee after the fall at the warehouse.
Visit 2: On February 9, 2022 Dr. Helen Park ordered an MRI of the left knee; the MRI showed a torn meniscus.
Visit 3: On April 20, 2022 the claimant saw Dr. Helen Park for a follow-up; physical therapy was prescribed.
Visit 4: On August 2, 2022 the claimant last saw Dr. Helen Park about his knee; she noted improvement and released him to light duty.
`;

export const NOTES_TEXT = `Case notes

The client wants to know whether the Provider gave proper notice before ending the contract.
Deadline for the response brief is October 1, 2023.
`;

export function writeCaseFolder(root: string): string {
  const dir = path.join(root, 'case-folder');
  mkdirSync(path.join(dir, 'contracts'), { recursive: true });
  mkdirSync(path.join(dir, 'medical'), { recursive: true });
  writeFileSync(path.join(dir, 'contracts', 'msa.txt'), MSA_TEXT);
  writeFileSync(path.join(dir, 'medical', 'records summary.txt'), MEDICAL_TEXT);
  writeFileSync(path.join(dir, 'notes.md'), NOTES_TEXT);
  // A PDF without a text layer would need OCR; a broken "PDF" fails with a reason.
  writeFileSync(path.join(dir, 'broken.pdf'), '%PDF-1.7\nthis is not really a pdf');
  return dir;
}

export interface IngestedCase {
  engine: Engine;
  home: string;
  caseId: string;
  root: string;
}

/** A fresh home with one case holding the small folder above, ingested by the real pipeline. */
export async function ingestedCase(options: Partial<EngineOptions> = {}): Promise<IngestedCase> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'casefile-agent-'));
  const home = path.join(root, 'home');
  const engine = await Engine.open({ home, ...options });
  const { id: caseId } = await engine.router.call('cases.create', { name: 'Rivera v. Acme' });
  await engine.router.call('ingest.start', { case_id: caseId, paths: [writeCaseFolder(root)], wait: true });
  return { engine, home, caseId, root };
}

/**
 * One ingested case for the tests of the current file or describe block: made before them, closed
 * and removed after. Its fields are filled once `beforeAll` has run.
 */
export function useIngestedCase(options: Partial<EngineOptions> = {}): IngestedCase {
  const c = {} as IngestedCase;
  beforeAll(async () => {
    Object.assign(c, await ingestedCase(options));
  });
  afterAll(async () => {
    await c.engine?.close();
    if (c.root) rmSync(c.root, { recursive: true, force: true });
  });
  return c;
}

/** Write a model script (see src/core/agent/scripted.ts) and return its `scripted:` model id. */
export function scriptModel(
  root: string,
  script: unknown,
  name = `script-${Math.random().toString(36).slice(2)}.json`,
): string {
  const file = path.join(root, name);
  writeFileSync(file, JSON.stringify(script));
  return `scripted:${file}`;
}
