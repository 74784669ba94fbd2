import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, promises as fs, type Stats } from 'node:fs';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';
import type { ModelImportResult, ModelInfo, ModelKind, ModelsList } from '../../shared/contract/models';
import { CasefileError } from '../../shared/errors';
import { KeyedQueue, pidAlive } from '../util/concurrency';
import { readJson, writeJsonAtomic } from '../util/fs';
import { inspectTransformersFolder, type Pooling, type TransformersFolder } from './folder';
import { downloadPlan, planDownload, type DownloadProgress } from './download';
import { looksLikeGguf, readGgufInfo } from './gguf';
import { modelIdFrom } from './ids';

/** Where models live for one engine. */
export interface ModelLocations {
  /** `<home>/models`: imports go here, the registry file lives here. */
  modelsDir: string;
  /** The app's bundled `models/` folders, read after `modelsDir` (read-only). */
  bundledModelDirs?: string[];
  /** `<home>/cases`, to report which cases use a model (optional). */
  casesDir?: string;
  /**
   * Loads an embedding model folder the way search will (in the embedding worker) and returns the
   * length of its vectors; an import validates with it. Injected by the engine (index/models.ts's
   * `probeEmbedding`), so the catalog does not depend on the index.
   */
  probeEmbedding?: EmbeddingProbe;
}

export type EmbeddingProbe = (id: string, dir: string, signal?: AbortSignal) => Promise<number>;

export const REGISTRY_FILE = 'registry.json';

/** Why semantic search is off when no embedding model is installed (search results, Settings, `models list`). */
export const NO_EMBEDDING_MODEL_REASON = 'no embedding model installed — keyword search only (import one with: casefile models import <folder>)';
const REGISTRY_SCHEMA_VERSION = 1;
const IMPORTING = '.importing-';
/** Partial downloads, kept so that a later attempt resumes. */
const DOWNLOADS = '.downloads';

const RegisteredModel = z.object({
  id: z.string(),
  kind: z.enum(['chat', 'embedding', 'reranker']),
  format: z.enum(['gguf', 'onnx']),
  /** Relative to modelsDir for copies; absolute for linked models. */
  path: z.string(),
  linked: z.boolean().default(false),
  importedFrom: z.string().nullable().default(null),
  imported: z.string(),
  sha256: z.string().nullable().default(null),
  bytes: z.number(),
  quantization: z.string().nullable().default(null),
  contextLength: z.number().nullable().default(null),
  architecture: z.string().nullable().default(null),
  dimension: z.number().nullable().default(null),
  pooling: z.enum(['mean', 'cls']).nullable().default(null),
});
type RegisteredModel = z.infer<typeof RegisteredModel>;

/** `<home>/models/registry.json`, versioned so later releases can migrate it. */
const RegistryFile = z.object({
  schemaVersion: z.literal(REGISTRY_SCHEMA_VERSION),
  defaultEmbedding: z.string().nullable().default(null),
  models: z.array(RegisteredModel).default([]),
});
type RegistryFile = z.infer<typeof RegistryFile>;

type Described = Omit<ModelInfo, 'isDefault' | 'usedBy'>;

/** Registry writes of one process go one at a time (read-modify-write of registry.json). */
const writeLocks = new KeyedQueue<string>();

async function statOrNull(p: string) {
  return fs.stat(p).catch(() => null);
}

async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await fs.readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += await folderBytes(full);
    else if (entry.isFile()) total += (await fs.stat(full)).size;
  }
  return total;
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}

/** Copy one file, hashing it on the way; honours `signal`. */
async function copyFileHashed(src: string, dest: string, signal?: AbortSignal): Promise<string> {
  const hash = createHash('sha256');
  const tap = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  await pipeline(createReadStream(src), tap, createWriteStream(dest), { signal });
  return hash.digest('hex');
}

async function copyTree(src: string, dest: string, signal?: AbortSignal): Promise<void> {
  await fs.mkdir(dest, { recursive: true });
  for (const entry of await fs.readdir(src, { withFileTypes: true })) {
    if (signal?.aborted) throw abortError(signal);
    if (entry.name.startsWith('.')) continue; // .git, markers, OS junk: not part of the model
    const from = path.join(src, entry.name);
    const to = path.join(dest, entry.name);
    if (entry.isDirectory()) await copyTree(from, to, signal);
    else if (entry.isFile() || entry.isSymbolicLink()) await copyFileHashed(from, to, signal);
  }
}

