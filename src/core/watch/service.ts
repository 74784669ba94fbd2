/**
 * Watched folders: a case can follow the folders it was made from (case.json `settings.watch`).
 * A chokidar watcher reports changes; each case's are debounced and caught up with (`folder-sync.ts`)
 * one case at a time. Links are not followed and depth and entries are bounded, because a followed
 * tree is hostile ground; a folder that cannot be followed switches following off with the reason
 * saved, so it is not tried again at every start.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import type { CaseSummary } from '../../shared/contract/cases';
import type { WatchSyncedEvent } from '../../shared/events';
import type { EventBus } from '../bus';
import { isJunk, MAX_WALK_DEPTH, walkPaths, type WalkBounds } from '../util/walk';
import { forgetFolders, syncFolder, tooLargeToFollow, type FolderSyncPorts, type SyncOutcome } from './folder-sync';

export interface WatchPorts extends FolderSyncPorts {
  readonly events: Pick<EventBus, 'emit' | 'on'>;
  /** The cases, with their watch settings. */
  listCases(): Promise<CaseSummary[]>;
  getCase(caseId: string): Promise<CaseSummary>;
  /** Switch following off for a case whose folders cannot be followed, saving why (`cases.setWatch`'s `problem`). */
  switchOff(caseId: string, problem: string): Promise<void>;
}

export interface WatchOptions {
  /** Quiet time after the last change before a case is caught up with (default 1500 ms). */
  debounceMs?: number;
  /** A file counts as written once its size has not changed for this long (chokidar's awaitWriteFinish; default 1000 ms). */
  stableMs?: number;
  /** How much of a folder may be followed (the walk's defaults otherwise). */
  bounds?: WalkBounds;
}

interface Followed {
  folders: string[];
  watchers: FSWatcher[];
  /** Aborted when the case is let go: the catch-up's walk and any wait end with it. */
  stop: AbortController;
  timer: NodeJS.Timeout | undefined;
  running: Promise<WatchSyncedEvent[]> | undefined;
  dirty: boolean;
  /** Followed whatever the case's setting says (`casefile watch`). */
  forced: boolean;
}

