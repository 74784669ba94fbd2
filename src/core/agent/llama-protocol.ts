/**
 * The messages between the engine (`llama-host.ts`) and the model process (`llama-worker.ts`):
 * a call's options in, its stream parts out, an abort forwarded. Errors cross as their API shape
 * (code, message, remedy), so the engine gives the user the same words the model process wrote.
 */
import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import type { ApiErrorShape } from '../../shared/errors';
import type { LlamaRuntimeOptions } from './llama-provider';

/** A call's options without what cannot cross a process (the signal: aborts are messages). */
export type LlamaCallOptions = Omit<LanguageModelV4CallOptions, 'abortSignal' | 'headers'>;

/** A stream part as it crosses: an error part carries the error's shape. */
export type WireStreamPart =
  | Exclude<LanguageModelV4StreamPart, { type: 'error' }>
  | { type: 'error'; error: ApiErrorShape };

export type LlamaWorkerRequest =
  | { type: 'init'; options: LlamaRuntimeOptions }
  | { type: 'stream'; id: number; modelPath: string; modelId: string; options: LlamaCallOptions }
  | { type: 'abort'; id: number }
  | { type: 'unload'; modelPath: string }
  | { type: 'close' };

export type LlamaWorkerResponse =
  /** The model is loaded and the call started: its parts follow. */
  | { type: 'ready'; id: number }
  /** The call could not start (the model cannot load, not enough memory). */
  | { type: 'failed'; id: number; error: ApiErrorShape }
  | { type: 'part'; id: number; part: WireStreamPart }
  /** The call's stream ended; the runtime's token counts and the models it holds now. */
  | { type: 'end'; id: number; usage: { input: number; output: number }; loaded: string[] }
  | { type: 'unloaded'; modelPath: string };
