import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import { inspectTransformersFolder } from '../../src/core/models/folder';
import { readGgufInfo } from '../../src/core/models/gguf';
import { ModelRegistry } from '../../src/core/models/registry';
import { sharedDir, tempHome } from '../helpers/home';
import { MINILM_ID, testModels } from '../helpers/models';

const { miniLmDir, smolLmGguf } = testModels();
const SMOLLM_SHA256 = 'b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53';

/** An engine that reads the bundled folders it is given, models included (the harness's CASEFILE_BUNDLED_MODELS=off aside). */
async function openEngine(home: string, bundledModelDirs: string[] = []): Promise<Engine> {
  return Engine.open({ home, bundledModelDirs, env: { ...process.env, CASEFILE_BUNDLED_MODELS: undefined } });
}

describe('GGUF header', () => {
  it('readGgufInfo – reads architecture, context length and quantization of every shared GGUF', async () => {
    const expected: Record<string, { ctx: number; quant: string }> = {
      'stories260K/stories260K.gguf': { ctx: 2048, quant: 'F32' },
      'llama-2-tiny-random/llama-2-tiny-random.gguf': { ctx: 4096, quant: 'F16' },
    };
    for (const [rel, want] of Object.entries(expected)) {
      const info = await readGgufInfo(path.join(sharedDir, 'models', rel));
      expect(info).toMatchObject({
        version: 3,
        architecture: 'llama',
        contextLength: want.ctx,
        quantization: want.quant,
      });
      expect(info.tensorCount).toBeGreaterThan(0);
    }
    const smol = await readGgufInfo(smolLmGguf);
    expect(smol).toMatchObject({ architecture: 'llama', contextLength: 8192, quantization: 'Q4_1', tensorCount: 272 });
  });

  it('readGgufInfo – rejects a non-GGUF file and a truncated GGUF with a plain reason', async () => {
    const dir = tempHome();
    const text = path.join(dir, 'notes.gguf');
    writeFileSync(text, 'These are meeting notes, not a model.\n'.repeat(4));
    await expect(readGgufInfo(text)).rejects.toThrow(
      /not a usable GGUF model: its first bytes are not the GGUF signature/,
    );
    const truncated = path.join(dir, 'cut.gguf');
    writeFileSync(truncated, readFileSync(smolLmGguf).subarray(0, 4096));
    await expect(readGgufInfo(truncated)).rejects.toThrow(/truncated or damaged/);
  });
});

