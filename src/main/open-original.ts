import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import type { Engine } from '../core/engine';
import { CaseId } from '../shared/contract/common';
import { CasefileError } from '../shared/errors';
import { parseInput } from '../shared/validate';

const OpenOriginalInput = z
  .object({ caseId: CaseId, fileId: z.string().min(1).max(100), version: z.number().int().positive().optional() })
  .strict();

/**
 * Open one version of a case file in the system's default viewer. Originals are stored
 * content-addressed and must never be modified, so a read-only copy under its real name goes to
 * a fresh temp folder and that copy is opened. `open` is Electron's shell.openPath (injected so
 * this module has no electron import and can be tested).
 */
export async function openOriginalInSystemViewer(
  engine: Engine,
  input: unknown,
  open: (file: string) => Promise<string>,
): Promise<{ opened: true }> {
  const { caseId, fileId, version } = parseInput(OpenOriginalInput, input);
  const docs = (await engine.openCases.open(caseId)).documents; // not_found for an unknown case
  const { file, version: v } = await docs.resolve(fileId, version);
  const original = await docs.originalPath(fileId, v.version);
  const dir = path.join(os.tmpdir(), 'casefile-open', randomBytes(6).toString('hex'));
  await fs.mkdir(dir, { recursive: true });
  const base = path.basename(file.name.replace(/\\/g, '/')) || 'document';
  const copy = path.join(dir, v.version > 1 ? base.replace(/(\.[^.]*)?$/, ` (v${v.version})$1`) : base);
  await fs.copyFile(original, copy);
  await fs.chmod(copy, 0o444);
  const problem = await open(copy);
  if (problem) throw new CasefileError('failed', `The system could not open ${base}: ${problem}`);
  return { opened: true };
}
