/**
 * The default chat model (#16): set with models.setDefault / `casefile models default <chat model>`,
 * used by a question that names no model, listed beside the embedding default (which works as
 * before); the recommended models come from the app's models/manifest.json with their memory needs.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveModel } from '../../src/core/agent/backends';
import { LlamaHost } from '../../src/core/agent/llama-host';
import { Engine } from '../../src/core/engine';
import { runCasefile } from '../helpers/cli';
import { repoRoot, sharedDir, tempHome } from '../helpers/home';
import { MINILM_ID, testModels } from '../helpers/models';

const { miniLmDir } = testModels();
const stories = path.join(sharedDir, 'models', 'stories260K', 'stories260K.gguf');
const tiny = path.join(sharedDir, 'models', 'llama-2-tiny-random', 'llama-2-tiny-random.gguf');
const bundled = path.join(repoRoot, 'models');

describe('default chat model', () => {
  it('models.list – a chat model set for the computer (CASEFILE_CHAT_MODEL) is named as the one questions use; none set: absent', async () => {
    const set = await Engine.open({ home: tempHome(), env: { CASEFILE_CHAT_MODEL: 'llama-2-tiny-random' } });
    const unset = await Engine.open({ home: tempHome(), env: {} });
    try {
      await set.router.call('models.import', { path: stories, mode: 'link' });
      const list = await set.router.call('models.list', {});
      expect([list.chat_model_override, list.default_chat_model]).toEqual(['llama-2-tiny-random', 'stories260K']);
      expect((await set.router.call('models.setDefault', { model_id: 'stories260K' })).chat_model_override).toBe(
        'llama-2-tiny-random',
      );
      expect(await unset.router.call('models.list', {})).not.toHaveProperty('chat_model_override');
    } finally {
      await Promise.all([set.close(), unset.close()]);
    }
  });

  it('a chat model can be made the default; a question naming no model uses it; the embedding default is unchanged', async () => {
    const engine = await Engine.open({ home: tempHome(), bundledModelDirs: [bundled] });
    try {
      await engine.router.call('models.import', { path: stories, mode: 'link' });
      await engine.router.call('models.import', { path: tiny, mode: 'link' });
      await engine.router.call('models.import', { path: miniLmDir, mode: 'link' });
      const before = await engine.router.call('models.list', {});
      // Until one is chosen, the first installed chat model answers (as before).
      expect(before.default_chat_model).toBe('stories260K');
      expect(before.default_embedding_model).toBe(MINILM_ID);

      const after = await engine.router.call('models.setDefault', { model_id: 'llama-2-tiny-random' });
      expect(after.default_chat_model).toBe('llama-2-tiny-random');
      expect(after.default_embedding_model).toBe(MINILM_ID);
      const flags = Object.fromEntries(after.models.map((m) => [m.id, m.is_default]));
      expect(flags).toEqual({ stories260K: false, 'llama-2-tiny-random': true, [MINILM_ID]: true });

      const registry = await engine.catalog();
      const runtime = new LlamaHost(); // never started: resolving a model starts no process and loads nothing
      expect((await resolveModel(undefined, { runtime: () => runtime, registry })).label).toBe('llama-2-tiny-random');
      expect((await resolveModel('stories260K', { runtime: () => runtime, registry })).label).toBe('stories260K');
      // The environment's model (CASEFILE_CHAT_MODEL) still wins over the saved default.
      expect(
        (await resolveModel(undefined, { runtime: () => runtime, registry, defaultModel: 'stories260K' })).label,
      ).toBe('stories260K');
      // Toy models are too small to answer: taken by default the turn does without them; named (by id or
      // path) they run, with the short catalogue of tools.
      expect(await resolveModel(undefined, { runtime: () => runtime, registry })).toMatchObject({
        small: true,
        tooSmall: true,
      });
      expect(await resolveModel('stories260K', { runtime: () => runtime, registry })).toMatchObject({ small: true });
      expect((await resolveModel('stories260K', { runtime: () => runtime, registry })).tooSmall).toBeUndefined();
      expect(await resolveModel(tiny, { runtime: () => runtime, registry })).toMatchObject({ small: true });

      // Kept across a restart (registry.json).
      await engine.close();
      const again = await Engine.open({ home: engine.home, bundledModelDirs: [bundled] });
      expect((await again.router.call('models.list', {})).default_chat_model).toBe('llama-2-tiny-random');
      await again.close();
    } finally {
      await engine.close();
    }
  });

  it('models.list gives the recommended models with what they need, and which are installed', async () => {
    const engine = await Engine.open({ home: tempHome(), bundledModelDirs: [bundled] });
    try {
      const { recommended } = await engine.router.call('models.list', {});
      const qwen = recommended.find((r) => r.id === 'qwen2.5-1.5b-instruct');
      expect(qwen).toMatchObject({
        kind: 'chat',
        recommended: true,
        min_ram_gb: 4,
        approx_size_mb: 1100,
        installed: false,
      });
      expect(qwen!.download_url).toMatch(/^https:\/\/huggingface\.co\/.*\.gguf$/);
      expect(recommended.find((r) => r.id === 'all-MiniLM-L6-v2')).toMatchObject({
        kind: 'embedding',
        min_ram_gb: 1,
        installed: false,
        download_url: null,
      });
      // Recommended first.
      expect(recommended.findIndex((r) => !r.recommended)).toBeGreaterThan(
        recommended.findLastIndex((r) => r.recommended),
      );
      await engine.router.call('models.import', { path: miniLmDir, id: 'all-MiniLM-L6-v2', mode: 'link' });
      const after = await engine.router.call('models.list', {});
      expect(after.recommended.find((r) => r.id === 'all-MiniLM-L6-v2')!.installed).toBe(true);
    } finally {
      await engine.close();
    }
    const none = await Engine.open({ home: tempHome() });
    expect((await none.router.call('models.list', {})).recommended).toEqual([]);
    await none.close();
  });

  it('casefile models default <chat model> sets it (it used to refuse); an embedding model still sets the embedding default', async () => {
    const home = tempHome();
    expect((await runCasefile(home, ['models', 'import', tiny, '--link'])).code).toBe(0);
    expect((await runCasefile(home, ['models', 'import', stories, '--link'])).code).toBe(0);
    expect((await runCasefile(home, ['models', 'import', miniLmDir, '--link'])).code).toBe(0);

    const set = await runCasefile(home, ['models', 'default', 'stories260K']);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout.trim()).toBe('Default chat model for questions: stories260K');
    const json = await runCasefile(home, ['models', 'default', MINILM_ID, '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      default_embedding_model: MINILM_ID,
      defaultEmbeddingModel: MINILM_ID,
      default_chat_model: 'stories260K',
      defaultChatModel: 'stories260K',
    });
    const emb = await runCasefile(home, ['models', 'default', MINILM_ID]);
    expect(emb.stdout.trim()).toBe(`Default embedding model for new cases: ${MINILM_ID}`);

    const list = await runCasefile(home, ['models', 'list']);
    expect(list.stdout).toMatch(/stories260K \*\s+chat/);
    expect(list.stdout).toMatch(/llama-2-tiny-random\s+chat/);
    expect(list.stdout).toContain('Default chat model (*): stories260K');
    expect(list.stdout).toMatch(
      /Recommended, not installed:\n\s+qwen2\.5-1\.5b-instruct \(chat, about 1\.1 GB, needs 4 GB of memory\): casefile models download https:/,
    );

    const missing = await runCasefile(home, ['models', 'default', 'no-such-model']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('No model "no-such-model" is installed');
  });
});