/** What `work` resolves to, or undefined as soon as `signal` is aborted. */
function untilStopped<T>(work: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise<T | undefined>((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

export class WatchService {
  private readonly followed = new Map<string, Followed>();
  private readonly offs: Array<() => void> = [];
  private closed = false;
  /** Which folders this process may read (serve mode: its uploads and --allow-path folders), judged on their real path; all by default. */
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
      this.offs.push(
        this.ports.events.on('cases.changed', ({ case_id: caseId, kind }) => void this.onCaseChanged(caseId, kind)),
      );
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
   * watchers are ready and the first catch-up is done, or as soon as `signal` is aborted.
   */
  async follow(
    caseId: string,
    folders: string[],
    opts: { force?: boolean; signal?: AbortSignal } = {},
  ): Promise<WatchSyncedEvent[]> {
    // A catch-up of the folders followed before ends first (watch.json is written by one at a time).
    const previous = this.followed.get(caseId)?.running;
    await this.unfollow(caseId);
    await previous?.catch(() => {});
    if (this.closed || opts.signal?.aborted) return [];
    const allowed: string[] = [];
    for (const folder of folders.map((f) => path.resolve(f))) {
      if (await this.mayRead(await fs.realpath(folder).catch(() => folder))) allowed.push(folder);
      else this.problem(caseId, folder, 'this server may not read that folder (start it with --allow-path for it)');
    }
    const entry: Followed = {
      folders: allowed,
      watchers: [],
      stop: new AbortController(),
      timer: undefined,
      running: undefined,
      dirty: false,
      forced: opts.force === true,
    };
    const onAbort = () => void this.unfollow(caseId, entry);
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    this.followed.set(caseId, entry);
    try {
      await forgetFolders(this.ports.caseDir(caseId), entry.folders).catch(() => {});
      for (const folder of entry.folders) {
        // Walked first within the bounds: a tree too large is never handed to the watcher.
        const refused = await this.unfollowable(folder, entry.stop.signal);
        if (entry.stop.signal.aborted) return [];
        if (refused) return await this.giveUp(caseId, entry, folder, refused);
        const watcher = this.watchFolder(caseId, entry, await fs.realpath(folder).catch(() => folder));
        await untilStopped(new Promise<void>((resolve) => watcher.once('ready', () => resolve())), entry.stop.signal);
        if (entry.stop.signal.aborted) return [];
      }
      // Let go while catching up: the ingest it started is the ingest service's (closing cancels it, the next start resumes it).
      return (await untilStopped(this.syncNow(caseId), entry.stop.signal)) ?? [];
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Why a folder cannot be followed (it goes past the walk's bounds), or null; a missing folder can (each catch-up reports it). */
  private async unfollowable(folder: string, signal: AbortSignal): Promise<string | null> {
    if (!(await fs.stat(folder).catch(() => null))?.isDirectory()) return null;
    const walked = await walkPaths([folder], signal, {}, this.options.bounds).catch(() => null);
    return walked ? tooLargeToFollow(walked) : null;
  }

  /** The watcher of one folder (given by its real path): links not followed, no deeper than a walk goes. */
  private watchFolder(caseId: string, entry: Followed, folder: string): FSWatcher {
    const stable = this.options.stableMs ?? 1000;
    const watcher = watch(folder, {
      ignoreInitial: true,
      followSymlinks: false,
      // An unreadable subfolder is the walk's to report (as skipped), not a reason to stop following.
      ignorePermissionErrors: true,
      depth: this.options.bounds?.maxDepth ?? MAX_WALK_DEPTH,
      awaitWriteFinish: { stabilityThreshold: stable, pollInterval: Math.max(20, Math.min(100, stable / 4)) },
      // Dot files, Office lock files (~$…), Thumbs.db: a drop would skip them too.
      ignored: (p: string) => p !== folder && isJunk(path.basename(p), false),
    });
    watcher.on('all', () => this.schedule(caseId));
    // The system refused to watch (too many folders for its limit, no permission): say so and stop trying.
    watcher.on(
      'error',
      (err) => void this.giveUp(caseId, entry, folder, `the system would not watch it (${(err as Error).message})`),
    );
    entry.watchers.push(watcher);
    return watcher;
  }

  private problem(caseId: string, folder: string, problem: string): WatchSyncedEvent {
    const event: WatchSyncedEvent = {
      case_id: caseId,
      folder,
      added: [],
      changed: [],
      removed: [],
      restored: [],
      problem,
    };
    this.ports.events.emit('watch.synced', event);
    return event;
  }

  /** A folder that cannot be followed: the case is let go and its following switched off, with why. */
  private async giveUp(caseId: string, entry: Followed, folder: string, why: string): Promise<WatchSyncedEvent[]> {
    if (this.followed.get(caseId) !== entry) return [];
    const problem = `${why}. Following was switched off; switch it on again once the folder is fixed.`;
    await this.unfollow(caseId, entry);
    await this.ports.switchOff(caseId, `${folder}: ${problem}`).catch(() => {});
    return [this.problem(caseId, folder, problem)];
  }

  /**
   * Stop following a case's folders (its setting is unchanged). A catch-up under way is not waited
   * for: its ingest run is the ingest service's (cancelled and resumed like any run when the app
   * closes), and a catch-up that does not finish leaves watch.json as it was, to be done again.
   */
  async unfollow(caseId: string, only?: Followed): Promise<void> {
    const entry = this.followed.get(caseId);
    if (!entry || (only && entry !== only)) return;
    this.followed.delete(caseId);
    clearTimeout(entry.timer);
    entry.stop.abort();
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
          if (entry.stop.signal.aborted) break;
          let event: SyncOutcome;
          try {
            event = await syncFolder(this.ports, caseId, folder, {
              mayRead: this.mayRead,
              signal: entry.stop.signal,
              bounds: this.options.bounds,
            });
          } catch (err) {
            if (entry.stop.signal.aborted) break;
            event = {
              case_id: caseId,
              folder,
              added: [],
              changed: [],
              removed: [],
              restored: [],
              problem: (err as Error).message,
            };
          }
          events.push(event);
          if (event.unfollowable) {
            delete event.unfollowable;
            return [...events.slice(0, -1), ...(await this.giveUp(caseId, entry, folder, event.problem!))];
          }
          if (
            event.problem ||
            event.added.length ||
            event.changed.length ||
            event.removed.length ||
            event.restored.length
          )
            this.ports.events.emit('watch.synced', event);
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
