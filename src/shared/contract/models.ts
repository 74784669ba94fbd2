import { z } from 'zod';
import { op } from './op';

export type ModelKind = 'chat' | 'embedding' | 'reranker';

/** One model the engine can use: imported into `<home>/models`, or shipped in the app's bundled `models/`. */
export interface ModelInfo {
  /** Stable id: the folder name of a transformers.js model, the file name (without .gguf) of a GGUF. */
  id: string;
  kind: ModelKind;
  format: 'gguf' | 'onnx';
  /** `installed`: under `<home>/models`; `bundled`: in the app's `models/` folder (read-only). */
  source: 'installed' | 'bundled';
  /** Absolute path: the .gguf file, or the model folder. */
  path: string;
  /** Bytes on disk (all files of a folder). */
  bytes: number;
  /** GGUF file type (e.g. `Q4_K_M`) or ONNX weight type (e.g. `q8`). */
  quantization: string | null;
  /** Chat models: trained context length. Embedding models: max tokens per text. */
  context_length: number | null;
  /** GGUF `general.architecture` or config.json `model_type`. */
  architecture: string | null;
  /** Embedding models: vector dimension. */
  dimension: number | null;
  /** Embedding models: pooling that turns token vectors into one vector. */
  pooling: 'mean' | 'cls' | null;
  /** The default of its kind: the embedding model new cases use, or the chat model a question uses when none is picked. */
  is_default: boolean;
  /**
   * Chat models too small (under about a billion parameters, by size) to write answers worth
   * waiting for: a question that names no model gets Find passages. Absent otherwise.
   */
  too_small?: true;
  /** Cases whose vectors were made by this model. */
  used_by: Array<{ case_id: string; name: string }>;
  /** ISO time of import (null for models found on disk without an import). */
  imported: string | null;
  sha256: string | null;
}

export interface ModelsList {
  models: ModelInfo[];
  /** Id of the embedding model new cases use; null when none is installed. */
  default_embedding_model: string | null;
  /** Whether semantic search is available, and why not when it is off. */
  semantic: { available: boolean; reason: string | null };
  /** Where imports go. */
  models_dir: string;
  /** Id of the chat model a question uses when it names none (set with models.setDefault, else the first installed); null when none is installed. */
  default_chat_model: string | null;
  /**
   * A chat model set for this computer outside the app (CASEFILE_CHAT_MODEL; a test's scripted
   * model): a question that names none uses it instead of default_chat_model. Absent when none is set.
   */
  chat_model_override?: string;
  /** The models the app recommends (its `models/manifest.json`), with what each needs; [] when the app ships no manifest. */
  recommended: RecommendedModel[];
}

/** One model of the app's list of recommended models, with what it needs to run. */
export interface RecommendedModel {
  id: string;
  kind: ModelKind;
  /** Marked recommended (the others are listed as alternatives). */
  recommended: boolean;
  description: string;
  license: string | null;
  /** Memory the computer should have to run it, in GB. */
  min_ram_gb: number | null;
  /** Its size on disk, about, in MB. */
  approx_size_mb: number | null;
  /** An installed model has this id (or starts with it, as a GGUF named after its file does). */
  installed: boolean;
  /** A single-file GGUF's address, for `models.download` (needs a network, only when asked); null otherwise. */
  download_url: string | null;
}

export interface ModelImportResult {
  model: ModelInfo;
  /** The same model was already installed under this id; nothing was copied. */
  already_installed: boolean;
  default_embedding_model: string | null;
}

/** Model ids are safe as folder names. */
export const ModelId = z
  .string({ error: 'model_id is required' })
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/,
    'A model name holds only letters, digits, ".", "_" or "-" (at most 128), starting with a letter or digit.',
  );

export const modelsContract = {
  'models.list': op<ModelsList>()(
    z.object({ kind: z.enum(['chat', 'embedding', 'reranker']).optional() }).strict(),
    'Installed and bundled models (chat GGUF, embedding and reranker ONNX) with size, quantization, context length and the cases that use them.',
  ),
  'models.import': op<ModelImportResult>()(
    z
      .object({
        path: z
          .string({ error: 'path is required' })
          .min(1, 'Choose the model file or folder, or type where it is.')
          .max(4096, 'That path is too long (at most 4,096 characters).'),
        id: ModelId.optional(),
        /** `copy` (default) copies into `<home>/models`; `link` leaves the files where they are and links to them. */
        mode: z.enum(['copy', 'link']).default('copy'),
      })
      .strict(),
    'Import a GGUF file (validated by its header) or a transformers.js model folder (validated by loading it) into <home>/models.',
  ),
  'models.download': op<ModelImportResult>()(
    z
      .object({
        /** A URL of a .gguf file, a Hugging Face `owner/repo/file.gguf`, or a Hugging Face transformers.js repo `owner/repo`. */
        source: z
          .string({ error: 'source is required' })
          .trim()
          .min(3, 'Give the web address of a .gguf file, or a Hugging Face name such as owner/repo/model.gguf.')
          .max(2048, 'That address is too long (at most 2,048 characters).'),
        id: ModelId.optional(),
        sha256: z
          .string()
          .regex(/^[0-9a-fA-F]{64}$/, 'A sha256 checksum is 64 characters, each 0–9 or a–f.')
          .optional(),
      })
      .strict(),
    'Download a model (only when the user asks; needs a network): resumes, checks the sha256 when given, then validates and registers it like an import.',
  ),
  'models.setDefault': op<ModelsList>()(
    z.object({ model_id: ModelId }).strict(),
    'Make an installed embedding model the default for new cases, or an installed chat model the one questions use when they name none.',
  ),
};
