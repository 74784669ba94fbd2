import { promises as fs } from 'node:fs';
import path from 'node:path';
import { auditContract } from '../shared/contract/audit';
import { chatContract } from '../shared/contract/chat';
import { firmContract } from '../shared/contract/firm';
import { ingestContract } from '../shared/contract/ingest';
import { matterContract } from '../shared/contract/matter';
import { modelsContract } from '../shared/contract/models';
import { searchContract } from '../shared/contract/search';
import { viewerContract } from '../shared/contract/viewer';
import type { OpName } from '../shared/contract/index';
import type { AgentOptions, AgentService } from './agent/service';
import type { FirmStore } from './firm/index';
import { AuditLog } from './audit/log';
import { type CaseDigest, CaseRegistry, caseHandlers, readDigest, readObjectStore } from './cases/index';
import { CasefileError } from '../shared/errors';
import { CaseStore } from './documents/index';
import { readConfig, type EnvConfig } from './config';
import { EventBus } from './bus';
import type { QueryModels } from './retrieval/semantic';
import type { IndexSinkOptions } from './retrieval/sink';
import { JobStore, type IngestOptions, type IngestService } from './ingest/index';
import type { ModelRegistry } from './models/registry';
import type { WatchOptions, WatchService } from './watch/service';
import { OpenCases } from './open-cases';
import { Router } from './router/router';
import { Disposables } from './util/disposables';
import { lazy } from './util/lazy';
import { MemoryPasswords, type PasswordStore } from './util/passwords';
import { VERSION } from './version';

export interface EngineOptions {
  /** Data home: Electron's userData, or CASEFILE_HOME / --home. */
  home: string;
  /** Folders with bundled models (the app's `models/`), read after `<home>/models`. */
  bundledModelDirs?: string[];
  /** Ingest settings; the Electron main passes its bundled `workerPath` here. */
  ingest?: IngestOptions;
  /** Agent settings (local model runtime, endpoint, step bounds). */
  agent?: AgentOptions;
  /** The environment settings are read from (default process.env; see config.ts). Explicit options above win. */
  env?: NodeJS.ProcessEnv;
  /** Where the passwords of protected PDFs are kept (default: in memory; the desktop app: the system keychain). */
  passwords?: PasswordStore;
  /** Watched folders: `start` follows every case switched on at open (the desktop app, serve); the timings are for tests. */
  watch?: WatchOptions & { start?: boolean };
}

const opsOf = (feature: object) => Object.keys(feature) as OpName[];

/**
 * One engine per data home, and the composition root: it owns every piece of state (the open
 * cases, the model catalog, the query models, the features) and builds each feature with exactly
 * the ports it names; no feature imports this module. Shells call `router.call(name, input)` only.
 *
 * Cases are loaded in `open()`; every other feature (ingest, models, search, citations, agent)
 * is imported on the first call of one of its operations, so a light command (`cases list`)
 * never loads LanceDB, onnxruntime, node-llama-cpp or pdf.js.
 */
export class Engine {
  readonly home: string;
  readonly version = VERSION;
  readonly events = new EventBus();
  readonly router = new Router();
  readonly cases: CaseRegistry;
  /** One context per case in use (documents, chunk table), released before a case is deleted. */
  readonly openCases: OpenCases;
  readonly bundledModelDirs: string[];
  /** Passwords of protected PDFs the user gave (files.unlock), for reading and showing them. */
  readonly passwords: PasswordStore;
  private readonly options: EngineOptions;
  /** Settings from the environment, read once here and passed down (config.ts). */
  private readonly config: EnvConfig;
  /** What `close()` stops, last-added first: the open cases last, the features first. */
  private readonly disposables = new Disposables();
  /** Feature imports in flight: `close()` waits for them, so none is built after it. */
  private readonly loading = new Set<Promise<unknown>>();
  private embedWorkerHeld: Promise<void> | undefined;
  private ingestLoaded: Promise<IngestService> | undefined;
  private agentLoaded: Promise<AgentService> | undefined;
  private watchLoaded: Promise<WatchService> | undefined;
  /** The audit trail of this home (`<home>/audit`), made on first use: one writer queue for the process. */
  private auditLog: AuditLog | undefined;
  private readonly catalogLoaded = lazy(() => this.makeCatalog());
  private readonly firmLoaded = lazy(async () => new (await import('./firm/index')).FirmStore(this.home));
  private readonly queryModelsLoaded = lazy(() => this.load(() => this.makeQueryModels()));

