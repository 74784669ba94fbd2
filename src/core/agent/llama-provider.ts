/**
 * An `ai` SDK language model (specification v4) over node-llama-cpp: a local GGUF file, loaded
 * once and reused, streamed token by token, constrained by a JSON schema when the caller asks for
 * JSON, stopped by stop sequences and by the caller's AbortSignal. The agent never sees
 * node-llama-cpp; it talks to this model through the SDK interface like to any other backend.
 */
import os from 'node:os';
import path from 'node:path';
import type {
  JSONSchema7,
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
  LanguageModelV4Usage,
  SharedV4Warning,
} from '@ai-sdk/provider';
import type { ChatHistoryItem, Llama, LlamaChat, LlamaContext, LlamaGrammar, LlamaModel } from 'node-llama-cpp';
import { CasefileError } from '../../shared/errors';
import { readGgufInfo } from '../models/gguf';

export interface LlamaRuntimeOptions {
  /** Context size cap; the actual size is the largest that fits the machine, up to this and the model's trained size. */
  contextSize?: number;
  /** CPU threads for evaluation (default: all cores but one, at least one). */
  threads?: number;
  /** Unload a model after this many ms without a call (0: never). Default 5 minutes. */
  idleUnloadMs?: number;
  /** `auto` (default): GPU when present, CPU otherwise; `false`: CPU only. */
  gpu?: 'auto' | false;
}

interface Loaded {
  model: LlamaModel;
  context: LlamaContext;
  /** One chat over the context's single sequence, kept so consecutive steps reuse the evaluated prefix. */
  chat: LlamaChat;
  /** Serialises generations: one sequence per loaded model. */
  queue: Promise<unknown>;
  timer: NodeJS.Timeout | undefined;
  grammars: Map<string, Promise<LlamaGrammar>>;
}

type NodeLlamaCpp = typeof import('node-llama-cpp');

let llamaModule: Promise<NodeLlamaCpp> | undefined;
function nodeLlamaCpp(): Promise<NodeLlamaCpp> {
  llamaModule ??= import('node-llama-cpp');
  return llamaModule;
}

function defaultThreads(): number {
  const cores = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  return Math.max(1, Math.min(8, cores - 1));
}

/**
 * Owns the llama.cpp binding and the loaded models of one engine. Models load on first use,
 * are shared by every call, and unload after the idle time (configurable).
 */
export class LlamaRuntime {
  private llama: Promise<Llama> | undefined;
  private readonly loaded = new Map<string, Promise<Loaded>>();
  readonly options: Required<LlamaRuntimeOptions>;

  constructor(options: LlamaRuntimeOptions = {}) {
    this.options = {
      contextSize: options.contextSize ?? 4096,
      threads: options.threads ?? defaultThreads(),
      idleUnloadMs: options.idleUnloadMs ?? 5 * 60_000,
      gpu: options.gpu ?? 'auto',
    };
  }

  /** The llama.cpp binding (GPU type reported as `gpu`: false when running on the CPU). */
  async binding(): Promise<Llama> {
    this.llama ??= nodeLlamaCpp().then(({ getLlama }) => getLlama({ gpu: this.options.gpu, build: 'never', logLevel: 'error' as never }));
    return this.llama;
  }

  /** Load (once) the GGUF at `modelPath`; later calls reuse it. */
  async acquire(modelPath: string): Promise<Loaded> {
    const key = path.resolve(modelPath);
    let entry = this.loaded.get(key);
    if (!entry) {
      entry = this.load(key);
      this.loaded.set(key, entry);
      entry.catch(() => this.loaded.delete(key));
    }
    const loaded = await entry;
    if (loaded.timer) clearTimeout(loaded.timer);
    loaded.timer = undefined;
    return loaded;
  }

  /** Start the idle countdown of a model after a call. */
  release(modelPath: string, loaded: Loaded): void {
    if (this.options.idleUnloadMs <= 0) return;
    if (loaded.timer) clearTimeout(loaded.timer);
    loaded.timer = setTimeout(() => void this.unload(modelPath), this.options.idleUnloadMs);
    loaded.timer.unref();
  }

  isLoaded(modelPath: string): boolean {
    return this.loaded.has(path.resolve(modelPath));
  }

  async unload(modelPath: string): Promise<void> {
    const key = path.resolve(modelPath);
    const entry = this.loaded.get(key);
    if (!entry) return;
    this.loaded.delete(key);
    const loaded = await entry.catch(() => null);
    if (!loaded) return;
    if (loaded.timer) clearTimeout(loaded.timer);
    await loaded.queue.catch(() => undefined);
    loaded.chat.dispose();
    await loaded.context.dispose();
    await loaded.model.dispose();
  }

