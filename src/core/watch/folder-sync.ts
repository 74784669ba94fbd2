/**
 * One catch-up of one followed folder against the last (`<case>/watch.json`: each file's size and
 * mtime): only new and changed files are ingested (a changed one becomes a new version); files gone
 * are marked removed, their copies kept. A missing folder (a drive unplugged) marks nothing and is
 * caught up with when back. The folder is resolved to its real path at every catch-up, so a folder
 * swapped for a link cannot lead a server out of its scope.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { IngestRunResult } from '../../shared/contract/ingest';
import type { WatchSyncedEvent } from '../../shared/events';
import { readJson, writeJsonAtomic } from '../util/fs';
import { walkPaths, type WalkBounds, type WalkResult } from '../util/walk';

export const WATCH_FILE = 'watch.json';

type Seen = Record<string, { size: number; mtimeMs: number }>;
interface WatchState {
  schemaVersion: 1;
  folders: Record<string, { files: Seen }>;
}

/** What a catch-up needs: the case's folder, and ingest's two doors. */
export interface FolderSyncPorts {
  caseDir(caseId: string): string;
  /** Read the folder as a drop of it would, or only its files `names` (named as that drop names them); waits for the run. */
  ingest(caseId: string, folder: string, names?: string[]): Promise<IngestRunResult>;
  /** The case's own files (not those taken out of others): name → size of the latest version. */
  caseFileSizes(caseId: string): Promise<Map<string, number>>;
  /** Mark top-level files as deleted from the folder (`at`), or back in it (null); answers the names changed. */
  markSourceRemoved(caseId: string, names: string[], at: string | null): Promise<string[]>;
}

async function readState(caseDir: string): Promise<WatchState> {
  const raw = (await readJson(path.join(caseDir, WATCH_FILE)).catch(() => undefined)) as WatchState | undefined;
  return raw?.schemaVersion === 1 && raw.folders && typeof raw.folders === 'object'
    ? raw
    : { schemaVersion: 1, folders: {} };
}

/** What one catch-up may use besides the ports: the scope (real paths), a stop, the walk's bounds. */
export interface SyncOptions {
  mayRead?: (realPath: string) => Promise<boolean>;
  signal?: AbortSignal;
  bounds?: WalkBounds;
}

/** A catch-up's event; `unfollowable` when the folder went past the bounds and must not be followed. */
export type SyncOutcome = WatchSyncedEvent & { unfollowable?: true };

/** Why a walked folder cannot be followed (it went past the walk's bounds), or null. */
export function tooLargeToFollow(walked: WalkResult): string | null {
  return walked.truncated
    ? `the folder is too large to follow: ${walked.truncated}. Follow a smaller folder inside it, or add its files by dropping them`
    : null;
}

/**
 * The folder's files now (as a drop of it would name them), with size and modification time; null
 * when it cannot be read; `tooLarge` says why when it goes past the walk's bounds.
 */
async function scan(folder: string, opts: SyncOptions): Promise<{ seen: Seen; tooLarge: string | null } | null> {
  const st = await fs.stat(folder).catch(() => null);
  if (!st?.isDirectory()) return null;
  const walked = await walkPaths([folder], opts.signal, {}, opts.bounds);
  const seen: Seen = {};
  for (const f of walked.files) {
    const s = await fs.stat(f.absPath).catch(() => null);
    if (s) seen[f.name] = { size: s.size, mtimeMs: Math.round(s.mtimeMs) };
  }
  return { seen, tooLarge: tooLargeToFollow(walked) };
}

/** Added and changed names from an ingest run's results (a first version is added, a later one changed). */
function fromResults(run: IngestRunResult): { added: string[]; changed: string[] } {
  const added: string[] = [];
  const changed: string[] = [];
  for (const r of run.results) {
    if (r.status === 'unchanged' || r.status === 'skipped') continue;
    (r.version === 1 ? added : changed).push(r.name);
  }
  return { added, changed };
}

/** Whether the folder holds a file the case does not have at that size (the case's copy is as the folder's, else). */
async function differsFromCase(ports: FolderSyncPorts, caseId: string, now: Seen): Promise<boolean> {
  const sizes = await ports.caseFileSizes(caseId);
  return Object.entries(now).some(([name, s]) => sizes.get(name) !== s.size);
}

/** Catch up with one folder of a case; the event says what happened (empty lists: nothing did). */
export async function syncFolder(
  ports: FolderSyncPorts,
  caseId: string,
  folder: string,
  opts: SyncOptions = {},
): Promise<SyncOutcome> {
  const event: SyncOutcome = { case_id: caseId, folder, added: [], changed: [], removed: [], restored: [] };
  const caseDir = ports.caseDir(caseId);
  const missing = {
    ...event,
    problem: 'the folder is missing or cannot be read (nothing was marked; it is caught up with once it is back)',
  };
  const real = await fs.realpath(folder).catch(() => null);
  if (real === null) return missing;
  if (opts.mayRead && !(await opts.mayRead(real))) {
    return {
      ...event,
      problem:
        'the folder now leads outside the folders this server may read (it was moved or replaced by a link); nothing was read from it',
    };
  }
  const scanned = await scan(real, opts);
  if (!scanned) return missing;
  if (scanned.tooLarge) return { ...event, unfollowable: true, problem: scanned.tooLarge };
  const now = scanned.seen;
  const state = await readState(caseDir);
  const before = state.folders[folder]?.files;
  // Since the last catch-up: the files new or changed (size or time). First catch-up of a folder
  // (just dropped, or just followed): all of it, unless the case already holds each file as it is.
  const toRead = before
    ? Object.keys(now).filter(
        (name) => before[name]?.size !== now[name]!.size || before[name]?.mtimeMs !== now[name]!.mtimeMs,
      )
    : undefined;
  if (toRead ? toRead.length > 0 : await differsFromCase(ports, caseId, now)) {
    let run: IngestRunResult;
    try {
      // Through the real path just judged, so a link swapped in from now on is not followed.
      run = await ports.ingest(caseId, real, toRead);
    } catch (err) {
      return { ...event, problem: `the new and changed files could not be added: ${(err as Error).message}` };
    }
    if (run.state === 'cancelled')
      return {
        ...event,
        problem: 'adding the new and changed files was cancelled; they are added at the next change or start',
      };
    const { added, changed } = fromResults(run);
    event.added = added;
    event.changed = changed;
  }
  const gone = Object.keys(before ?? {}).filter((name) => !(name in now));
  event.removed = await ports.markSourceRemoved(caseId, gone, new Date().toISOString());
  // Back in the folder: a file that was not there at the last catch-up.
  event.restored = await ports.markSourceRemoved(
    caseId,
    before ? Object.keys(now).filter((name) => !(name in before)) : Object.keys(now),
    null,
  );
  // Written again only after success: a failed catch-up is tried again from the same state.
  const latest = await readState(caseDir);
  latest.folders[folder] = { files: now };
  await writeJsonAtomic(path.join(caseDir, WATCH_FILE), latest);
  return event;
}

/** Forget a folder the case no longer follows. */
export async function forgetFolders(caseDir: string, keep: string[]): Promise<void> {
  const state = await readState(caseDir);
  const kept = Object.fromEntries(Object.entries(state.folders).filter(([f]) => keep.includes(f)));
  if (Object.keys(kept).length === Object.keys(state.folders).length) return;
  await writeJsonAtomic(path.join(caseDir, WATCH_FILE), { ...state, folders: kept });
}
