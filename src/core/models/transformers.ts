import path from 'node:path';
import type { PretrainedModelOptions } from '@huggingface/transformers';
import type { TransformersFolder } from './folder';
import { applyOfflineEnv } from '../util/offline-env';

export type TransformersModule = typeof import('@huggingface/transformers');

let transformersModule: Promise<TransformersModule> | undefined;
/** Serialises loads: transformers.js reads the local model path from one global `env`. */
let loadChain: Promise<unknown> = Promise.resolve();

/** transformers.js, configured once for local folders only: nothing is fetched from a hub or cached elsewhere. */
export async function loadTransformers(): Promise<TransformersModule> {
  // On a main thread this reaches onnxruntime (in a worker it is a copy: the host has set it already).
  applyOfflineEnv();
  transformersModule ??= import('@huggingface/transformers').then((mod) => {
    mod.env.allowRemoteModels = false;
    mod.env.allowLocalModels = true;
    mod.env.useFSCache = false;
    return mod;
  });
  return transformersModule;
}

/**
 * Run `load` with transformers.js pointed at the folder's parent, one load at a time, and return
 * the model name to pass (the folder's base name) plus options selecting the folder's weights.
 */
export async function withLocalModel<T>(
  folder: TransformersFolder,
  load: (mod: TransformersModule, name: string, options: PretrainedModelOptions) => Promise<T>,
  extra: PretrainedModelOptions = {},
): Promise<T> {
  const mod = await loadTransformers();
  const run = loadChain.then(() => {
    mod.env.localModelPath = `${path.dirname(folder.dir)}${path.sep}`;
    return load(mod, path.basename(folder.dir), {
      dtype: folder.dtype,
      device: 'cpu',
      local_files_only: true,
      ...(folder.modelFileName !== 'model' ? { model_file_name: folder.modelFileName } : {}),
      ...extra,
    });
  });
  loadChain = run.catch(() => undefined);
  return run;
}