  async close(): Promise<void> {
    for (const key of [...this.loaded.keys()]) await this.unload(key);
    const llama = await this.llama?.catch(() => null);
    this.llama = undefined;
    await llama?.dispose();
  }

  private async load(modelPath: string): Promise<Loaded> {
    const unusable = (reason: string) =>
      new CasefileError(
        'failed',
        `The chat model ${path.basename(modelPath)} could not be loaded (${reason}). Check that it is a complete GGUF file, or import it again with "casefile models import".`,
      );
    // Check the header first: llama.cpp can hang on a file that only looks like GGUF.
    try {
      await readGgufInfo(modelPath);
    } catch (err) {
      if (err instanceof CasefileError && err.code === 'not_found') throw err;
      throw unusable((err as Error).message.replace(/^.*? is not a usable GGUF model: /, '').replace(/\.$/, ''));
    }
    const llama = await this.binding();
    let model: LlamaModel;
    try {
      model = await llama.loadModel({ modelPath });
    } catch (err) {
      throw unusable((err as Error).message);
    }
    const max = Math.max(256, Math.min(this.options.contextSize, model.trainContextSize || this.options.contextSize));
    let context: LlamaContext;
    try {
      context = await model.createContext({ contextSize: { min: Math.min(512, max), max }, threads: this.options.threads });
    } catch (err) {
      await model.dispose();
      throw new CasefileError('failed', `Not enough memory to run ${path.basename(modelPath)} (${(err as Error).message}). Close other programs or pick a smaller model.`);
    }
    const { LlamaChat } = await nodeLlamaCpp();
    const chat = new LlamaChat({ contextSequence: context.getSequence(), autoDisposeSequence: true });
    return { model, context, chat, queue: Promise.resolve(), timer: undefined, grammars: new Map() };
  }

  /** A grammar for a JSON schema, compiled once per model and schema. */
  grammarFor(loaded: Loaded, schema: JSONSchema7 | undefined): Promise<LlamaGrammar> {
    const key = schema ? JSON.stringify(schema) : 'json';
    let g = loaded.grammars.get(key);
    if (!g) {
      g = this.binding().then((llama) =>
        schema ? llama.createGrammarForJsonSchema(toGbnfSchema(schema) as never) : llama.getGrammarFor('json'),
      );
      loaded.grammars.set(key, g);
      g.catch(() => loaded.grammars.delete(key));
    }
    return g;
  }
}

/** Keep the JSON-schema keywords node-llama-cpp's grammar understands; drop annotations it would reject. */
export function toGbnfSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toGbnfSchema);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === '$schema' || k === 'title' || k === 'default' || k === 'examples' || k === 'required') continue;
    if (k === 'anyOf') out.oneOf = toGbnfSchema(v);
    else if (k === 'properties' || k === '$defs') {
      out[k] = Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([pk, pv]) => [pk, toGbnfSchema(pv)]));
    } else out[k] = toGbnfSchema(v);
  }
  return out;
}

/** Turn the SDK's prompt into node-llama-cpp's chat history, ending with an open model turn. */
export function toChatHistory(prompt: LanguageModelV4Prompt): ChatHistoryItem[] {
  const out: ChatHistoryItem[] = [];
  for (const m of prompt) {
    if (m.role === 'system') out.push({ type: 'system', text: m.content });
    else if (m.role === 'user') {
      out.push({ type: 'user', text: m.content.map((p) => (p.type === 'text' ? p.text : '')).join('') });
    } else if (m.role === 'assistant') {
      const text = m.content
        .map((p) => (p.type === 'text' ? p.text : p.type === 'tool-call' ? JSON.stringify({ action: p.toolName, action_input: p.input }) : ''))
        .join('');
      out.push({ type: 'model', response: [text] });
    } else {
      const text = m.content
        .map((p) => (p.type === 'tool-result' ? `Observation: ${p.output.type === 'text' || p.output.type === 'error-text' ? p.output.value : JSON.stringify(p.output)}` : ''))
        .join('\n');
      out.push({ type: 'user', text });
    }
  }
  // Merge consecutive same-role turns; chat templates expect alternation.
  const merged: ChatHistoryItem[] = [];
  for (const item of out) {
    const last = merged[merged.length - 1];
    if (last && last.type === 'user' && item.type === 'user') last.text += `\n\n${item.text}`;
    else merged.push(item);
  }
  merged.push({ type: 'model', response: [] });
  return merged;
}

function usageOf(input: number, output: number): LanguageModelV4Usage {
  return {
    inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: output, text: output, reasoning: undefined },
  };
}

const STOP_REASONS: Record<string, LanguageModelV4GenerateResult['finishReason']['unified']> = {
  eogToken: 'stop',
  stopGenerationTrigger: 'stop',
  customStopTrigger: 'stop',
  maxTokens: 'length',
  abort: 'other',
  functionCalls: 'tool-calls',
};

