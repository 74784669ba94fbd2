import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Engine } from '../../core/engine';
import type { WatchSyncedEvent } from '../../shared/events';
import { printable, UsageError, type CliIO, wireJson } from '../io';
import type { Parsed } from './cases';

/** What one catch-up did, a line a change (empty when nothing changed). */
function describe(e: WatchSyncedEvent): string[] {
  const lines = [
    ...e.added.map((n) => `added    ${n}`),
    ...e.changed.map((n) => `changed  ${n} (read again as a new version)`),
    ...e.removed.map((n) => `removed  ${n} (deleted from the folder; the stored copy is kept)`),
    ...e.restored.map((n) => `back     ${n} (in the folder again)`),
  ];
  if (e.problem) lines.push(`problem  ${e.folder}: ${e.problem}`);
  return lines;
}

/** Folders named on the command line: each must be a folder; answered as full paths. */
async function folderArgs(given: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const f of given) {
    const abs = path.resolve(f);
    if (!(await fs.stat(abs).catch(() => null))?.isDirectory())
      throw new UsageError(`watch: there is no folder at ${f}`);
    out.push(abs);
  }
  return out;
}

/**
 * `casefile watch <case> [<folder>...] [--on|--off] [--json]`: follow the case's folders (plus any
 * named, which are added to them) until Ctrl+C, printing what each catch-up picks up (--json: one
 * JSON object a catch-up). --on / --off only switch following on or off for the desktop app and
 * serve (and print the case's folders), without watching here.
 */
export async function watchCommand(engine: Engine, args: Parsed, io: CliIO): Promise<number> {
  const [caseRef, ...rest] = args.positionals;
  if (!caseRef) throw new UsageError('watch needs a <case>, then optionally the folders to follow');
  if (args.values.on === true && args.values.off === true) throw new UsageError('watch takes --on or --off, not both');
  const json = args.values.json === true;
  const target = await engine.cases.resolve(caseRef);
  const named = await folderArgs(rest);
  let summary = target.watch.folders.length || named.length ? target : null;
  if (named.length)
    summary = await engine.router.call('cases.setWatch', {
      case_id: target.id,
      folders: [...new Set([...target.watch.folders, ...named])],
    });
  if (args.values.on === true || args.values.off === true) {
    const changed = await engine.router.call('cases.setWatch', {
      case_id: target.id,
      enabled: args.values.on === true,
    });
    if (json) io.out(wireJson({ case_id: changed.id, watch: changed.watch }));
    else
      io.out(
        `${changed.watch.enabled ? 'Following' : 'Not following'} the folders of ${printable(changed.name)}: ${changed.watch.folders.map((f) => printable(f)).join(', ') || 'none'}`,
      );
    return 0;
  }
  if (!summary || summary.watch.folders.length === 0)
    throw new UsageError(`${target.name} follows no folder yet; name one: casefile watch <case> <folder>`);
  const folders = summary.watch.folders;
  const service = await engine.watchService();
  const off = engine.events.on('watch.synced', (e) => {
    if (e.case_id !== target.id) return;
    if (json) io.out(wireJson(e));
    else for (const line of describe(e)) io.out(line);
  });
  // Ctrl+C is heard from the start: it stops the first catch-up's walk and waits, and ends the
  // command; a second Ctrl+C ends the process at once, whatever is still closing.
  const abort = new AbortController();
  let stopRequested = () => {};
  const stopped = new Promise<void>((resolve) => (stopRequested = resolve));
  const stop = () => {
    if (abort.signal.aborted) process.exit(130);
    abort.abort();
    stopRequested();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  try {
    if (!json)
      io.err(
        `Following ${folders.length === 1 ? 'the folder' : `${folders.length} folders`} of ${target.name}: ${folders.join(', ')}\nCatching up with what changed; press Ctrl+C to stop.`,
      );
    await service.follow(target.id, folders, { force: true, signal: abort.signal });
    // A folder that cannot be followed (too large, refused by the system) was let go, its problem printed.
    if (!abort.signal.aborted && !service.following().has(target.id)) return 1;
    if (!json && !abort.signal.aborted) io.err('Up to date; watching for changes.');
    await stopped;
    await service.unfollow(target.id);
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    off();
  }
  return 0;
}
