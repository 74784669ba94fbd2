import { tooSmallToAnswer } from './capability';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { ModelImportResult, ModelInfo, ModelKind, ModelsList } from '../../shared/contract/models';
import { CasefileError } from '../../shared/errors';
import type { CaseRegistry } from '../cases/index';
import { describeFolder, describeGguf, discover, folderBytes, statOrNull, type Described } from './discover';
import {
  DEFAULT_HUB,
  downloadPlan,
  downloadRefused,
  firstAddress,
  hostAllowed,
  planDownload,
  type DownloadHosts,
  type DownloadProgress,
  type HubConfig,
} from './download';
import type { Pooling } from './folder';
import { modelIdFrom } from './ids';
import { readRecommended } from './manifest';
import { classifySource, cleanupStaging, installModel, validateByLoading, type EmbeddingProbe } from './install';
import { RegistryFileStore, type RegisteredModel, type RegistryFile } from './registry-file';

export { REGISTRY_FILE } from './registry-file';
export type { EmbeddingProbe } from './install';

/** Where models live for one engine. */
export interface ModelLocations {
  /** `<home>/models`: imports go here, the registry file lives here. */
  modelsDir: string;
  /** The app's bundled `models/` folders, read after `modelsDir` (read-only). */
  bundledModelDirs?: string[];
  /** False: of the bundled folders, read only their `manifest.json`, none of their models (tests run without the default model). */
  bundledModels?: boolean;
  /** The cases, to report which cases' vectors each model made (optional). */
  cases?: Pick<CaseRegistry, 'metas'>;
  /** Checks an embedding folder at import by loading it (see install.ts); without it, embedding folders cannot be imported. */
  probeEmbedding?: EmbeddingProbe;
  /** Where `download` fetches Hugging Face names, and its token (default huggingface.co, no token). */
  hub?: HubConfig;
}

/** Why semantic search is off when no embedding model is installed (search results, Settings, `models list`). */
export const NO_EMBEDDING_MODEL_REASON = 'no embedding model installed — keyword search only until one is imported';

/** Written into the app's `models/` by the install when the default model could not be set up (scripts/install-default-model.mjs). */
export const INSTALL_STATUS_FILE = '.install-status.json';

/** Why the default embedding model is missing, as the install recorded it in a bundled folder; null when it said nothing. */
async function installProblem(dirs: readonly string[]): Promise<string | null> {
  for (const dir of dirs) {
    try {
      const status = JSON.parse(await fs.readFile(path.join(dir, INSTALL_STATUS_FILE), 'utf8')) as {
        embedding?: { installed?: boolean; reason?: unknown };
      };
      if (status.embedding?.installed === false && typeof status.embedding.reason === 'string')
        return status.embedding.reason;
    } catch {
      // none recorded, or unreadable: say nothing more
    }
  }
  return null;
}

/** Partial downloads, kept so that a later attempt resumes. */
const DOWNLOADS = '.downloads';

/**
 * The models of one data home: those imported into `<home>/models` (recorded in its
 * registry.json), any model files placed there by hand, and the app's bundled `models/`.
 */
export class ModelRegistry {
  readonly modelsDir: string;
  readonly bundledModelDirs: string[];
  private readonly bundledModels: boolean;
  private readonly cases: Pick<CaseRegistry, 'metas'> | undefined;
  private readonly probeEmbedding: EmbeddingProbe | undefined;
  private readonly registry: RegistryFileStore;
  private readonly hub: HubConfig;
  private downloadHosts: DownloadHosts = null;

  constructor(where: ModelLocations) {
    this.modelsDir = path.resolve(where.modelsDir);
    this.bundledModelDirs = (where.bundledModelDirs ?? []).map((d) => path.resolve(d));
    this.bundledModels = where.bundledModels ?? true;
    this.cases = where.cases;
    this.probeEmbedding = where.probeEmbedding;
    this.registry = new RegistryFileStore(this.modelsDir);
    this.hub = where.hub ?? DEFAULT_HUB;
  }

  /** The hosts `download` may reach; null when it may reach any. */
  get downloadLimit(): DownloadHosts {
    return this.downloadHosts;
  }