describe('models.list / models.import (production registry through the engine router)', () => {
  it('models.list – an empty home lists nothing and says semantic search is off and why', async () => {
    const engine = await openEngine(tempHome());
    const list = await engine.router.call('models.list', {});
    expect(list.models).toEqual([]);
    expect(list.default_embedding_model).toBeNull();
    expect(list.semantic).toEqual({
      available: false,
      reason: expect.stringContaining('no embedding model installed — keyword search only'),
    });
    await engine.close();
  });

  it('models.import – copies a transformers.js folder after loading it; first embedding model becomes the default', async () => {
    const home = tempHome();
    const engine = await openEngine(home);
    const events: unknown[] = [];
    engine.events.on('models.changed', (e) => events.push(e));
    const result = await engine.router.call('models.import', { path: miniLmDir });
    expect(result.already_installed).toBe(false);
    expect(result.model).toMatchObject({
      id: MINILM_ID,
      kind: 'embedding',
      format: 'onnx',
      source: 'installed',
      path: path.join(home, 'models', MINILM_ID),
      dimension: 384,
      pooling: 'mean',
      quantization: 'q8',
      architecture: 'bert',
      is_default: true,
    });
    expect(existsSync(path.join(home, 'models', MINILM_ID, 'onnx', 'model_quantized.onnx'))).toBe(true);
    expect(existsSync(path.join(home, 'models', MINILM_ID, '.complete.json'))).toBe(false);
    expect(result.default_embedding_model).toBe(MINILM_ID);
    expect(events).toEqual([{ model_id: MINILM_ID, kind: 'imported' }]);

    // Importing the same model again changes nothing.
    const again = await engine.router.call('models.import', { path: miniLmDir });
    expect(again.already_installed).toBe(true);
    // A second embedding model does not take over the default; setDefault does.
    const second = await engine.router.call('models.import', { path: miniLmDir, id: 'minilm-linked', mode: 'link' });
    expect(second.model).toMatchObject({ id: 'minilm-linked', path: miniLmDir, is_default: false });
    expect(second.default_embedding_model).toBe(MINILM_ID);
    const after = await engine.router.call('models.setDefault', { model_id: 'minilm-linked' });
    expect(after.default_embedding_model).toBe('minilm-linked');
    await engine.close();

    // The registry is on disk: a new engine on the same home sees the same models and default.
    const reopened = await openEngine(home);
    const list = await reopened.router.call('models.list', {});
    expect(list.models.map((m) => m.id).sort()).toEqual([MINILM_ID, 'minilm-linked']);
    expect(list.default_embedding_model).toBe('minilm-linked');
    expect(JSON.parse(readFileSync(path.join(home, 'models', 'registry.json'), 'utf8'))).toMatchObject({
      schemaVersion: 1,
      defaultEmbedding: 'minilm-linked',
    });
    await reopened.close();
  });

  it('models.import – a GGUF file is validated by its header and listed with size, quantization and context', async () => {
    const home = tempHome();
    const engine = await openEngine(home);
    const { model } = await engine.router.call('models.import', { path: smolLmGguf, id: 'smollm2', mode: 'link' });
    expect(model).toMatchObject({
      id: 'smollm2',
      kind: 'chat',
      format: 'gguf',
      bytes: 98362432,
      quantization: 'Q4_1',
      context_length: 8192,
      architecture: 'llama',
      sha256: SMOLLM_SHA256,
      // The only chat model: the one a question that names none uses.
      is_default: true,
    });
    const stories = path.join(sharedDir, 'models', 'stories260K', 'stories260K.gguf');
    const copied = await engine.router.call('models.import', { path: stories });
    expect(copied.model.path).toBe(path.join(home, 'models', 'stories260K', 'stories260K.gguf'));
    expect(readFileSync(copied.model.path).equals(readFileSync(stories))).toBe(true);
    const chat = await engine.router.call('models.list', { kind: 'chat' });
    expect(chat.models.map((m) => m.id).sort()).toEqual(['smollm2', 'stories260K']);
    expect(chat.semantic.available).toBe(false);
    await engine.close();
  });

  it('models.import – refuses what is not a model, with the reason, and leaves nothing behind', async () => {
    const home = tempHome();
    const engine = await openEngine(home);
    const junk = path.join(home, 'contract.gguf');
    writeFileSync(junk, '%PDF-1.7 this is a PDF, not a model');
    await expect(engine.router.call('models.import', { path: junk })).rejects.toMatchObject({
      code: 'failed',
      message: expect.stringContaining('contract.gguf is not a GGUF model file'),
    });
    await expect(engine.router.call('models.import', { path: path.join(home, 'nope') })).rejects.toMatchObject({
      code: 'not_found',
    });

    // A folder without weights is described plainly.
    const noWeights = path.join(sharedDir, 'models', 'xenova-paraphrase-minilm-l3-v2-int8-tokenizer-only');
    await expect(engine.router.call('models.import', { path: noWeights })).rejects.toMatchObject({
      message: expect.stringContaining('no ONNX weights under onnx/'),
    });

    // A folder that looks right but does not load is refused by loading it.
    const broken = path.join(home, 'broken-model');
    mkdirSync(path.join(broken, 'onnx'), { recursive: true });
    for (const f of ['config.json', 'tokenizer.json', 'tokenizer_config.json'])
      copyFileSync(path.join(miniLmDir, f), path.join(broken, f));
    writeFileSync(path.join(broken, 'onnx', 'model_quantized.onnx'), 'not an onnx graph');
    await expect(engine.router.call('models.import', { path: broken })).rejects.toMatchObject({
      message: expect.stringContaining('Could not load the embedding model "broken-model"'),
    });
    const list = await engine.router.call('models.list', {});
    expect(list.models).toEqual([]);
    await engine.close();
  });

  it('models.list – finds bundled models and reports which cases use an embedding model', async () => {
    const home = tempHome();
    const bundled = path.join(home, 'bundled');
    mkdirSync(bundled);
    copyFileSync(
      path.join(sharedDir, 'models', 'stories260K', 'stories260K.gguf'),
      path.join(bundled, 'stories260K.gguf'),
    );
    writeFileSync(path.join(bundled, 'README.md'), 'not a model');
    const engine = await openEngine(home, [bundled, path.join(sharedDir, 'models')]);
    await engine.router.call('models.import', { path: miniLmDir, mode: 'link' });
    const c = await engine.router.call('cases.create', { name: 'Smith v. Jones' });
    await engine.cases.updateMeta(c.id, (m) => ({ ...m, embedding: { modelId: MINILM_ID, dimension: 384 } }));
    const list = await engine.router.call('models.list', {});
    const byId = Object.fromEntries(list.models.map((m) => [m.id, m]));
    expect(Object.keys(byId).sort()).toEqual([MINILM_ID, 'llama-2-tiny-random', 'stories260K']);
    expect(byId.stories260K).toMatchObject({
      source: 'bundled',
      kind: 'chat',
      path: path.join(bundled, 'stories260K.gguf'),
    });
    expect(byId['llama-2-tiny-random']).toMatchObject({ source: 'bundled', context_length: 4096 });
    expect(byId[MINILM_ID]!.used_by).toEqual([{ case_id: c.id, name: 'Smith v. Jones' }]);
    await engine.close();
  });

  it('ModelRegistry.cleanup – removes staging folders of crashed imports', async () => {
    const home = tempHome();
    const registry = new ModelRegistry({ modelsDir: path.join(home, 'models') });
    const stale = path.join(home, 'models', '.importing-999999999-x-abcd');
    mkdirSync(stale, { recursive: true });
    writeFileSync(path.join(stale, 'half.gguf'), 'GGUF');
    await registry.cleanup();
    expect(existsSync(stale)).toBe(false);
    expect((await registry.list()).models).toEqual([]);
  });
});

