import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cosine, Embedder } from '../../src/core/retrieval/embedder';
import { pooledVectors } from '../../src/core/retrieval/pooling';
import { resolveEmbeddingModel } from '../../src/core/retrieval/models';
import { ModelRegistry } from '../../src/core/models/registry';
import { corpusDir, repoRoot, tempHome } from '../helpers/home';
import { installTestModels, MINILM_ID, testModels } from '../helpers/models';

const { miniLmDir } = testModels();

describe('Embedder (all-MiniLM-L6-v2, int8 ONNX, real transformers.js + onnxruntime-node)', () => {
  const embedder = new Embedder({ id: MINILM_ID, dir: miniLmDir });
  beforeAll(() => embedder.init());
  afterAll(() => embedder.dispose());

  it('embed – 384-dimensional, L2-normalised vectors, one per text, in order', async () => {
    const texts = ['The tenant shall pay rent monthly.', 'Payment is due on the first day of each month.', ''];
    const vectors = await embedder.embed(texts);
    expect(vectors).toHaveLength(3);
    expect(embedder.dimension).toBe(384);
    expect(embedder.pooling).toBe('mean');
    for (const v of vectors) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v.length).toBe(384);
      const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
      expect(norm).toBeCloseTo(1, 4);
    }
    // Order is kept across batch boundaries: embedding one text alone gives the same vector.
    const alone = await embedder.embedOne(texts[1]!);
    expect(cosine(alone, vectors[1]!)).toBeGreaterThan(0.999);
  });

  it('embed – matches the reference all-MiniLM-L6-v2 vector (token ids and pooling are right)', async () => {
    // sentence-transformers/all-MiniLM-L6-v2 (fp32), mean pooling + normalise, "This is a simple test.":
    // [0.0953, -0.0247, ...]; int8 weights move the values slightly, not the direction.
    const v = await embedder.embedOne('This is a simple test.');
    expect(v[0]).toBeCloseTo(0.0953, 1);
    expect(v[1]).toBeCloseTo(-0.0247, 1);
  });

  it('embed – a paraphrase is closer than an unrelated sentence', async () => {
    const [a, para, other] = await embedder.embed([
      'Either party may terminate this agreement with thirty days written notice.',
      'The contract can be ended by one side if it tells the other a month beforehand.',
      'The recipe calls for two cups of flour and a pinch of salt.',
    ]);
    expect(cosine(a!, para!)).toBeGreaterThan(cosine(a!, other!) + 0.2);
  });

  it('embed – an aborted signal stops before work and rejects with AbortError', async () => {
    const ctrl = new AbortController();
    ctrl.abort();
    await expect(embedder.embed(['x'], ctrl.signal)).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('embed – the vectors equal onnxruntime run directly with every graph optimization and padded batches (speed settings change no result)', async () => {
    const { rawOrtEmbed } = await import('../../bench/ort-raw');
    const texts = [
      'Term.',
      'Either party may terminate this agreement with thirty days written notice to the other party.',
      'This Agreement shall be governed by and construed in accordance with the laws of the State of New York, without regard to its conflict of laws principles. ' +
        'Each party irrevocably submits to the exclusive jurisdiction of the state and federal courts located in New York County.',
      'Payment is due net 30.',
      'The Licensee shall not assign, delegate or otherwise transfer this Agreement or any of its rights or obligations hereunder without the prior written consent of the Licensor.',
    ];
    const product = await embedder.embed(texts);
    const { vectors: direct } = await rawOrtEmbed(miniLmDir, texts, 1, 4);
    for (let i = 0; i < texts.length; i++) expect(cosine(product[i]!, direct[i]!)).toBeGreaterThan(0.9999);
  });

  it('embed – the vectors are transformers.js pipeline’s own, to the bit: the pooling is done faster, not differently', async () => {
    const { pipeline, mean_pooling, env } = await import('@huggingface/transformers');
    env.localModelPath = `${path.dirname(miniLmDir)}${path.sep}`;
    const extractor = await pipeline('feature-extraction', path.basename(miniLmDir), {
      dtype: 'q8',
      local_files_only: true,
      session_options: {
        intraOpNumThreads: 1,
        interOpNumThreads: 1,
        graphOptimizationLevel: 'basic',
        enableMemPattern: false,
      },
    });
    try {
      const texts = [
        'Term.',
        'Either party may terminate this agreement with thirty days written notice to the other party.',
        'Payment is due net 30, in United States dollars.',
      ];
      // Alone (the product's one text a pass) and padded together: the same vectors as the pipeline.
      const padded = new Embedder({ id: MINILM_ID, dir: miniLmDir }, { batchSize: 3, threads: 1 });
      const product = [
        ...(await embedder.embed(texts)),
        ...(await padded.embed(texts).finally(() => padded.dispose())),
      ];
      const reference = await extractor(texts, { pooling: 'mean', normalize: true });
      for (let i = 0; i < product.length; i++)
        expect(Array.from(product[i]!)).toEqual(Array.from(reference.data.slice((i % 3) * 384, ((i % 3) + 1) * 384)));
      // The pooling itself, on the same token states, mean and first token alike.
      const inputs = extractor.tokenizer(texts, { padding: true, truncation: true });
      const states = (await extractor.model(inputs)).last_hidden_state;
      const mean = pooledVectors(states, inputs.attention_mask.data, 'mean');
      expect(mean.flatMap((v) => Array.from(v))).toEqual(
        Array.from(mean_pooling(states, inputs.attention_mask).normalize(2, -1).data),
      );
      const cls = pooledVectors(states, inputs.attention_mask.data, 'cls');
      expect(cls.flatMap((v) => Array.from(v))).toEqual(Array.from(states.slice(null, 0).normalize(2, -1).data));
    } finally {
      await extractor.dispose();
    }
  });

  it('embed – a paraphrased question ranks the right CUAD clause first where it shares no keyword with it', async () => {
    const contract = 'LinkPlusCorp_20050802_8-K_EX-10_3240252_EX-10_Affiliate Agreement.txt';
    const text = readFileSync(path.join(corpusDir, 'cuad', 'full_contract_txt', contract), 'utf8');
    // The labelled clauses of this contract (CUAD), with their exact spans in the text.
    const clauses = readFileSync(path.join(corpusDir, 'cuad', 'derived_clause_spans_selected.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as { txt: string; category: string; clause_text: string; txt_span: [number, number] | null },
      )
      .filter((r) => r.txt.endsWith(contract) && r.txt_span && r.clause_text.length > 60);
    expect(clauses.length).toBeGreaterThan(10);
    const questions = [
      { question: 'Whose statutes decide what the wording means?', category: 'Governing Law' },
      { question: 'How long does someone have to file a lawsuit over it?', category: 'Cap On Liability' },
      { question: 'Can the company leave the premises early?', category: 'Termination For Convenience' },
    ];
    const clauseVectors = await embedder.embed(clauses.map((c) => c.clause_text));
    // 1000-character windows (the ingest default size) over the whole contract.
    const windows: Array<{ start: number; end: number }> = [];
    for (let start = 0; start < text.length; start += 850)
      windows.push({ start, end: Math.min(text.length, start + 1000) });
    const windowVectors = await embedder.embed(windows.map((w) => text.slice(w.start, w.end)));
    const words = (s: string) => new Set((s.toLowerCase().match(/[a-z]+/g) ?? []).filter((w) => w.length > 2));
    for (const { question, category } of questions) {
      const gold = clauses.find((c) => c.category === category)!;
      const shared = [...words(question)].filter((w) => words(gold.clause_text).has(w) && !['the', 'and'].includes(w));
      expect(shared, `"${question}" must share no keyword with the clause`).toEqual([]);
      const q = await embedder.embedOne(question);
      const byClause = clauses
        .map((c, i) => ({ c, score: cosine(q, clauseVectors[i]!) }))
        .sort((a, b) => b.score - a.score);
      expect(byClause[0]!.c.category, `"${question}" among the contract's labelled clauses`).toBe(category);
      const [s, e] = gold.txt_span!;
      const byWindow = windows
        .map((w, i) => ({ w, score: cosine(q, windowVectors[i]!) }))
        .sort((a, b) => b.score - a.score);
      const rank = byWindow.findIndex((r) => r.w.start <= s && r.w.end >= e);
      expect(rank, `"${question}" among ${windows.length} windows of the contract`).toBeGreaterThanOrEqual(0);
      expect(rank).toBeLessThan(2);
    }
  });
});

describe('resolveEmbeddingModel', () => {
  it('resolveEmbeddingModel – no model installed gives the reason instead of throwing', async () => {
    const home = tempHome();
    const r = await resolveEmbeddingModel(new ModelRegistry({ modelsDir: path.join(home, 'models') }));
    expect(r).toEqual({
      ok: false,
      reason: expect.stringContaining('no embedding model installed — keyword search only'),
    });
  });

  it('resolveEmbeddingModel – a damaged registry gives a reason, not a crash', async () => {
    const home = tempHome();
    mkdirSync(path.join(home, 'models'));
    writeFileSync(path.join(home, 'models', 'registry.json'), '{"schemaVersion": 1, "models": [');
    const r = await resolveEmbeddingModel(new ModelRegistry({ modelsDir: path.join(home, 'models') }));
    expect(r).toEqual({
      ok: false,
      reason: expect.stringMatching(/model registry could not be read .* keyword search only$/),
    });
  });

  it('resolveEmbeddingModel – the imported model becomes the default and loads', async () => {
    const home = tempHome();
    await installTestModels(home);
    const r = await resolveEmbeddingModel(new ModelRegistry({ modelsDir: path.join(home, 'models') }));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.model).toMatchObject({ id: MINILM_ID, dimension: 384, pooling: 'mean' });
    const missing = await resolveEmbeddingModel(
      new ModelRegistry({ modelsDir: path.join(home, 'models') }),
      'bge-small-en-v1.5',
    );
    expect(missing).toEqual({ ok: false, reason: expect.stringContaining('"bge-small-en-v1.5" is not installed') });
  });
});