export interface LlamaLanguageModelOptions {
  /** Id shown in traces (the registry id, or the file name). */
  modelId?: string;
  /** Default sampling temperature when the caller gives none (0: greedy, reproducible). */
  temperature?: number;
}

/** The `ai` SDK language model for one GGUF file, backed by a shared {@link LlamaRuntime}. */
export class LlamaLanguageModel implements LanguageModelV4 {
  readonly specificationVersion = 'v4';
  readonly provider = 'casefile.llama';
  readonly modelId: string;
  readonly supportedUrls: Record<string, RegExp[]> = {};
  private readonly temperature: number;

  constructor(
    readonly runtime: LlamaRuntime,
    readonly modelPath: string,
    options: LlamaLanguageModelOptions = {},
  ) {
    this.modelId = options.modelId ?? path.basename(modelPath, '.gguf');
    this.temperature = options.temperature ?? 0;
  }

  async doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
    const { stream } = await this.doStream(options);
    const reader = stream.getReader();
    let text = '';
    let finish: Extract<LanguageModelV4StreamPart, { type: 'finish' }> | undefined;
    let warnings: SharedV4Warning[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (value.type === 'text-delta') text += value.delta;
      else if (value.type === 'finish') finish = value;
      else if (value.type === 'stream-start') warnings = value.warnings;
      else if (value.type === 'error') throw value.error;
    }
    return {
      content: text ? [{ type: 'text', text }] : [],
      finishReason: finish?.finishReason ?? { unified: 'other', raw: undefined },
      usage: finish?.usage ?? usageOf(0, 0),
      warnings,
    };
  }

  async doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
    const signal = options.abortSignal;
    signal?.throwIfAborted();
    const warnings: SharedV4Warning[] = [];
    if (options.tools?.length) warnings.push({ type: 'unsupported', feature: 'tools', details: 'Local models use constrained JSON steps instead of native tool calls.' });
    const history = toChatHistory(options.prompt);
    const runtime = this.runtime;
    const modelPath = this.modelPath;
    const temperature = options.temperature ?? this.temperature;
    const loaded = await runtime.acquire(modelPath);
    const grammar = options.responseFormat?.type === 'json' ? await runtime.grammarFor(loaded, options.responseFormat.schema) : undefined;

    let controllerRef: ReadableStreamDefaultController<LanguageModelV4StreamPart> | undefined;
    const stream = new ReadableStream<LanguageModelV4StreamPart>({
      start(controller) {
        controllerRef = controller;
      },
    });
    const controller = controllerRef!;
    const run = async () => {
      const chat = loaded.chat;
      const sequence = chat.sequence;
      const meter = sequence.tokenMeter.getState();
      let outputTokens = 0;
      let started = false;
      try {
        controller.enqueue({ type: 'stream-start', warnings });
        controller.enqueue({ type: 'response-metadata', modelId: this.modelId, timestamp: new Date() });
        const res = await chat.generateResponse(history, {
          ...(grammar ? { grammar } : {}),
          ...(options.maxOutputTokens ? { maxTokens: options.maxOutputTokens } : {}),
          temperature,
          ...(options.topP !== undefined ? { topP: options.topP } : {}),
          ...(options.topK !== undefined ? { topK: options.topK } : {}),
          ...(options.seed !== undefined ? { seed: options.seed } : {}),
          ...(options.stopSequences?.length ? { customStopTriggers: options.stopSequences } : {}),
          ...(signal ? { signal, stopOnAbortSignal: false } : {}),
          onToken: (tokens) => {
            outputTokens += tokens.length;
          },
          onTextChunk: (delta) => {
            if (!delta) return;
            if (!started) {
              controller.enqueue({ type: 'text-start', id: 't0' });
              started = true;
            }
            controller.enqueue({ type: 'text-delta', id: 't0', delta });
          },
        });
        if (started) controller.enqueue({ type: 'text-end', id: 't0' });
        const used = sequence.tokenMeter.diff(meter);
        controller.enqueue({
          type: 'finish',
          usage: usageOf(used.usedInputTokens, outputTokens || used.usedOutputTokens),
          finishReason: { unified: STOP_REASONS[res.metadata.stopReason] ?? 'other', raw: res.metadata.stopReason },
        });
        controller.close();
      } catch (err) {
        const error = signal?.aborted ? (signal.reason ?? new DOMException('Aborted', 'AbortError')) : err;
        try {
          controller.enqueue({ type: 'error', error });
          controller.close();
        } catch {
          // the consumer cancelled the stream already
        }
      }
    };
    const previous = loaded.queue;
    const job = previous.catch(() => undefined).then(run);
    loaded.queue = job.catch(() => undefined);
    void job.finally(() => runtime.release(modelPath, loaded));
    return { stream };
  }
}
