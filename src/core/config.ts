/**
 * Settings from the environment, read in one place. Each process's composition root reads them
 * once and passes them down: the engine (CLI, serve, Electron main) in `Engine.open`, the reader
 * processes and the embedding worker at their start. No other module reads `process.env` for a
 * setting (offline-env.ts and lancedb-env.ts only set variables for native libraries).
 */
import { limitsFromEnv, type IngestLimits } from './domain/index';

export interface EnvConfig {
  /** Per-file ingest limits set by CASEFILE_* variables (see domain/limits.ts's LIMIT_ENV). */
  limits: Partial<IngestLimits>;
  /** CASEFILE_LLAMA_THREADS, CASEFILE_LLAMA_CONTEXT, CASEFILE_LLAMA_IDLE_MS. */
  llama: { threads?: number; contextSize?: number; idleUnloadMs?: number };
  /** CASEFILE_AGENT_MAX_TOKENS: output tokens per agent step. */
  agentMaxTokens?: number;
  /** The model a turn uses when it names none: `scripted:<CASEFILE_SCRIPTED_MODEL>`, else CASEFILE_CHAT_MODEL. */
  defaultChatModel?: string;
  /** The OpenAI-compatible endpoint the user configured (CASEFILE_ENDPOINT_URL, _KEY, _STRUCTURED, _TOOLS); none by default. */
  endpoint?: { baseURL: string; apiKey?: string; structuredOutputs: boolean; toolCalling: boolean };
  /** Where `models download` fetches Hugging Face names (HF_ENDPOINT, a mirror) and the token gated models need (HF_TOKEN). */
  hub: { endpoint: string; token?: string };
  /** CASEFILE_EMBED_THREADS: onnxruntime threads of the embedding worker. */
  embedThreads?: number;
  /** CASEFILE_PDFJS_VERBOSE: pdf.js logs what it finds wrong in a PDF. */
  pdfjsVerbose: boolean;
  /**
   * CASEFILE_BUNDLED_MODELS: `off` reads only the bundled folders' manifest.json, none of their
   * models (the test harnesses set it); a folder path replaces the app's bundled `models/`.
   */
  bundledModels?: 'off' | string;
  /** OCR of scanned pages at ingest, on unless CASEFILE_OCR=0 (which turns it off for every case). */
  ocr: boolean;
  /** CASEFILE_S3_ACCESS_KEY_ID and CASEFILE_S3_SECRET_ACCESS_KEY: the key of the firm's object storage (`<home>/object-store.json`). */
  s3Credentials?: { accessKeyId: string; secretAccessKey: string };
  /**
   * CASEFILE_WORKER_DIR: a folder of built worker entries (out/main) the engine starts its readers
   * and threads from instead of the TypeScript source beside it; the tests set it, so those do not
   * load the source through tsx. Ignored inside Electron, whose fuses keep the environment from
   * changing what the app runs.
   */
  workerDir?: string;
}

/** A positive number, or undefined. */
function positive(raw: string | undefined): number | undefined {
  const n = raw === undefined || raw.trim() === '' ? NaN : Number(raw);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}

const defined = <T extends object>(o: T): T =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

export function readConfig(env: NodeJS.ProcessEnv = process.env): EnvConfig {
  const scripted = env.CASEFILE_SCRIPTED_MODEL?.trim();
  const chat = env.CASEFILE_CHAT_MODEL?.trim();
  const baseURL = env.CASEFILE_ENDPOINT_URL?.trim();
  const embedThreads = positive(env.CASEFILE_EMBED_THREADS);
  const s3Key = env.CASEFILE_S3_ACCESS_KEY_ID?.trim();
  const s3Secret = env.CASEFILE_S3_SECRET_ACCESS_KEY?.trim();
  return defined({
    limits: limitsFromEnv(env),
    llama: defined({
      threads: positive(env.CASEFILE_LLAMA_THREADS),
      contextSize: positive(env.CASEFILE_LLAMA_CONTEXT),
      idleUnloadMs: positive(env.CASEFILE_LLAMA_IDLE_MS),
    }),
    agentMaxTokens: positive(env.CASEFILE_AGENT_MAX_TOKENS),
    defaultChatModel: scripted ? `scripted:${scripted}` : chat || undefined,
    endpoint: baseURL
      ? defined({
          baseURL,
          apiKey: env.CASEFILE_ENDPOINT_KEY || undefined,
          structuredOutputs: env.CASEFILE_ENDPOINT_STRUCTURED === '1',
          toolCalling: env.CASEFILE_ENDPOINT_TOOLS !== '0',
        })
      : undefined,
    hub: defined({
      endpoint: (env.HF_ENDPOINT || 'https://huggingface.co').replace(/\/+$/, ''),
      token: env.HF_TOKEN || undefined,
    }),
    embedThreads: embedThreads !== undefined && Number.isInteger(embedThreads) ? embedThreads : undefined,
    pdfjsVerbose: Boolean(env.CASEFILE_PDFJS_VERBOSE),
    ocr: env.CASEFILE_OCR !== '0',
    bundledModels: env.CASEFILE_BUNDLED_MODELS?.trim() || undefined,
    s3Credentials: s3Key && s3Secret ? { accessKeyId: s3Key, secretAccessKey: s3Secret } : undefined,
    workerDir: process.versions.electron ? undefined : env.CASEFILE_WORKER_DIR?.trim() || undefined,
  });
}
