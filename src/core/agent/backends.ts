/**
 * Which language model answers a turn. Chosen per turn from what the user picked:
 *   - an installed chat model id, or a path to a .gguf file → node-llama-cpp (local, offline; default);
 *   - `endpoint:<model>` → the OpenAI-compatible endpoint configured by the user (never a default);
 *   - `scripted:<script.json>` → the deterministic scripted model (tests, demos).
 * With no choice: CASEFILE_SCRIPTED_MODEL, then CASEFILE_CHAT_MODEL, then the first installed chat model.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { CasefileError } from '../../shared/errors';
import { tooSmallToAnswer } from '../models/capability';

/** No model was named and none is installed: the turn can still give the extractive answer. */
export class NoChatModelError extends CasefileError {
  constructor() {
    super('unavailable', 'No chat model is installed.', undefined, undefined, {
      app: 'In Settings › Models, use “Choose a model file (.gguf)…”.',
      cli: 'Import a GGUF file with "casefile models import <file.gguf>", or pass --model <path-to.gguf>.',
    });
  }
}
import type { ModelRegistry } from '../models/registry';
import type { LlamaHost } from './llama-host';
import type { StepFormat } from './prompt';
import { ScriptedLanguageModel } from './scripted';

export interface EndpointConfig {
  /** e.g. http://llm.firm.local:8080/v1 */
  baseURL: string;
  apiKey?: string;
  /** The server honours JSON-schema response formats (llama.cpp server, vLLM): steps are constrained like local ones. */
  structuredOutputs?: boolean;
  /** Use the model's native tool calling (default true); the loop falls back to text ReAct when the server refuses tools. */
  toolCalling?: boolean;
}

export interface ResolvedModel {
  model: LanguageModelV4;
  format: StepFormat;
  /** What traces and answers name as the model. */
  label: string;
  kind: 'llama' | 'endpoint' | 'scripted';
  /** A local model too small to answer (models/capability.ts): it gets the short catalogue of tools. */
  small?: boolean;
  /** Set with `small` when nothing named it: the installed default, which the turn then does without. */
  tooSmall?: boolean;
}

export interface BackendContext {
  runtime: () => LlamaHost;
  registry: ModelRegistry;
  endpoint?: EndpointConfig | undefined;
  /** The model of a turn that names none (`scripted:<file>`, an installed id or a .gguf path; config.ts). */
  defaultModel?: string | undefined;
}

export async function resolveModel(spec: string | undefined, ctx: BackendContext): Promise<ResolvedModel> {
  const chosen = spec?.trim() || ctx.defaultModel || undefined;
  if (chosen?.startsWith('scripted:')) {
    const file = path.resolve(chosen.slice('scripted:'.length));
    return {
      model: ScriptedLanguageModel.fromFile(file),
      format: 'json',
      label: `scripted:${path.basename(file)}`,
      kind: 'scripted',
    };
  }
  if (chosen?.startsWith('endpoint:')) {
    const name = chosen.slice('endpoint:'.length).trim();
    if (!ctx.endpoint) {
      throw new CasefileError(
        'unavailable',
        'No model endpoint is configured. Set CASEFILE_ENDPOINT_URL (and CASEFILE_ENDPOINT_KEY if it needs one) to your own server, or pick a local model.',
      );
    }
    if (!name)
      throw new CasefileError('invalid_input', 'Name the endpoint model after "endpoint:", e.g. endpoint:llama3.1-8b.');
    const provider = createOpenAICompatible({
      name: 'casefile-endpoint',
      baseURL: ctx.endpoint.baseURL,
      ...(ctx.endpoint.apiKey ? { apiKey: ctx.endpoint.apiKey } : {}),
      supportsStructuredOutputs: ctx.endpoint.structuredOutputs ?? false,
    });
    return {
      model: provider.chatModel(name),
      format: ctx.endpoint.structuredOutputs ? 'json' : ctx.endpoint.toolCalling === false ? 'text' : 'tools',
      label: `endpoint:${name}`,
      kind: 'endpoint',
    };
  }
  if (chosen && (chosen.toLowerCase().endsWith('.gguf') || chosen.includes('/') || chosen.includes('\\'))) {
    const file = path.resolve(chosen);
    if (!existsSync(file))
      throw CasefileError.withRemedy('not_found', `No model file at ${file}.`, {
        app: 'Check the path, or pick an installed model in Settings → Models.',
        cli: 'Check the path, or list installed models with "casefile models list".',
      });
    const small = tooSmallToAnswer({ kind: 'chat', format: 'gguf', bytes: statSync(file).size, quantization: null });
    return {
      model: ctx.runtime().languageModel(file),
      format: 'json',
      label: path.basename(file),
      kind: 'llama',
      ...(small ? { small } : {}),
    };
  }
  const { models, default_chat_model: defaultChatModel } = await ctx.registry.list('chat');
  // None named: the default set in Settings (or `casefile models default`), else the first installed.
  const pick = chosen
    ? models.find((m) => m.id === chosen)
    : (models.find((m) => m.id === defaultChatModel) ?? models[0]);
  if (!pick) {
    if (chosen) {
      throw CasefileError.withRemedy(
        'not_found',
        `No chat model "${chosen}" is installed. Installed: ${models.map((m) => m.id).join(', ') || 'none'}.`,
        {
          app: 'Choose one of them, or add one in Settings › Models.',
          cli: 'Import one with "casefile models import <file.gguf>".',
        },
      );
    }
    throw new NoChatModelError();
  }
  return {
    model: ctx.runtime().languageModel(pick.path, { modelId: pick.id }),
    format: 'json',
    label: pick.id,
    kind: 'llama',
    ...(pick.too_small ? { small: true, ...(!chosen ? { tooSmall: true } : {}) } : {}),
  };
}