  private constructor(options: EngineOptions) {
    this.options = options;
    this.config = readConfig(options.env ?? process.env);
    this.home = path.resolve(options.home);
    const bundled = this.config.bundledModels;
    this.bundledModelDirs = bundled && bundled !== 'off' ? [bundled] : (options.bundledModelDirs ?? []);
    this.passwords = options.passwords ?? new MemoryPasswords();
    this.cases = new CaseRegistry(this.home);
    this.cases.setObjectStore(readObjectStore(this.home, this.config.s3Credentials));
    this.openCases = new OpenCases(this.cases);
    this.disposables.add(() => this.openCases.close());
  }

  static async open(options: EngineOptions): Promise<Engine> {
    const engine = new Engine(options);
    await fs.mkdir(engine.home, { recursive: true });
    await engine.cases.init();
    // `cases list` file counts and bytes come from the case's manifest (plain JSON, no index).
    engine.cases.setStatsProvider((caseDir) => new CaseStore(caseDir).stats());
    engine.registerFeatures();
    if (options.ingest?.autoResume) {
      // Interrupted ingests resume after open() returns (the service schedules it once loaded).
      setImmediate(() => {
        engine
          .ingestService()
          .catch((err: unknown) =>
            console.error(`casefile: loading ingest to resume interrupted ingests failed: ${(err as Error).message}`),
          );
      });
    }
    if (options.watch?.start) {
      // After open() returns: following the cases' folders starts with catching up with them.
      setImmediate(() => {
        engine
          .watchService()
          .then((w) => w.start())
          .catch((err: unknown) =>
            console.error(`casefile: following the cases' folders failed: ${(err as Error).message}`),
          );
      });
    }
    return engine;
  }

  /** Each feature's operations, its module imported on first use and given its ports (this engine). */
  private registerFeatures(): void {
    const { router } = this;
    router.register(caseHandlers(this));
    router.registerLazy(opsOf(ingestContract), async () =>
      (await import('./ingest/handlers')).ingestHandlers(await this.ingestService(), this),
    );
    router.registerLazy(opsOf(modelsContract), () =>
      this.load(async () => (await import('./models/handlers')).modelHandlers(this, this.agentOptions().defaultModel)),
    );
    router.registerLazy(opsOf(searchContract), () =>
      this.load(async () => (await import('./tools/handlers')).searchHandlers(this)),
    );
    router.registerLazy(opsOf(viewerContract), () =>
      this.load(async () => {
        const viewer = (await import('./citations/render')).createCitationViewer(this);
        this.disposables.add(() => viewer.close());
        return viewer.handlers;
      }),
    );
    router.registerLazy(opsOf(matterContract), () =>
      this.load(async () => (await import('./matter/handlers')).matterHandlers(this)),
    );
    router.registerLazy(opsOf(chatContract), async () =>
      (await import('./agent/service')).agentHandlers(this, await this.agentService()),
    );
    router.registerLazy(opsOf(firmContract), async () =>
      (await import('./firm/index')).firmHandlers(await this.firmStore(), this.cases),
    );
    router.registerLazy(opsOf(auditContract), async () => (await import('./audit/handlers')).auditHandlers(this));
  }

  /** The audit trail of this data home: serve mode records into it, `audit.*` reads it. */
  audit(): AuditLog {
    this.auditLog ??= new AuditLog(this.home);
    return this.auditLog;
  }

  /** Every case's name by its id. */
  async caseNames(): Promise<ReadonlyMap<string, string>> {
    return new Map((await this.cases.metas()).map((m) => [m.id, m.name]));
  }

  /** The firm server's accounts and membership (`<home>/firm/`), read afresh on each question. */
  firmStore(): Promise<FirmStore> {
    return this.firmLoaded.get();
  }

  get modelsDir(): string {
    return path.join(this.home, 'models');
  }

  /** The one model catalog of this engine (`<home>/models`, then the bundled folders). */
  catalog(): Promise<ModelRegistry> {
    return this.catalogLoaded.get();
  }