  /**
   * Limit `download` to `hosts` (serve mode sets it from --allow-downloads-from): every address
   * asked, redirects included, must be on one of them; `[]` turns downloads off, null lifts the limit.
   */
  limitDownloads(hosts: DownloadHosts): void {
    this.downloadHosts = hosts ? [...hosts] : null;
  }

  get registryFile(): string {
    return this.registry.file;
  }

  /** Remove leftovers of imports interrupted by a crash (staging folders of processes that are gone). */
  cleanup(): Promise<void> {
    return cleanupStaging(this.modelsDir);
  }

  private entryPath(entry: RegisteredModel): string {
    return entry.linked ? entry.path : path.join(this.modelsDir, entry.path);
  }

  /** Every usable model, installed first; ids are unique (an installed model hides a bundled one of the same id). */
  private async collect(): Promise<{ reg: RegistryFile; models: Described[] }> {
    const reg = await this.registry.read();
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
        context_length: entry.contextLength,
        architecture: entry.architecture,
        dimension: entry.dimension,
        pooling: entry.pooling,
        imported: entry.imported,
        sha256: entry.sha256,
      });
    }
    // A registered GGUF lives in `<modelsDir>/<id>/file.gguf`: skip its folder too.
    for (const entry of reg.models)
      if (!entry.linked) seenPaths.add(path.join(this.modelsDir, entry.path.split(/[\\/]/)[0]!));
    models.push(...(await discover(this.modelsDir, 'installed', seenPaths)));
    if (this.bundledModels)
      for (const dir of this.bundledModelDirs) models.push(...(await discover(dir, 'bundled', new Set())));
    const ids = new Set<string>();
    return { reg, models: models.filter((m) => (ids.has(m.id) ? false : (ids.add(m.id), true))) };
  }

  private static pickDefault(
    reg: RegistryFile,
    models: Described[],
    kind: 'embedding' | 'chat' = 'embedding',
  ): Described | undefined {
    const ofKind = models.filter((m) => m.kind === kind);
    const chosen = kind === 'embedding' ? reg.defaultEmbedding : reg.defaultChat;
    return ofKind.find((m) => m.id === chosen) ?? ofKind[0];
  }

  /** Which cases' vectors each model made, from case.json `embedding.modelId`. */
  private async usage(): Promise<Map<string, Array<{ case_id: string; name: string }>>> {
    const usage = new Map<string, Array<{ case_id: string; name: string }>>();
    for (const meta of (await this.cases?.metas()) ?? []) {
      const modelId = meta.embedding?.modelId;
      if (!modelId) continue;
      const list = usage.get(modelId) ?? [];
      list.push({ case_id: meta.id, name: meta.name });
      usage.set(modelId, list);
    }
    return usage;
  }

  async list(kind?: ModelKind): Promise<ModelsList> {
    const { reg, models } = await this.collect();
    const usage = await this.usage();
    const def = ModelRegistry.pickDefault(reg, models);
    const chat = ModelRegistry.pickDefault(reg, models, 'chat');
    const shown = models
      .filter((m) => !kind || m.kind === kind)
      .map(
        (m): ModelInfo => ({
          ...m,
          is_default: m.id === def?.id || m.id === chat?.id,
          used_by: usage.get(m.id) ?? [],
          ...(tooSmallToAnswer(m) ? { too_small: true as const } : {}),
        }),
      );
    return {
      models: shown,
      default_embedding_model: def?.id ?? null,
      semantic: def ? { available: true, reason: null } : { available: false, reason: await this.noEmbeddingReason() },
      models_dir: this.modelsDir,
      default_chat_model: chat?.id ?? null,
      recommended: await readRecommended(this.bundledModelDirs, new Set(models.map((m) => m.id))),
    };
  }

  /** Why no embedding model is usable: none installed, and what the install said about the default one. */
  private async noEmbeddingReason(): Promise<string> {
    const problem = this.bundledModels ? await installProblem(this.bundledModelDirs) : null;
    return problem
      ? `${NO_EMBEDDING_MODEL_REASON} (the built-in one was not added: ${problem})`
      : NO_EMBEDDING_MODEL_REASON;
  }

  /** One model by id, or undefined. */
  async get(id: string): Promise<ModelInfo | undefined> {
    return (await this.list()).models.find((m) => m.id === id);
  }

  /** The embedding model to use: `id` when given and installed, else the default. */
  async defaultEmbedding(
    id?: string,
  ): Promise<(Described & { dimension: number | null; pooling: Pooling }) | undefined> {
    const { reg, models } = await this.collect();
    const found = id
      ? models.find((m) => m.id === id && m.kind === 'embedding')
      : ModelRegistry.pickDefault(reg, models);
    return found ? { ...found, pooling: found.pooling ?? 'mean' } : undefined;
  }

  async setDefault(id: string): Promise<ModelsList> {
    const model = (await this.collect()).models.find((m) => m.id === id);
    if (!model)
      throw CasefileError.withRemedy('not_found', `No model "${id}" is installed.`, {
        app: 'Settings → Models lists the installed ones.',
        cli: 'See: casefile models list.',
      });
    if (model.kind === 'reranker')
      throw new CasefileError(
        'invalid_input',
        `"${id}" is a reranker model: it has no default (the installed reranker is used when reranking is asked for).`,
      );
    await this.registry.update((reg) => {
      if (model.kind === 'chat') reg.defaultChat = id;
      else reg.defaultEmbedding = id;
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
        throw CasefileError.withRemedy('conflict', `A different model with id "${id}" is already installed.`, {
          app: 'Rename this model’s file or folder, then import it again.',
          cli: 'Import this one under another id (--id NAME).',
        });
      }
      const list = await this.list();
      return {
        model: list.models.find((m) => m.id === id)!,
        already_installed: true,
        default_embedding_model: list.default_embedding_model,
      };
    }

    await fs.mkdir(this.modelsDir, { recursive: true });
    const { relPath, sha256 } = await installModel(this.modelsDir, id, src, ggufFile, mode, options.signal);

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
      contextLength: described.context_length,
      architecture: described.architecture,
      dimension: described.dimension,
      pooling: described.pooling,
    };
    await this.registry.update((reg) => {
      reg.models = reg.models.filter((m) => m.id !== id);
      reg.models.push(entry);
      if (entry.kind === 'embedding' && !reg.defaultEmbedding) reg.defaultEmbedding = id;
    });
    const list = await this.list();
    return {
      model: list.models.find((m) => m.id === id)!,
      already_installed: false,
      default_embedding_model: list.default_embedding_model,
    };
  }

  /**
   * Download a model (only when the user asks): a .gguf URL, a Hugging Face `owner/repo/file.gguf`,
   * or a Hugging Face transformers.js repo `owner/repo`. Partial files stay in
   * `<modelsDir>/.downloads/<id>/` so a later attempt resumes; the result is validated and
   * registered exactly like an import from disk. Under a limit (`limitDownloads`), a source whose
   * host is not allowed is refused first, with the same answer whatever the source.
   */
  async download(
    source: string,
    options: {
      id?: string;
      sha256?: string;
      signal?: AbortSignal;
      onProgress?: (modelId: string, p: DownloadProgress) => void;
    } = {},
  ): Promise<ModelImportResult> {
    const hosts = this.downloadHosts;
    if (hosts) {
      const first = firstAddress(source, this.hub);
      if (!first || !hostAllowed(first, hosts)) throw downloadRefused(hosts);
    }
    const plan = planDownload(source, options.id, this.hub);
    const existing = (await this.collect()).models.find((m) => m.id === plan.id && m.source === 'installed');
    if (existing) {
      const list = await this.list();
      return {
        model: list.models.find((m) => m.id === plan.id)!,
        already_installed: true,
        default_embedding_model: list.default_embedding_model,
      };
    }
    const dir = path.join(this.modelsDir, DOWNLOADS, plan.id);
    await fs.mkdir(dir, { recursive: true });
    const target = await downloadPlan(plan, dir, {
      hub: this.hub,
      hosts,
      ...(options.sha256 ? { sha256: options.sha256 } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      onProgress: (p) => options.onProgress?.(plan.id, p),
    });
    const result = await this.import(target, {
      id: plan.id,
      mode: 'move',
      ...(options.signal ? { signal: options.signal } : {}),
    });
    await fs.rm(dir, { recursive: true, force: true });
    return result;
  }
}
