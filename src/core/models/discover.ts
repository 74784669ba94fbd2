/**
 * Models found by looking at folders: what a GGUF header or a transformers.js folder says a model
 * is (kind, size, quantization, context, dimension), without loading it.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { ModelInfo } from '../../shared/contract/models';
import { inspectTransformersFolder, type TransformersFolder } from './folder';
import { readGgufInfo } from './gguf';
import { modelIdFrom } from './ids';
import { REGISTRY_FILE } from './registry-file';

/** A model as found on disk (ModelInfo without what the catalog adds: default, usage). */
export type Described = Omit<ModelInfo, 'is_default' | 'used_by'>;

export async function statOrNull(p: string) {
  return fs.stat(p).catch(() => null);
}

export async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await fs.readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += await folderBytes(full);
    else if (entry.isFile()) total += (await fs.stat(full)).size;
  }
  return total;
}

export function describeFolder(
  id: string,
  folder: TransformersFolder,
  bytes: number,
  source: ModelInfo['source'],
): Described {
  return {
    id,
    kind: folder.kind,
    format: 'onnx',
    source,
    path: folder.dir,
    bytes,
    quantization: folder.dtype,
    context_length: folder.maxPositions,
    architecture: folder.modelType,
    dimension: folder.kind === 'embedding' ? folder.hiddenSize : null,
    pooling: folder.kind === 'embedding' ? folder.pooling : null,
    imported: null,
    sha256: null,
  };
}

export async function describeGguf(id: string, file: string, source: ModelInfo['source']): Promise<Described> {
  const info = await readGgufInfo(file);
  return {
    id,
    kind: 'chat',
    format: 'gguf',
    source,
    path: file,
    bytes: info.bytes,
    quantization: info.quantization,
    context_length: info.contextLength,
    architecture: info.architecture,
    dimension: null,
    pooling: null,
    imported: null,
    sha256: null,
  };
}

/**
 * Models found by looking at a folder: top-level `.gguf` files, transformers.js folders
 * (config.json + tokenizer + onnx/), and folders holding one or more `.gguf` files.
 * Anything unreadable is skipped: a stray file must not break the model list.
 */
export async function discover(dir: string, source: ModelInfo['source'], skipPaths: Set<string>): Promise<Described[]> {
  const out: Described[] = [];
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    if (entry.name.startsWith('.') || entry.name === REGISTRY_FILE) continue;
    const full = path.join(dir, entry.name);
    if (skipPaths.has(full)) continue;
    const stat = await statOrNull(full); // follows links
    if (!stat) continue;
    try {
      if (stat.isFile() && entry.name.toLowerCase().endsWith('.gguf')) {
        out.push(await describeGguf(modelIdFrom(entry.name), full, source));
      } else if (stat.isDirectory()) {
        const inspected = await inspectTransformersFolder(full);
        if (inspected.ok) {
          out.push(describeFolder(modelIdFrom(entry.name), inspected.folder, await folderBytes(full), source));
          continue;
        }
        const ggufs = (await fs.readdir(full).catch(() => [] as string[]))
          .filter((n) => n.toLowerCase().endsWith('.gguf'))
          .sort();
        for (const name of ggufs) {
          const id = ggufs.length === 1 ? modelIdFrom(entry.name) : modelIdFrom(name);
          if (!skipPaths.has(path.join(full, name))) out.push(await describeGguf(id, path.join(full, name), source));
        }
      }
    } catch {
      // not a model, or a damaged one: leave it out of the list
    }
  }
  return out;
}
