import { promises as fs } from 'node:fs';
import path from 'node:path';
import { CaseRegistry } from './cases/registry';
import { caseHandlers } from './cases/handlers';
import { registerAgent, type AgentOptions, type AgentService } from './agent/service';
import { retainEmbedWorker } from './index/embed-host';
import { modelHandlers } from './models/handlers';
import { citationViewerHandlers } from './citations/render';
import { EventBus } from './events';
import { registerIngest } from './ingest/handlers';
import type { IngestOptions, IngestService } from './ingest/service';
import { Router } from './router/router';
import { searchHandlers } from './tools/handlers';
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

/**
 * One engine per data home: owns every piece of state and the router all shells bind.
 * Features attach themselves in `open()`; shells call `router.call(name, input)` only.
 */
export class Engine {
  readonly home: string;
  readonly version = VERSION;
  readonly events = new EventBus();
  readonly router = new Router();
  readonly cases: CaseRegistry;
  readonly bundledModelDirs: string[];
  /** Ingest service (set in `open()`): runs, file lists, and `documents(caseId)` for readers. */
  ingest!: IngestService;
  /** The case agent (set in `open()`): chat turns, sessions, the local model runtime. */
  agent!: AgentService;
  private readonly disposers: Disposer[] = [];
  private readonly deleteHooks: CaseHook[] = [];

  private constructor(options: EngineOptions) {
    this.home = path.resolve(options.home);
    this.bundledModelDirs = options.bundledModelDirs ?? [];
    this.cases = new CaseRegistry(this.home);
  }

  static async open(options: EngineOptions): Promise<Engine> {
    const engine = new Engine(options);
    await fs.mkdir(engine.home, { recursive: true });
    await engine.cases.init();
    // Registered first so it runs last: the embedding worker stops after everything that embeds.
    engine.onClose(retainEmbedWorker());
    engine.router.register(caseHandlers(engine));
    engine.ingest = registerIngest(engine, options.ingest);
    engine.router.register(modelHandlers(engine));
    engine.router.register(searchHandlers(engine));
    engine.router.register(citationViewerHandlers(engine));
    engine.agent = registerAgent(engine, options.agent);
    return engine;
  }

  get modelsDir(): string {
    return path.join(this.home, 'models');
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
    for (const dispose of this.disposers.reverse()) await dispose();
    this.disposers.length = 0;
  }
}