  private async makeCatalog(): Promise<ModelRegistry> {
    const { ModelRegistry } = await import('./models/registry');
    return new ModelRegistry({
      modelsDir: this.modelsDir,
      bundledModelDirs: this.bundledModelDirs,
      bundledModels: this.config.bundledModels !== 'off',
      cases: this.cases,
      // An imported embedding model is checked in the embedding worker, like every embedding.
      probeEmbedding: async (id, dir, signal) => (await import('./retrieval/models')).probeEmbedding(id, dir, signal),
      hub: this.config.hub,
    });
  }

  /** The query embedders and reranker shared by every case's searches, loaded on first use. */
  queryModels(): Promise<QueryModels> {
    return this.queryModelsLoaded.get();
  }

  private async makeQueryModels(): Promise<QueryModels> {
    const { QueryModels } = await import('./retrieval/semantic');
    const models = new QueryModels(await this.catalog());
    this.disposables.add(() => models.dispose());
    return models;
  }

  /** What a case's index sink needs (not_found for an unknown case). */
  async indexSinkOptions(caseId: string): Promise<IndexSinkOptions> {
    const open = await this.openCases.open(caseId);
    return {
      caseId,
      caseDir: open.dir,
      index: await this.cases.indexLocation(caseId),
      cases: this.cases,
      catalog: await this.catalog(),
    };
  }

  /** A case's digest (`cases.detect`): as stored, else made now by ingest from what the case holds. */
  async caseDigest(caseId: string): Promise<CaseDigest | undefined> {
    return (await readDigest(this.cases.caseDir(caseId))) ?? (await this.ingestService()).refreshDigest(caseId);
  }

  /** The ingest service (runs, file lists), loaded on first use. */
  ingestService(): Promise<IngestService> {
    return (this.ingestLoaded ??= this.load(async () => {
      const service = (await import('./ingest/handlers')).createIngest(this, this.ingestOptions());
      this.disposables.add(() => service.close());
      return service;
    }));
  }

  /** Watched folders (`casefile watch`, and at open for the desktop app and serve), loaded on first use. */
  watchService(): Promise<WatchService> {
    return (this.watchLoaded ??= this.load(async () => {
      const { WatchService } = await import('./watch/service');
      const service = new WatchService(
        {
          events: this.events,
          caseDir: (caseId) => this.cases.caseDir(caseId),
          listCases: () => this.cases.list(),
          getCase: (caseId) => this.cases.get(caseId),
          switchOff: async (caseId, problem) => {
            await this.cases.setWatch(caseId, { enabled: false, problem });
            this.events.emit('cases.changed', { case_id: caseId, kind: 'settings' });
          },
          // As a drop of the folder would (its events go to every shell alike), or only the files named.
          ingest: async (caseId, folder, names) =>
            (await this.ingestService()).start(caseId, [folder], names ? { only: { [folder]: names } } : {}),
          markSourceRemoved: async (caseId, names, at) =>
            (await this.ingestService()).markSourceRemoved(caseId, names, at),
          caseFileSizes: async (caseId) =>
            new Map(
              (await (await this.ingestService()).listFiles(caseId))
                .filter((f) => !f.parent)
                .map((f) => [f.name, f.size]),
            ),
        },
        this.options.watch,
      );
      this.disposables.add(() => service.close());
      return service;
    }));
  }

  /**
   * Make every case's passages that wait for vectors searchable by meaning in the background, now
   * and whenever an embedding model is imported or made the default (the desktop app, serve).
   */
  async startVectorCatchUp(): Promise<void> {
    const ingest = await this.ingestService();
    const off = this.events.on('models.changed', () => {
      void ingest.vectors
        .scheduleAll()
        .catch((err: unknown) =>
          console.error(`casefile: catching up the cases' vectors failed: ${(err as Error).message}`),
        );
    });
    this.disposables.add(off);
    await ingest.startCatchUp();
  }

  /** The case agent (chat turns, sessions, the local model runtime), loaded on first use. */
  agentService(): Promise<AgentService> {
    return (this.agentLoaded ??= this.load(async () => {
      const service = (await import('./agent/service')).createAgent(this, this.agentOptions());
      this.disposables.add(() => service.close());
      return service;
    }));
  }

  /** Whether this engine reads scanned pages by OCR (CASEFILE_OCR=0 or `ingest.ocr: false` turn it off; each case has its own setting too). */
  get ocr(): boolean {
    return this.ingestOptions().ocr !== false;
  }