describe('Embedder in a worker_thread', () => {
  it('embed – runs inside a worker and returns the same vectors as the main thread', async () => {
    // The worker registers tsx itself (the ingest worker of the app runs built JS instead).
    const script = `
      import { parentPort, workerData } from 'node:worker_threads';
      const { register } = await import(workerData.tsx);
      register();
      const { Embedder } = await import(workerData.module);
      const e = new Embedder({ id: 'm', dir: workerData.dir });
      const [v] = await e.embed(['Notice must be given in writing.']);
      const dim = e.dimension;
      await e.dispose(); // before answering: the worker is idle when it is terminated
      parentPort.postMessage({ dim, v: Array.from(v) });
    `;
    const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(script)}`), {
      workerData: {
        tsx: import.meta.resolve('tsx/esm/api'),
        module: pathToFileURL(path.join(repoRoot, 'src/core/retrieval/embedder.ts')).href,
        dir: miniLmDir,
      },
    });
    const msg = await new Promise<{ dim: number; v: number[] }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    expect(msg.dim).toBe(384);
    const main = new Embedder({ id: 'm', dir: miniLmDir });
    const here = await main.embedOne('Notice must be given in writing.');
    await main.dispose();
    expect(cosine(here, msg.v)).toBeGreaterThan(0.9999);
  });
});