function describeFolder(id: string, folder: TransformersFolder, bytes: number, source: ModelInfo['source']): Described {
  return {
    id,
    kind: folder.kind,
    format: 'onnx',
    source,
    path: folder.dir,
    bytes,
    quantization: folder.dtype,
    contextLength: folder.maxPositions,
    architecture: folder.modelType,
    dimension: folder.kind === 'embedding' ? folder.hiddenSize : null,
    pooling: folder.kind === 'embedding' ? folder.pooling : null,
    imported: null,
    sha256: null,
  };
}

async function describeGguf(id: string, file: string, source: ModelInfo['source']): Promise<Described> {
  const info = await readGgufInfo(file);
  return {
    id,
    kind: 'chat',
    format: 'gguf',
    source,
    path: file,
    bytes: info.bytes,
    quantization: info.quantization,
    contextLength: info.contextLength,
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
async function discover(dir: string, source: ModelInfo['source'], skipPaths: Set<string>): Promise<Described[]> {
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
        const ggufs = (await fs.readdir(full).catch(() => [] as string[])).filter((n) => n.toLowerCase().endsWith('.gguf')).sort();
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

/**
 * The models of one data home: those imported into `<home>/models` (recorded in its
 * registry.json), any model files placed there by hand, and the app's bundled `models/`.
 */
export class ModelRegistry {
  readonly modelsDir: string;
  readonly bundledModelDirs: string[];
  readonly casesDir: string | undefined;
  private readonly probeEmbedding: EmbeddingProbe | undefined;

  constructor(where: ModelLocations) {
    this.modelsDir = path.resolve(where.modelsDir);
    this.bundledModelDirs = (where.bundledModelDirs ?? []).map((d) => path.resolve(d));
    this.casesDir = where.casesDir;
    this.probeEmbedding = where.probeEmbedding;
  }

  get registryFile(): string {
    return path.join(this.modelsDir, REGISTRY_FILE);
  }

  /** Remove leftovers of imports interrupted by a crash (staging folders of processes that are gone). */
  async cleanup(): Promise<void> {
    for (const name of await fs.readdir(this.modelsDir).catch(() => [] as string[])) {
      if (!name.startsWith(IMPORTING)) continue;
      const pid = Number(name.slice(IMPORTING.length).split('-')[0]);
      if (Number.isInteger(pid) && pid > 0 && pidAlive(pid)) continue;
      await fs.rm(path.join(this.modelsDir, name), { recursive: true, force: true });
    }
  }

  private async readRegistry(): Promise<RegistryFile> {
    let raw: unknown;
    try {
      raw = await readJson(this.registryFile);
    } catch (err) {
      throw new CasefileError('failed', `The model registry ${this.registryFile} is unreadable (${(err as Error).message}); move it aside and import the models again.`);
    }
    if (raw === undefined) return { schemaVersion: REGISTRY_SCHEMA_VERSION, defaultEmbedding: null, models: [] };
    const parsed = RegistryFile.safeParse(raw);
    if (!parsed.success) throw new CasefileError('failed', `The model registry ${this.registryFile} is damaged: ${parsed.error.issues[0]?.message}.`);
    return parsed.data;
  }

  private async updateRegistry<T>(change: (reg: RegistryFile) => T | Promise<T>): Promise<T> {
    return writeLocks.run(this.registryFile, async () => {
      const reg = await this.readRegistry();
      const result = await change(reg);
      await fs.mkdir(this.modelsDir, { recursive: true });
      await writeJsonAtomic(this.registryFile, reg);
      return result;
    });
  }

  private entryPath(entry: RegisteredModel): string {
    return entry.linked ? entry.path : path.join(this.modelsDir, entry.path);
  }

  /** Every usable model, installed first; ids are unique (an installed model hides a bundled one of the same id). */
  private async collect(): Promise<{ reg: RegistryFile; models: Described[] }> {
    const reg = await this.readRegistry();
    const models: Described[] = [];
    const seenPaths = new Set<string>();
    for (const entry of reg.models) {
      const full = this.entryPath(entry);
      seenPaths.add(full);
      if (!(await statOrNull(full))) continue; // removed by hand: not usable
      models.push({
        id: entry.id,
        kind: entry.kind,
        format: entry.format,
        source: 'installed',
        path: full,
        bytes: entry.bytes,
        quantization: entry.quantization,
        contextLength: entry.contextLength,
        architecture: entry.architecture,
        dimension: entry.dimension,
        pooling: entry.pooling,
        imported: entry.imported,
        sha256: entry.sha256,
      });
    }
    // A registered GGUF lives in `<modelsDir>/<id>/file.gguf`: skip its folder too.
    for (const entry of reg.models) if (!entry.linked) seenPaths.add(path.join(this.modelsDir, entry.path.split(/[\\/]/)[0]!));
    models.push(...(await discover(this.modelsDir, 'installed', seenPaths)));
    for (const dir of this.bundledModelDirs) models.push(...(await discover(dir, 'bundled', new Set())));
    const ids = new Set<string>();
    return { reg, models: models.filter((m) => (ids.has(m.id) ? false : (ids.add(m.id), true))) };
  }

  private static pickDefault(reg: RegistryFile, models: Described[]): Described | undefined {
    const embeddings = models.filter((m) => m.kind === 'embedding');
    return embeddings.find((m) => m.id === reg.defaultEmbedding) ?? embeddings[0];
  }

  /** Which cases' vectors each model made, from case.json `embedding.modelId`. */
  private async usage(): Promise<Map<string, Array<{ caseId: string; name: string }>>> {
    const usage = new Map<string, Array<{ caseId: string; name: string }>>();
    if (!this.casesDir) return usage;
    for (const entry of await fs.readdir(this.casesDir, { withFileTypes: true }).catch(() => [])) {
      if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
      const meta = (await readJson(path.join(this.casesDir, entry.name, 'case.json')).catch(() => undefined)) as
        | { id?: unknown; name?: unknown; embedding?: { modelId?: unknown } | null }
        | undefined;
      const modelId = meta?.embedding?.modelId;
      if (typeof modelId !== 'string') continue;
      const list = usage.get(modelId) ?? [];
      list.push({ caseId: typeof meta?.id === 'string' ? meta.id : entry.name, name: typeof meta?.name === 'string' ? meta.name : entry.name });
      usage.set(modelId, list);
    }
    return usage;
  }

  async list(kind?: ModelKind): Promise<ModelsList> {
    const { reg, models } = await this.collect();
    const usage = await this.usage();
    const def = ModelRegistry.pickDefault(reg, models);
    const shown = models
      .filter((m) => !kind || m.kind === kind)
      .map((m): ModelInfo => ({ ...m, isDefault: m.id === def?.id, usedBy: usage.get(m.id) ?? [] }));
    return {
      models: shown,
      defaultEmbeddingModel: def?.id ?? null,
      semantic: def
        ? { available: true, reason: null }
        : { available: false, reason: NO_EMBEDDING_MODEL_REASON },
      modelsDir: this.modelsDir,
    };
  }

  /** One model by id, or undefined. */
  async get(id: string): Promise<ModelInfo | undefined> {
    return (await this.list()).models.find((m) => m.id === id);
  }

  /** The embedding model to use: `id` when given and installed, else the default. */
  async defaultEmbedding(id?: string): Promise<(Described & { dimension: number | null; pooling: Pooling }) | undefined> {
    const { reg, models } = await this.collect();
    const found = id ? models.find((m) => m.id === id && m.kind === 'embedding') : ModelRegistry.pickDefault(reg, models);
    return found ? { ...found, pooling: found.pooling ?? 'mean' } : undefined;
  }

  async setDefault(id: string): Promise<ModelsList> {
    const model = (await this.collect()).models.find((m) => m.id === id);
    if (!model) throw new CasefileError('not_found', `No model "${id}" is installed (see: casefile models list).`);
    if (model.kind !== 'embedding') throw new CasefileError('invalid_input', `"${id}" is a ${model.kind} model, not an embedding model.`);
    await this.updateRegistry((reg) => {
      reg.defaultEmbedding = id;
    });
    return this.list();
  }

  /**
   * Import a GGUF file (checked by reading its header) or a transformers.js model folder
   * (checked by loading it and embedding a sentence) into `<modelsDir>/<id>/`, and register it.
   * The first embedding model imported becomes the default for new cases.
   */
  async import(
    source: string,
    options: { id?: string; mode?: 'copy' | 'link' | 'move'; signal?: AbortSignal } = {},
  ): Promise<ModelImportResult> {
    const src = path.resolve(source);
    const mode = options.mode ?? 'copy';
    const stat = await statOrNull(src);
    if (!stat) throw new CasefileError('not_found', `No file or folder at ${src}.`);

    const { ggufFile, folder } = await classifySource(src, stat);

    const id = options.id ?? modelIdFrom(path.basename(ggufFile && !folder && stat.isFile() ? ggufFile : src));
    let described: Described;
    if (ggufFile) {
      described = await describeGguf(id, ggufFile, 'installed'); // throws with the header's problem
    } else {
      described = describeFolder(id, folder!, await folderBytes(src), 'installed');
      const check = await validateByLoading(id, folder!, this.probeEmbedding, options.signal);
      described.dimension = check.dimension ?? described.dimension;
    }

    const existing = (await this.collect()).models.find((m) => m.id === id && m.source === 'installed');
    if (existing) {
      const same = existing.kind === described.kind && existing.bytes === described.bytes;
      if (!same) {
        throw new CasefileError('conflict', `A different model with id "${id}" is already installed; import this one under another id (--id NAME).`);
      }
      const list = await this.list();
      return { model: list.models.find((m) => m.id === id)!, alreadyInstalled: true, defaultEmbeddingModel: list.defaultEmbeddingModel };
    }

    await fs.mkdir(this.modelsDir, { recursive: true });
    const { relPath, sha256 } = await this.install(id, src, ggufFile, mode, options.signal);

    const entry: RegisteredModel = {
      id,
      kind: described.kind,
      format: described.format,
      path: relPath,
      linked: mode === 'link',
      importedFrom: src,
      imported: new Date().toISOString(),
      sha256,
      bytes: described.bytes,
      quantization: described.quantization,
      contextLength: described.contextLength,
      architecture: described.architecture,
      dimension: described.dimension,
      pooling: described.pooling,
    };
    await this.updateRegistry((reg) => {
      reg.models = reg.models.filter((m) => m.id !== id);
      reg.models.push(entry);
      if (entry.kind === 'embedding' && !reg.defaultEmbedding) reg.defaultEmbedding = id;
    });
    const list = await this.list();
    return { model: list.models.find((m) => m.id === id)!, alreadyInstalled: false, defaultEmbeddingModel: list.defaultEmbeddingModel };
  }

  /** Put an imported model in place: linked where it is, or copied (moved) into `<modelsDir>/<id>/` through a staging folder. */
  private async install(id: string, src: string, ggufFile: string | undefined, mode: 'copy' | 'link' | 'move', signal: AbortSignal | undefined): Promise<{ relPath: string; sha256: string | null }> {
    let relPath: string;
    let sha256: string | null = null;
    if (mode === 'link') {
      relPath = ggufFile ?? src;
      if (ggufFile) sha256 = await hashFile(ggufFile, signal);
    } else {
      await this.cleanup();
      const staging = path.join(this.modelsDir, `${IMPORTING}${process.pid}-${id}-${randomBytes(4).toString('hex')}`);
      const target = path.join(this.modelsDir, id);
      if (await statOrNull(target)) {
        throw new CasefileError('conflict', `${target} already exists but is not a registered model; move it away or import under another id (--id NAME).`);
      }
      try {
        if (ggufFile) {
          await fs.mkdir(staging, { recursive: true });
          const dest = path.join(staging, path.basename(ggufFile));
          if (mode === 'move') {
            await fs.rename(ggufFile, dest); // downloads land inside modelsDir: no second copy
            sha256 = await hashFile(dest, signal);
          } else sha256 = await copyFileHashed(ggufFile, dest, signal);
          relPath = path.join(id, path.basename(ggufFile));
        } else {
          if (mode === 'move') await fs.rename(src, staging);
          else await copyTree(src, staging, signal);
          relPath = id;
        }
        await fs.rename(staging, target);
      } catch (err) {
        await fs.rm(staging, { recursive: true, force: true });
        throw err;
      }
    }
    return { relPath, sha256 };
  }

  /**
   * Download a model (only when the user asks): a .gguf URL, a Hugging Face `owner/repo/file.gguf`,
   * or a Hugging Face transformers.js repo `owner/repo`. Partial files stay in
   * `<modelsDir>/.downloads/<id>/` so a later attempt resumes; the result is validated and
   * registered exactly like an import from disk.
   */
  async download(
    source: string,
    options: { id?: string; sha256?: string; signal?: AbortSignal; onProgress?: (modelId: string, p: DownloadProgress) => void } = {},
  ): Promise<ModelImportResult> {
    const plan = planDownload(source, options.id);
    const existing = (await this.collect()).models.find((m) => m.id === plan.id && m.source === 'installed');
    if (existing) {
      const list = await this.list();
      return { model: list.models.find((m) => m.id === plan.id)!, alreadyInstalled: true, defaultEmbeddingModel: list.defaultEmbeddingModel };
    }
    const dir = path.join(this.modelsDir, DOWNLOADS, plan.id);
    await fs.mkdir(dir, { recursive: true });
    const target = await downloadPlan(plan, dir, {
      ...(options.sha256 ? { sha256: options.sha256 } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      onProgress: (p) => options.onProgress?.(plan.id, p),
    });
    const result = await this.import(target, { id: plan.id, mode: 'move', ...(options.signal ? { signal: options.signal } : {}) });
    await fs.rm(dir, { recursive: true, force: true });
    return result;
  }
}

/** What an import source is: a GGUF file (checked by its signature), a transformers.js model folder, or a folder holding one .gguf. */
async function classifySource(src: string, stat: Stats): Promise<{ ggufFile?: string; folder?: TransformersFolder }> {
  let ggufFile: string | undefined;
  let folder: TransformersFolder | undefined;
  if (stat.isFile()) {
    if (!(await looksLikeGguf(src))) {
      throw new CasefileError(
        'failed',
        `${path.basename(src)} is not a GGUF model file (its first bytes are not the GGUF signature). Import a .gguf chat model, or a transformers.js model folder (config.json, tokenizer.json, onnx/*.onnx).`,
      );
    }
    ggufFile = src;
  } else if (stat.isDirectory()) {
    const inspected = await inspectTransformersFolder(src);
    if (inspected.ok) folder = inspected.folder;
    else {
      const ggufs = (await fs.readdir(src)).filter((n) => n.toLowerCase().endsWith('.gguf'));
      if (ggufs.length !== 1) {
        throw new CasefileError('failed', `${src} is not a model folder: ${inspected.reason}. Import a .gguf file or a transformers.js model folder.`);
      }
      ggufFile = path.join(src, ggufs[0]!);
    }
  } else {
    throw new CasefileError('failed', `${src} is neither a file nor a folder.`);
  }
  return { ggufFile, folder };
}

async function hashFile(file: string, signal?: AbortSignal): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file, { signal })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Load a transformers.js folder the way the engine will use it; fail with the loader's reason. */
async function validateByLoading(id: string, folder: TransformersFolder, probe: EmbeddingProbe | undefined, signal?: AbortSignal): Promise<{ dimension: number | null }> {
  if (folder.kind === 'embedding') {
    if (!probe) throw new CasefileError('unavailable', 'Embedding models cannot be imported here (no embedding worker to check them with).');
    return { dimension: await probe(id, folder.dir, signal) };
  }
  const { withLocalModel } = await import('./transformers');
  try {
    // A cross-encoder scores a (query, passage) pair: load tokenizer and model and score one pair.
    await withLocalModel(folder, async (mod, name, options) => {
      const tokenizer = await mod.AutoTokenizer.from_pretrained(name, { local_files_only: true });
      const model = await mod.AutoModelForSequenceClassification.from_pretrained(name, options);
      try {
        const inputs = tokenizer(['what is the notice period?'], { text_pair: ['Either party may terminate on thirty days notice.'], padding: true, truncation: true });
        const { logits } = (await model(inputs)) as { logits: { data: ArrayLike<number> } };
        if (!logits?.data?.length || !Number.isFinite(logits.data[0]!)) throw new Error('it produced no score');
      } finally {
        await model.dispose();
      }
    });
  } catch (err) {
    throw new CasefileError('failed', `Could not load the reranker model at ${folder.dir}: ${(err as Error).message}`);
  }
  return { dimension: null };
}
