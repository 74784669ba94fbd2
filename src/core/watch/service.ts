/**
 * Watched folders: a case can follow the folders it was made from (case.json `settings.watch`).
 * A kept watcher (chokidar 4: fs.watch underneath, no polling, pure JS) reports changes; each
 * case's changes are debounced, then its folders are caught up with (`folder-sync.ts`) one case
 * run at a time. `start()` follows every case that is switched on and catches up with what changed
 * while nothing was watching; a case switched on or off (`cases.setWatch`) is followed or let go.
 */
import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import type { CaseSummary } from '../../shared/contract/cases';
import type { WatchSyncedEvent } from '../../shared/events';
import type { EventBus } from '../events';
import { isJunk } from '../ingest/walk';
import { forgetFolders, syncFolder, type FolderSyncPorts } from './folder-sync';

export interface WatchPorts extends FolderSyncPorts {
  readonly events: Pick<EventBus, 'emit' | 'on'>;
  /** The cases, with their watch settings. */
  listCases(): Promise<CaseSummary[]>;
  getCase(caseId: string): Promise<CaseSummary>;
}

export interface WatchOptions {
  /** Quiet time after the last change before a case is caught up with (default 1500 ms). */
  debounceMs?: number;
  /** A file counts as written once its size has not changed for this long (chokidar's awaitWriteFinish; default 1000 ms). */
  stableMs?: number;
}

interface Followed {
  folders: string[];
  watchers: FSWatcher[];
  timer: NodeJS.Timeout | undefined;
  running: Promise<WatchSyncedEvent[]> | undefined;
  dirty: boolean;
  /** Followed whatever the case's setting says (`casefile watch`). */
  forced: boolean;
}

export class WatchService {
  private readonly followed = new Map<string, Followed>();
  private readonly offs: Array<() => void> = [];
  private closed = false;
  /** Which folders this process may read (serve mode: its uploads and --allow-path folders); all by default. */
  private mayRead: (folder: string) => Promise<boolean> = async () => true;

  constructor(
    private readonly ports: WatchPorts,
    private readonly options: WatchOptions = {},
  ) {}

  /** Follow only the folders `mayRead` allows (serve mode); the others are reported and left alone. */
  limitTo(mayRead: (folder: string) => Promise<boolean>): void {
    this.mayRead = mayRead;
  }

  /** Follow every case that is switched on (catching up with each), and from now on each case switched on or off. */
  async start(): Promise<void> {
    if (this.offs.length === 0) {
      this.offs.push(this.ports.events.on('cases.changed', ({ caseId, kind }) => void this.onCaseChanged(caseId, kind)));
    }
    const cases = await this.ports.listCases();
    await Promise.all(cases.filter((c) => c.watch.enabled).map((c) => this.follow(c.id, c.watch.folders)));
  }

  private async onCaseChanged(caseId: string, kind: string): Promise<void> {
    if (kind === 'deleted') return this.unfollow(caseId);
    if (kind !== 'settings') return;
    const summary = await this.ports.getCase(caseId).catch(() => null);
    const current = this.followed.get(caseId);
    if (current?.forced) return;
    if (!summary?.watch.enabled) return this.unfollow(caseId);
    if (current && current.folders.join('\n') === summary.watch.folders.join('\n')) return;
    await this.follow(caseId, summary.watch.folders);
  }

  /** The folders followed now, by case. */
  following(): Map<string, string[]> {
    return new Map([...this.followed].map(([id, f]) => [id, [...f.folders]]));
  }

  /**
   * Follow these folders of a case (replacing what it followed) and catch up with them now.
   * `force`: followed even while the case's setting is off (`casefile watch`). Resolves once the
   * watchers are ready and the first catch-up is done.
   */
  async follow(caseId: string, folders: string[], opts: { force?: boolean } = {}): Promise<WatchSyncedEvent[]> {
    // A catch-up of the folders followed before ends first (watch.json is written by one at a time).
    const previous = this.followed.get(caseId)?.running;
    await this.unfollow(caseId);
    await previous?.catch(() => {});
    if (this.closed) return [];
    const allowed: string[] = [];
    for (const folder of folders.map((f) => path.resolve(f))) {
      if (await this.mayRead(folder)) allowed.push(folder);
      else this.ports.events.emit('watch.synced', { caseId, folder, added: [], changed: [], removed: [], restored: [], problem: 'this server may not read that folder (start it with --allow-path for it)' });
    }
    const entry: Followed = { folders: allowed, watchers: [], timer: undefined, running: undefined, dirty: false, forced: opts.force === true };
    this.followed.set(caseId, entry);
    await forgetFolders(this.ports.caseDir(caseId), entry.folders).catch(() => {});
    const stable = this.options.stableMs ?? 1000;
    for (const folder of entry.folders) {
      const watcher = watch(folder, {
        ignoreInitial: true,
        awaitWriteFinish: { stabilityThreshold: stable, pollInterval: Math.max(20, Math.min(100, stable / 4)) },
        // Dot files, Office lock files (~$…), Thumbs.db: a drop would skip them too.
        ignored: (p: string) => p !== folder && isJunk(path.basename(p), false),
      });
      watcher.on('all', () => this.schedule(caseId));
      watcher.on('error', (err) => this.ports.events.emit('watch.synced', { caseId, folder, added: [], changed: [], removed: [], restored: [], problem: `the folder cannot be watched: ${(err as Error).message}` }));
      entry.watchers.push(watcher);
      await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
    }
    return this.syncNow(caseId);
  }

  /**
   * Stop following a case's folders (its setting is unchanged). A catch-up under way is not waited
   * for: its ingest run is the ingest service's (cancelled and resumed like any run when the app
   * closes), and a catch-up that does not finish leaves watch.json as it was, to be done again.
   */
  async unfollow(caseId: string): Promise<void> {
    const entry = this.followed.get(caseId);
    if (!entry) return;
    this.followed.delete(caseId);
    clearTimeout(entry.timer);
    await Promise.all(entry.watchers.map((w) => w.close()));
  }

  private schedule(caseId: string): void {
    const entry = this.followed.get(caseId);
    if (!entry) return;
    clearTimeout(entry.timer);
    entry.timer = setTimeout(() => void this.syncNow(caseId), this.options.debounceMs ?? 1500);
  }

  /** Catch up with every folder of a followed case now; asked while a catch-up runs, that one runs once more and answers both. */
  async syncNow(caseId: string): Promise<WatchSyncedEvent[]> {
    const entry = this.followed.get(caseId);
    if (!entry) return [];
    if (entry.running) {
      entry.dirty = true;
      return entry.running;
    }
    const run = (async () => {
      const events: WatchSyncedEvent[] = [];
      do {
        entry.dirty = false;
        for (const folder of entry.folders) {
          const event = await syncFolder(this.ports, caseId, folder).catch((err: unknown): WatchSyncedEvent => ({ caseId, folder, added: [], changed: [], removed: [], restored: [], problem: (err as Error).message }));
          events.push(event);
          if (event.problem || event.added.length || event.changed.length || event.removed.length || event.restored.length) this.ports.events.emit('watch.synced', event);
        }
      } while (entry.dirty && this.followed.get(caseId) === entry);
      return events;
    })();
    entry.running = run;
    try {
      return await run;
    } finally {
      entry.running = undefined;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.offs.splice(0).forEach((off) => off());
    await Promise.all([...this.followed.keys()].map((id) => this.unfollow(id)));
  }
}
