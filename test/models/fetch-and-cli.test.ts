import { spawnSync } from 'node:child_process';
import { cpSync, truncateSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCasefile } from '../helpers/cli';
import { repoRoot, tempHome } from '../helpers/home';
import { MINILM_ID, testModels } from '../helpers/models';

const { miniLmDir, smolLmGguf } = testModels();
const script = path.join(repoRoot, 'scripts', 'fetch-test-models.mjs');

function fetchScript(args: string[], env: NodeJS.ProcessEnv = {}) {
  return spawnSync(process.execPath, [script, ...args], { encoding: 'utf8', env: { ...process.env, ...env } });
}

describe('npm run models:test (scripts/fetch-test-models.mjs)', () => {
  it('fetch – a second run finds the cache complete and downloads nothing', () => {
    // PYTHON points nowhere: any attempt to call pip would fail the run.
    const res = fetchScript(['--json'], { PYTHON: '/nonexistent/python3' });
    expect(res.status, res.stderr).toBe(0);
    const { models } = JSON.parse(res.stdout) as { models: Array<{ name: string; status: string }> };
    expect(models).toEqual([
      expect.objectContaining({ name: 'all-MiniLM-L6-v2', status: 'cached' }),
      expect.objectContaining({ name: 'smollm2-135m-instruct', status: 'cached' }),
    ]);
  });

  it('fetch --check – re-hashes the cache and names a damaged file', () => {
    const copy = tempHome('casefile-models-');
    cpSync(miniLmDir, path.join(copy, MINILM_ID), { recursive: true });
    expect(fetchScript(['--check', '--dir', copy, '--only', MINILM_ID]).status).toBe(0);
    truncateSync(path.join(copy, MINILM_ID, 'tokenizer.json'), 100);
    const res = fetchScript(['--check', '--dir', copy, '--only', MINILM_ID, '--json']);
    expect(res.status).toBe(1);
    const { models } = JSON.parse(res.stdout) as { models: Array<{ status: string; problems: string[] }> };
    expect(models[0]!.status).toBe('damaged');
    expect(models[0]!.problems).toEqual([
      expect.stringMatching(/^tokenizer\.json has sha256 [0-9a-f]{64}, expected 2fc687b1/),
    ]);
  });

  it('fetch – says in one line what is wrong when pip cannot be run', () => {
    const dir = tempHome('casefile-models-');
    const res = fetchScript(['--dir', dir, '--only', MINILM_ID], { PYTHON: '/nonexistent/python3' });
    expect(res.status).toBe(1);
    expect(res.stderr.trim().split('\n').at(-1)).toMatch(
      /^models:test failed: \/nonexistent\/python3 was not found — install Python 3 with pip/,
    );
  });
});

describe('casefile models (CLI end to end)', () => {
  it('models import/list – imports a GGUF and a model folder, lists them as text and JSON', async () => {
    const home = tempHome();
    const empty = await runCasefile(home, ['models', 'list']);
    expect(empty.code).toBe(0);
    expect(empty.stdout).toContain('Semantic search is off: no embedding model installed');

    const gguf = await runCasefile(home, ['models', 'import', smolLmGguf, '--id', 'smollm2', '--link', '--json']);
    expect(gguf.code, gguf.stderr).toBe(0);
    expect(JSON.parse(gguf.stdout)).toMatchObject({
      already_installed: false,
      model: { id: 'smollm2', kind: 'chat', quantization: 'Q4_1', context_length: 8192 },
    });

    const folder = await runCasefile(home, ['models', 'import', miniLmDir]);
    expect(folder.code, folder.stderr).toBe(0);
    expect(folder.stdout).toContain(`Imported ${MINILM_ID} (embedding, onnx`);
    expect(folder.stdout).toContain(`${MINILM_ID} is the default embedding model for new cases.`);

    const text = await runCasefile(home, ['models', 'list']);
    expect(text.stdout).toMatch(new RegExp(`${MINILM_ID} \\*\\s+embedding\\s+onnx`));
    // The only chat model is the default one (*) a question uses when it names none.
    expect(text.stdout).toMatch(/smollm2 \*\s+chat\s+gguf\s+94 MB\s+Q4_1\s+8192/);
    const json = await runCasefile(home, ['models', 'list', '--json']);
    const list = JSON.parse(json.stdout) as {
      models: Array<{ id: string }>;
      default_embedding_model: string;
      semantic: { available: boolean };
    };
    expect(list.models.map((m) => m.id).sort()).toEqual([MINILM_ID, 'smollm2']);
    expect(list.default_embedding_model).toBe(MINILM_ID);
    expect(list.semantic.available).toBe(true);
  });

  it('models import – a file that is not a model fails with exit 1 and one plain line; bad usage exits 2', async () => {
    const home = tempHome();
    const bad = await runCasefile(home, ['models', 'import', path.join(repoRoot, 'package.json')]);
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim().split('\n').at(-1)).toMatch(/^casefile: package\.json is not a GGUF model file/);
    const usage = await runCasefile(home, ['models', 'import']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('models import takes exactly one <path>');
  });
});
