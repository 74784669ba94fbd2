import { promises as fs } from 'node:fs';
import path from 'node:path';
import { chatContract } from '../shared/contract/chat';
import { ingestContract } from '../shared/contract/ingest';
import { modelsContract } from '../shared/contract/models';
import { searchContract } from '../shared/contract/search';
import { viewerContract } from '../shared/contract/viewer';
import type { OpName } from '../shared/contract/index';
import type { AgentOptions, AgentService } from './agent/service';
import { CaseRegistry } from './cases/registry';
import { caseHandlers } from './cases/handlers';
import { EventBus } from './events';
import { JobStore } from './ingest/jobs';
import type { IngestOptions, IngestService } from './ingest/service';
import { CaseStore } from './ingest/store';
import { Router } from './router/router';
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
}

type Disposer = () => Promise<void> | void;
type CaseHook = (caseId: string) => Promise<void> | void;

const opsOf = (feature: object) => Object.keys(feature) as OpName[];

/**
 * One engine per data home: owns every piece of state and the router all shells bind.
 * Shells call `router.call(name, input)` only.
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
  readonly bundledModelDirs: string[];
  private readonly options: EngineOptions;
  private readonly disposers: Disposer[] = [];
  private readonly deleteHooks: CaseHook[] = [];
  /** Feature imports in flight: `close()` waits for them, so none registers cleanup after it. */
  private readonly loading = new Set<Promise<unknown>>();
  private embedWorkerHeld: Promise<void> | undefined;
  private ingestLoaded: Promise<IngestService> | undefined;
  private agentLoaded: Promise<AgentService> | undefined;

  private constructor(options: EngineOptions) {
    this.options = options;
    this.home = path.resolve(options.home);
    this.bundledModelDirs = options.bundledModelDirs ?? [];
    this.cases = new CaseRegistry(this.home);
  }

  static async open(options: EngineOptions): Promise<Engine> {
    const engine = new Engine(options);
    await fs.mkdir(engine.home, { recursive: true });
    await engine.cases.init();
    // `cases list` file counts and bytes come from the case's manifest (plain JSON, no index).
    engine.cases.setStatsProvider((caseDir) => new CaseStore(caseDir).stats());
    engine.router.register(caseHandlers(engine));
    engine.router.registerLazy(opsOf(ingestContract), async () => (await import('./ingest/handlers')).ingestHandlers(await engine.ingestService(), engine));
    engine.router.registerLazy(opsOf(modelsContract), () => engine.load(async () => (await import('./models/handlers')).modelHandlers(engine)));
    engine.router.registerLazy(opsOf(searchContract), () => engine.load(async () => (await import('./tools/handlers')).searchHandlers(engine)));
    engine.router.registerLazy(opsOf(viewerContract), () => engine.load(async () => (await import('./citations/render')).citationViewerHandlers(engine)));
    engine.router.registerLazy(opsOf(chatContract), async () => (await import('./agent/service')).agentHandlers(engine, await engine.agentService()));
    // Before a case's directory goes: stop its ingest and drop its persisted jobs, cancel its chat turns.
    engine.onCaseDelete(async (caseId) => {
      const ingest = await engine.ingestLoaded?.catch(() => undefined);
      if (ingest) await ingest.beforeCaseDelete(caseId);
      else {
        // Ingest never loaded in this process, so nothing of the case runs here; only its persisted jobs remain.
        const jobs = new JobStore(path.join(engine.home, 'jobs'));
        for (const job of await jobs.list(caseId)) await jobs.remove(job.id);
      }
      (await engine.agentLoaded?.catch(() => undefined))?.cancelCase(caseId);
    });
    if (options.ingest?.autoResume) {
      // Interrupted ingests resume after open() returns (the service schedules it once loaded).
      setImmediate(() => {
        engine.ingestService().catch((err: unknown) => console.error(`casefile: loading ingest to resume interrupted ingests failed: ${(err as Error).message}`));
      });
    }
    return engine;
  }

  get modelsDir(): string {
    return path.join(this.home, 'models');
  }

  /** The ingest service (runs, file lists, `documents(caseId)` for readers), loaded on first use. */
  ingestService(): Promise<IngestService> {
    return (this.ingestLoaded ??= this.load(async () => (await import('./ingest/handlers')).createIngest(this, this.options.ingest)));
  }

  /** The case agent (chat turns, sessions, the local model runtime), loaded on first use. */
  agentService(): Promise<AgentService> {
    return (this.agentLoaded ??= this.load(async () => (await import('./agent/service')).createAgent(this, this.options.agent)));
  }

  /**
   * Import a feature and attach it (`attach` imports its module and builds its service or
   * handlers). The first one also makes this engine hold the process's embedding worker, with
   * its release registered before any feature's cleanup, so it runs after all of them.
   */
  private load<T>(attach: () => Promise<T>): Promise<T> {
    this.embedWorkerHeld ??= import('./index/embed-host').then(({ retainEmbedWorker }) => this.onClose(retainEmbedWorker()));
    const loaded = this.embedWorkerHeld.then(attach);
    this.loading.add(loaded);
    const done = () => this.loading.delete(loaded);
    loaded.then(done, done);
    return loaded;
  }

  /** Features register cleanup (stop workers, close tables) run by `close()`, last first. */
  onClose(disposer: Disposer): void {
    this.disposers.push(disposer);
  }

  /** Features register what must stop before a case's directory is removed (running jobs, open tables). */
  onCaseDelete(hook: CaseHook): void {
    this.deleteHooks.push(hook);
  }

  async beforeCaseDelete(caseId: string): Promise<void> {
    for (const hook of this.deleteHooks) await hook(caseId);
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.loading);
    for (const dispose of this.disposers.reverse()) await dispose();
    this.disposers.length = 0;
  }
}
