/**
 * The open cases of one engine: one {@link CaseContext} per case in use, made on first use and
 * released in one place (before the case is deleted, or when the engine closes). Features reach a
 * case only through it, so a case's documents reader and LanceDB table exist once per engine.
 */
import type { CaseRegistry } from './cases/index';
import { CaseDocuments } from './documents/index';
import type { ChunkStore } from './retrieval/store';
import type { OpenCase, OpenCasesPort } from './ports';
import { lazy } from './util/lazy';

export class CaseContext implements OpenCase {
  readonly documents: CaseDocuments;
  private readonly table = lazy(async () =>
    (await import('./retrieval/store')).ChunkStore.open(await this.registry.indexLocation(this.id)),
  );

  constructor(
    readonly id: string,
    readonly dir: string,
    private readonly registry: CaseRegistry,
  ) {
    this.documents = new CaseDocuments(dir, { remote: () => registry.originals(id) });
  }

  meta() {
    return this.registry.readMeta(this.id);
  }

  chunks(): Promise<ChunkStore> {
    return this.table.get();
  }

  /** Close the chunk table (if it was opened); the next use opens it again. */
  async close(): Promise<void> {
    const opened = this.table.peek();
    this.table.reset();
    (await opened?.catch(() => null))?.close();
  }
}

export class OpenCases implements OpenCasesPort {
  private readonly open_ = new Map<string, CaseContext>();

  constructor(private readonly registry: CaseRegistry) {}

  async open(caseId: string): Promise<CaseContext> {
    await this.registry.readMeta(caseId); // not_found for an unknown case, before any folder is touched
    let ctx = this.open_.get(caseId);
    if (!ctx) this.open_.set(caseId, (ctx = new CaseContext(caseId, this.registry.caseDir(caseId), this.registry)));
    return ctx;
  }

  /** Close what the case holds open (before its folder is deleted). */
  async release(caseId: string): Promise<void> {
    const ctx = this.open_.get(caseId);
    this.open_.delete(caseId);
    await ctx?.close();
  }

  async close(): Promise<void> {
    for (const id of [...this.open_.keys()]) await this.release(id);
  }
}
