/**
 * The model process: a child of the engine that runs node-llama-cpp, so the engine's thread does no
 * model work (loading, templates, tokenizing, grammars) and every thread of the model runs below
 * the app — drawing a page, a search and the lists come first while a model writes. It lowers
 * itself before node-llama-cpp is loaded (its threads inherit the low priority), keeps its models
 * loaded between calls (`LlamaRuntime`), and ends when the engine closes it or goes away.
 * Bundlers: build this file as its own entry named `llama-worker` next to the main bundle.
 */
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { toApiError } from '../../shared/errors';
import { GENERATE_PRIORITY, lowerThisProcess } from '../util/priority';
import { LlamaLanguageModel, LlamaRuntime } from './llama-provider';
import type { LlamaWorkerRequest, LlamaWorkerResponse, WireStreamPart } from './llama-protocol';

lowerThisProcess(GENERATE_PRIORITY);

// node-llama-cpp tests its binary in a process started with fork(), which repeats this process's
// execArgv: from source that is the `--eval` bootstrap (util/worker-start.ts), which would run
// again in place of the test. The flags were needed only to start this process.
const evalAt = process.execArgv.indexOf('--eval');
if (evalAt >= 0) process.execArgv.splice(evalAt, 2);
process.execArgv.splice(0, process.execArgv.length, ...process.execArgv.filter((a) => a !== '--input-type=module'));

function send(msg: LlamaWorkerResponse): void {
  if (process.connected) process.send?.(msg);
}

let runtime: LlamaRuntime | undefined;
const calls = new Map<number, AbortController>();

function theRuntime(): LlamaRuntime {
  runtime ??= new LlamaRuntime({}, (modelPath) => send({ type: 'unloaded', modelPath }));
  return runtime;
}

function wirePart(part: LanguageModelV4StreamPart): WireStreamPart {
  return part.type === 'error' ? { type: 'error', error: toApiError(part.error) } : part;
}

/** One call: start it on the loaded model, forward its parts, then say it ended. */
async function stream(msg: Extract<LlamaWorkerRequest, { type: 'stream' }>): Promise<void> {
  const controller = new AbortController();
  calls.set(msg.id, controller);
  const rt = theRuntime();
  try {
    const model = new LlamaLanguageModel(rt, msg.modelPath, { modelId: msg.modelId });
    let result: Awaited<ReturnType<LlamaLanguageModel['doStream']>>;
    try {
      result = await model.doStream({ ...msg.options, abortSignal: controller.signal });
    } catch (err) {
      send({ type: 'failed', id: msg.id, error: toApiError(err) });
      return;
    }
    send({ type: 'ready', id: msg.id });
    const reader = result.stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!controller.signal.aborted) send({ type: 'part', id: msg.id, part: wirePart(value) });
    }
  } finally {
    calls.delete(msg.id);
    send({ type: 'end', id: msg.id, usage: { ...rt.usage }, loaded: rt.loadedModels() });
  }
}

process.on('message', (msg: LlamaWorkerRequest) => {
  if (msg.type === 'init')
    runtime ??= new LlamaRuntime(msg.options, (modelPath) => send({ type: 'unloaded', modelPath }));
  else if (msg.type === 'stream') void stream(msg);
  else if (msg.type === 'abort') calls.get(msg.id)?.abort();
  else if (msg.type === 'unload') void runtime?.unload(msg.modelPath);
  else if (msg.type === 'close') void closeAndExit();
});

async function closeAndExit(): Promise<void> {
  for (const c of calls.values()) c.abort();
  await runtime?.close().catch(() => undefined);
  process.exit(0);
}

// The engine went away (it closed, or crashed): nothing is left to write for.
process.on('disconnect', () => void closeAndExit());