describe('transformers.js folder inspection', () => {
  it('inspectTransformersFolder – pooling follows the pooling config, else CLS for BGE and mean for the rest', async () => {
    const dir = tempHome();
    const mini = await inspectTransformersFolder(miniLmDir);
    expect(mini).toMatchObject({
      ok: true,
      folder: { kind: 'embedding', pooling: 'mean', dtype: 'q8', hiddenSize: 384, modelType: 'bert' },
    });

    const bge = path.join(dir, 'bge-small-en-v1.5');
    cpSync(miniLmDir, bge, { recursive: true });
    rmSync(path.join(bge, '1_Pooling'), { recursive: true });
    expect(await inspectTransformersFolder(bge)).toMatchObject({ ok: true, folder: { pooling: 'cls' } });
    // An explicit pooling config wins over the name.
    mkdirSync(path.join(bge, '1_Pooling'));
    writeFileSync(path.join(bge, '1_Pooling', 'config.json'), JSON.stringify({ pooling_mode_mean_tokens: true }));
    expect(await inspectTransformersFolder(bge)).toMatchObject({ ok: true, folder: { pooling: 'mean' } });

    // A sequence-classification head makes it a reranker; fp32 weights are picked as fp32.
    const rerank = path.join(dir, 'ms-marco-MiniLM-L-6-v2');
    mkdirSync(path.join(rerank, 'onnx'), { recursive: true });
    copyFileSync(
      path.join(sharedDir, 'models', 'xenova-ms-marco-minilm-l6-v2-int8-tokenizer-only', 'config.json'),
      path.join(rerank, 'config.json'),
    );
    copyFileSync(path.join(miniLmDir, 'tokenizer.json'), path.join(rerank, 'tokenizer.json'));
    writeFileSync(path.join(rerank, 'onnx', 'model.onnx'), '');
    expect(await inspectTransformersFolder(rerank)).toMatchObject({
      ok: true,
      folder: { kind: 'reranker', dtype: 'fp32' },
    });
  });
});
