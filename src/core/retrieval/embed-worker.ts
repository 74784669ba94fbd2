/**
 * Worker-thread entry that owns the embedding models (transformers.js + onnxruntime-node): the
 * engine's thread only posts texts and receives vectors (see embed-host.ts). Each model is loaded
 * once and kept until the host unloads it or the worker ends; requests run one at a time, in order,
 * so onnxruntime's thread count (CASEFILE_EMBED_THREADS) is what actually runs.
 * Bundlers: build this file as its own entry named `embed-worker`.
 */
import { threadId, parentPort } from 'node:worker_threads';
import { CasefileError } from '../../shared/errors';
import { EMBED_PRIORITY, lowerThisThread } from '../util/priority';
import { Embedder } from './embedder';
import {
  DEFAULT_EMBED_BATCH,
  modelKey,
  type EmbedModelSpec,
  type EmbedWorkerRequest,
  type EmbedWorkerResponse,
} from './embed-protocol';

const port = parentPort;
// Below the readers and the app: parsing (what makes a case searchable) takes the cores first.
lowerThisThread(EMBED_PRIORITY);
const models = new Map<string, Embedder>();
const running = new Map<number, AbortController>();
let loads = 0;
let texts = 0;
/** One request at a time: a queued request whose caller gave up is skipped when its turn comes. */
let chain: Promise<unknown> = Promise.resolve();

function send(msg: EmbedWorkerResponse, transfer: ArrayBuffer[] = []): void {
  port?.postMessage(msg, transfer);
}

function embedderFor(spec: EmbedModelSpec): Embedder {
  const key = modelKey(spec);
  let embedder = models.get(key);
  if (!embedder) {
    embedder = new Embedder(
      { id: spec.id, dir: spec.dir },
      { threads: spec.threads, batchSize: spec.batchSize, pooling: spec.pooling },
    );
    models.set(key, embedder);
    loads++;
  }
  return embedder;
}

async function handle(
  msg: Extract<EmbedWorkerRequest, { id: number; model: EmbedModelSpec }>,
  signal: AbortSignal,
): Promise<void> {
  if (signal.aborted) throw signal.reason;
  const embedder = embedderFor(msg.model);
  try {
    await embedder.init();
  } catch (err) {
    models.delete(modelKey(msg.model));
    throw err;
  }
  if (msg.type === 'load') {
    send({ type: 'loaded', id: msg.id, dimension: embedder.dimension, pooling: embedder.pooling });
    return;
  }
  // Batch by batch, so a cancel stops after the current forward pass (and `texts` counts real work).
  const batch = Math.max(1, msg.model.batchSize ?? DEFAULT_EMBED_BATCH);
  const vectors: Float32Array[] = [];
  for (let i = 0; i < msg.texts.length; i += batch) {
    vectors.push(...(await embedder.embed(msg.texts.slice(i, i + batch), signal)));
    texts += Math.min(batch, msg.texts.length - i);
  }
  const dimension = vectors[0]?.length ?? embedder.dimension;
  const data = new Float32Array(vectors.length * dimension);
  vectors.forEach((v, i) => data.set(v, i * dimension));
  send({ type: 'vectors', id: msg.id, dimension, data }, [data.buffer]);
}

function enqueue(msg: Extract<EmbedWorkerRequest, { id: number; model: EmbedModelSpec }>): void {
  const controller = new AbortController();
  running.set(msg.id, controller);
  chain = chain.then(async () => {
    try {
      await handle(msg, controller.signal);
    } catch (err) {
      if (controller.signal.aborted) send({ type: 'cancelled', id: msg.id });
      else
        send({
          type: 'error',
          id: msg.id,
          message: err instanceof Error ? err.message : String(err),
          ...(err instanceof CasefileError ? { code: err.code } : {}),
        });
    } finally {
      running.delete(msg.id);
    }
  });
}

/** Cancel everything, and once the forward pass under way is done, let the models go and say so. */
function drain(): void {
  for (const controller of running.values())
    controller.abort(Object.assign(new Error('Cancelled'), { name: 'AbortError' }));
  const all = [...models.values()];
  models.clear();
  chain = chain
    .then(() => Promise.all(all.map((m) => m.dispose())))
    .catch(() => undefined)
    .then(() => send({ type: 'drained' }));
}

port?.on('message', (msg: EmbedWorkerRequest) => {
  switch (msg.type) {
    case 'load':
    case 'embed':
      enqueue(msg);
      break;
    case 'cancel':
      running.get(msg.id)?.abort(Object.assign(new Error('Cancelled'), { name: 'AbortError' }));
      break;
    case 'unload': {
      const key = modelKey(msg.model);
      const embedder = models.get(key);
      models.delete(key);
      // After whatever is queued now (it may still use the model).
      if (embedder) chain = chain.then(() => embedder.dispose()).catch(() => undefined);
      break;
    }
    case 'stats':
      send({
        type: 'stats',
        id: msg.id,
        stats: {
          threadId,
          loads,
          texts,
          models: [...models.values()].map((m) => ({ id: m.modelId, threads: m.threads })),
        },
      });
      break;
    case 'drain':
      drain();
      break;
  }
});