  /** Ingest's options: the limits the environment sets, under the explicit ones. */
  private ingestOptions(): IngestOptions {
    const given = this.options.ingest ?? {};
    return { ...given, limits: { ...this.config.limits, ...given.limits }, ocr: given.ocr ?? this.config.ocr };
  }

  /** The agent's options: the environment's settings under the explicit ones. */
  private agentOptions(): AgentOptions {
    const given = this.options.agent ?? {};
    const { config } = this;
    return {
      ...given,
      llama: { ...config.llama, ...given.llama },
      ...((given.endpoint ?? config.endpoint) ? { endpoint: given.endpoint ?? config.endpoint } : {}),
      ...((given.defaultModel ?? config.defaultChatModel)
        ? { defaultModel: given.defaultModel ?? config.defaultChatModel }
        : {}),
      ...((given.maxOutputTokens ?? config.agentMaxTokens)
        ? { maxOutputTokens: given.maxOutputTokens ?? config.agentMaxTokens }
        : {}),
    };
  }

  /**
   * Import a feature and attach it (`attach` imports its module and builds its service or
   * handlers). The first one also makes this engine hold the process's embedding worker, with
   * its release added before any feature's cleanup, so it runs after all of them.
   */
  private load<T>(attach: () => Promise<T>): Promise<T> {
    this.embedWorkerHeld ??= import('./retrieval/embed-host').then(({ retainEmbedWorker }) =>
      this.disposables.add(retainEmbedWorker()),
    );
    const loaded = this.embedWorkerHeld.then(attach);
    this.loading.add(loaded);
    const done = () => this.loading.delete(loaded);
    loaded.then(done, done);
    return loaded;
  }

  /** Run `fn` while nothing writes the case: behind its ingest and index work, under its lock (moving a matter). */
  async exclusive<T>(caseId: string, fn: () => Promise<T>): Promise<T> {
    return (await this.ingestService()).exclusive(caseId, fn);
  }

  /**
   * Before a case's folder goes: stop what holds it (below), drop its index on the object
   * storage, and forget its members — the case is gone from the firm.
   */
  async beforeCaseDelete(caseId: string): Promise<void> {
    await this.beforeCaseReplace(caseId);
    await this.dropFromBucket(caseId);
    await (await this.firmStore()).forgetCase(caseId);
  }

  /**
   * Before a case's folder is set aside for a new version of it (an imported matter): stop its
   * ingest and drop its persisted jobs, cancel its chat turns, close what the open case holds. Its
   * index on the object storage stays with it (the earlier version), and its members stay: the new
   * version keeps the case's id, and the people working on it.
   */
  async beforeCaseReplace(caseId: string): Promise<void> {
    await (await this.watchLoaded?.catch(() => undefined))?.unfollow(caseId);
    const ingest = await this.ingestLoaded?.catch(() => undefined);
    if (ingest) await ingest.beforeCaseDelete(caseId);
    else {
      // Ingest never loaded in this process, so nothing of the case runs here; only its persisted jobs remain.
      const jobs = new JobStore(path.join(this.home, 'jobs'));
      for (const job of await jobs.list(caseId)) await jobs.remove(job.id);
    }
    (await this.agentLoaded?.catch(() => undefined))?.cancelCase(caseId);
    await this.openCases.release(caseId);
    this.passwords.forget(`${caseId}/`);
  }

  /**
   * A case on the object storage: its tables and its originals go from the bucket before its
   * folder goes (a local case's go with the folder). If the storage cannot be reached the case is
   * kept, so nothing of it stays behind in the bucket unseen.
   */
  private async dropFromBucket(caseId: string): Promise<void> {
    const location = await this.cases.indexLocation(caseId);
    if (!location.storageOptions) return;
    const { ChunkStore } = await import('./retrieval/store');
    const originals = await this.cases.originals(caseId);
    await Promise.all([ChunkStore.drop(location), originals?.removeAll()]).catch((err: unknown) => {
      throw new CasefileError(
        'unavailable',
        `The case was not deleted: its index or originals on the firm’s object storage could not be removed (${(err as Error).message}). Try again when the storage can be reached.`,
      );
    });
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.loading);
    // Watchers first: a change seen now must not start an ingest while the features close.
    await (await this.watchLoaded?.catch(() => undefined))?.close();
    await this.disposables.dispose();
  }
}
